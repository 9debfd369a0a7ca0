package parquet

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// cellOf is row i of a column as a comparable value: "null" or the value
// quoted, whatever the column's encoding.
func cellOf(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	if d, ok := a.(*array.Dictionary); ok {
		return cellOf(d.Dictionary(), d.GetValueIndex(i))
	}
	return fmt.Sprintf("%q", a.ValueStr(i))
}

// dictScan is a scan's result kept whole, with what it saw of the forms.
type dictScan struct {
	batches []arrow.RecordBatch
	rows    [][]string // cellOf of every column, row by row
	// dictBatches counts dictionary-encoded batches per column, dictNulls
	// those of them holding nulls.
	dictBatches, dictNulls map[string]int
}

func (d *dictScan) release() {
	for _, b := range d.batches {
		b.Release()
	}
}

// cells reads every retained batch again.
func (d *dictScan) cells() [][]string {
	var out [][]string
	for _, b := range d.batches {
		for i := 0; i < int(b.NumRows()); i++ {
			row := make([]string, b.NumCols())
			for c := range row {
				row[c] = cellOf(b.Column(c), i)
			}
			out = append(out, row)
		}
	}
	return out
}

// scanDicts scans the whole table with dicts set or not, retaining every
// batch, and checks each batch's schema against its arrays and the contract
// (dictionaries only for string columns, int32 indices over utf8).
func scanDicts(t *testing.T, s *Store, pred *occurrence.Predicate, cols []string, dicts bool) *dictScan {
	t.Helper()
	ctx := context.Background()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := &dictScan{dictBatches: map[string]int{}, dictNulls: map[string]int{}}
	req := occurrence.ScanRequest{Predicate: pred, Columns: cols, Dictionaries: dicts}
	_, err = occurrence.Scan(ctx, s, snap, req, occurrence.ScanOptions{Workers: 2}, func(b arrow.RecordBatch) error {
		for i, f := range b.Schema().Fields() {
			a := b.Column(i)
			if !arrow.TypeEqual(f.Type, a.DataType()) {
				return fmt.Errorf("column %s: schema says %s, array is %s", f.Name, f.Type, a.DataType())
			}
			if a.DataType().ID() != arrow.DICTIONARY {
				continue
			}
			c, _, _ := occurrence.ColumnByName(f.Name)
			if !dicts || !arrow.TypeEqual(c.Kind.ArrowType(), arrow.BinaryTypes.String) || !arrow.TypeEqual(a.DataType(), dictType) {
				return fmt.Errorf("column %s (dictionaries %v) arrived as %s", f.Name, dicts, a.DataType())
			}
			out.dictBatches[f.Name]++
			if a.NullN() > 0 {
				out.dictNulls[f.Name]++
			}
		}
		b.Retain()
		out.batches = append(out.batches, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out.rows = out.cells()
	return out
}

func sameRows(t *testing.T, what string, got, want [][]string, cols []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range want {
		for c := range want[i] {
			if got[i][c] != want[i][c] {
				t.Fatalf("%s: row %d column %s: %s, want %s", what, i, cols[c], got[i][c], want[i][c])
			}
		}
	}
}

// dictStore is a table of several row groups and files whose
// high-cardinality string columns outgrow a dictionary page
// (dictPageLimit): the writer writes them PLAIN, or, with
// Config.dictionaryFallback (dictStoreOf), starts them as dictionaries that
// fall back to PLAIN pages within their chunks.
func dictStore(t *testing.T) *Store { return dictStoreOf(t, Config{}) }

// dictStoreOf is dictStore with cfg's other settings.
func dictStoreOf(t *testing.T, cfg Config) *Store {
	cfg.RowGroupRows, cfg.FileRowGroups, cfg.DataPageBytes = 3000, 2, 8<<10
	s := openTest(t, cfg)
	occurrencetest.Load(t, s, 15000, 5)
	return s
}

// TestDictionariesPassThrough scans with and without Dictionaries and
// compares every value row by row, for predicates of varying selectivity
// (none, a string predicate column that is also returned, multi-value
// predicate columns, a selective one).
func TestDictionariesPassThrough(t *testing.T) {
	s := dictStore(t)
	strCols := []string{occurrence.ColGBIFID, occurrence.ColDatasetKey, occurrence.ColOccurrenceID, occurrence.ColCountryCode,
		occurrence.ColScientificName, occurrence.ColLocality, occurrence.ColStateProvince, occurrence.ColRecordedBy,
		occurrence.ColBasisOfRecord, occurrence.ColYear, occurrence.ColDecimalLatitude, occurrence.ColIssue,
		occurrence.ColMultimedia, occurrence.ColRecordNumber}
	cases := []struct {
		name string
		pred string
		cols []string
	}{
		{"all-rows", "", strCols},
		{"all-columns", `{"type":"equals","key":"HAS_COORDINATE","value":"true"}`, nil},
		{"string-predicate", `{"type":"in","key":"COUNTRY","values":["DK","SE","NO","NL","US"]}`, strCols},
		{"multi-value-predicate", `{"type":"or","predicates":[{"type":"equals","key":"ISSUE","value":"GEODETIC_DATUM_ASSUMED_WGS84"},{"type":"equals","key":"BASIS_OF_RECORD","value":"PRESERVED_SPECIMEN"}]}`, strCols},
		{"selective", `{"type":"equals","key":"YEAR","value":"1990"}`, strCols},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var pred *occurrence.Predicate
			if tc.pred != "" {
				pred = mustPred(t, tc.pred)
			}
			cols := tc.cols
			if cols == nil {
				cols = allNames
			}
			plain := scanDicts(t, s, pred, cols, false)
			defer plain.release()
			dict := scanDicts(t, s, pred, cols, true)
			defer dict.release()
			if len(plain.rows) == 0 {
				t.Fatal("predicate matches nothing: nothing compared")
			}
			if len(plain.dictBatches) != 0 {
				t.Fatalf("dictionaries without the flag: %v", plain.dictBatches)
			}
			sameRows(t, "dictionaries", dict.rows, plain.rows, cols)
			t.Logf("%d rows; dictionary batches per column %v, with nulls %v", len(plain.rows), dict.dictBatches, dict.dictNulls)
			for _, c := range []string{occurrence.ColDatasetKey, occurrence.ColCountryCode, occurrence.ColBasisOfRecord} {
				if dict.dictBatches[c] == 0 {
					t.Errorf("column %s never arrived dictionary-encoded", c)
				}
			}
			if len(dict.dictNulls) == 0 {
				t.Error("no dictionary batch held nulls")
			}
		})
	}
}

// TestDictionariesFallBackWithinSplit checks that a column whose chunk
// falls back to PLAIN mid-chunk arrives in both forms from one split, with
// the same values as without the flag.
func TestDictionariesFallBackWithinSplit(t *testing.T) {
	s := dictStoreOf(t, Config{dictionaryFallback: true})
	ctx := context.Background()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{occurrence.ColOccurrenceID, occurrence.ColLocality, occurrence.ColCatalogNumber}
	// Under half of each batch's rows match: plain string rows then stay
	// plain (take hands a mostly selected plain column on as a dictionary
	// over its own copy, which would hide the fallback).
	pred := mustPred(t, `{"type":"lessThan","key":"YEAR","value":"1990"}`) // 41% of the records
	mixed := 0
	for _, sp := range snap.Splits {
		var vals [2][][]string
		forms := map[string]map[bool]bool{}
		for k, dicts := range []bool{false, true} {
			req := occurrence.ScanRequest{Predicate: pred, Columns: cols, Dictionaries: dicts}
			_, err := s.ScanSplit(ctx, sp, req, func(b arrow.RecordBatch) error {
				for i := 0; i < int(b.NumRows()); i++ {
					row := make([]string, len(cols))
					for c := range cols {
						row[c] = cellOf(b.Column(c), i)
					}
					vals[k] = append(vals[k], row)
				}
				if dicts {
					for c, name := range cols {
						if forms[name] == nil {
							forms[name] = map[bool]bool{}
						}
						forms[name][b.Column(c).DataType().ID() == arrow.DICTIONARY] = true
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		sameRows(t, fmt.Sprintf("split %d", sp.Index), vals[1], vals[0], cols)
		for _, f := range forms {
			if f[true] && f[false] {
				mixed++
			}
		}
	}
	if mixed == 0 {
		t.Fatalf("no column of %d splits arrived in both forms: the fallback is not exercised", len(snap.Splits))
	}
	t.Logf("%d column chunks arrived in both forms", mixed)
}

// TestDictionariesOutliveTheScan keeps every batch of a dictionary scan past
// its end and past another scan that reuses the page buffers: the values
// must not change (the dictionaries handed out are copies).
func TestDictionariesOutliveTheScan(t *testing.T) {
	s := dictStore(t)
	cols := []string{occurrence.ColGBIFID, occurrence.ColDatasetKey, occurrence.ColScientificName, occurrence.ColCountryCode,
		occurrence.ColOccurrenceID, occurrence.ColLocality, occurrence.ColRecordedBy}
	pred := mustPred(t, `{"type":"equals","key":"HAS_COORDINATE","value":"true"}`)
	plain := scanDicts(t, s, pred, cols, false)
	defer plain.release()
	dict := scanDicts(t, s, pred, cols, true)
	defer dict.release()
	sameRows(t, "during the scan", dict.rows, plain.rows, cols)
	sameRows(t, "after the scan", dict.cells(), plain.rows, cols)
	// Another scan of other columns recycles the page buffers.
	other := scanDicts(t, s, nil, []string{occurrence.ColLocality, occurrence.ColInstitutionCode, occurrence.ColFamily,
		occurrence.ColCatalogNumber, occurrence.ColStateProvince, occurrence.ColScientificName}, true)
	other.release()
	sameRows(t, "after another scan", dict.cells(), plain.rows, cols)
}

// TestTakeIndices takes rows of a sliced dictionary column with nulls and
// compares them with the source's values; the dictionary is copied.
func TestTakeIndices(t *testing.T) {
	db := array.NewDictionaryBuilder(memory.DefaultAllocator, dictType).(*array.BinaryDictionaryBuilder)
	defer db.Release()
	vals := []string{"a", "bb", "", "a", "ccc", "bb", "dddd", "a", "e", "ccc"}
	for i, v := range vals {
		if i%4 == 1 {
			db.AppendNull()
		} else if err := db.AppendString(v); err != nil {
			t.Fatal(err)
		}
	}
	src := db.NewArray().(*array.Dictionary)
	defer src.Release()
	sliced := array.NewSlice(src, 1, 9).(*array.Dictionary)
	defer sliced.Release()
	sel := []bool{true, false, true, true, true, false, true, true}
	var dc dictCopies
	var first arrow.ArrayData
	for round := 0; round < 2; round++ {
		got := dc.take(0, 1, sliced, positions(sel, countTrue(sel))).(*array.Dictionary)
		cp := got.Data().Dictionary()
		if cp == sliced.Data().Dictionary() {
			t.Fatal("dictionary not copied")
		}
		if first == nil {
			first = cp
		} else if cp != first {
			t.Fatal("dictionary copied again for the same source")
		}
		k := 0
		for i, ok := range sel {
			if !ok {
				continue
			}
			if g, w := cellOf(got, k), cellOf(sliced, i); g != w {
				t.Fatalf("row %d: %s, want %s", i, g, w)
			}
			k++
		}
		if got.Len() != k || got.NullN() != 2 {
			t.Fatalf("%d rows with %d nulls, want %d with 2", got.Len(), got.NullN(), k)
		}
		got.Release()
	}
}
