package parquet

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pqparquet "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// TestSBBFAgreesWithArrow checks the hand-written split-block check on
// filters arrow-go builds: every inserted value is found, and absent values
// are found about as rarely as the filter's false-positive rate.
func TestSBBFAgreesWithArrow(t *testing.T) {
	for _, n := range []int{10, 1000, 20000} {
		bf := metadata.NewBloomFilterFromNDVAndFPP(uint32(n), 0.01, 64<<10, memory.DefaultAllocator)
		in := map[int64]bool{}
		r := rand.New(rand.NewPCG(1, uint64(n)))
		for len(in) < n {
			v := r.Int64N(1 << 40)
			in[v] = true
			bf.InsertHash(metadata.GetHash(bf.Hasher(), v))
		}
		var buf bytes.Buffer // the bitset (a file puts the header before it)
		if _, err := bf.WriteTo(&buf, nil); err != nil {
			t.Fatal(err)
		}
		bits := buf.Bytes()
		if int64(len(bits)) != bf.Size() {
			t.Fatalf("n=%d: bitset of %d bytes, arrow says %d", n, len(bits), bf.Size())
		}
		stats := &bloomStats{filters: map[string]*bloomFilter{"k": memBloom(bits)}}
		for v := range in {
			if !stats.MayContainInt("k", v) {
				t.Fatalf("n=%d: inserted %d not found", n, v)
			}
		}
		fp := 0
		for i := 0; i < 10000; i++ {
			v := -1 - r.Int64N(1<<40) // never inserted
			if stats.MayContainInt("k", v) {
				fp++
			}
		}
		if fp > 300 {
			t.Errorf("n=%d: %d of 10000 absent values reported present, want about 1%%", n, fp)
		}
	}
}

