package parquet

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

func openTest(t *testing.T, cfg Config) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestConformance runs the scan contract suite with small row groups so that
// every dataset spans several splits and files.
func TestConformance(t *testing.T) {
	occurrencetest.Run(t, func(t *testing.T) occurrence.Backend {
		return openTest(t, Config{RowGroupRows: 1000, FileRowGroups: 3})
	})
}

func TestPruningSkipsRowGroups(t *testing.T) {
	s := openTest(t, Config{RowGroupRows: 500})
	occurrencetest.Load(t, s, 20000, 8)
	ctx := context.Background()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Generated datasets are dominated by one country each, and a country code
	// column has few distinct values per row group: dictionaries prune.
	pred, err := occurrence.ParsePredicateJSON([]byte(`{"type":"equals","key":"COUNTRY","value":"KE"}`), occurrence.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	_, st, err := occurrence.Count(ctx, s, snap, pred, occurrence.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.SplitsPruned == 0 {
		t.Fatalf("no row group pruned of %d", len(snap.Splits))
	}
	t.Logf("pruned %d of %d row groups, scanned %d rows", st.SplitsPruned, len(snap.Splits), st.RowsScanned)
}

func TestReplaceDatasetIsAtomic(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Config{RowGroupRows: 100})
	g := occurrencetest.NewGenerator(1, 100)
	plan := g.Datasets(1000, 1)
	write := func(n int) occurrence.DatasetWriter {
		w, err := s.BeginDataset(ctx, plan[0].Info)
		if err != nil {
			t.Fatal(err)
		}
		rec := occurrence.NewRecord()
		for i := 0; i < n; i++ {
			g.Fill(rec, &plan[0], i)
			if err := w.Append(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		return w
	}
	count := func() int64 {
		snap, err := s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n, _, err := occurrence.Count(ctx, s, snap, nil, occurrence.ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := write(1000).Commit(ctx, occurrence.LoadStats{}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1000 {
		t.Fatalf("count %d after first ingest", n)
	}
	// A second ingest in progress is invisible, and aborting it changes nothing.
	w := write(300)
	if n := count(); n != 1000 {
		t.Fatalf("count %d while a replacement is being written", n)
	}
	w.Abort(ctx)
	if n := count(); n != 1000 {
		t.Fatalf("count %d after an aborted replacement", n)
	}
	// A crash mid-write (simulated: the writer is never finished) leaves the
	// snapshot intact; its files are collected once its lock is gone.
	crashed := write(250).(*DatasetWriter)
	crashedDir := crashed.dir
	crashed.marker.Close() // the process died: its flock is released
	if _, err := write(400).Commit(ctx, occurrence.LoadStats{}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 400 {
		t.Fatalf("count %d after replacement, want 400", n)
	}
	if _, err := os.Stat(crashedDir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("crashed ingest's files still there: %v", err)
	}
	// A reader holding the old snapshot still reads it after the replacement.
	old, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := write(50).Commit(ctx, occurrence.LoadStats{}); err != nil {
		t.Fatal(err)
	}
	n, _, err := occurrence.Count(ctx, s, old, mustPred(t, `{"type":"isNotNull","parameter":"COUNTRY"}`), occurrence.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n != 400 {
		t.Fatalf("old snapshot counts %d, want 400", n)
	}
}

func mustPred(t *testing.T, js string) *occurrence.Predicate {
	t.Helper()
	p, err := occurrence.ParsePredicateJSON([]byte(js), occurrence.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCorruptManifestIsReported(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, manifestName), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir, Config{}, nil)
	if !errors.Is(err, ErrCorruptManifest) || !strings.Contains(err.Error(), manifestName) {
		t.Fatalf("got %v, want ErrCorruptManifest naming the file", err)
	}
}

func TestDatasetsAndEML(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Config{})
	w, err := s.BeginDataset(ctx, occurrence.DatasetInfo{Key: "d1", Title: "One", License: occurrence.LicenseCCBY})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetEML(ctx, strings.NewReader("<eml/>")); err != nil {
		t.Fatal(err)
	}
	rec := occurrence.NewRecord()
	rec.SetInt(occurrence.ColumnIndex(occurrence.ColGBIFID), 7)
	rec.SetString(occurrence.ColumnIndex(occurrence.ColDatasetKey), "d1")
	if err := w.Append(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, occurrence.LoadStats{}); err != nil {
		t.Fatal(err)
	}
	ds, err := s.Datasets(ctx)
	if err != nil || len(ds) != 1 || ds[0].Records != 1 || ds[0].Title != "One" || !ds[0].HasEML {
		t.Fatalf("datasets %+v, %v", ds, err)
	}
	r, err := s.DatasetEML(ctx, "d1")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := s.DeleteDataset(ctx, "d1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Dataset(ctx, "d1"); !errors.Is(err, occurrence.ErrNoDataset) {
		t.Fatalf("deleted dataset: %v", err)
	}
}

// TestManifestCacheSeesReplacement: two commits in one tick of the file
// system's clock can publish a manifest of the size of the cached one, and
// the file system can give it the cached manifest's inode once that file is
// gone (ext4 does at once); the cached manifest must still not be served.
func TestManifestCacheSeesReplacement(t *testing.T) {
	s := openTest(t, Config{})
	publish := func(snapshot int64, title string) os.FileInfo {
		t.Helper()
		m := &manifest{Format: manifestFormat, Snapshot: snapshot, Datasets: map[string]*datasetEntry{
			"d": {DatasetInfo: occurrence.DatasetInfo{Key: "d", Title: title}, Generation: "g"},
		}}
		// as writeManifest publishes it (its list of generations aside)
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := writeFile(filepath.Join(s.dir, manifestName), data); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(s.dir, manifestName))
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	first := publish(1, "a")
	if snap, err := s.Snapshot(context.Background()); err != nil || snap.ID != "1" {
		t.Fatalf("snapshot %v, %v", snap.ID, err)
	}
	publish(2, "b")
	third := publish(3, "c")
	// the same tick: the coarse clock gives both the same modification time
	if err := os.Chtimes(filepath.Join(s.dir, manifestName), first.ModTime(), first.ModTime()); err != nil {
		t.Fatal(err)
	}
	if third.Size() != first.Size() {
		t.Fatalf("manifests of %d and %d bytes", first.Size(), third.Size())
	}
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Dataset(context.Background(), "d")
	if err != nil {
		t.Fatal(err)
	}
	if snap.ID != "3" || info.Title != "c" {
		t.Errorf("snapshot %s, title %q after snapshot 3 (title c) was published (same inode as snapshot 1: %v)",
			snap.ID, info.Title, os.SameFile(first, third))
	}
}

// A writer killed while it wrote a manifest (or its list of generations)
// leaves temporary files; the next commit removes them and publishes its own.
func TestCrashedManifestWriteIsCollected(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Config{})
	var left []string
	for _, p := range []string{filepath.Join(s.dir, manifestName), filepath.Join(s.dir, manifestsDir, "000000000001.gens")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := atomicfile.Create(p, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(`{"format":1,"snapshot":99`))
		f.Temp().Close() // the process died before Commit
		left = append(left, f.Temp().Name())
	}
	g := occurrencetest.NewGenerator(1, 10)
	plan := g.Datasets(10, 1)
	w, err := s.BeginDataset(ctx, plan[0].Info)
	if err != nil {
		t.Fatal(err)
	}
	rec := occurrence.NewRecord()
	for i := 0; i < 10; i++ {
		g.Fill(rec, &plan[0], i)
		if err := w.Append(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	if id, err := w.Commit(ctx, occurrence.LoadStats{}); err != nil || id != "1" {
		t.Fatalf("commit: snapshot %q, %v", id, err)
	}
	for _, p := range left {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(s.dir, manifestsDir, "000000000001.gens")); err != nil {
		t.Errorf("the commit's list of generations: %v", err)
	}
}

// OpenExisting creates nothing: a missing directory, a file, or a directory
// that holds no table are ErrNoTable naming the path and stay as they were;
// a table Open created opens.
func TestOpenExisting(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "table")
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	for _, p := range []string{missing, file, empty} {
		s, err := OpenExisting(p, Config{}, nil)
		if !errors.Is(err, occurrence.ErrNoTable) || !strings.Contains(err.Error(), p) {
			if err == nil {
				s.Close()
			}
			t.Errorf("OpenExisting(%s): %v, want ErrNoTable naming it", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); !os.IsNotExist(err) {
		t.Errorf("OpenExisting created %s: %v", missing, err)
	}
	if left, _ := os.ReadDir(empty); len(left) != 0 {
		t.Errorf("OpenExisting wrote into an empty directory: %v", left)
	}
	table := filepath.Join(dir, "table")
	s, err := Open(table, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenExisting(table, Config{}, nil)
	if err != nil {
		t.Fatalf("OpenExisting of a new table: %v", err)
	}
	s.Close()
}

// TestTableGoneUnderTheStore: a table moved, deleted or unmounted while a
// store has it open is an error wrapping ErrNoTable, not an empty table
// (searches would answer confident zeros, and the readiness check would
// pass); put back, it is read again.
func TestTableGoneUnderTheStore(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "table")
	s, err := Open(dir, Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	loadWithEMLs(t, s, 40, 2)
	snap, err := s.Snapshot(ctx)
	if err != nil || len(snap.Splits) == 0 {
		t.Fatalf("snapshot of the loaded table: %d splits, %v", len(snap.Splits), err)
	}
	moved := dir + ".moved"
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	if snap, err := s.Snapshot(ctx); !errors.Is(err, occurrence.ErrNoTable) || !strings.Contains(err.Error(), "is gone") {
		t.Errorf("snapshot of a moved table: %d splits, %v; want ErrNoTable saying its manifest is gone", len(snap.Splits), err)
	}
	if err := os.Rename(moved, dir); err != nil {
		t.Fatal(err)
	}
	if snap, err := s.Snapshot(ctx); err != nil || len(snap.Splits) == 0 {
		t.Errorf("snapshot of the table put back: %d splits, %v", len(snap.Splits), err)
	}
}
