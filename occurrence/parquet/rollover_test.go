package parquet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// rolloverConfig gives small row groups, so that a few thousand records
// make many files and row groups, and windows of two row groups, so that a
// rollover of a few thousand records spills sort runs and merges them.
var rolloverConfig = Config{RowGroupRows: 500, FileRowGroups: 4, ClusterRowGroups: 2}

// tableDump is everything a reader can see of a snapshot: every column of
// every record (by gbifID), the catalog, the EML documents.
type tableDump struct {
	rows     map[int64]string
	datasets []occurrence.DatasetInfo
	eml      map[string][]byte
}

func dumpTable(t *testing.T, s *Store, snap occurrence.Snapshot) tableDump {
	t.Helper()
	ctx := context.Background()
	d := tableDump{rows: occurrencetest.RowValues(t, s, snap), eml: map[string][]byte{}}
	var err error
	if d.datasets, err = s.Datasets(ctx); err != nil {
		t.Fatal(err)
	}
	for _, ds := range d.datasets {
		if !ds.HasEML {
			continue
		}
		rc, err := s.DatasetEML(ctx, ds.Key)
		if err != nil {
			t.Fatal(err)
		}
		d.eml[ds.Key], err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// sameDump fails unless a and b hold the same records with the same values,
// the same catalog and the same EML documents.
func sameDump(t *testing.T, what string, a, b tableDump) {
	t.Helper()
	if len(a.rows) != len(b.rows) {
		t.Fatalf("%s: %d records, want %d", what, len(a.rows), len(b.rows))
	}
	names := occurrence.Columns()
	for id, row := range b.rows {
		got, ok := a.rows[id]
		if !ok {
			t.Fatalf("%s: gbifID %d missing", what, id)
		}
		if got != row {
			g, w := strings.Split(got, "\x00"), strings.Split(row, "\x00")
			for c := range w {
				if g[c] != w[c] {
					t.Fatalf("%s: gbifID %d column %s is %q, was %q", what, id, names[c].Name, g[c], w[c])
				}
			}
		}
	}
	if !reflect.DeepEqual(a.datasets, b.datasets) {
		t.Fatalf("%s: catalog\n%+v\nwas\n%+v", what, a.datasets, b.datasets)
	}
	if !reflect.DeepEqual(a.eml, b.eml) {
		t.Fatalf("%s: EML documents differ", what)
	}
}

func current(t *testing.T, s *Store) occurrence.Snapshot {
	t.Helper()
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// loadWithEMLs loads n generated datasets of records in total, every third
// with an EML document.
func loadWithEMLs(t *testing.T, s *Store, records, n int) []occurrencetest.Dataset {
	t.Helper()
	ctx := context.Background()
	g := occurrencetest.NewGenerator(5, 500)
	plan := g.Datasets(records, n)
	rec := occurrence.NewRecord()
	for i := range plan {
		w, err := s.BeginDataset(ctx, plan[i].Info)
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if err := w.SetEML(ctx, strings.NewReader(fmt.Sprintf("<eml>%d &amp; ø</eml>", i))); err != nil {
				t.Fatal(err)
			}
		}
		keys := make([]string, plan[i].Records)
		ids := make([]int64, len(keys))
		for j := range keys {
			keys[j] = fmt.Sprintf("occ-%d", j)
		}
		if err := s.MintIDs(ctx, plan[i].Info.Key, keys, ids); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < plan[i].Records; j++ {
			g.Fill(rec, &plan[i], j)
			rec.SetInt(occurrence.ColumnIndex(occurrence.ColGBIFID), ids[j])
			if err := w.Append(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx, occurrence.LoadStats{BrokenRows: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	return plan
}

// checkClustered fails unless the rows of every segment, read in split
// order, are sorted by the clustering columns across the whole segment.
func checkClustered(t *testing.T, s *Store, snap occurrence.Snapshot) {
	t.Helper()
	ctx := context.Background()
	var prev []string
	prevSeg := ""
	n := 0
	for _, sp := range snap.Splits {
		ref := sp.Ref.(splitRef)
		seg := segmentOf(ref.path)
		if seg == "" {
			continue
		}
		if seg != prevSeg {
			prev, prevSeg = nil, seg
		}
		_, err := s.ScanSplit(ctx, sp, occurrence.ScanRequest{Columns: segmentClusterColumns}, func(b arrow.RecordBatch) error {
			for i := 0; i < int(b.NumRows()); i++ {
				row := make([]string, len(segmentClusterColumns))
				for c := range row {
					row[c] = b.Column(c).ValueStr(i)
				}
				if prev != nil && compareKeys(b, i, prev) < 0 {
					return fmt.Errorf("segment %s: row %v sorts before the previous row %v", seg, row, prev)
				}
				prev = row
				n++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		t.Fatal("no segment rows to check")
	}
}

// compareKeys compares row i of b (the clustering columns) with prev, as
// clusterOrder does (nulls last).
func compareKeys(b arrow.RecordBatch, i int, prev []string) int {
	for c := range prev {
		a := b.Column(c)
		an, pn := a.IsNull(i), prev[c] == array.NullValueStr
		switch {
		case an && pn:
			continue
		case an:
			return 1
		case pn:
			return -1
		}
		var d int
		switch a := a.(type) {
		case *array.String:
			d = strings.Compare(a.Value(i), prev[c])
		default:
			var x, y int64
			fmt.Sscan(a.ValueStr(i), &x)
			fmt.Sscan(prev[c], &y)
			d = cmpInt(x, y)
		}
		if d != 0 {
			return d
		}
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestRolloverKeepsEveryValue: a rollover merging every dataset (sorted in
// one window, and spilled to runs merged in several rounds) changes no
// value of any column of any record, no dataset description, no EML
// document; it makes fewer files and row groups, sorts each segment by the
// clustering columns throughout, and a second rollover finds nothing to do.
func TestRolloverKeepsEveryValue(t *testing.T) {
	for _, c := range []struct {
		name   string
		window int64
		ways   int
	}{{"in-memory", 1 << 30, mergeWays}, {"spilled", 0, mergeWays}, {"merge-rounds", 0, 2}} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.name != "merge-rounds" {
				t.Skip("-short (the race step) runs the merge-rounds case only, which spills and merges")
			}
			cfg := rolloverConfig
			if c.window > 0 {
				cfg.ClusterRowGroups, cfg.WindowBytes = 1000, c.window
			}
			defer func(w int) { mergeWays = w }(mergeWays)
			mergeWays = c.ways
			s := openTest(t, cfg)
			loadWithEMLs(t, s, 6000, 30)
			before := current(t, s)
			want := dumpTable(t, s, before)
			rep, err := s.Rollover(context.Background(), RolloverOptions{SmallRows: 1 << 40, RowGroupRows: 500})
			if err != nil {
				t.Fatal(err)
			}
			after := current(t, s)
			sameDump(t, "after rollover", dumpTable(t, s, after), want)
			if rep.After == rep.Before || rep.After != after.ID || rep.Before != before.ID {
				t.Fatalf("report says %s -> %s, snapshots %s -> %s", rep.Before, rep.After, before.ID, after.ID)
			}
			if rep.DatasetsMerged != 30 || rep.RowsRewritten != 6000 || rep.Records != 6000 {
				t.Fatalf("merged %d datasets, %d rows of %d records, want 30, 6000", rep.DatasetsMerged, rep.RowsRewritten, rep.Records)
			}
			if rep.FilesAfter >= rep.FilesBefore || rep.RowGroupsAfter >= rep.RowGroupsBefore || rep.FilesAfter != 3 || rep.RowGroupsAfter != 12 {
				t.Fatalf("files %d -> %d, row groups %d -> %d; want 3 files of 12 row groups of 500",
					rep.FilesBefore, rep.FilesAfter, rep.RowGroupsBefore, rep.RowGroupsAfter)
			}
			if spilled := rep.SpilledBytes > 0; spilled != (c.window == 0) {
				t.Fatalf("spilled %d bytes of sort runs", rep.SpilledBytes)
			}
			checkClustered(t, s, after)
			t.Logf("%+v", rep)
			again, err := s.Rollover(context.Background(), RolloverOptions{SmallRows: 1 << 40})
			if err != nil {
				t.Fatal(err)
			}
			if again.After != again.Before || again.Before != after.ID || again.RowsRewritten != 0 {
				t.Fatalf("a second rollover rewrote %d rows (%s -> %s)", again.RowsRewritten, again.Before, again.After)
			}
			if _, err := os.Stat(filepath.Join(s.dir, segmentDir(segmentOf(after.Splits[0].Ref.(splitRef).path)), "sort")); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the sort runs' directory is left: %v", err)
			}
		})
	}
}

// TestRolloverConformance runs the backend suite on tables rolled over
// right after they are loaded: scans, catalog and EML come from a segment,
// and the suite's replace and delete leave dead rows in it.
func TestRolloverConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite again, on rolled-over tables: run without -short (the race step skips it)")
	}
	occurrencetest.RunWith(t, func(t *testing.T) occurrence.Backend {
		return openTest(t, Config{RowGroupRows: 1000, FileRowGroups: 3, ClusterRowGroups: 2})
	}, occurrencetest.Options{AfterLoad: func(t *testing.T, tbl occurrence.Backend) {
		s := tbl.(*Store)
		rep, err := s.Rollover(context.Background(), RolloverOptions{SmallRows: 1 << 40})
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.current()
		if err != nil || len(m.Segments) != 1 || rep.RowsRewritten != rep.Records {
			t.Fatalf("after the rollover: %d segments (%v), %d of %d rows rewritten", len(m.Segments), err, rep.RowsRewritten, rep.Records)
		}
		for k, ds := range m.Datasets {
			if ds.Segment == "" || len(ds.Files) > 0 {
				t.Fatalf("dataset %s not merged", k)
			}
		}
	}})
}

// TestRolloverDeadRows: datasets loaded again or deleted after a rollover
// leave dead rows in its segment, which scans skip and split row counts
// leave out; the next rollover drops them. Two tables get the same loads,
// replacements and deletes, one with rollovers in between: they read the
// same throughout.
func TestRolloverDeadRows(t *testing.T) {
	ctx := context.Background()
	rolled, plain := openTest(t, rolloverConfig), openTest(t, rolloverConfig)
	var plan []occurrencetest.Dataset
	for _, s := range []*Store{rolled, plain} {
		plan = loadWithEMLs(t, s, 4000, 20)
	}
	compare := func(what string) {
		t.Helper()
		a, b := current(t, rolled), current(t, plain)
		da, db := dumpTable(t, rolled, a), dumpTable(t, plain, b)
		for i := range da.datasets { // the two tables were loaded at other times
			da.datasets[i].Ingested, db.datasets[i].Ingested = time.Time{}, time.Time{}
		}
		sameDump(t, what, da, db)
		var ra, rb int64
		for _, sp := range a.Splits {
			ra += sp.Rows
		}
		for _, sp := range b.Splits {
			rb += sp.Rows
		}
		if ra != rb || ra != int64(len(dumpTable(t, plain, b).rows)) {
			t.Fatalf("%s: splits count %d rows, the plain table's %d", what, ra, rb)
		}
		for _, q := range []string{`{"type":"equals","key":"COUNTRY","value":"NL"}`, `{"type":"range","key":"YEAR","value":{"gte":"1990","lte":"2000"}}`} {
			pred, _ := occurrence.ParsePredicateJSON([]byte(q), occurrence.DefaultLimits())
			na, _, err := occurrence.Count(ctx, rolled, a, pred, occurrence.ScanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			nb, _, _ := occurrence.Count(ctx, plain, b, pred, occurrence.ScanOptions{})
			if na != nb {
				t.Fatalf("%s: %s counts %d, the plain table %d", what, q, na, nb)
			}
		}
	}
	if _, err := rolled.Rollover(ctx, RolloverOptions{SmallRows: 1 << 40}); err != nil {
		t.Fatal(err)
	}
	compare("after the rollover")
	g := occurrencetest.NewGenerator(77, 500)
	for _, s := range []*Store{rolled, plain} {
		g.Reseed(77)
		replaced := plan[3]
		replaced.Records = 120
		occurrencetest.LoadDataset(t, s, g, &replaced)
		if err := s.DeleteDataset(ctx, plan[5].Info.Key); err != nil {
			t.Fatal(err)
		}
	}
	compare("after a replace and a delete")
	m, _ := rolled.current()
	if _, dead := segmentRows(m, m.Segments[0]); dead != int64(plan[3].Records+plan[5].Records) {
		t.Fatalf("segment has %d dead rows, want %d", dead, plan[3].Records+plan[5].Records)
	}
	rep, err := rolled.Rollover(ctx, RolloverOptions{SmallRows: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	if rep.DeadRows != int64(plan[3].Records+plan[5].Records) || rep.SegmentsRewritten != 1 {
		t.Fatalf("second rollover dropped %d dead rows of %d segments, want %d of 1", rep.DeadRows, rep.SegmentsRewritten, plan[3].Records+plan[5].Records)
	}
	compare("after the second rollover")
	for _, sp := range current(t, rolled).Splits {
		if sp.Ref.(splitRef).live != nil {
			t.Fatal("a split still filters dead rows after the rollover that dropped them")
		}
	}
}

// TestRolloverRefreshesStatistics: row groups whose statistics lack a
// column (written before the column had them) get them from a rollover
// that merges nothing, and a predicate on the column prunes again.
func TestRolloverRefreshesStatistics(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, rolloverConfig)
	occurrencetest.Load(t, s, 4000, 4)
	pred, _ := occurrence.ParsePredicateJSON([]byte(`{"type":"range","key":"YEAR","value":{"gte":"1800","lte":"1850"}}`), occurrence.DefaultLimits())
	count := func() (int64, occurrence.ScanStats) {
		n, st, err := occurrence.Count(ctx, s, current(t, s), pred, occurrence.ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n, st
	}
	want, pruned := count()
	if pruned.SplitsPruned == 0 {
		t.Fatal("the year predicate prunes nothing to begin with")
	}
	_, err := s.update(ctx, func(m *manifest) error {
		for _, ds := range m.Datasets {
			for i := range ds.Files {
				for j := range ds.Files[i].RowGroups {
					rg := &ds.Files[i].RowGroups[j]
					rg.Stats = bytes.Replace(rg.Stats, []byte(`"year":`), []byte(`"yearOld":`), 1)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, st := count(); n != want || st.SplitsPruned != 0 {
		t.Fatalf("without year statistics: %d matches, %d row groups pruned; want %d, 0", n, st.SplitsPruned, want)
	}
	rep, err := s.Rollover(ctx, RolloverOptions{SmallRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RowsRewritten != 0 || rep.StatsRefreshed != rep.RowGroupsBefore {
		t.Fatalf("rollover rewrote %d rows and refreshed %d of %d row groups' statistics", rep.RowsRewritten, rep.StatsRefreshed, rep.RowGroupsBefore)
	}
	if n, st := count(); n != want || st.SplitsPruned != pruned.SplitsPruned {
		t.Fatalf("after the refresh: %d matches, %d row groups pruned; want %d, %d", n, st.SplitsPruned, want, pruned.SplitsPruned)
	}
}

// pruning counts, for a predicate, the splits of snap, those pruned, and
// the rows the scan read.
func pruning(t *testing.T, s *Store, snap occurrence.Snapshot, js string) (splits, pruned int, scanned, matched int64) {
	t.Helper()
	pred, err := occurrence.ParsePredicateJSON([]byte(js), occurrence.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	n, st, err := occurrence.Count(context.Background(), s, snap, pred, occurrence.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(snap.Splits), st.SplitsPruned, st.RowsScanned, n
}

// TestRolloverPrunesAsAFreshIngest: on many small datasets, country, taxon
// and year predicates prune a rolled-over table at least as well as the
// same records ingested afresh as one dataset (each clustering window
// sorted on its own): the share of the table's rows a scan reads is no
// larger. The figures before the rollover (one partition per dataset) are
// logged beside them.
func TestRolloverPrunesAsAFreshIngest(t *testing.T) {
	if testing.Short() {
		t.Skip("a measurement of 15,000 records in three layouts: run without -short (the race step skips it)")
	}
	ctx := context.Background()
	cfg := Config{RowGroupRows: 1000, FileRowGroups: 4, ClusterRowGroups: 4}
	s := openTest(t, cfg)
	loadWithEMLs(t, s, 15000, 150)
	before := current(t, s)
	// The same records as one fresh ingest, in table order.
	fresh := openTest(t, cfg)
	w, err := fresh.BeginDataset(ctx, occurrence.DatasetInfo{Key: "all"})
	if err != nil {
		t.Fatal(err)
	}
	rec := occurrence.NewRecord()
	_, err = occurrence.Scan(ctx, s, before, occurrence.ScanRequest{}, occurrence.ScanOptions{}, func(b arrow.RecordBatch) error {
		for i := 0; i < int(b.NumRows()); i++ {
			recordFromBatch(rec, b, i)
			if err := w.Append(ctx, rec); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		_, err = w.Commit(ctx, occurrence.LoadStats{})
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Rollover(ctx, RolloverOptions{SmallRows: 1 << 40}); err != nil {
		t.Fatal(err)
	}
	after := current(t, s)
	preds := []string{
		`{"type":"equals","key":"COUNTRY","value":"NL"}`,
		`{"type":"equals","key":"COUNTRY","value":"KE"}`,
		`{"type":"in","key":"COUNTRY","values":["DK","SE","NO"]}`,
		`{"type":"equals","key":"TAXON_KEY","value":"3"}`,
		`{"type":"equals","key":"KINGDOM_KEY","value":"6"}`,
		`{"type":"range","key":"YEAR","value":{"gte":"1800","lte":"1850"}}`,
		`{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"US"},{"type":"range","key":"YEAR","value":{"gte":"2000","lte":"2010"}}]}`,
	}
	for _, js := range preds {
		bs, bp, bscan, bn := pruning(t, s, before, js)
		fs, fp, fscan, fn := pruning(t, fresh, current(t, fresh), js)
		as, ap, ascan, an := pruning(t, s, after, js)
		if an != bn || fn != bn {
			t.Fatalf("%s: %d matches after the rollover, %d before, %d fresh", js, an, bn, fn)
		}
		t.Logf("%s: %d matches; per dataset %d/%d row groups pruned, %d rows read; fresh ingest %d/%d, %d; rolled over %d/%d, %d",
			js, an, bp, bs, bscan, fp, fs, fscan, ap, as, ascan)
		if ascan > fscan {
			t.Errorf("%s: the rolled-over table reads %d rows, a fresh ingest %d", js, ascan, fscan)
		}
	}
}

// recordFromBatch sets rec to row i of a full-schema batch.
func recordFromBatch(rec *occurrence.Record, b arrow.RecordBatch, i int) {
	rec.Reset()
	for c := 0; c < int(b.NumCols()); c++ {
		a := b.Column(c)
		if a.IsNull(i) {
			continue
		}
		switch a := a.(type) {
		case *array.String:
			rec.SetString(c, a.Value(i))
		case *array.Int32:
			rec.SetInt(c, int64(a.Value(i)))
		case *array.Int64:
			rec.SetInt(c, a.Value(i))
		case *array.Float64:
			rec.SetFloat(c, a.Value(i))
		case *array.Boolean:
			rec.SetBool(c, a.Value(i))
		case *array.Timestamp:
			rec.SetInt(c, int64(a.Value(i)))
		}
	}
}

// snapshotFiles lists the data files snap reads.
func snapshotFiles(snap occurrence.Snapshot) []string {
	seen := map[string]bool{}
	for _, sp := range snap.Splits {
		seen[sp.Ref.(splitRef).path] = true
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// TestRolloverRetiresUnpinnedSnapshots: with no retention beyond the
// current snapshot, a rollover keeps the files of a pinned snapshot, which
// still scans as it was; once the pin is released the next cleanup deletes
// them. A pin whose holder stopped refreshing expires, and a snapshot
// already retired cannot be pinned.
func TestRolloverRetiresUnpinnedSnapshots(t *testing.T) {
	ctx := context.Background()
	cfg := rolloverConfig
	cfg.KeepSnapshots, cfg.KeepFor = 1, -1
	s := openTest(t, cfg)
	loadWithEMLs(t, s, 3000, 12)
	old := current(t, s)
	want := dumpTable(t, s, old)
	pin, err := s.Pin(ctx, old, "test download", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Rollover(ctx, RolloverOptions{SmallRows: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pins) != 1 || rep.Pins[0].Holder != "test download" {
		t.Fatalf("report lists pins %+v", rep.Pins)
	}
	for _, f := range snapshotFiles(old) {
		if _, err := os.Stat(filepath.Join(s.dir, f)); err != nil {
			t.Fatalf("a file of the pinned snapshot is gone: %v", err)
		}
	}
	sameDump(t, "the pinned snapshot after the rollover", dumpTable(t, s, old), want)
	if err := pin.Release(ctx); err != nil {
		t.Fatal(err)
	}
	rep, err = s.Rollover(ctx, RolloverOptions{SmallRows: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	oldN, _ := snapshotNumber(old.ID)
	if !containsInt(rep.Retired, oldN) || rep.FreedBytes == 0 {
		t.Fatalf("after the release the rollover retired %v, freed %d bytes; want snapshot %d retired", rep.Retired, rep.FreedBytes, oldN)
	}
	for _, f := range snapshotFiles(old) {
		if _, err := os.Stat(filepath.Join(s.dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("file %s of the released snapshot is still there (%v)", f, err)
		}
	}
	if _, err := s.Pin(ctx, old, "late", time.Minute); !errors.Is(err, occurrence.ErrSnapshotGone) {
		t.Fatalf("pinning a retired snapshot: %v, want ErrSnapshotGone", err)
	}

	// A holder that died: its pin's heartbeat is older than its ttl.
	cur := current(t, s)
	dead, err := s.Pin(ctx, cur, "crashed worker", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	stale := time.Now().Add(-time.Second - 2*pinClockSkew)
	if err := os.Chtimes(dead.(*filePin).path, stale, stale); err != nil {
		t.Fatal(err)
	}
	if pins, _ := s.Pins(); len(pins) != 0 {
		t.Fatalf("an expired pin is listed: %+v", pins)
	}
	occurrencetest.Load(t, s, 100, 1) // a writer's cleanup
	if _, err := os.Stat(dead.(*filePin).path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the expired pin file is still there (%v)", err)
	}
	if err := dead.Refresh(ctx); !errors.Is(err, errPinLost) {
		t.Fatalf("refreshing an expired pin: %v, want errPinLost", err)
	}
}

func containsInt(xs []int64, x int64) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