// TestParseBloomHeader: a BloomFilterHeader in Thrift's compact protocol
// (numBytes 32; BLOCK, XXHASH, UNCOMPRESSED as empty structs) and the
// bitset after it.
func TestParseBloomHeader(t *testing.T) {
	header := []byte{0x15, 0x40, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}
	bitset := bytes.Repeat([]byte{0xa5}, 32)
	bits, err := parseBloom(append(append(header, bitset...), 0xff))
	if err != nil || !bytes.Equal(bits, bitset) {
		t.Fatalf("parseBloom: %x %v, want the 32 bytes after the header", bits, err)
	}
	for _, bad := range [][]byte{
		{0x15, 0x40, 0},                           // no algorithm, hash, compression
		append(slices.Clone(header), 1, 2),        // bitset shorter than numBytes
		append([]byte{0x15, 0x3e}, header[2:]...), // 31 bytes: not whole blocks
		// a hash other than XXHASH (union member 2): its bits would be
		// checked against the wrong hash and prove keys absent that are not
		append([]byte{0x15, 0x40, 0x1c, 0x1c, 0, 0, 0x1c, 0x2c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, bitset...),
		// a compressed bitset (compression member 2)
		append([]byte{0x15, 0x40, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x2c, 0, 0, 0}, bitset...),
		// the algorithm twice and no hash
		append([]byte{0x15, 0x40, 0x1c, 0x1c, 0, 0, 0x0c, 0x04, 0x1c, 0, 0, 0x2c, 0x1c, 0, 0, 0}, bitset...),
		// an empty algorithm union (no BLOCK)
		append([]byte{0x15, 0x40, 0x1c, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, bitset...),
	} {
		if _, err := parseBloom(bad); err == nil {
			t.Errorf("parseBloom(%x) accepted", bad)
		}
	}
}

// TestBloomFiltersTrimTaxonKeys: the writer puts a filter on every non-null
// taxon key column chunk; a scan finds every key a row group holds and
// leaves out the columns that do not hold a TAXON_KEY predicate's key,
// where min/max statistics cannot (genus and species keys share a range).
func TestBloomFiltersTrimTaxonKeys(t *testing.T) {
	s := openTest(t, Config{RowGroupRows: 2000})
	occurrencetest.Load(t, s, 12000, 4)
	ctx := context.Background()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var species int64
	for _, sp := range snap.Splits {
		ref := sp.Ref.(splitRef)
		o, slot, err := s.file(ref.path)
		if err != nil {
			t.Fatal(err)
		}
		sc := &splitScan{ctx: ctx, file: o, rg: ref.rowGroup, rows: ref.rows, split: sp.Stats, path: ref.path}
		bs := sc.trimStats()
		for _, col := range []string{occurrence.ColSpeciesKey, occurrence.ColGenusKey, occurrence.ColTaxonKey} {
			if bits, err := sc.readBloom(col); err != nil || bits == nil {
				t.Fatalf("%s row group %d: no bloom filter on %s (%v)", ref.path, ref.rowGroup, col, err)
			}
			vals := columnInts(t, s, snap, sp, col)
			for _, v := range vals {
				if !bs.MayContainInt(col, v) {
					t.Fatalf("%s row group %d: %s %d is in the row group, the filter says absent", ref.path, ref.rowGroup, col, v)
				}
			}
			if col == occurrence.ColSpeciesKey && species == 0 && len(vals) > 0 {
				species = vals[0]
			}
		}
		s.unref(ref.path, slot)
	}
	pred := mustPred(t, `{"type":"equals","key":"TAXON_KEY","value":"`+itoa(species)+`"}`)
	n, st, err := occurrence.Count(ctx, s, snap, pred, occurrence.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// In every split at least the genus key column is left out (a species
	// key is no genus key), and the species' own columns never are.
	if n == 0 || st.ColumnsTrimmed < int64(len(snap.Splits)) {
		t.Fatalf("TAXON_KEY=%d: %d records, %d columns trimmed over %d splits", species, n, st.ColumnsTrimmed, len(snap.Splits))
	}
	t.Logf("TAXON_KEY=%d: %d records, %d predicate columns left unread over %d splits", species, n, st.ColumnsTrimmed, len(snap.Splits))
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// columnInts reads the non-null values of an int64 column of one split.
func columnInts(t *testing.T, s *Store, snap occurrence.Snapshot, sp occurrence.Split, col string) []int64 {
	t.Helper()
	var out []int64
	_, err := s.ScanSplit(context.Background(), sp, occurrence.ScanRequest{Columns: []string{col}}, func(b arrow.RecordBatch) error {
		a := b.Column(0).(*array.Int64)
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) {
				out = append(out, a.Value(i))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzParseBloom: any bytes give an error or a bitset of whole blocks
// inside the input, never a panic.
func FuzzParseBloom(f *testing.F) {
	f.Add(append([]byte{0x15, 0x40, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0x1c, 0x1c, 0, 0, 0}, make([]byte, 32)...))
	f.Add([]byte{0x15, 0x40, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		bits, err := parseBloom(b)
		if err != nil {
			return
		}
		if len(bits) == 0 || len(bits)%32 != 0 || len(bits) > len(b) {
			t.Fatalf("bitset of %d bytes from %d", len(bits), len(b))
		}
		(&bloomStats{filters: map[string]*bloomFilter{"k": memBloom(bits)}}).MayContainInt("k", 42)
	})
}

// TestBloomOfAnotherTypeProvesNothing: a filter hashes a value's plain
// encoding, four bytes for an INT32 chunk, where MayContainInt hashes an
// int64's eight; a key column written as INT32 (another writer, another
// schema) must not have its filter read, or it proves present keys absent.
func TestBloomOfAnotherTypeProvesNothing(t *testing.T) {
	const col, n = occurrence.ColSpeciesKey, 1000
	b := array.NewInt32Builder(memory.DefaultAllocator)
	for i := range n {
		b.Append(int32(i * 7919))
	}
	bs := oneColumnFile(t, col, b.NewArray(), pqparquet.NewWriterProperties(
		pqparquet.WithBloomFilterEnabledFor(col, true), pqparquet.WithMaxBloomFilterBytes(maxBloomBytes)))
	for i := range n {
		if !bs.MayContainInt(col, int64(i*7919)) {
			t.Fatalf("%d is in the INT32 column, its filter read as int64 says absent", i*7919)
		}
	}
}

// TestBloomAfterDictionaryFallback: with the table's writer properties a
// key column chunk of more distinct keys than its dictionary page holds
// (dictPageLimit: 4,096 int64s, fewer than a row group's species) goes on
// in PLAIN pages, from its start or after dictionary-encoded pages; its
// filter must hold the keys of every page.
func TestBloomAfterDictionaryFallback(t *testing.T) {
	const col = occurrence.ColTaxonKey
	for _, tc := range []struct {
		name     string
		few      int // leading rows of 100 keys, dictionary-encoded pages
		pageSize int
		dict     bool // whether a dictionary page is written before the fallback
	}{
		{"from the start", 0, 64 << 10, false},
		{"after dictionary pages", 20000, 1 << 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := array.NewInt64Builder(memory.DefaultAllocator)
			var keys []int64
			r := rand.New(rand.NewPCG(7, 8))
			for i := range tc.few + 10000 {
				k := int64(r.Uint32()) // about 10,000 distinct keys, within maxBloomBytes at 1%
				if i < tc.few {
					k = int64(i % 100)
				}
				if i%97 == 0 {
					b.AppendNull()
					continue
				}
				b.Append(k)
				keys = append(keys, k)
			}
			bs := oneColumnFile(t, col, b.NewArray(), writerProps(tc.pageSize, nil))
			rdr, err := file.OpenParquetFile(bs.sc.path, false)
			if err != nil {
				t.Fatal(err)
			}
			defer rdr.Close()
			cm, err := rdr.MetaData().RowGroup(0).ColumnChunk(0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(cm.Encodings(), pqparquet.Encodings.Plain) || (cm.DictionaryPageOffset() > 0) != tc.dict {
				t.Fatalf("encodings %v, dictionary at %d: not the fallback this case is about", cm.Encodings(), cm.DictionaryPageOffset())
			}
			for _, k := range keys {
				if !bs.MayContainInt(col, k) {
					t.Fatalf("key %d is in the chunk, its filter says absent", k)
				}
			}
			absent := 0
			for range 10000 {
				if !bs.MayContainInt(col, -1-r.Int64N(1<<40)) {
					absent++
				}
			}
			if absent < 9000 { // a filter that proves nothing would pass the loop above
				t.Errorf("%d of 10000 keys never written proved absent, want about 98%%", absent)
			}
		})
	}
}

// oneColumnFile writes a as the only column, named col, of a Parquet file
// with props, and returns the statistics of its first row group as a scan
// sees them.
func oneColumnFile(t *testing.T, col string, a arrow.Array, props *pqparquet.WriterProperties) *bloomStats {
	t.Helper()
	defer a.Release()
	path := filepath.Join(t.TempDir(), "one.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: col, Type: a.DataType(), Nullable: true}}, nil)
	fw, err := pqarrow.NewFileWriter(sc, f, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		t.Fatal(err)
	}
	rec := array.NewRecordBatch(sc, []arrow.Array{a}, int64(a.Len()))
	defer rec.Release()
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	st, err := r.Stat()
	if err != nil {
		t.Fatal(err)
	}
	foot, err := readFooter(r, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if len(foot.rowGroups) != 1 || foot.rowGroups[0].chunks[foot.byName[col]].bloomAt <= 0 {
		t.Fatalf("%d row groups, want one with a bloom filter on %s", len(foot.rowGroups), col)
	}
	return (&splitScan{file: &openFile{f: r, size: st.Size(), foot: foot}, path: path}).trimStats()
}

// memBloom is a bitset in memory as a file's filter.
func memBloom(bits []byte) *bloomFilter {
	return &bloomFilter{r: bytes.NewReader(bits), blocks: uint64(len(bits) / 32)}
}
