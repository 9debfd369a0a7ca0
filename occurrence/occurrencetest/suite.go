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

// SuiteRecords is how many generated records the scan part of the suite
// loads.
const SuiteRecords = 24000

// Predicates returns GBIF predicate JSON covering every predicate type, on
// every kind of column (a copy).
func Predicates() []string { return slices.Clone(predicates) }

var predicates = []string{
	`{"type":"equals","key":"COUNTRY","value":"NL"}`,
	`{"type":"equals","key":"BASIS_OF_RECORD","value":"PRESERVED_SPECIMEN"}`,
	`{"type":"equals","key":"HAS_COORDINATE","value":"false"}`,
	`{"type":"equals","key":"YEAR","value":"1990"}`,
	`{"type":"equals","key":"TAXON_KEY","value":"1"}`,
	`{"type":"equals","key":"TAXON_KEY","value":"2000000003"}`,
	`{"type":"in","key":"TAXON_KEY","values":["2","1000","3000000000","2000000003"]}`,
	`{"type":"not","predicate":{"type":"equals","key":"TAXON_KEY","value":"2"}}`,
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

// Run is the conformance suite of occurrence.Backend: every backend's tests
// call it with a function that opens a fresh, empty table (closed by the
// caller's cleanup). The reference answer is never the backend's own: it
// is the generator's records, built into Arrow batches in memory and
// evaluated with the scalar evaluator (Predicate.MatchRow).
//
//   - scan: for every predicate the pruned, parallel scan returns exactly the
//     records the reference matches, with the reference's values, in the
//     order of the table's full scan; counts agree; scans are repeatable,
//     dictionary-encoded columns are well formed, a scan can be cancelled,
//     also one that emits nothing (a count matching no record), and
//     a split's matches can be windowed (Skip, Limit);
//   - catalog, replace, delete, abort: the datasets' descriptions, EML
//     documents, record and broken-row counts; replacing a dataset and
//     deleting one publish new snapshots while the older snapshot still
//     scans as it was; an aborted load leaves the table as it was;
//   - ids: minting counts from 1 in the order keys are given, is stable
//     (also after a delete), scoped by dataset, byte for byte, never hands
//     an id to two keys, also from concurrent goroutines; ids never
//     replaced resolve to ErrNoAlias.
//   - pins: a snapshot is pinned, refreshed and released (twice).
func Run(t *testing.T, open func(t *testing.T) occurrence.Backend) {
	RunWith(t, open, Options{})
}

// Options adapt the suite to a backend.
type Options struct {
	// AfterLoad, when set, runs once the scan and lifecycle parts have
	// loaded their datasets, before they scan, replace or delete: a
	// backend that reorganizes a loaded table (a rollover) runs the suite
	// on the reorganized table.
	AfterLoad func(t *testing.T, tbl occurrence.Backend)
}

// RunWith is Run with options.
func RunWith(t *testing.T, open func(t *testing.T) occurrence.Backend, opts Options) {
	t.Run("scan", func(t *testing.T) { runScans(t, open(t), opts) })
	t.Run("lifecycle", func(t *testing.T) { runLifecycle(t, open(t), opts) })
	t.Run("ids", func(t *testing.T) { runIDs(t, open(t)) })
}

// runScans loads SuiteRecords generated records in 12 datasets and checks
// every predicate against the reference.
func runScans(t *testing.T, tbl occurrence.Backend, opts Options) {
	ctx := context.Background()
	ref := newReference(t)
	LoadInto(t, tbl, SuiteRecords, 12, ref)
	if opts.AfterLoad != nil {
		opts.AfterLoad(t, tbl)
	}
	all := scanAll(t, tbl, nil, nil)
	t.Run("full-scan", func(t *testing.T) {
		ref.checkSameRecords(t, all.ids)
		all.checkValues(t, ref, nil)
	})
	order := all.ids // the table's deterministic order
	for i, js := range predicates {
		t.Run(fmt.Sprintf("predicate-%02d", i), func(t *testing.T) {
			pred := mustParse(t, js)
			want := ref.filter(order, pred)
			cols := []string{occurrence.ColGBIFID, occurrence.ColCountryCode, occurrence.ColDecimalLatitude,
				occurrence.ColYear, occurrence.ColHasCoordinate, occurrence.ColEventDateStart, occurrence.ColLocality}
			got := scanAll(t, tbl, pred, cols)
			if !slices.Equal(got.ids, want) {
				t.Fatalf("%s: scan returned %d rows, the reference matches %d (first difference at %d)",
					js, len(got.ids), len(want), firstDiff(got.ids, want))
			}
			got.checkValues(t, ref, cols)
			snap, err := tbl.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			n, _, err := occurrence.Count(ctx, tbl, snap, pred, occurrence.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(want)) {
				t.Fatalf("%s: count %d, reference %d", js, n, len(want))
			}
			t.Logf("%s: %d of %d", js, n, len(order))
			if len(want) == len(order) || len(want) == 0 && !strings.Contains(js, `"c-0000042","matchCase":true`) {
				t.Fatalf("%s matches %d of %d rows: the suite's data does not exercise it", js, len(want), len(order))
			}
		})
	}
	t.Run("all-columns", func(t *testing.T) {
		got := scanAll(t, tbl, mustParse(t, predicates[0]), nil)
		if len(got.ids) == 0 {
			t.Fatal("no rows to compare")
		}
		got.checkValues(t, ref, nil)
	})
	t.Run("deterministic", func(t *testing.T) {
		// A predicate matching rows in many splits: an empty result would
		// compare equal whatever the order.
		pred := mustParse(t, predicates[13])
		a := scanAll(t, tbl, pred, []string{occurrence.ColGBIFID})
		if len(a.ids) == 0 {
			t.Fatal("no rows to compare")
		}
		for i := 0; i < 3; i++ {
			c := scanAll(t, tbl, pred, []string{occurrence.ColGBIFID})
			if !slices.Equal(a.ids, c.ids) {
				t.Fatal("two scans returned different orders")
			}
		}
	})
	t.Run("dictionaries", func(t *testing.T) { checkDictionaries(t, tbl, ref, order) })
	t.Run("window", func(t *testing.T) { checkWindows(t, tbl) })
	t.Run("cancel", func(t *testing.T) { checkCancel(t, tbl) })
	t.Run("cancel-silent", func(t *testing.T) { checkCancelSilent(t, tbl) })
}

func mustParse(t testing.TB, js string) *occurrence.Predicate {
	t.Helper()
	p, err := occurrence.ParsePredicateJSON([]byte(js), occurrence.DefaultLimits())
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return p
}

// checkDictionaries scans with ScanRequest.Dictionaries: the rows and values
// are those of the reference, and a column that arrives dictionary-encoded
// is a string column with int32 indices over a utf8 dictionary. A backend
// without dictionaries passes by ignoring the flag.
func checkDictionaries(t *testing.T, tbl occurrence.Table, ref *Reference, order []int64) {
	for _, i := range []int{-1, 0, 13, 19, 29} {
		var pred *occurrence.Predicate
		var cols []string // all columns
		want := order
		if i >= 0 {
			pred = mustParse(t, predicates[i])
			cols = []string{occurrence.ColGBIFID, occurrence.ColDatasetKey, occurrence.ColCountryCode, occurrence.ColLocality,
				occurrence.ColScientificName, occurrence.ColOccurrenceID, occurrence.ColYear, occurrence.ColIssue}
			want = ref.filter(order, pred)
		}
		got := scanReq(t, tbl, occurrence.ScanRequest{Predicate: pred, Columns: cols, Dictionaries: true})
		if !slices.Equal(got.ids, want) {
			t.Fatalf("predicate %d: scan returned %d rows, the reference matches %d (first difference at %d)",
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
		got.checkValues(t, ref, cols)
		t.Logf("predicate %d: %d rows, %d dictionary-encoded column batches", i, len(got.ids), dicts)
	}
}

// Load generates records and loads them into the table as n datasets (for
// tests and benchmarks that need a filled table).
func Load(t testing.TB, tbl occurrence.Loader, records, n int) []Dataset {
	return LoadInto(t, tbl, records, n, nil)
}

// LoadInto is Load that also adds every record to ref (when not nil).
func LoadInto(t testing.TB, tbl occurrence.Loader, records, n int, ref *Reference) []Dataset {
	t.Helper()
	g := NewGenerator(42, 2000)
	plan := g.Datasets(records, n)
	var refs []*Reference
	if ref != nil {
		refs = append(refs, ref)
	}
	for i := range plan {
		loadWithEML(t, tbl, g, &plan[i], nil, nil, refs...)
	}
	return plan
}

// Reference holds generated records in memory as Arrow batches of the full
// schema, the suite's answer to compare scans with (test sizes only).
type Reference struct {
	b       *occurrence.Builder
	batches []arrow.RecordBatch
	pos     map[int64][2]int // gbifID -> batch, row
}

func newReference(t testing.TB) *Reference {
	r := &Reference{b: occurrence.NewBuilder(), pos: map[int64][2]int{}}
	t.Cleanup(func() {
		r.b.Release()
		for _, b := range r.batches {
			b.Release()
		}
	})
	return r
}

const referenceBatch = 4096

func (r *Reference) add(rec *occurrence.Record) {
	r.b.Append(rec)
	if r.b.Len() == referenceBatch {
		r.cut()
	}
}

// cut moves the builder's records into a batch.
func (r *Reference) cut() {
	if r.b == nil || r.b.Len() == 0 {
		return
	}
	b := r.b.NewBatch()
	ids := b.Column(b.Schema().FieldIndices(occurrence.ColGBIFID)[0]).(*array.Int64)
	for i := 0; i < int(b.NumRows()); i++ {
		r.pos[ids.Value(i)] = [2]int{len(r.batches), i}
	}
	r.batches = append(r.batches, b)
}

// filter returns the ids of order whose reference record pred matches.
func (r *Reference) filter(order []int64, pred *occurrence.Predicate) []int64 {
	r.cut()
	var out []int64
	for _, id := range order {
		p, ok := r.pos[id]
		if ok && (pred == nil || pred.MatchRow(r.batches[p[0]], p[1])) {
			out = append(out, id)
		}
	}
	return out
}

// checkSameRecords fails unless ids are the reference's records, each once.
func (r *Reference) checkSameRecords(t testing.TB, ids []int64) {
	t.Helper()
	r.cut()
	seen := make(map[int64]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("gbifID %d scanned twice", id)
		}
		seen[id] = true
		if _, ok := r.pos[id]; !ok {
			t.Fatalf("gbifID %d scanned but never loaded", id)
		}
	}
	if len(ids) != len(r.pos) {
		t.Fatalf("full scan returned %d records, loaded %d", len(ids), len(r.pos))
	}
}

// rows is a scan result kept in memory (test sizes only).
type rows struct {
	ids     []int64
	batches []arrow.RecordBatch
}

func scanAll(t testing.TB, tbl occurrence.Table, pred *occurrence.Predicate, cols []string) *rows {
	t.Helper()
	return scanReq(t, tbl, occurrence.ScanRequest{Predicate: pred, Columns: cols})
}

// scanReq runs req over the current snapshot of tbl, keeping every batch.
func scanReq(t testing.TB, tbl occurrence.Table, req occurrence.ScanRequest) *rows {
	t.Helper()
	snap, err := tbl.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return scanSnapshot(t, tbl, snap, req)
}

func scanSnapshot(t testing.TB, tbl occurrence.Table, snap occurrence.Snapshot, req occurrence.ScanRequest) *rows {
	t.Helper()
	out := &rows{}
	_, err := occurrence.Scan(context.Background(), tbl, snap, req, occurrence.ScanOptions{Workers: 3}, func(b arrow.RecordBatch) error {
		b.Retain()
		idCol := b.Column(b.Schema().FieldIndices(occurrence.ColGBIFID)[0]).(*array.Int64)
		for i := 0; i < int(b.NumRows()); i++ {
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

// checkValues compares every materialized value with the reference's.
func (r *rows) checkValues(t testing.TB, ref *Reference, cols []string) {
	t.Helper()
	ref.cut()
	if cols == nil {
		for _, c := range occurrence.Columns() {
			cols = append(cols, c.Name)
		}
	}
	for _, b := range r.batches {
		if int(b.NumCols()) != len(cols) {
			t.Fatalf("batch has %d columns, requested %d", b.NumCols(), len(cols))
		}
		ids := b.Column(b.Schema().FieldIndices(occurrence.ColGBIFID)[0]).(*array.Int64)
		for ci, f := range b.Schema().Fields() {
			if cols[ci] != f.Name {
				t.Fatalf("column %d is %s, requested %s", ci, f.Name, cols[ci])
			}
			col := b.Column(ci)
			for i := 0; i < int(b.NumRows()); i++ {
				id := ids.Value(i)
				p, ok := ref.pos[id]
				if !ok {
					t.Fatalf("gbifID %d was never loaded", id)
				}
				rb := ref.batches[p[0]]
				want := rb.Column(rb.Schema().FieldIndices(f.Name)[0])
				if got, want := col.ValueStr(i), want.ValueStr(p[1]); got != want {
					t.Fatalf("gbifID %d column %s: scan %q, loaded %q", id, f.Name, got, want)
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

// checkCancelSilent: a split scan that emits nothing (a count whose
// predicate no statistics can prune and no record matches, the slowest
// kind of count) still sees its context: cancelled, it stops with the
// context's error instead of reading the split.
func checkCancelSilent(t *testing.T, tbl occurrence.Table) {
	ctx, cancel := context.WithCancel(context.Background())
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	pred := mustParse(t, `{"type":"like","key":"LOCALITY","value":"*no such place*"}`)
	for _, sp := range snap.Splits[:min(3, len(snap.Splits))] {
		st, err := tbl.ScanSplit(ctx, sp, occurrence.ScanRequest{Predicate: pred, Columns: []string{}}, func(arrow.RecordBatch) error {
			t.Fatal("a predicate matching nothing emitted a batch")
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("split %d: a cancelled silent scan returned %v (scanned %d of %d rows), want context.Canceled",
				sp.Index, err, st.RowsScanned, sp.Rows)
		}
	}
}

// RowValues scans every column of every record of snap and returns each
// record's values (ValueStr, NUL-separated, in schema order) by gbifID: a
// table's content to compare with another's whatever the order of its rows
// (test sizes only). A gbifID scanned twice fails the test.
func RowValues(t testing.TB, tbl occurrence.Table, snap occurrence.Snapshot) map[int64]string {
	t.Helper()
	out := map[int64]string{}
	var sb strings.Builder
	_, err := occurrence.Scan(context.Background(), tbl, snap, occurrence.ScanRequest{}, occurrence.ScanOptions{Workers: 2}, func(b arrow.RecordBatch) error {
		ids := b.Column(occurrence.ColumnIndex(occurrence.ColGBIFID)).(*array.Int64)
		for i := 0; i < int(b.NumRows()); i++ {
			sb.Reset()
			for c := 0; c < int(b.NumCols()); c++ {
				sb.WriteString(b.Column(c).ValueStr(i))
				sb.WriteByte(0)
			}
			if _, dup := out[ids.Value(i)]; dup {
				return fmt.Errorf("gbifID %d scanned twice", ids.Value(i))
			}
			out[ids.Value(i)] = sb.String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
