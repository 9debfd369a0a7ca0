package parquet

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// Recycled copies (occurrence.ScanRequest.Transient): a plain string column
// most of whose rows match leaves the scan as a dictionary over a copy of
// the decoded column (splitScan.take). For the columns the consumer names
// transient, the copy's bytes come from recycled and go back to it when the
// batch is released (arrow's reference counts: the scan's consumer releases
// each batch after its callback), instead of fresh memory for each part
// that the collector must then find and free: the verbatim and multimedia
// JSON of a DWCA are about half of an export's allocations.

// recycled is the scan's allocator of transient copies.
var recycled recycler

// recycler is a memory.Allocator whose freed buffers are reused, pooled
// by power-of-two capacity. Buffers it hands out are not zeroed.
type recycler struct {
	pools [40]sync.Pool // pools[k]: *[]byte of capacity >= 1<<k
	// poison overwrites a freed buffer (SetRecyclePoison).
	poison atomic.Bool
}

// SetRecyclePoison makes the scan overwrite the memory of a transient
// column's copy when its batch is released (occurrence.ScanRequest.Transient),
// so that a consumer that keeps its strings past the callback sees them
// change; it returns the previous setting. For tests: it costs a write of
// every byte copied.
func SetRecyclePoison(on bool) bool { return recycled.poison.Swap(on) }

// Allocate returns size bytes of a buffer of at least that capacity.
func (r *recycler) Allocate(size int) []byte {
	k := bits.Len(uint(size - 1)) // 1<<k >= size
	if size <= 1 {
		k = 0
	}
	if k >= len(r.pools) {
		return make([]byte, size)
	}
	if p, ok := r.pools[k].Get().(*[]byte); ok {
		return (*p)[:size]
	}
	return make([]byte, size, 1<<k)
}

// Reallocate is Allocate of size with b's bytes, b freed.
func (r *recycler) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	out := r.Allocate(size)
	copy(out, b)
	r.Free(b)
	return out
}

// Free takes b back.
func (r *recycler) Free(b []byte) {
	c := cap(b)
	if c == 0 {
		return
	}
	b = b[:c]
	if r.poison.Load() {
		for i := range b {
			b[i] = 0xee
		}
	}
	k := bits.Len(uint(c)) - 1 // 1<<k <= c
	if k < len(r.pools) {
		r.pools[k].Put(&b)
	}
}

// transient reports whether output column col is one of req.Transient.
func (sc *splitScan) transient(col int) bool {
	if len(sc.req.Transient) == 0 {
		return false
	}
	if sc.trans == nil {
		set := make(map[string]bool, len(sc.req.Transient))
		for _, t := range sc.req.Transient {
			set[t] = true
		}
		sc.trans = make([]bool, len(sc.cols))
		for i, name := range sc.cols {
			sc.trans[i] = set[name]
		}
	}
	return sc.trans[col]
}
