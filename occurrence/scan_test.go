package occurrence

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fakeTable has splits of batches of consecutive gbifIDs (split i, batch j,
// row k holds i*1000+j*10+k); splits take a random few milliseconds per batch
// so that they finish out of order.
type fakeTable struct {
	mem             memory.Allocator
	splits, batches int
	failSplit       int // ScanSplit of this split fails after its first batch; -1: none
	running, maxRun atomic.Int32
	mu              sync.Mutex
	rng             *rand.Rand
}

var errSplit = errors.New("split failed")

func (f *fakeTable) Snapshot(ctx context.Context) (Snapshot, error) {
	s := Snapshot{ID: "s"}
	for i := range f.splits {
		s.Splits = append(s.Splits, Split{Index: i, Rows: int64(f.batches * 3)})
	}
	return s, nil
}

func (f *fakeTable) ScanSplit(ctx context.Context, s Split, req ScanRequest, emit func(arrow.RecordBatch) error) (ScanStats, error) {
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		m := f.maxRun.Load()
		if n <= m || f.maxRun.CompareAndSwap(m, n) {
			break
		}
	}
	b := NewBuilder()
	defer b.Release()
	rec := NewRecord()
	var st ScanStats
	for j := range f.batches {
		f.mu.Lock()
		d := time.Duration(f.rng.IntN(3000)) * time.Microsecond
		f.mu.Unlock()
		time.Sleep(d)
		if s.Index == f.failSplit && j == 1 {
			return st, errSplit
		}
		for k := range 3 {
			rec.Reset()
			rec.SetInt(iGBIFID, int64(s.Index*1000+j*10+k))
			b.Append(rec)
		}
		batch := b.NewBatch()
		err := emit(batch)
		batch.Release()
		st.RowsScanned += 3
		st.RowsMatched += 3
		if err != nil {
			return st, err
		}
	}
	return st, nil
}

func newFakeTable(t *testing.T, splits, batches int) (*fakeTable, Snapshot) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	f := &fakeTable{mem: mem, splits: splits, batches: batches, failSplit: -1, rng: rand.New(rand.NewPCG(1, 2))}
	snap, _ := f.Snapshot(context.Background())
	return f, snap
}

func ids(b arrow.RecordBatch) []int64 {
	return b.Column(iGBIFID).(*array.Int64).Int64Values()
}

func TestScanOrderAndStats(t *testing.T) {
	f, snap := newFakeTable(t, 12, 4)
	var got, want []int64
	for i := range 12 {
		for j := range 4 {
			for k := range 3 {
				want = append(want, int64(i*1000+j*10+k))
			}
		}
	}
	var progress []int64
	st, err := Scan(context.Background(), f, snap, ScanRequest{}, ScanOptions{Workers: 3,
		Progress: func(s ScanStats) { progress = append(progress, s.RowsMatched) }},
		func(b arrow.RecordBatch) error {
			got = append(got, ids(b)...)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rows out of order:\n got %v\nwant %v", got, want)
	}
	if st.RowsMatched != int64(len(want)) || st.RowsScanned != int64(len(want)) {
		t.Errorf("stats %+v, want %d rows", st, len(want))
	}
	if len(progress) != 12 || progress[11] != int64(len(want)) {
		t.Errorf("progress %v: want one call per split ending at %d", progress, len(want))
	}
	if m := f.maxRun.Load(); m > 3 {
		t.Errorf("%d splits scanned at once with 3 workers", m)
	}
}

func TestScanStopsAtConsumerError(t *testing.T) {
	f, snap := newFakeTable(t, 12, 4)
	stop := errors.New("enough")
	var n int
	_, err := Scan(context.Background(), f, snap, ScanRequest{}, ScanOptions{Workers: 3}, func(b arrow.RecordBatch) error {
		n++
		if n == 5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("err %v, want the consumer's", err)
	}
	if n != 5 {
		t.Fatalf("consumer called %d times, want no call after its error", n)
	}
}

func TestScanReturnsSplitError(t *testing.T) {
	f, snap := newFakeTable(t, 12, 4)
	f.failSplit = 6
	var got []int64
	_, err := Scan(context.Background(), f, snap, ScanRequest{}, ScanOptions{Workers: 3}, func(b arrow.RecordBatch) error {
		got = append(got, ids(b)...)
		return nil
	})
	if !errors.Is(err, errSplit) {
		t.Fatalf("err %v, want the split's", err)
	}
	// Every row before the failed split's second batch is delivered, none after.
	if len(got) != 6*4*3+3 || got[len(got)-1] != 6002 {
		t.Fatalf("%d rows delivered ending at %v, want %d ending at 6002", len(got), got[len(got)-1], 6*4*3+3)
	}
}
