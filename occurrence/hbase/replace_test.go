package hbase

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// ingestN writes n generated records as dataset ds (commit or abort).
func ingestN(t *testing.T, s *Store, ds *occurrencetest.Dataset, g *occurrencetest.Generator, n int, commit bool) {
	t.Helper()
	ctx := context.Background()
	w, err := s.BeginDataset(ctx, ds.Info)
	if err != nil {
		t.Fatal(err)
	}
	rec := occurrence.NewRecord()
	for i := 0; i < n; i++ {
		g.Fill(rec, ds, i)
		if err := w.Append(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	if !commit {
		w.Abort(ctx)
		return
	}
	if _, err := w.Commit(ctx, occurrence.LoadStats{}); err != nil {
		t.Fatal(err)
	}
}

func countSnapshot(t *testing.T, s *Store, snap occurrence.Snapshot) int64 {
	t.Helper()
	var n int64
	_, err := occurrence.Scan(context.Background(), s, snap, occurrence.ScanRequest{Columns: []string{occurrence.ColGBIFID}}, occurrence.ScanOptions{}, func(b arrow.RecordBatch) error {
		n += b.NumRows()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// rawRows counts the table's occurrence rows of every generation.
func rawRows(t *testing.T, s *Store) int {
	t.Helper()
	n := 0
	opts := hrpc.ScanOptions{Stop: []byte{0xff}, Columns: []hrpc.Column{{Family: famRecord}},
		Filter: hrpc.FilterList{Filters: []hrpc.Filter{hrpc.FirstKeyOnlyFilter{}, hrpc.KeyOnlyFilter{}}}}
	if _, err := s.c.Scan(context.Background(), s.cfg.Table, opts, func(rows []hrpc.Row) error { n += len(rows); return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReplaceDataset: a replaced dataset is never half visible, an old
// snapshot keeps reading its generation until it is collected, an aborted
// ingest changes nothing, and old generations are deleted.
func TestReplaceDataset(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Config{Buckets: 4})
	g := occurrencetest.NewGenerator(7, 100)
	plan := g.Datasets(3000, 2)
	ingestN(t, s, &plan[0], g, plan[0].Records, true)
	ingestN(t, s, &plan[1], g, plan[1].Records, true)
	old, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	total := int64(plan[0].Records + plan[1].Records)
	if got := countSnapshot(t, s, old); got != total {
		t.Fatalf("snapshot has %d rows, ingested %d", got, total)
	}

	// Replace dataset 0 with fewer records; the old snapshot is unaffected.
	ingestN(t, s, &plan[0], g, 500, true)
	now, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if now.ID == old.ID {
		t.Fatal("snapshot id did not change after an ingest")
	}
	if got, want := countSnapshot(t, s, now), int64(500+plan[1].Records); got != want {
		t.Fatalf("new snapshot has %d rows, want %d", got, want)
	}
	if got := countSnapshot(t, s, old); got != total {
		t.Fatalf("old snapshot has %d rows after a replace, want %d", got, total)
	}
	n, _, err := occurrence.Count(ctx, s, now, nil, occurrence.ScanOptions{})
	if err != nil || n != int64(500+plan[1].Records) {
		t.Fatalf("count(nil) = %d, %v", n, err)
	}

	// An aborted ingest leaves the table as it was, rows included.
	before := rawRows(t, s)
	ingestN(t, s, &plan[1], g, 800, false)
	if got := countSnapshot(t, s, now); got != int64(500+plan[1].Records) {
		t.Fatalf("after abort: %d rows", got)
	}
	if got := rawRows(t, s); got != before {
		t.Fatalf("after abort the table holds %d rows, before %d", got, before)
	}

	// A crashed ingest (rows written, never committed nor aborted) is
	// invisible, and its rows are deleted once AbandonAfter passed.
	cw, err := s.BeginDataset(ctx, plan[0].Info)
	if err != nil {
		t.Fatal(err)
	}
	crashed := cw.(*DatasetWriter)
	rec := occurrence.NewRecord()
	for i := 0; i < 400; i++ {
		g.Fill(rec, &plan[0], i)
		if err := crashed.Append(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := crashed.flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := crashed.wait(); err != nil { // the batch is written in the background
		t.Fatal(err)
	}
	if got := rawRows(t, s); got != before+400 {
		t.Fatalf("crashed ingest wrote %d rows, want 400", got-before)
	}
	if snap, _ := s.Snapshot(ctx); countSnapshot(t, s, snap) != int64(500+plan[1].Records) {
		t.Fatal("rows of an uncommitted ingest are visible")
	}

	// With KeepFor and AbandonAfter elapsed, the next writer deletes the
	// replaced and the crashed generations.
	s.cfg.KeepFor, s.cfg.AbandonAfter = time.Nanosecond, time.Nanosecond
	ingestN(t, s, &plan[0], g, 300, true)
	if got, want := rawRows(t, s), 300+plan[1].Records; got != want {
		t.Fatalf("after collection the table holds %d rows, want %d", got, want)
	}
	ds, err := s.Datasets(ctx)
	if err != nil || len(ds) != 2 || ds[0].Records+ds[1].Records != int64(300+plan[1].Records) {
		t.Fatalf("datasets = %+v, %v", ds, err)
	}
	if err := s.DeleteDataset(ctx, plan[1].Info.Key); err != nil {
		t.Fatal(err)
	}
	final, _ := s.Snapshot(ctx)
	if got := countSnapshot(t, s, final); got != 300 {
		t.Fatalf("after delete: %d rows, want 300", got)
	}
}

// TestWriteFailureReturnedLater: a batch is written while the next fills,
// so its failure comes back from Commit (or the next batch's Append), and
// the dataset keeps its previous generation.
func TestWriteFailureReturnedLater(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Config{Buckets: 4, WriteBatch: 10})
	g := occurrencetest.NewGenerator(9, 100)
	plan := g.Datasets(100, 1)
	ingestN(t, s, &plan[0], g, 30, true)
	w, err := s.BeginDataset(ctx, plan[0].Info)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	rec := occurrence.NewRecord()
	for i := range 15 {
		g.Fill(rec, &plan[0], i)
		c := ctx
		if i == 9 {
			c = cancelled // the tenth Append sends the first batch, under a cancelled context
		}
		if err := w.Append(c, rec); err != nil {
			t.Fatalf("Append %d: %v; a batch's failure comes back later", i, err)
		}
	}
	if n := w.(*DatasetWriter).Records(); n != 15 {
		t.Fatalf("Records() = %d, want 15", n)
	}
	if _, err := w.Commit(ctx, occurrence.LoadStats{}); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "write 10 records") {
		t.Fatalf("Commit: %v, want the first batch's failure", err)
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := countSnapshot(t, s, snap); got != 30 {
		t.Fatalf("after the failed ingest the snapshot has %d rows, want the previous 30", got)
	}
}

// TestPushdownSkipsRows: a 5%-selective country predicate makes the region
// servers ship far fewer bytes than a scan evaluating it client-side, with
// the same result.
func TestPushdownSkipsRows(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, Config{Buckets: 4})
	g := occurrencetest.NewGenerator(11, 200)
	plan := g.Datasets(6000, 12)
	for i := range plan {
		ingestN(t, s, &plan[i], g, plan[i].Records, true)
	}
	pred, err := occurrence.ParsePredicateJSON([]byte(`{"type":"equals","key":"COUNTRY","value":"NL"}`), occurrence.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	req := occurrence.ScanRequest{Predicate: pred, Columns: []string{occurrence.ColGBIFID}}
	var nPush, nFull int64
	push, err := occurrence.Scan(ctx, s, snap, req, occurrence.ScanOptions{}, func(b arrow.RecordBatch) error { nPush += b.NumRows(); return nil })
	if err != nil {
		t.Fatal(err)
	}
	s.cfg.NoPushdown = true
	full, err := occurrence.Scan(ctx, s, snap, req, occurrence.ScanOptions{}, func(b arrow.RecordBatch) error { nFull += b.NumRows(); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if nPush != nFull || nPush == 0 {
		t.Fatalf("pushdown matched %d rows, client-side %d", nPush, nFull)
	}
	if push.BytesRead*4 > full.BytesRead {
		t.Fatalf("pushdown read %d bytes, client-side %d: want < 1/4", push.BytesRead, full.BytesRead)
	}
	t.Logf("%d matches; bytes read with pushdown %d, without %d", nPush, push.BytesRead, full.BytesRead)
}
