package download

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

var stringDict = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// dictionaryEncoded returns rec with every string column dictionary-encoded
// (int32 indices over utf8), as a scan with Dictionaries hands them out.
func dictionaryEncoded(t testing.TB, rec arrow.RecordBatch) arrow.RecordBatch {
	t.Helper()
	fields := rec.Schema().Fields()
	cols := make([]arrow.Array, len(fields))
	for i := range fields {
		src, ok := rec.Column(i).(*array.String)
		if !ok {
			cols[i] = rec.Column(i)
			cols[i].Retain()
			continue
		}
		b := array.NewDictionaryBuilder(memory.DefaultAllocator, stringDict).(*array.BinaryDictionaryBuilder)
		for j := 0; j < src.Len(); j++ {
			if src.IsNull(j) {
				b.AppendNull()
			} else if err := b.AppendString(src.Value(j)); err != nil {
				t.Fatal(err)
			}
		}
		cols[i] = b.NewArray()
		b.Release()
		fields[i].Type = stringDict
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// exportBatches writes batches into an export of spec and returns the
// archive's entries.
func exportBatches(t testing.TB, spec ExportSpec, batches []arrow.RecordBatch) map[string]string {
	t.Helper()
	data, _ := exportRecords(t, spec, ExportOptions{Catalog: testSource()}, batches)
	return archiveContent(t, data)
}

func sameEntries(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Fatalf("no entry %s", name)
		}
		if g != w {
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Fatalf("entry %s differs at byte %d: %q, want %q", name, i, g[i:min(len(g), i+40)], w[i:min(len(w), i+40)])
		}
	}
}

// textSpecs are the formats that take dictionary columns, with field
// choices that include verbatim terms.
var textSpecs = []ExportSpec{
	{Format: FormatDWCA},
	{Format: FormatSimpleCSV},
	{Format: FormatSimpleCSV, Fields: []string{"gbifID", "locality", "habitat", "scientificName", "typeStatus", "datasetKey"}},
	{Format: FormatSpeciesList},
	{Format: FormatSimpleAvro},
	{Format: FormatSimpleAvro, Fields: []string{"gbifID", "locality", "habitat", "license", "typeStatus", "issue", "datasetKey"}},
}

