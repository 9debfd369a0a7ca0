package occurrencetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Writer receives one dataset's records (a backend's ingest).
type Writer interface {
	Append(r *occurrence.Record) error
	Commit(ctx context.Context) (string, error)
	Abort()
}

// Backend is a table under test and the way to load it.
type Backend struct {
	Table occurrence.Table
	Begin func(ctx context.Context, info occurrence.DatasetInfo) (Writer, error)
}

// SuiteRecords is how many generated records the suite loads.
const SuiteRecords = 24000

// Predicates covers every predicate type, on every kind of column. Each
// entry is GBIF predicate JSON.
var Predicates = []string{
	`{"type":"equals","key":"COUNTRY","value":"NL"}`,
	`{"type":"equals","key":"BASIS_OF_RECORD","value":"PRESERVED_SPECIMEN"}`,
	`{"type":"equals","key":"HAS_COORDINATE","value":"false"}`,
	`{"type":"equals","key":"YEAR","value":"1990"}`,
	`{"type":"equals","key":"TAXON_KEY","value":"1"}`,
	`{"type":"equals","key":"TAXON_KEY","value":"2000000003"}`,
	`{"type":"equals","key":"TYPE_STATUS","value":"HOLOTYPE"}`,
	`{"type":"equals","key":"ISSUE","value":"GEODETIC_DATUM_ASSUMED_WGS84"}`,
	`{"type":"equals","key":"MEDIA_TYPE","value":"StillImage"}`,
	`{"type":"equals","key":"LICENSE","value":"CC_BY_NC_4_0"}`,
	`{"type":"equals","key":"CATALOG_NUMBER","value":"c-0000042","matchCase":false}`,
	`{"type":"equals","key":"CATALOG_NUMBER","value":"C-0000042","matchCase":true}`,
	`{"type":"and","predicates":[{"type":"equals","key":"CATALOG_NUMBER","value":"c-0000042","matchCase":true},{"type":"isNotNull","parameter":"COUNTRY"}]}`,
	`{"type":"in","key":"COUNTRY","values":["DK","SE","NO","EE"]}`,
	`{"type":"in","key":"MONTH","values":["6","7","8"]}`,
	`{"type":"lessThan","key":"YEAR","value":"1900"}`,
	`{"type":"lessThanOrEquals","key":"DECIMAL_LATITUDE","value":"-30"}`,
	`{"type":"greaterThan","key":"ELEVATION","value":"2500"}`,
	`{"type":"greaterThanOrEquals","key":"COORDINATE_UNCERTAINTY_IN_METERS","value":"4900"}`,
	`{"type":"like","key":"LOCALITY","value":"*river*"}`,
	`{"type":"like","key":"SCIENTIFIC_NAME","value":"Ba?a*"}`,
	`{"type":"isNull","parameter":"ELEVATION"}`,
	`{"type":"isNotNull","parameter":"INDIVIDUAL_COUNT"}`,
	`{"type":"within","geometry":"POLYGON((0 45,15 45,15 60,0 60,0 45))"}`,
	`{"type":"within","geometry":"MULTIPOLYGON(((-10 35,5 35,5 45,-10 45,-10 35)),((140 -45,155 -45,155 -25,140 -25,140 -45)))"}`,
	`{"type":"geoDistance","latitude":"52.1","longitude":"5.3","distance":"150km"}`,
	`{"type":"range","key":"YEAR","value":{"gte":"1950","lte":"1960"}}`,
	`{"type":"equals","key":"EVENT_DATE","value":"2000"}`,
	`{"type":"equals","key":"EVENT_DATE","value":"1999-01-01,2003-06-30"}`,
	`{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"US"},{"type":"range","key":"YEAR","value":{"gte":"2000","lte":"2010"}},{"type":"equals","key":"HAS_COORDINATE","value":"true"}]}`,
	`{"type":"or","predicates":[{"type":"equals","key":"KINGDOM_KEY","value":"3"},{"type":"lessThan","key":"YEAR","value":"1850"}]}`,
	`{"type":"not","predicate":{"type":"in","key":"COUNTRY","values":["US","FR","GB"]}}`,
	`{"type":"and","predicates":[{"type":"not","predicate":{"type":"isNull","parameter":"DECIMAL_LATITUDE"}},{"type":"or","predicates":[{"type":"equals","key":"BASIS_OF_RECORD","value":"FOSSIL_SPECIMEN"},{"type":"equals","key":"BASIS_OF_RECORD","value":"LIVING_SPECIMEN"}]}]}`,
}

