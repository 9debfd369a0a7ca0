package parquet

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// TestWindowStopsEarly: a windowed split scan reads the predicate's
// columns only up to the batch that completes its Limit (ScanStats
// RowsScanned), and materializes only the rows it emits.
func TestWindowStopsEarly(t *testing.T) {
	s := openTest(t, Config{RowGroupRows: 40000, WindowBytes: 1 << 30})
	occurrencetest.Load(t, s, 40000, 1)
	ctx := context.Background()
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	split := snap.Splits[0]
	for _, sp := range snap.Splits {
		if sp.Rows > split.Rows {
			split = sp
		}
	}
	if split.Rows < 4*occurrence.DefaultBatchSize {
		t.Fatalf("split of %d rows: too small to show an early stop", split.Rows)
	}
	for _, c := range []struct {
		pred        string
		skip, limit int64
		scanned     int64 // rows whose predicate columns are read at most
	}{
		{"", 0, 20, occurrence.DefaultBatchSize},
		{"", 2 * occurrence.DefaultBatchSize, 20, 3 * occurrence.DefaultBatchSize},
		{`{"type":"isNotNull","parameter":"COUNTRY"}`, 0, 20, occurrence.DefaultBatchSize},
	} {
		req := occurrence.ScanRequest{Columns: []string{occurrence.ColGBIFID, occurrence.ColLocality}, Skip: c.skip, Limit: c.limit}
		if c.pred != "" {
			p, err := occurrence.ParsePredicateJSON([]byte(c.pred), occurrence.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			req.Predicate = p
		}
		var rows int64
		st, err := s.ScanSplit(ctx, split, req, func(b arrow.RecordBatch) error {
			rows += b.NumRows()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if rows != c.limit || st.RowsScanned > c.scanned {
			t.Fatalf("%q skip %d limit %d: %d rows, %d of %d rows scanned (want at most %d)",
				c.pred, c.skip, c.limit, rows, st.RowsScanned, split.Rows, c.scanned)
		}
	}
}

// TestWindowWriteFailure: a window is written on a goroutine of its own
// while the next fills; when writing it fails (here its directory is gone)
// the error reaches the caller at a later Append or at Commit, stays the
// writer's, and the table keeps what it held.
func TestWindowWriteFailure(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Config{RowGroupRows: 100, ClusterRowGroups: 1})
	g := occurrencetest.NewGenerator(1, 100)
	plan := g.Datasets(1000, 1)
	rec := occurrence.NewRecord()
	write := func(n int, broken bool) (occurrence.DatasetWriter, error) {
		w, err := s.BeginDataset(ctx, plan[0].Info)
		if err != nil {
			t.Fatal(err)
		}
		if broken {
			if err := os.RemoveAll(w.(*DatasetWriter).dir); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < n; i++ {
			g.Fill(rec, &plan[0], i)
			if err := w.Append(ctx, rec); err != nil {
				return w, err
			}
		}
		return w, nil
	}
	w, err := write(1000, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, occurrence.LoadStats{}); err != nil {
		t.Fatal(err)
	}
	w, err = write(1000, true)
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Append after a window's writing failed: %v, want the failure (no such file)", err)
	}
	if again := w.Append(ctx, rec); !errors.Is(again, os.ErrNotExist) {
		t.Fatalf("a second Append: %v, want the same failure", again)
	}
	if _, err := w.Commit(ctx, occurrence.LoadStats{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Commit of the failed writer: %v, want the failure", err)
	}
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n, _, err := occurrence.Count(ctx, s, snap, nil, occurrence.ScanOptions{})
	if err != nil || n != 1000 {
		t.Fatalf("after the failed replacement the table counts %d (%v), want the first version's 1000", n, err)
	}
}

// TestWindowWritePanic: a panic while a window is written on its own
// goroutine reaches the writer's caller as an error (it would otherwise end
// the process, a server with it). The window here lacks its columns.
func TestWindowWritePanic(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, Config{})
	g := occurrencetest.NewGenerator(1, 10)
	plan := g.Datasets(10, 1)
	ow, err := s.BeginDataset(ctx, plan[0].Info)
	if err != nil {
		t.Fatal(err)
	}
	w := ow.(*DatasetWriter)
	defer w.Abort(ctx)
	w.window = []windowBatch{{rows: 1}}
	if err := w.startFlush(); err != nil {
		t.Fatal(err)
	}
	err = w.waitFlush()
	if err == nil || !strings.Contains(err.Error(), "panic: runtime error") {
		t.Fatalf("waitFlush after a panicking window: %v, want the panic as an error", err)
	}
	if again := w.Append(ctx, occurrence.NewRecord()); again != err {
		t.Fatalf("Append after the panic: %v, want the same error", again)
	}
}
