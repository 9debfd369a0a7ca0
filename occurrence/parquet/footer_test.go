package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// storeFiles writes a small table through the store (every column kind,
// list columns included, several row groups per file) and returns its
// Parquet files.
func storeFiles(t *testing.T) []string {
	t.Helper()
	s := openTest(t, Config{RowGroupRows: 700, FileRowGroups: 2})
	occurrencetest.Load(t, s, 3000, 2)
	files, err := filepath.Glob(filepath.Join(s.dir, "data", "*", "*", "*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Parquet files written (%v)", err)
	}
	return files
}

// TestFooterAgreesWithArrow parses the store's files with readFooter and
// with arrow-go's metadata reader and compares every field a scan uses.
func TestFooterAgreesWithArrow(t *testing.T) {
	for _, path := range storeFiles(t) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, _ := f.Stat()
		foot, err := readFooter(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		compareFooter(t, foot, f)
	}
}

// TestFooterLevelsOfNestedColumns checks the schema walk on lists and
// structs (the store writes none, other writers do) against arrow-go.
func TestFooterLevelsOfNestedColumns(t *testing.T) {
	lt := arrow.ListOf(arrow.BinaryTypes.String)
	st := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "y", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: false})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int32},
		{Name: "tags", Type: lt, Nullable: true},
		{Name: "s", Type: st, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
	}, // a footer longer than the first read of readFooter
		func() *arrow.Metadata {
			m := arrow.NewMetadata([]string{"note"}, []string{strings.Repeat("n", 40<<10)})
			return &m
		}())
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range 10 {
		b.Field(0).(*array.Int32Builder).Append(int32(i))
		b.Field(1).(*array.ListBuilder).Append(true)
		b.Field(1).(*array.ListBuilder).ValueBuilder().(*array.StringBuilder).Append("t")
		sb := b.Field(2).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(i))
		sb.FieldBuilder(1).(*array.ListBuilder).Append(true)
		sb.FieldBuilder(1).(*array.ListBuilder).ValueBuilder().(*array.Int64Builder).Append(int64(i))
		b.Field(3).(*array.StringBuilder).Append("v")
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &buf, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(buf.Bytes())
	if n := binary.LittleEndian.Uint32(buf.Bytes()[buf.Len()-8:]); n < 32<<10 {
		t.Fatalf("footer of %d bytes: the test wants one past the first read", n)
	}
	foot, err := readFooter(r, r.Size())
	if err != nil {
		t.Fatal(err)
	}
	if len(foot.leaves) != 5 {
		t.Fatalf("%d leaves, want 5 (a, tags, s.x, s.y, b)", len(foot.leaves))
	}
	compareFooter(t, foot, r)
	if foot.leaves[1].maxRep != 1 || foot.leaves[3].maxRep != 1 || foot.leaves[2].maxRep != 0 {
		t.Fatalf("repetition levels %+v", foot.leaves)
	}
}

// compareFooter compares every field of foot a scan uses with arrow-go's
// metadata of the same file.
func compareFooter(t *testing.T, foot *footer, f parquet.ReaderAtSeeker) {
	t.Helper()
	{
		rdr, err := file.NewParquetReader(f)
		if err != nil {
			t.Fatal(err)
		}
		md := rdr.MetaData()
		schema := md.Schema
		if len(foot.leaves) != schema.NumColumns() {
			t.Fatalf("%d leaves, arrow-go %d", len(foot.leaves), schema.NumColumns())
		}
		for i, l := range foot.leaves {
			c := schema.Column(i)
			if l.path != c.ColumnPath().String() || l.maxDef != c.MaxDefinitionLevel() || l.maxRep != c.MaxRepetitionLevel() {
				t.Fatalf("leaf %d: %+v, arrow-go %s def %d rep %d", i, l, c.ColumnPath(), c.MaxDefinitionLevel(), c.MaxRepetitionLevel())
			}
			if foot.byName[l.path] != i {
				t.Fatalf("byName[%q] = %d, want %d", l.path, foot.byName[l.path], i)
			}
		}
		if len(foot.rowGroups) != md.NumRowGroups() || len(foot.rowGroups) < 1 {
			t.Fatalf("%d row groups, arrow-go %d", len(foot.rowGroups), md.NumRowGroups())
		}
		for rg, g := range foot.rowGroups {
			rgm := md.RowGroup(rg)
			if g.rows != rgm.NumRows() {
				t.Fatalf("row group %d: %d rows, arrow-go %d", rg, g.rows, rgm.NumRows())
			}
			for k, c := range g.chunks {
				cm, err := rgm.ColumnChunk(k)
				if err != nil {
					t.Fatal(err)
				}
				var oiAt int64
				var oiLen int32
				if loc := cm.GetOffsetIndexLocation(); loc != nil {
					oiAt, oiLen = loc.Offset, loc.Length
				}
				if c.codec != int32(cm.Compression()) || c.numValues != cm.NumValues() || c.size != cm.TotalCompressedSize() ||
					c.dataAt != cm.DataPageOffset() || c.dictAt != cm.DictionaryPageOffset() || c.oiAt != oiAt || c.oiLen != oiLen {
					t.Fatalf("row group %d column %d: %+v; arrow-go codec %d values %d size %d data %d dict %d index %d+%d",
						rg, k, c, cm.Compression(), cm.NumValues(), cm.TotalCompressedSize(), cm.DataPageOffset(), cm.DictionaryPageOffset(), oiAt, oiLen)
				}

			}
		}
	}
}