// archiveContent is what a download holds, to compare two: a zip's
// entries, or an Avro file's schema and records as JSON lines (its sync
// marker is random, so its bytes differ from file to file).
func archiveContent(t testing.TB, data []byte) map[string]string {
	t.Helper()
	if !bytes.HasPrefix(data, []byte("Obj\x01")) {
		_, content := entries(t, data)
		return content
	}
	schema, rows := readAvro(t, data)
	var b strings.Builder
	for _, r := range append([]map[string]any{schema}, rows...) {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return map[string]string{"avro": b.String()}
}

// TestDictionaryBatchesWriteTheSame writes the test records (their
// localities carry tabs, line breaks of every kind, NUL, quotes and non-BMP
// characters) once plain and once with dictionary-encoded string columns,
// alternating the forms from batch to batch and slicing batches that share
// one dictionary: every entry must be byte-identical.
func TestDictionaryBatchesWriteTheSame(t *testing.T) {
	plain := testRecords(t, 1000)
	if len(plain) != 1 {
		t.Fatalf("%d batches, want the records in one", len(plain))
	}
	whole := plain[0]
	defer whole.Release()
	dict := dictionaryEncoded(t, whole)
	defer dict.Release()
	var plainParts, mixed []arrow.RecordBatch
	for k, off := 0, int64(0); off < whole.NumRows(); k, off = k+1, off+3 {
		end := min(off+3, whole.NumRows())
		plainParts = append(plainParts, whole.NewSlice(off, end))
		if k%3 == 2 {
			mixed = append(mixed, whole.NewSlice(off, end))
		} else {
			mixed = append(mixed, dict.NewSlice(off, end))
		}
	}
	defer func() {
		for _, b := range append(plainParts, mixed...) {
			b.Release()
		}
	}()
	for _, spec := range textSpecs {
		t.Run(string(spec.Format), func(t *testing.T) {
			want := exportBatches(t, spec, plainParts)
			sameEntries(t, exportBatches(t, spec, mixed), want)
			sameEntries(t, exportBatches(t, spec, []arrow.RecordBatch{dict}), want)
		})
	}
}

// TestDictTextCleansLikeCell formats dictionary entries that need the text
// rules (and some that do not) through dictText and through rowWriter.cell
// on a plain column: the bytes must be the same, null rows and null
// dictionary entries empty.
func TestDictTextCleansLikeCell(t *testing.T) {
	vals := append([]string{"plain", "ascii with spaces", "\xffbad\xfe utf8", "ok ünïcode", "a\u2028b\u2029c\u0085d"}, tricky...)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	defer sb.Release()
	for i, v := range vals {
		if i == 1 {
			sb.AppendNull()
		} else {
			sb.Append(v)
		}
	}
	dictVals := sb.NewStringArray()
	defer dictVals.Release()
	// Rows: every entry forwards, then backwards, with null rows between.
	var idx []int32
	var valid []bool
	for k := range vals {
		idx, valid = append(idx, int32(k)), append(valid, true)
	}
	for k := len(vals) - 1; k >= 0; k-- {
		idx, valid = append(idx, int32(k), 0), append(valid, true, false)
	}
	ib := array.NewInt32Builder(memory.DefaultAllocator)
	defer ib.Release()
	ib.AppendValues(idx, valid)
	indices := ib.NewInt32Array()
	defer indices.Release()
	d := array.NewDictionaryArray(stringDict, indices, dictVals)
	defer d.Release()
	plain := array.NewStringBuilder(memory.DefaultAllocator)
	defer plain.Release()
	for i := 0; i < d.Len(); i++ {
		if d.IsNull(i) || dictVals.IsNull(d.GetValueIndex(i)) {
			plain.AppendNull()
		} else {
			plain.Append(dictVals.Value(d.GetValueIndex(i)))
		}
	}
	pa := plain.NewStringArray()
	defer pa.Release()

	var dt dictText
	fn, ok := dictCellOf(&dt, d)
	if !ok {
		t.Fatal("dictText does not take an int32/utf8 dictionary")
	}
	pfn, err := cellFor(pa)
	if err != nil {
		t.Fatal(err)
	}
	// The dictionary's text is used as it is (cleaned once per entry); the
	// plain column's is cleaned in place as the export cleans formatted
	// cells.
	var gb, wb []byte
	for i := 0; i < d.Len(); i++ {
		if i > 0 {
			gb, wb = append(gb, '\t'), append(wb, '\t')
		}
		gb = fn(gb, i)
		start := len(wb)
		wb = dwca.CleanFrom(pfn(wb, i), start)
	}
	got, want := bytes.NewBuffer(append(gb, '\n')), bytes.NewBuffer(append(wb, '\n'))
	if got.String() != want.String() {
		t.Fatalf("dictionary row\n%q\nplain row\n%q", got.String(), want.String())
	}
	// tabs are counted below: only the separators may be left
	for _, bad := range []string{"\n", "\r", "\u2028", "\x00", "\xff"} {
		if bytes.Contains(bytes.TrimSuffix(got.Bytes(), []byte("\n")), []byte(bad)) {
			t.Fatalf("row keeps %q: %q", bad, got.String())
		}
	}
	if n := bytes.Count(got.Bytes(), []byte("\t")); n != d.Len()-1 {
		t.Fatalf("%d tabs in a row of %d cells", n, d.Len())
	}
	// A second batch over the same dictionary reuses its entries.
	src := dt.src
	if _, ok := dictCellOf(&dt, array.NewSlice(d, 2, 5)); !ok || dt.src != src {
		t.Fatal("a slice of the same dictionary rebuilt its entries")
	}
	if _, ok := dictCellOf(&dt, pa); ok {
		t.Fatal("dictText took a plain column")
	}
}

// TestScanExportWithDictionaries exports a Parquet table (generated records
// plus the test records with their tricky values, several row groups whose
// large string columns fall back from dictionary to plain pages) through
// scans with and without Dictionaries, and through WriteScan: every format's
// entries must be byte-identical. The memory of the columns a format
// names transient (ScanRequest.Transient: DWCA's JSON columns) is
// overwritten when their batch is released, so that a format reading them
// after Write returned would write corrupted rows here.
func TestScanExportWithDictionaries(t *testing.T) {
	defer parquet.SetRecyclePoison(parquet.SetRecyclePoison(true))
	ctx := context.Background()
	s, err := parquet.Open(t.TempDir(), parquet.Config{RowGroupRows: 1500, FileRowGroups: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	loadScanTable(t, s)
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// All but one dataset.
	pred, err := occurrence.ParsePredicateJSON([]byte(`{"type":"not","predicate":{"type":"equals","key":"DATASET_KEY","value":"`+
		testDatasets[1].key+`"}}`), occurrence.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range textSpecs {
		t.Run(string(spec.Format), func(t *testing.T) {
			spec.Predicate = pred
			spec.Created = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
			var archives [3]map[string]string
			dictBatches := 0
			for k := range archives {
				var buf bytes.Buffer
				x, err := NewExport(ctx, &buf, spec, ExportOptions{TempDir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				if k == 2 {
					if !x.acceptsDictionaries() {
						t.Fatalf("%s does not ask for dictionaries", spec.Format)
					}
					if _, _, err := x.WriteScan(ctx, s, snap, occurrence.ScanOptions{Workers: 2}, nil); err != nil {
						t.Fatal(err)
					}
				} else {
					req := occurrence.ScanRequest{Predicate: pred, Columns: x.Columns(), Dictionaries: k == 1}
					_, err := occurrence.Scan(ctx, s, snap, req, occurrence.ScanOptions{Workers: 2}, func(b arrow.RecordBatch) error {
						for _, f := range b.Schema().Fields() {
							if f.Type.ID() == arrow.DICTIONARY {
								dictBatches++
							}
						}
						return x.Write(ctx, b)
					})
					if err != nil {
						t.Fatal(err)
					}
					if _, err := x.Close(ctx); err != nil {
						t.Fatal(err)
					}
				}
				archives[k] = archiveContent(t, buf.Bytes())
			}
			if dictBatches == 0 {
				t.Fatal("the scan with Dictionaries delivered no dictionary column")
			}
			sameEntries(t, archives[1], archives[0])
			sameEntries(t, archives[2], archives[0])
			t.Logf("%d dictionary-encoded column batches", dictBatches)
		})
	}
}

// loadScanTable fills s with the test records, each standing for 400 with
// distinct identifiers and some distinct localities: long enough for the
// identifier column chunks' dictionaries to overflow into plain pages.
func loadScanTable(t *testing.T, s *parquet.Store) {
	t.Helper()
	ctx := context.Background()
	var w occurrence.DatasetWriter
	var key string
	commit := func() {
		if w != nil {
			if _, err := w.Commit(ctx, occurrence.LoadStats{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	id, occID, loc := occurrence.ColumnIndex(occurrence.ColGBIFID), occurrence.ColumnIndex(occurrence.ColOccurrenceID),
		occurrence.ColumnIndex(occurrence.ColLocality)
	eachTestRecord(func(ds testDataset, r *occurrence.Record) {
		if ds.key != key {
			commit()
			var err error
			if w, err = s.BeginDataset(ctx, occurrence.DatasetInfo{Key: ds.key, License: ds.license}); err != nil {
				t.Fatal(err)
			}
			key = ds.key
		}
		base, place := r.Get(id).I, r.Get(loc).S
		for j := 0; j < 400; j++ {
			n := strconv.FormatInt(base*1000+int64(j), 10)
			r.SetInt(id, base*1000+int64(j))
			r.SetString(occID, "urn:catalog:test-institution:test-collection:"+n)
			if j%3 == 0 {
				r.SetString(loc, place+" near site "+n)
			} else {
				r.SetString(loc, place)
			}
			if err := w.Append(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
	})
	commit()
}

// dictCellOf formats the rows of a dictionary column from the entries c
// gives (as rowPlan's cellDict cells do); ok is false where entries is.
func dictCellOf(c *dictText, a arrow.Array) (fn cellFn, ok bool) {
	idx, offs, data, ok := c.entries(a)
	if !ok {
		return nil, false
	}
	return func(dst []byte, i int) []byte {
		if a.IsNull(i) {
			return dst
		}
		k := idx[i]
		return append(dst, data[offs[k]:offs[k+1]]...)
	}, true
}
