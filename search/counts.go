package search

import (
	"context"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// splitCounts are the numbers of a predicate's matches in each split of a
// snapshot, counted in split order by a pool of workers. Readers wait for
// the splits they need (a page needs the counts of the splits before its
// rows, the total needs all): a page can be read while later splits are
// still counted. Requests for the same snapshot and predicate share one
// counting; finished counts are kept in an LRU cache (a snapshot never
// changes, so they stay exact).
type splitCounts struct {
	n    []int64
	done []chan struct{} // closed when n[i] is known or the counting failed
	all  chan struct{}   // closed when every split is done

	mu     sync.Mutex
	err    error // set before the done channel of a split it concerns closes
	refs   int
	cancel context.CancelFunc
}

func (c *splitCounts) setErr(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
}

func (c *splitCounts) getErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// split waits for split i's count. A caller that has left gets its
// context's error, also when the count is ready (select would pick either).
func (c *splitCounts) split(ctx context.Context, i int) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	select {
	case <-c.done[i]:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if err := c.getErr(); err != nil {
		return 0, err
	}
	return c.n[i], nil
}

// total waits for every split and returns the sum; a caller that has left
// gets its context's error, as from split.
func (c *splitCounts) total(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	select {
	case <-c.all:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if err := c.getErr(); err != nil {
		return 0, err
	}
	var t int64
	for _, n := range c.n {
		t += n
	}
	return t, nil
}

func finishedCounts(n []int64) *splitCounts {
	c := &splitCounts{n: n, done: make([]chan struct{}, len(n)), all: make(chan struct{})}
	for i := range c.done {
		c.done[i] = make(chan struct{})
		close(c.done[i])
	}
	close(c.all)
	return c
}

// counts returns the split counts of pred in snap: from the cache, shared
// with a counting already running, or started now. release must be called
// once the caller stops waiting; a counting nobody waits for is cancelled.
func (s *Service) counts(snap occurrence.Snapshot, pred *occurrence.Predicate) (c *splitCounts, release func()) {
	if pred == nil {
		n := make([]int64, len(snap.Splits))
		for i, sp := range snap.Splits {
			n[i] = sp.Rows
		}
		return finishedCounts(n), func() {}
	}
	key := snap.ID + "\n" + pred.String()
	if s.cache != nil {
		if n, ok := s.cache.Get(key); ok {
			return finishedCounts(n), func() {}
		}
	}
	s.mu.Lock()
	c = s.inflight[key]
	if c == nil {
		c = &splitCounts{n: make([]int64, len(snap.Splits)), done: make([]chan struct{}, len(snap.Splits)),
			all: make(chan struct{})}
		for i := range c.done {
			c.done[i] = make(chan struct{})
		}
		var ctx context.Context
		ctx, c.cancel = context.WithCancel(context.Background())
		s.inflight[key] = c
		go s.count(ctx, key, snap, pred, c)
	}
	c.refs++
	s.mu.Unlock()
	var once sync.Once
	return c, func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			c.refs--
			if c.refs == 0 && s.inflight[key] == c {
				delete(s.inflight, key)
				c.cancel()
			}
		})
	}
}

// count fills c: workers take splits in index order, so the first splits
// are known first.
func (s *Service) count(ctx context.Context, key string, snap occurrence.Snapshot, pred *occurrence.Predicate, c *splitCounts) {
	defer c.cancel()
	workers := s.cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := ctx.Err(); err != nil {
					c.setErr(err)
				} else if n, err := s.countSplit(ctx, snap.Splits[i], pred); err != nil {
					c.setErr(err)
					c.cancel()
				} else {
					c.n[i] = n
				}
				close(c.done[i])
			}
		}()
	}
	for i := range snap.Splits {
		next <- i
	}
	close(next)
	wg.Wait()
	ok := c.getErr() == nil
	s.mu.Lock()
	if s.inflight[key] == c {
		delete(s.inflight, key)
	}
	s.mu.Unlock()
	if ok && s.cache != nil {
		s.cache.Add(key, c.n)
	}
	close(c.all)
}

// countSplit counts pred's matches in one split, reading only the
// predicate's columns.
func (s *Service) countSplit(ctx context.Context, split occurrence.Split, pred *occurrence.Predicate) (int64, error) {
	var n int64
	_, err := s.table.ScanSplit(ctx, split, occurrence.ScanRequest{Predicate: pred, Columns: []string{}}, func(b arrow.RecordBatch) error {
		n += b.NumRows()
		return nil
	})
	return n, err
}
