package tableexport

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/ingest"
	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// kewTable is an embedded table of Kew's sample: 19 specimens with image
// rows (gbif:Multimedia), closed when the test ends.
func kewTable(t *testing.T) *parquet.Store {
	t.Helper()
	ctx := context.Background()
	store, err := parquet.Open(t.TempDir(), parquet.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	src, err := ingest.Open(ctx, "../../dwca/testdata/dissco-dwca-kew-gbif-media.zip", ingest.OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := ingest.Load(ctx, store, src, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	return store
}

// What a job's request carries beyond the predicate reaches the archive:
// the requested extension's rows, the portal and DOI in the citation, the
// checklist asked for in the metadata.
func TestExportRequestReachesTheArchive(t *testing.T) {
	ctx := context.Background()
	store := kewTable(t)
	e := New(store, Config{TempDir: t.TempDir()}, nil)
	var buf bytes.Buffer
	created := time.Date(2026, 5, 7, 10, 0, 0, 0, time.UTC)
	res, err := e.Export(ctx, jobs.ExportRequest{Key: "0000001-260507100000000", Format: "DWCA", Predicate: json.RawMessage("null"),
		Created: created, ChecklistKey: "7ddf754f-d193-4cc9-b351-99906754a03b",
		VerbatimExtensions: []string{"http://rs.gbif.org/terms/1.0/Multimedia"}, DOI: "10.80000/dl.abc123",
		Portal: download.Portal{Name: "Portal.example", Short: "PE"}}, &buf, func(jobs.Progress) {})
	if err != nil || res.Records != 19 {
		t.Fatalf("export: %+v %v", res, err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	text := func(name string) string {
		rc, err := zr.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		b, _ := io.ReadAll(rc)
		return string(b)
	}
	if media := strings.Count(text("verbatim/multimedia.txt"), "\n"); media != 1+19 {
		t.Errorf("verbatim/multimedia.txt has %d lines, want a header and Kew's 19 image rows", media)
	}
	wantCit := "Portal.example (7 May 2026) PE Occurrence Download https://doi.org/10.80000/dl.abc123"
	if cit := text("citations.txt"); !strings.Contains(cit, "\n"+wantCit+"\n") {
		t.Errorf("citations.txt:\n%s\nwant the line %q", cit, wantCit)
	}
	if eml := text("metadata.xml"); !strings.Contains(eml, "checklist 7ddf754f-d193-4cc9-b351-99906754a03b was asked for") ||
		!strings.Contains(eml, "<title xml:lang=\"eng\">PE Occurrence Download 10.80000/dl.abc123</title>") {
		t.Errorf("metadata.xml does not name the checklist asked for or the portal's title:\n%s", eml)
	}
}

// pausingTable stops the scan of split at until resume is closed, so that
// an export can be caught mid-scan; with noPin its pins keep nothing.
type pausingTable struct {
	*parquet.Store
	at      int
	reached chan struct{}
	resume  chan struct{}
	noPin   bool
}

func (p *pausingTable) ScanSplit(ctx context.Context, split occurrence.Split, req occurrence.ScanRequest, emit func(arrow.RecordBatch) error) (occurrence.ScanStats, error) {
	if split.Index == p.at {
		close(p.reached)
		select {
		case <-p.resume:
		case <-ctx.Done():
			return occurrence.ScanStats{}, ctx.Err()
		}
	}
	return p.Store.ScanSplit(ctx, split, req, emit)
}

func (p *pausingTable) Pin(ctx context.Context, snap occurrence.Snapshot, holder string, ttl time.Duration) (occurrence.Pin, error) {
	if p.noPin {
		return noPin{}, nil
	}
	return p.Store.Pin(ctx, snap, holder, ttl)
}

type noPin struct{}

func (noPin) Refresh(context.Context) error { return nil }
func (noPin) Release(context.Context) error { return nil }

// csvRows exports every record as SIMPLE_CSV and returns its data lines,
// sorted, and the result.
func csvRows(t *testing.T, e *Engine, key string) ([]string, jobs.ExportResult, error) {
	t.Helper()
	var buf bytes.Buffer
	res, err := e.Export(context.Background(), jobs.ExportRequest{Key: key, Format: "SIMPLE_CSV", Predicate: json.RawMessage("null"),
		Created: time.Now()}, &buf, func(jobs.Progress) {})
	if err != nil {
		return nil, res, err
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(rc)
	rc.Close()
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")[1:]
	sort.Strings(lines)
	return lines, res, nil
}

// TestExportDuringRollover: an export paused mid-scan while a rollover
// compacts the table and cleanup retires every snapshot it may (no
// retention, no grace period) finishes against its own snapshot, its rows
// those of the table before the rollover, because its pin kept the files;
// once it has finished (the pin released) the next cleanup deletes them.
// Without the pin the same export fails: the files it had not opened yet
// are gone.
func TestExportDuringRollover(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := parquet.Config{RowGroupRows: 200, KeepSnapshots: 1, KeepFor: -1}
	store, err := parquet.Open(dir, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// The rollover runs as `downloader rollover` does, in another process:
	// a store of its own on the same directory.
	roller, err := parquet.Open(dir, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer roller.Close()
	occurrencetest.Load(t, store, 4000, 60)
	want, res, err := csvRows(t, New(store, Config{TempDir: t.TempDir()}, nil), "0000001-260507100000000")
	if err != nil || len(want) != 4000 {
		t.Fatalf("export before the rollover: %d rows, %v", len(want), err)
	}
	before := res.Snapshot

	run := func(noPin bool) ([]string, []string, jobs.ExportResult, error) {
		old, err := store.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, sp := range old.Splits {
			files = append(files, store.SplitPath(sp))
		}
		pt := &pausingTable{Store: store, at: 10, reached: make(chan struct{}), resume: make(chan struct{}), noPin: noPin}
		e := New(pt, Config{TempDir: t.TempDir(), Workers: 2}, nil)
		type out struct {
			rows []string
			res  jobs.ExportResult
			err  error
		}
		done := make(chan out, 1)
		go func() {
			rows, res, err := csvRows(t, e, "0000002-260507100000000")
			done <- out{rows, res, err}
		}()
		<-pt.reached
		rep, err := roller.Rollover(ctx, parquet.RolloverOptions{SmallRows: 1 << 40})
		if err != nil {
			t.Fatal(err)
		}
		if rep.RowsRewritten != 4000 {
			t.Fatalf("the rollover rewrote %d rows, want 4000", rep.RowsRewritten)
		}
		if !noPin && (len(rep.Pins) != 1 || rep.Pins[0].Holder != "0000002-260507100000000") {
			t.Fatalf("the rollover saw pins %+v, want the export's", rep.Pins)
		}
		close(pt.resume)
		o := <-done
		return files, o.rows, o.res, o.err
	}

	files, got, res, err := run(false)
	if err != nil {
		t.Fatalf("the export paused across the rollover failed: %v", err)
	}
	if res.Snapshot != before || !slices.Equal(got, want) {
		t.Fatalf("the export read snapshot %s (%d rows), want %s's %d rows, the same", res.Snapshot, len(got), before, len(want))
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("a file of the export's snapshot went while the export was pinned: %v", err)
		}
	}
	rep, err := roller.Rollover(ctx, parquet.RolloverOptions{SmallRows: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Retired) == 0 || len(rep.Pins) != 0 {
		t.Fatalf("after the export: retired %v, pins %+v", rep.Retired, rep.Pins)
	}
	for _, f := range files {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("file %s of the released snapshot is still there (%v)", f, err)
		}
	}

	// The control: the table has one segment now; a fresh load of small
	// datasets gives the next rollover files to retire under the export.
	occurrencetest.Load(t, store, 4000, 60)
	if _, _, _, err := run(true); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an unpinned export across a rollover: %v, want a missing file", err)
	}
}

// TestExportTable: with an export table (an embedded copy of the live
// table, as `serve --export-table` reads), counts follow the live table and
// exports read the copy, recording the copy's snapshot, which names the
// live snapshot it was taken from.
func TestExportTable(t *testing.T) {
	ctx := context.Background()
	live, err := parquet.Open(t.TempDir(), parquet.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	plan := occurrencetest.Load(t, live, 1500, 5)
	copied, err := parquet.Open(t.TempDir(), parquet.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	src, _ := live.Snapshot(ctx)
	if _, err := copied.CopyFrom(ctx, live, parquet.RolloverOptions{Source: "live"}); err != nil {
		t.Fatal(err)
	}
	if err := live.DeleteDataset(ctx, plan[0].Info.Key); err != nil {
		t.Fatal(err)
	}
	e := NewWithExportTable(live, copied, Config{TempDir: t.TempDir()}, nil)
	n, err := e.Count(ctx, json.RawMessage("null"))
	if err != nil || n != int64(1500-plan[0].Records) {
		t.Fatalf("count %d (%v), want the live table's %d", n, err, 1500-plan[0].Records)
	}
	rows, res, err := csvRows(t, e, "0000003-260507100000000")
	if err != nil || len(rows) != 1500 || res.Records != 1500 {
		t.Fatalf("export of the copy: %d rows, %+v, %v; want the 1500 copied", len(rows), res, err)
	}
	if want := "1:live@" + src.ID; res.Snapshot != want {
		t.Fatalf("the export recorded snapshot %q, want %q", res.Snapshot, want)
	}
}

// A SQL download whose groups outgrow the budget fails for good (no
// retry would fare better) as a request over a limit, which its creator
// reads whole: what was too large and what to do.
func TestSQLOverItsMemoryFailsForGood(t *testing.T) {
	ctx := context.Background()
	store := kewTable(t)
	req := jobs.ExportRequest{Key: "0000001-260507100000000", Format: "SQL_TSV_ZIP",
		SQL: "SELECT gbifID, COUNT(*) FROM occurrence GROUP BY gbifID"}
	var buf bytes.Buffer
	_, err := New(store, Config{TempDir: t.TempDir(), SQLMemory: 1 << 10}, nil).Export(ctx, req, &buf, func(jobs.Progress) {})
	var perm *jobs.PermanentError
	if !errors.As(err, &perm) || !errors.Is(err, jobs.ErrPredicateTooLarge) || !strings.Contains(err.Error(), "group by fewer or coarser columns") {
		t.Fatalf("over its memory: %v, want a permanent limit error saying what to do", err)
	}
	buf.Reset()
	if _, err := New(store, Config{TempDir: t.TempDir()}, nil).Export(ctx, req, &buf, func(jobs.Progress) {}); err != nil {
		t.Fatalf("within the default budget: %v", err)
	}
}
