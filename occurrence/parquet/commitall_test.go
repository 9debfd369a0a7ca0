package parquet

import (
	"context"
	"errors"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// TestCommitDatasets: new versions of two datasets are published in one
// snapshot; when one of them was loaded again meanwhile nothing is
// published.
func TestCommitDatasets(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Config{RowGroupRows: 100})
	g := occurrencetest.NewGenerator(1, 100)
	plan := g.Datasets(600, 2)
	write := func(d int, n int) occurrence.DatasetWriter {
		info, err := s.Dataset(ctx, plan[d].Info.Key)
		if err != nil {
			info = plan[d].Info
		}
		w, err := s.BeginDataset(ctx, info)
		if err != nil {
			t.Fatal(err)
		}
		rec := occurrence.NewRecord()
		for i := 0; i < n; i++ {
			g.Fill(rec, &plan[d], i)
			if err := w.Append(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		return w
	}
	count := func() (string, int64) {
		snap, err := s.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n, _, err := occurrence.Count(ctx, s, snap, nil, occurrence.ScanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return snap.ID, n
	}
	for d := range plan {
		if _, err := write(d, 300).Commit(ctx, occurrence.LoadStats{}); err != nil {
			t.Fatal(err)
		}
	}
	before, n := count()
	if n != 600 {
		t.Fatalf("%d records, want 600", n)
	}
	// both replaced, the first one prepared early, in one snapshot
	a, b := write(0, 100), write(1, 200)
	if err := a.(*DatasetWriter).Prepare(ctx, occurrence.LoadStats{}); err != nil {
		t.Fatal(err)
	}
	snap, err := s.CommitDatasets(ctx, []occurrence.DatasetWriter{a, b}, []occurrence.LoadStats{{}, {}})
	if err != nil {
		t.Fatal(err)
	}
	if id, n := count(); n != 300 || id != snap || id == before {
		t.Fatalf("after CommitDatasets: snapshot %s (reported %s) with %d records; want a new one with 300", id, snap, n)
	}
	// the second dataset loaded again while its replacement is written
	a, b = write(0, 50), write(1, 50)
	if _, err := write(1, 10).Commit(ctx, occurrence.LoadStats{}); err != nil {
		t.Fatal(err)
	}
	id0, n0 := count()
	if _, err := s.CommitDatasets(ctx, []occurrence.DatasetWriter{a, b}, []occurrence.LoadStats{{}, {}}); !errors.Is(err, ErrDatasetChanged) {
		t.Fatalf("commit over a dataset loaded meanwhile: %v, want ErrDatasetChanged", err)
	}
	if id, n := count(); id != id0 || n != n0 || n != 110 {
		t.Fatalf("a refused CommitDatasets changed the table: snapshot %s, %d records; want %s, 110", id, n, id0)
	}
}