// Run loads generated records into the backend and checks the scan contract:
// for every predicate the pruned, parallel scan returns exactly the rows (in
// the same order, with the same values) that a brute-force evaluation of
// every row returns.
func Run(t *testing.T, open func(t *testing.T) Backend) {
	ctx := context.Background()
	b := open(t)
	Load(t, b, SuiteRecords, 12)
	all := scanAll(t, b.Table, nil, nil)
	if len(all.ids) != SuiteRecords {
		t.Fatalf("full scan returned %d rows, loaded %d", len(all.ids), SuiteRecords)
	}
	t.Run("unique-ids", func(t *testing.T) {
		seen := map[int64]bool{}
		for _, id := range all.ids {
			if seen[id] {
				t.Fatalf("gbifID %d twice", id)
			}
			seen[id] = true
		}
	})
	for i, js := range Predicates {
		t.Run(fmt.Sprintf("predicate-%02d", i), func(t *testing.T) {
			pred, err := occurrence.ParsePredicateJSON([]byte(js), occurrence.DefaultLimits())
			if err != nil {
				t.Fatalf("%s: %v", js, err)
			}
			want := all.bruteForce(pred)
			cols := []string{occurrence.ColGBIFID, occurrence.ColCountryCode, occurrence.ColDecimalLatitude,
				occurrence.ColYear, occurrence.ColHasCoordinate, occurrence.ColEventDateStart, occurrence.ColLocality}
			got := scanAll(t, b.Table, pred, cols)
			if !slices.Equal(got.ids, want) {
				t.Fatalf("%s: scan returned %d rows, brute force %d (first difference at %d)",
					js, len(got.ids), len(want), firstDiff(got.ids, want))
			}
			got.checkValues(t, all, cols)
			snap, err := b.Table.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			n, _, err := occurrence.Count(ctx, b.Table, snap, pred, occurrence.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(want)) {
				t.Fatalf("%s: count %d, brute force %d", js, n, len(want))
			}
			t.Logf("%s: %d of %d", js, n, len(all.ids))
			if len(want) == len(all.ids) || len(want) == 0 && !strings.Contains(js, `"c-0000042","matchCase":true`) {
				t.Fatalf("%s matches %d of %d rows: the suite's data does not exercise it", js, len(want), len(all.ids))
			}
		})
	}
	t.Run("all-columns", func(t *testing.T) {
		pred, _ := occurrence.ParsePredicateJSON([]byte(Predicates[0]), occurrence.DefaultLimits())
		got := scanAll(t, b.Table, pred, nil)
		got.checkValues(t, all, nil)
		if len(got.ids) == 0 {
			t.Fatal("no rows to compare")
		}
	})
	t.Run("deterministic", func(t *testing.T) {
		// A predicate matching rows in many splits: an empty result would
		// compare equal whatever the order.
		pred, _ := occurrence.ParsePredicateJSON([]byte(Predicates[13]), occurrence.DefaultLimits())
		a := scanAll(t, b.Table, pred, []string{occurrence.ColGBIFID})
		if len(a.ids) == 0 {
			t.Fatal("no rows to compare")
		}
		for i := 0; i < 3; i++ {
			c := scanAll(t, b.Table, pred, []string{occurrence.ColGBIFID})
			if !slices.Equal(a.ids, c.ids) {
				t.Fatal("two scans returned different orders")
			}
		}
	})
	t.Run("dictionaries", func(t *testing.T) { checkDictionaries(t, b.Table, all) })
	t.Run("cancel", func(t *testing.T) { checkCancel(t, b.Table) })
}

// checkDictionaries scans with ScanRequest.Dictionaries: the rows and values
// are those of a plain scan, and a column that arrives dictionary-encoded is
// a string column with int32 indices over a utf8 dictionary. A backend
// without dictionaries passes by ignoring the flag.
func checkDictionaries(t *testing.T, tbl occurrence.Table, all *rows) {
	for _, i := range []int{-1, 0, 13, 19, 29} {
		var pred *occurrence.Predicate
		var cols []string // all columns
		if i >= 0 {
			pred, _ = occurrence.ParsePredicateJSON([]byte(Predicates[i]), occurrence.DefaultLimits())
			cols = []string{occurrence.ColGBIFID, occurrence.ColDatasetKey, occurrence.ColCountryCode, occurrence.ColLocality,
				occurrence.ColScientificName, occurrence.ColOccurrenceID, occurrence.ColYear, occurrence.ColIssue}
		}
		got := scanReq(t, tbl, occurrence.ScanRequest{Predicate: pred, Columns: cols, Dictionaries: true})
		want := all.ids
		if pred != nil {
			want = all.bruteForce(pred)
		}
		if !slices.Equal(got.ids, want) {
			t.Fatalf("predicate %d: scan returned %d rows, brute force %d (first difference at %d)",
				i, len(got.ids), len(want), firstDiff(got.ids, want))
		}
		if len(want) == 0 {
			t.Fatalf("predicate %d matches nothing: nothing compared", i)
		}
		dicts := 0
		for _, b := range got.batches {
			for ci, f := range b.Schema().Fields() {
				a := b.Column(ci)
				if !arrow.TypeEqual(f.Type, a.DataType()) {
					t.Fatalf("column %s: schema says %s, array is %s", f.Name, f.Type, a.DataType())
				}
				if d, ok := a.(*array.Dictionary); ok {
					c, _, _ := occurrence.ColumnByName(f.Name)
					_, utf8 := d.Dictionary().(*array.String)
					_, int32s := d.Indices().(*array.Int32)
					if !utf8 || !int32s || !arrow.TypeEqual(c.Kind.ArrowType(), arrow.BinaryTypes.String) {
						t.Fatalf("column %s (kind %v) arrived as %s", f.Name, c.Kind, a.DataType())
					}
					dicts++
				}
			}
		}
		got.checkValues(t, all, cols)
		t.Logf("predicate %d: %d rows, %d dictionary-encoded column batches", i, len(got.ids), dicts)
	}
}

