package occurrencetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// runLifecycle checks the catalog and the loading side of a backend on
// three small datasets: what the catalog says of each, replacing one,
// aborted loads, deleting one, and that a snapshot taken before a change
// still scans as it was.
func runLifecycle(t *testing.T, tbl occurrence.Backend, opts Options) {
	ctx := context.Background()
	checkEmpty(t, tbl)
	g := NewGenerator(7, 300)
	plan := g.Datasets(3000, 3)
	plan[0].Info.Citation = "Generated & cited <dataset> one."
	plan[0].Info.CitationParts = &occurrence.CitationParts{Authors: []string{"Doe J", "Ørsted H C"}, Year: "2019", Version: "1.2",
		Publisher: "Generated & Co", DOI: "10.5886/abc"}
	plan[0].terms = map[string][]string{
		occurrence.RowTypeOccurrence:  {occurrence.NSDwC + "locality", occurrence.NSDwC + "occurrenceID", "http://example.org/terms/custom"},
		occurrence.RowTypeMeasurement: {occurrence.NSDwC + "measurementType", occurrence.NSDwC + "measurementValue"},
	}
	plan[2].terms = map[string][]string{occurrence.RowTypeOccurrence: {occurrence.NSDwC + "habitat"}}
	eml := map[string][]byte{plan[0].Info.Key: emlDocument(plan[0].Info.Title)}
	broken := map[string]int64{plan[0].Info.Key: 5}
	before, after := newReference(t), newReference(t) // the table before and after the replace
	start := time.Now().Add(-time.Second)
	var snap string
	for i := range plan {
		snap = loadWithEML(t, tbl, g, &plan[i], eml, broken, before, after)
	}
	current, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if current.ID != snap {
		t.Fatalf("the last Commit returned snapshot %q, Snapshot gives %q", snap, current.ID)
	}
	if opts.AfterLoad != nil {
		opts.AfterLoad(t, tbl)
		if current, err = tbl.Snapshot(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("pin", func(t *testing.T) { checkPin(t, tbl, current, before) })
	checkCatalog(t, tbl, plan, eml, broken, start)
	checkSnapshot(t, tbl, current, before)

	// Replace dataset 1 with half as many other records, now with an EML.
	replaced := plan[1]
	replaced.Records /= 2
	g.Reseed(99)
	eml[replaced.Info.Key] = emlDocument("replaced " + replaced.Info.Title)
	after.drop(replaced.Info.Key)
	loadWithEML(t, tbl, g, &replaced, eml, broken, after)
	plan[1] = replaced
	next, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if next.ID == current.ID {
		t.Fatalf("replacing dataset %s kept snapshot id %q", replaced.Info.Key, next.ID)
	}
	checkCatalog(t, tbl, plan, eml, broken, start)
	checkSnapshot(t, tbl, next, after)
	t.Run("older-snapshot-after-replace", func(t *testing.T) { checkSnapshot(t, tbl, current, before) })

	t.Run("abort", func(t *testing.T) { checkAbort(t, tbl, g, plan, next, after) })
	t.Run("eml-cap", func(t *testing.T) { checkEMLCap(t, tbl, plan[0].Info) })
	checkCatalog(t, tbl, plan, eml, broken, start)

	t.Run("delete", func(t *testing.T) {
		gone := plan[0].Info.Key
		if err := tbl.DeleteDataset(ctx, gone); err != nil {
			t.Fatal(err)
		}
		if err := tbl.DeleteDataset(ctx, gone); !errors.Is(err, occurrence.ErrNoDataset) {
			t.Fatalf("deleting dataset %s twice: %v, want ErrNoDataset", gone, err)
		}
		if err := tbl.DeleteDataset(ctx, "no-such-dataset"); !errors.Is(err, occurrence.ErrNoDataset) {
			t.Fatalf("deleting an unknown dataset: %v, want ErrNoDataset", err)
		}
		if _, err := tbl.DatasetEML(ctx, gone); !errors.Is(err, occurrence.ErrNoDataset) {
			t.Fatalf("EML of deleted dataset %s: %v, want ErrNoDataset", gone, err)
		}
		delete(eml, gone)
		checkCatalog(t, tbl, plan[1:], eml, broken, start)
		afterDelete, err := tbl.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		kept := after.without(gone)
		checkSnapshot(t, tbl, afterDelete, kept)
		checkSnapshot(t, tbl, next, after) // taken before the delete
	})
}

// checkEMLCap expects SetEML to refuse a document over
// occurrence.MaxEMLBytes with an error matching zipsafe.ErrTooLarge; the
// aborted load leaves the dataset as it was (checked by the caller).
func checkEMLCap(t *testing.T, tbl occurrence.Loader, info occurrence.DatasetInfo) {
	ctx := context.Background()
	w, err := tbl.BeginDataset(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort(ctx)
	big := io.MultiReader(strings.NewReader("<eml:eml><!--"), io.LimitReader(spaces{}, occurrence.MaxEMLBytes))
	if err := w.SetEML(ctx, big); !errors.Is(err, zipsafe.ErrTooLarge) {
		t.Fatalf("SetEML of a document over %d bytes: %v, want ErrTooLarge", occurrence.MaxEMLBytes, err)
	}
}

// spaces reads as endless ASCII spaces.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// checkEmpty expects a new table to hold nothing.
func checkEmpty(t *testing.T, tbl occurrence.Backend) {
	t.Helper()
	ctx := context.Background()
	if ds, err := tbl.Datasets(ctx); err != nil || len(ds) != 0 {
		t.Fatalf("a new table lists datasets %v (%v)", ds, err)
	}
	if _, err := tbl.Dataset(ctx, "no-such-dataset"); !errors.Is(err, occurrence.ErrNoDataset) {
		t.Fatalf("Dataset of an unknown key: %v, want ErrNoDataset", err)
	}
	if got := scanAll(t, tbl, nil, []string{occurrence.ColGBIFID}); len(got.ids) != 0 {
		t.Fatalf("a new table scans %d records", len(got.ids))
	}
}

// emlDocument is a small EML document naming title (XML specials and
// non-ASCII included, so that a backend keeps the bytes as they are).
func emlDocument(title string) []byte {
	return fmt.Appendf(nil, `<?xml version="1.0" encoding="UTF-8"?>
<eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="x"><dataset><title>%s &amp; ørsted</title></dataset></eml:eml>
`, title)
}

// LoadDataset loads (or replaces) one generated dataset with records g
// fills, without an EML document.
func LoadDataset(t testing.TB, tbl occurrence.Loader, g *Generator, ds *Dataset) string {
	t.Helper()
	return loadWithEML(t, tbl, g, ds, nil, nil)
}

// loadWithEML loads ds, with its EML document when eml holds one and the
// broken-row count of broken, adding the records to every reference.
func loadWithEML(t testing.TB, tbl occurrence.Loader, g *Generator, ds *Dataset, eml map[string][]byte, broken map[string]int64, refs ...*Reference) string {
	t.Helper()
	ctx := context.Background()
	w, err := tbl.BeginDataset(ctx, ds.Info)
	if err != nil {
		t.Fatal(err)
	}
	if doc, ok := eml[ds.Info.Key]; ok {
		if err := w.SetEML(ctx, bytes.NewReader(doc)); err != nil {
			t.Fatal(err)
		}
	}
	rec := occurrence.NewRecord()
	for j := 0; j < ds.Records; j++ {
		g.Fill(rec, ds, j)
		if err := w.Append(ctx, rec); err != nil {
			w.Abort(ctx)
			t.Fatal(err)
		}
		for _, r := range refs {
			r.add(rec)
		}
	}
	snap, err := w.Commit(ctx, occurrence.LoadStats{BrokenRows: broken[ds.Info.Key], Terms: ds.terms})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// checkCatalog expects the catalog to describe exactly plan's datasets, as
// loaded: what the loader gave, the record and broken-row counts, the EML
// document byte for byte, or ErrNoEML for a dataset without one.
func checkCatalog(t *testing.T, tbl occurrence.Catalog, plan []Dataset, eml map[string][]byte, broken map[string]int64, start time.Time) {
	t.Helper()
	ctx := context.Background()
	list, err := tbl.Datasets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(plan)
	slices.SortFunc(want, func(a, b Dataset) int { return strings.Compare(a.Info.Key, b.Info.Key) })
	if len(list) != len(want) {
		t.Fatalf("Datasets lists %d datasets, loaded %d", len(list), len(want))
	}
	for i, ds := range want {
		got := list[i]
		w := ds.Info
		w.Records, w.BrokenRows, w.HasEML, w.Ingested = int64(ds.Records), broken[w.Key], eml[w.Key] != nil, got.Ingested
		w.Terms = ds.terms
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("Datasets entry %d:\n got %+v\nwant %+v", i, got, w)
		}
		if got.Ingested.Before(start) || got.Ingested.After(time.Now().Add(time.Second)) {
			t.Fatalf("dataset %s ingested at %s, loaded after %s", w.Key, got.Ingested, start)
		}
		one, err := tbl.Dataset(ctx, w.Key)
		if err != nil || !reflect.DeepEqual(one, got) {
			t.Fatalf("Dataset(%s) = %+v, %v; Datasets says %+v", w.Key, one, err, got)
		}
		checkEML(t, tbl, w.Key, eml[w.Key])
	}
	if _, err := tbl.DatasetEML(ctx, "no-such-dataset"); !errors.Is(err, occurrence.ErrNoDataset) {
		t.Fatalf("EML of an unknown dataset: %v, want ErrNoDataset", err)
	}
}

func checkEML(t *testing.T, tbl occurrence.Catalog, key string, want []byte) {
	t.Helper()
	rc, err := tbl.DatasetEML(context.Background(), key)
	if want == nil {
		if !errors.Is(err, occurrence.ErrNoEML) {
			t.Fatalf("EML of dataset %s, loaded without one: %v, want ErrNoEML", key, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("EML of dataset %s: %v", key, err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("EML of dataset %s: %q (%v), loaded %q", key, got, err, want)
	}
}

// checkSnapshot expects snap to scan to exactly ref's records and values,
// and its splits to count them.
func checkSnapshot(t *testing.T, tbl occurrence.Table, snap occurrence.Snapshot, ref *Reference) {
	t.Helper()
	got := scanSnapshot(t, tbl, snap, occurrence.ScanRequest{})
	ref.checkSameRecords(t, got.ids)
	got.checkValues(t, ref, nil)
	var rows int64
	for _, s := range snap.Splits {
		rows += s.Rows
	}
	if rows != int64(len(got.ids)) {
		t.Fatalf("snapshot %s: splits count %d rows, scan returned %d", snap.ID, rows, len(got.ids))
	}
}

// checkAbort starts loads and aborts them: replacing a dataset, adding a
// new one, and aborting under a cancelled context (as after Ctrl-C), which
// must return promptly. The table stays at snapshot cur.
func checkAbort(t *testing.T, tbl occurrence.Backend, g *Generator, plan []Dataset, cur occurrence.Snapshot, ref *Reference) {
	ctx := context.Background()
	fresh := plan[2]
	fresh.Info.Key, fresh.Info.Title = "00000000-0000-4000-8000-0000000000ab", "never committed"
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, c := range []struct {
		name string
		ds   Dataset
		ctx  context.Context
	}{{"replace", plan[2], ctx}, {"new", fresh, ctx}, {"cancelled", plan[1], cancelled}} {
		w, err := tbl.BeginDataset(ctx, c.ds.Info)
		if err != nil {
			t.Fatal(err)
		}
		rec := occurrence.NewRecord()
		for j := 0; j < 50; j++ {
			g.Fill(rec, &c.ds, j)
			if err := w.Append(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		began := time.Now()
		w.Abort(c.ctx)
		if d := time.Since(began); d > 10*time.Second {
			t.Fatalf("%s: Abort took %s", c.name, d)
		}
		if _, err := w.Commit(ctx, occurrence.LoadStats{}); err == nil {
			t.Fatalf("%s: Commit after Abort succeeded", c.name)
		}
		snap, err := tbl.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if snap.ID != cur.ID {
			t.Fatalf("%s: an aborted load changed the snapshot from %q to %q", c.name, cur.ID, snap.ID)
		}
		checkSnapshot(t, tbl, snap, ref)
	}
	if _, err := tbl.Dataset(ctx, fresh.Info.Key); !errors.Is(err, occurrence.ErrNoDataset) {
		t.Fatalf("dataset %s of an aborted load: %v, want ErrNoDataset", fresh.Info.Key, err)
	}
}

// drop removes a dataset's records from the reference (later records of
// the same ids may be added again).
func (r *Reference) drop(key string) {
	r.cut()
	for id, p := range r.pos {
		if r.datasetOf(p) == key {
			delete(r.pos, id)
		}
	}
}

// without returns a reference of r's records outside dataset key; it
// shares r's batches and must not be added to.
func (r *Reference) without(key string) *Reference {
	r.cut()
	out := &Reference{batches: r.batches, pos: make(map[int64][2]int, len(r.pos))}
	for id, p := range r.pos {
		if r.datasetOf(p) != key {
			out.pos[id] = p
		}
	}
	return out
}

func (r *Reference) datasetOf(p [2]int) string {
	b := r.batches[p[0]]
	return b.Column(b.Schema().FieldIndices(occurrence.ColDatasetKey)[0]).ValueStr(p[1])
}

// checkPin pins snap, refreshes and releases the pin: each step succeeds,
// the pinned snapshot scans to ref's records, and a second Release is no
// error. (What a pin keeps, and for how long, is
// each backend's to test with its own retention settings.)
func checkPin(t *testing.T, tbl occurrence.Backend, snap occurrence.Snapshot, ref *Reference) {
	ctx := context.Background()
	pin, err := tbl.Pin(ctx, snap, "conformance", time.Minute)
	if err != nil {
		t.Fatalf("pin snapshot %s: %v", snap.ID, err)
	}
	if err := pin.Refresh(ctx); err != nil {
		t.Fatalf("refresh the pin of %s: %v", snap.ID, err)
	}
	checkSnapshot(t, tbl, snap, ref)
	if err := pin.Release(ctx); err != nil {
		t.Fatalf("release the pin of %s: %v", snap.ID, err)
	}
	if err := pin.Release(ctx); err != nil {
		t.Fatalf("release the pin of %s twice: %v", snap.ID, err)
	}
}