// TestFooterRejectsBrokenFiles: a clear error wrapping errCorrupt, no panic.
func TestFooterRejectsBrokenFiles(t *testing.T) {
	good, err := os.ReadFile(storeFiles(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	n := len(good)
	setLen := func(b []byte, v uint32) []byte {
		b = bytes.Clone(b)
		b[len(b)-8], b[len(b)-7], b[len(b)-6], b[len(b)-5] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		return b
	}
	cases := map[string]struct {
		data []byte
		want string
	}{
		"short":           {[]byte("PAR1"), "too short"},
		"no magic":        {append(bytes.Clone(good[:n-4]), "XXXX"...), "no Parquet magic"},
		"encrypted":       {append(bytes.Clone(good[:n-4]), "PARE"...), "encrypted"},
		"length too long": {setLen(good, uint32(n)), "footer of"},
		"truncated meta":  {setLen(good, 3), "footer"},
	}
	for name, c := range cases {
		_, err := readFooter(bytes.NewReader(c.data), int64(len(c.data)))
		if err == nil || !errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an errCorrupt naming %q", name, err, c.want)
		}
	}
}

// seedFile writes a small table through the store and returns the bytes
// and footer of one of its files: real input for the fuzz tests.
func seedFile(tb testing.TB) ([]byte, *footer) {
	dir := tb.TempDir()
	s, err := Open(dir, Config{RowGroupRows: 300, FileRowGroups: 2}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	occurrencetest.Load(tb, s, 800, 1)
	files, _ := filepath.Glob(filepath.Join(dir, "data", "*", "*", "*.parquet"))
	if len(files) == 0 {
		tb.Fatal("no Parquet file written")
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		tb.Fatal(err)
	}
	foot, err := readFooter(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		tb.Fatal(err)
	}
	return data, foot
}

// footerSeeds returns a real footer, page headers and offset indexes.
func footerSeeds(f *testing.F) (footers, headers, indexes [][]byte) {
	data, foot := seedFile(f)
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	footers = append(footers, data[len(data)-8-n:len(data)-8])
	for _, c := range foot.rowGroups[0].chunks[:8] {
		start := c.dataAt
		if c.dictAt > 0 {
			start = c.dictAt
		}
		headers = append(headers, data[start:min(start+64, int64(len(data)))])
		indexes = append(indexes, data[c.oiAt:c.oiAt+int64(c.oiLen)])
	}
	return footers, headers, indexes
}

// FuzzFooter: arbitrary FileMetaData bytes give a footer or an errCorrupt,
// never a panic; a footer it accepts is consistent (chunks per leaf).
func FuzzFooter(f *testing.F) {
	footers, _, _ := footerSeeds(f)
	for _, b := range footers {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		foot, err := parseFooter(b)
		if err != nil {
			if !errors.Is(err, errCorrupt) {
				t.Fatalf("error of no known kind: %v", err)
			}
			return
		}
		for _, rg := range foot.rowGroups {
			if len(rg.chunks) != len(foot.leaves) {
				t.Fatalf("%d chunks for %d leaves", len(rg.chunks), len(foot.leaves))
			}
		}
	})
}

// FuzzPageHeader: arbitrary bytes give a header or an errThrift; an
// accepted header never claims negative sizes or more bytes than it read.
func FuzzPageHeader(f *testing.F) {
	_, headers, _ := footerSeeds(f)
	for _, b := range headers {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parsePageHeader(b)
		if err != nil {
			if !errors.Is(err, errThrift) {
				t.Fatalf("error of no known kind: %v", err)
			}
			return
		}
		if h.size <= 0 || h.size > len(b) || h.compressed < 0 || h.uncompressed < 0 || h.rows() < 0 {
			t.Fatalf("accepted header %+v from %d bytes", h, len(b))
		}
	})
}

// FuzzOffsetIndex: arbitrary bytes give page locations or an errThrift.
func FuzzOffsetIndex(f *testing.F) {
	_, _, indexes := footerSeeds(f)
	for _, b := range indexes {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := parseOffsetIndex(b); err != nil && !errors.Is(err, errThrift) {
			t.Fatalf("error of no known kind: %v", err)
		}
	})
}

