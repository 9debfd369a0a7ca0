package parquet

import (
	"context"
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
