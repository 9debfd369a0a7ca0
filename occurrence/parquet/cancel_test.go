package parquet

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// stopAfter is a context whose Err reports Canceled from its (n+1)-th call
// on. It is a fake, for fault injection: it cancels a split scan between
// two given batches, which no real clock does deterministically.
type stopAfter struct {
	context.Context
	n atomic.Int64
}

func (c *stopAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// A count stopped by its deadline stops within the split it is scanning:
// the row group scan checks its context before every batch, also when the
// predicate matches nothing and no batch is emitted.
func TestSplitScanStopsBetweenBatches(t *testing.T) {
	s := openTest(t, Config{RowGroupRows: 4 * occurrence.DefaultBatchSize, WindowBytes: 1 << 30})
	occurrencetest.Load(t, s, 4*occurrence.DefaultBatchSize, 1)
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sp := snap.Splits[0]
	for _, x := range snap.Splits {
		if x.Rows > sp.Rows {
			sp = x
		}
	}
	if sp.Rows < 3*occurrence.DefaultBatchSize {
		t.Fatalf("split of %d rows: too small to stop inside", sp.Rows)
	}
	pred, err := occurrence.ParsePredicateJSON([]byte(`{"type":"like","key":"LOCALITY","value":"*no such place*"}`), occurrence.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	ctx := &stopAfter{Context: context.Background()}
	ctx.n.Store(2)
	st, err := s.ScanSplit(ctx, sp, occurrence.ScanRequest{Predicate: pred, Columns: []string{}}, func(arrow.RecordBatch) error {
		t.Fatal("a predicate matching nothing emitted a batch")
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("ScanSplit returned %v, want context.Canceled", err)
	}
	if want := int64(2 * occurrence.DefaultBatchSize); st.RowsScanned != want {
		t.Fatalf("scanned %d of %d rows, want the %d before the cancellation", st.RowsScanned, sp.Rows, want)
	}
}