// Load generates records and loads them into the backend as n datasets.
func Load(t testing.TB, b Backend, records, n int) []Dataset {
	ctx := context.Background()
	g := NewGenerator(42, 2000)
	plan := g.Datasets(records, n)
	rec := occurrence.NewRecord()
	for i := range plan {
		w, err := b.Begin(ctx, plan[i].Info)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < plan[i].Records; j++ {
			g.Fill(rec, &plan[i], j)
			if err := w.Append(rec); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return plan
}

// rows is a scan result kept in memory (test sizes only).
type rows struct {
	ids     []int64
	batches []arrow.RecordBatch
	pos     map[int64][2]int // gbifID -> batch, row
}

func scanAll(t testing.TB, tbl occurrence.Table, pred *occurrence.Predicate, cols []string) *rows {
	t.Helper()
	return scanReq(t, tbl, occurrence.ScanRequest{Predicate: pred, Columns: cols})
}

// scanReq runs req over the whole table, keeping every batch.
func scanReq(t testing.TB, tbl occurrence.Table, req occurrence.ScanRequest) *rows {
	t.Helper()
	ctx := context.Background()
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := &rows{pos: map[int64][2]int{}}
	_, err = occurrence.Scan(ctx, tbl, snap, req, occurrence.ScanOptions{Workers: 3}, func(b arrow.RecordBatch) error {
		b.Retain()
		idCol := b.Column(b.Schema().FieldIndices(occurrence.ColGBIFID)[0]).(*array.Int64)
		for i := 0; i < int(b.NumRows()); i++ {
			out.pos[idCol.Value(i)] = [2]int{len(out.batches), i}
			out.ids = append(out.ids, idCol.Value(i))
		}
		out.batches = append(out.batches, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, b := range out.batches {
			b.Release()
		}
	})
	return out
}

// bruteForce evaluates pred on every row with the scalar evaluator.
func (r *rows) bruteForce(pred *occurrence.Predicate) []int64 {
	var ids []int64
	for _, b := range r.batches {
		idCol := b.Column(b.Schema().FieldIndices(occurrence.ColGBIFID)[0]).(*array.Int64)
		for i := 0; i < int(b.NumRows()); i++ {
			if pred.MatchRow(b, i) {
				ids = append(ids, idCol.Value(i))
			}
		}
	}
	return ids
}

// checkValues compares every materialized value with the full scan's.
func (r *rows) checkValues(t testing.TB, all *rows, cols []string) {
	t.Helper()
	if cols == nil {
		for _, c := range occurrence.Columns {
			cols = append(cols, c.Name)
		}
	}
	for _, b := range r.batches {
		if int(b.NumCols()) != len(cols) {
			t.Fatalf("batch has %d columns, requested %d", b.NumCols(), len(cols))
		}
		for ci, f := range b.Schema().Fields() {
			if cols[ci] != f.Name {
				t.Fatalf("column %d is %s, requested %s", ci, f.Name, cols[ci])
			}
			col := b.Column(ci)
			for i := 0; i < int(b.NumRows()); i++ {
				id := b.Column(b.Schema().FieldIndices(occurrence.ColGBIFID)[0]).(*array.Int64).Value(i)
				p, ok := all.pos[id]
				if !ok {
					t.Fatalf("gbifID %d is not in the full scan", id)
				}
				ab := all.batches[p[0]]
				ref := ab.Column(ab.Schema().FieldIndices(f.Name)[0])
				if got, want := col.ValueStr(i), ref.ValueStr(p[1]); got != want {
					t.Fatalf("gbifID %d column %s: scan %q, full scan %q", id, f.Name, got, want)
				}
			}
		}
	}
}

func firstDiff(a, b []int64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// checkCancel cancels a slow scan and expects it to stop within a second.
func checkCancel(t *testing.T, tbl occurrence.Table) {
	ctx, cancel := context.WithCancel(context.Background())
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var once bool
		_, err := occurrence.Scan(ctx, tbl, snap, occurrence.ScanRequest{}, occurrence.ScanOptions{Workers: 2}, func(b arrow.RecordBatch) error {
			if !once {
				once = true
				close(started)
			}
			time.Sleep(20 * time.Millisecond) // a slow consumer keeps the scan running
			return nil
		})
		done <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled scan returned %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("scan still running a second after cancel")
	}
}