// TestChunkPagesReportCorruptPages damages a page header and a page body of
// a real file: the scan reports the file, row group, column and offset.
func TestChunkPagesReportCorruptPages(t *testing.T) {
	path := storeFiles(t)[0]
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	foot, err := readFooter(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	leaf := foot.byName["countryCode"]
	c := foot.rowGroups[0].chunks[leaf]
	start := c.dataAt
	if c.dictAt > 0 {
		start = c.dictAt
	}
	// use opens the chunk over b and runs f on it.
	use := func(b []byte, f func(*chunkPages) error) error {
		pr, err := newChunkPages(-1, bytes.NewReader(b), int64(len(b)), c, "f.parquet row group 0 column countryCode")
		if err != nil {
			return err
		}
		defer pr.close()
		return f(pr)
	}
	readAll := func(b []byte) error {
		return use(b, func(pr *chunkPages) error {
			for {
				if _, err := pr.next(); err == io.EOF {
					return nil
				} else if err != nil {
					return err
				}
			}
		})
	}
	if err := readAll(data); err != nil {
		t.Fatalf("intact file: %v", err)
	}
	header := bytes.Clone(data)
	header[start] = 0xff // not a field header
	body := bytes.Clone(data)
	h, err := parsePageHeader(data[start:])
	if err != nil {
		t.Fatal(err)
	}
	for i := start + int64(h.size); i < start+int64(h.size)+int64(h.compressed); i++ {
		body[i] ^= 0x5a
	}
	index := bytes.Clone(data)
	for i := c.oiAt; i < c.oiAt+int64(c.oiLen); i++ {
		index[i] = 0xff
	}
	seekAll := func(b []byte) error {
		return use(b, func(pr *chunkPages) error {
			_, err := pr.seek(1)
			return err
		})
	}
	if err := seekAll(index); err == nil || !errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), "offset index") {
		t.Errorf("damaged offset index: %v, want an errCorrupt naming it", err)
	}
	for name, b := range map[string][]byte{"header": header, "body": body} {
		err := readAll(b)
		if err == nil || !errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), "f.parquet row group 0 column countryCode") {
			t.Errorf("damaged %s: %v, want an errCorrupt naming the chunk", name, err)
		}
	}
}

// smallFile writes a two-column Parquet file of small snappy pages with a
// page index (a few KiB: the fuzzer mutates it whole).
func smallFile(tb testing.TB) ([]byte, *footer) {
	cases := flatCases()[:2]
	batch, _ := flatBatch(cases, 600, 11)
	defer batch.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDataPageSize(512),
		parquet.WithPageIndexEnabled(true), parquet.WithDictionaryPageSizeLimit(1<<10))
	w, err := pqarrow.NewFileWriter(batch.Schema(), &buf, props, pqarrow.DefaultWriterProps())
	if err != nil {
		tb.Fatal(err)
	}
	if err := w.Write(batch); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	foot, err := readFooter(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes(), foot
}

// FuzzChunkPages reads the pages of an arbitrary column chunk, in order and
// by seeks: pages or an errCorrupt, never a panic or a read outside the
// chunk's bytes. Seeded with the chunks of a small file and their offset
// indexes.
func FuzzChunkPages(f *testing.F) {
	data, foot := smallFile(f)
	for k, c := range foot.rowGroups[0].chunks {
		f.Add(data, c.codec, c.dictAt, c.dataAt, c.size, c.oiAt, c.oiLen, int64(100*k+50))
	}
	f.Fuzz(func(t *testing.T, data []byte, codec int32, dictAt, dataAt, size, oiAt int64, oiLen int32, row int64) {
		m := chunkMeta{codec: codec % 2, dictAt: dictAt, dataAt: dataAt, size: size, oiAt: oiAt, oiLen: oiLen}
		check := func(err error) bool {
			if err != nil && err != io.EOF && !errors.Is(err, errCorrupt) {
				t.Fatalf("error of no known kind: %v", err)
			}
			return err == nil
		}
		pr, err := newChunkPages(-1, bytes.NewReader(data), int64(len(data)), m, "fuzz")
		if !check(err) {
			return
		}
		defer pr.close()
		for range 64 {
			p, err := pr.next()
			if !check(err) {
				break
			}
			if int64(len(p.data)) > int64(len(data))*maxSnappyRatio+maxPageBytes {
				t.Fatalf("page of %d bytes from %d", len(p.data), len(data))
			}
		}
		for _, r := range []int64{row, 0, row / 2} {
			if _, err := pr.seek(r); !check(err) {
				continue
			}
		}
		_, err = pr.dictionary()
		check(err)
	})
}
