package occurrence

import (
	"context"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// ScanOptions tunes a parallel scan.
type ScanOptions struct {
	// Workers is the number of splits scanned at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, is called after each split with the running totals.
	// Calls are serialized.
	Progress func(ScanStats)
}

// splitResult carries one split's batches from its worker to the consumer.
type splitResult struct {
	batches chan arrow.RecordBatch
	stats   ScanStats
	err     error // valid once batches is closed
	// held is set when the worker took a slot of the in-flight semaphore that
	// the consumer must give back; valid once batches is closed.
	held bool
}

// Scan scans every split of snap in parallel and calls fn with the matching
// batches in deterministic order: split by split in Index order, and within a
// split in row order. At most Workers splits are in flight and each holds at
// most a few batches, so memory is bounded by workers x batch size.
// fn runs on the calling goroutine; the batch is released after fn returns.
// A cancelled ctx stops every worker at its next batch.
func Scan(ctx context.Context, t Table, snap Snapshot, req ScanRequest, opts ScanOptions, fn func(arrow.RecordBatch) error) (ScanStats, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	results := make([]*splitResult, len(snap.Splits))
	for i := range results {
		results[i] = &splitResult{batches: make(chan arrow.RecordBatch, 2)}
	}
	// A dispatcher hands splits to the workers strictly in Index order, each
	// after taking a slot that the consumer gives back once it has drained
	// that split: the splits in flight are always the next few the consumer
	// needs, so workers never run more than Workers splits ahead.
	sem := make(chan struct{}, workers)
	jobs := make(chan int)
	go dispatch(ctx, results, sem, jobs)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				scanOne(ctx, t, snap.Splits[i], req, results[i])
			}
		}()
	}
	var total ScanStats
	var err error
	for _, r := range results {
		for b := range r.batches {
			if err == nil {
				err = fn(b)
				if err != nil {
					cancel()
				}
			}
			b.Release()
		}
		if r.held {
			<-sem
		}
		if err == nil && r.err != nil {
			err = r.err
			cancel()
		}
		total.Add(r.stats)
		if opts.Progress != nil && err == nil {
			opts.Progress(total)
		}
	}
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return total, err
}

// dispatch sends split indices to the workers in order; once ctx is done it
// closes the remaining splits with the context's error.
func dispatch(ctx context.Context, results []*splitResult, sem chan struct{}, jobs chan<- int) {
	defer close(jobs)
	for i, r := range results {
		select {
		case sem <- struct{}{}:
			r.held = true
		case <-ctx.Done():
			cancelFrom(ctx, results[i:])
			return
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
			cancelFrom(ctx, results[i:])
			return
		}
	}
}

func cancelFrom(ctx context.Context, rest []*splitResult) {
	for _, r := range rest {
		r.err = ctx.Err()
		close(r.batches)
	}
}

func scanOne(ctx context.Context, t Table, s Split, req ScanRequest, r *splitResult) {
	defer close(r.batches)
	r.stats, r.err = t.ScanSplit(ctx, s, req, func(b arrow.RecordBatch) error {
		b.Retain()
		select {
		case r.batches <- b:
			return nil
		case <-ctx.Done():
			b.Release()
			return ctx.Err()
		}
	})
}

// Count returns the number of records of snap matching pred, scanning only the
// predicate's columns.
func Count(ctx context.Context, t Table, snap Snapshot, pred *Predicate, opts ScanOptions) (int64, ScanStats, error) {
	var n int64
	if pred == nil {
		for _, s := range snap.Splits {
			n += s.Rows
		}
		return n, ScanStats{RowsScanned: n, RowsMatched: n}, nil
	}
	req := ScanRequest{Predicate: pred, Columns: []string{}}
	stats, err := Scan(ctx, t, snap, req, opts, func(b arrow.RecordBatch) error {
		n += b.NumRows()
		return nil
	})
	return n, stats, err
}
