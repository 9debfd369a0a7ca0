package parquet

import (
	"bufio"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// clusterSorter sorts any number of records by the clustering columns
// (cluster.go) in bounded memory and writes them as row groups: an ingest
// sorts each window of its own records, a rollover or a copy sorts all the
// records of a segment. Records are gathered into windows of the ingest's
// size (Config.ClusterRowGroups row groups or Config.WindowBytes); when the
// input fits one window it is sorted and written at once, else each sorted
// window is spilled as a run (an Arrow IPC stream, LZ4-compressed) and
// the runs are merged, mergeWays at a time, into the row groups.
type clusterSorter struct {
	s      *Store
	tmp    string // directory for the runs
	out    *partWriter
	rgRows int // rows per row group written

	window []windowBatch
	rows   int
	bytes  int64
	runs   []string
	// allRows and allBytes size the batches of the runs (runRows).
	allRows, allBytes int64
	// Spilled counts the bytes of the runs written (a report figure).
	Spilled int64
}

const (
	// runBatchBytes is the size of a run's batches: a merge holds one
	// batch of each run it reads (records with long verbatim documents
	// take kilobytes each, so a batch is 256 to 4,096 rows).
	runBatchBytes = 1 << 20
	// defaultMergeWays is how many runs one merge reads at once; more runs
	// are merged in rounds.
	defaultMergeWays = 64
)

// mergeWays is defaultMergeWays (a variable for the tests of merge rounds).
var mergeWays = defaultMergeWays

func newClusterSorter(s *Store, tmp string, out *partWriter, rgRows int) *clusterSorter {
	return &clusterSorter{s: s, tmp: tmp, out: out, rgRows: rgRows}
}

// add takes b (the caller's reference: b must be retained by a caller
// that does not own it).
func (cs *clusterSorter) add(b arrow.RecordBatch) error {
	if b.NumRows() == 0 {
		b.Release()
		return nil
	}
	n := batchBytes(b)
	cs.bytes += n
	cs.rows += int(b.NumRows())
	cs.allBytes += n
	cs.allRows += b.NumRows()
	cs.window = append(cs.window, newWindowBatch(b))
	if cs.rows >= cs.s.cfg.ClusterRowGroups*cs.s.cfg.RowGroupRows || cs.bytes >= cs.s.cfg.WindowBytes {
		return cs.spill()
	}
	return nil
}

// runRows is the rows per batch of the runs: runBatchBytes of records of
// the average size seen, 64 to 4,096.
func (cs *clusterSorter) runRows() int {
	if cs.allBytes == 0 {
		return 4096
	}
	return int(min(max(runBatchBytes*cs.allRows/cs.allBytes, 64), 4096))
}

// batchBytes estimates the memory of a batch: its buffers.
func batchBytes(b arrow.RecordBatch) int64 {
	var n int64
	for _, c := range b.Columns() {
		for _, buf := range c.Data().Buffers() {
			if buf != nil {
				n += int64(buf.Len())
			}
		}
	}
	return n
}

// release drops the window.
func (cs *clusterSorter) release() {
	releaseBatches(cs.window)
	cs.window, cs.rows, cs.bytes = nil, 0, 0
}

func releaseBatches(bs []windowBatch) {
	for i := range bs {
		for c := range bs[i].cols {
			bs[i].release(c, nil)
		}
	}
}

// spill sorts the window and writes it as a run.
func (cs *clusterSorter) spill() error {
	defer cs.release()
	path := filepath.Join(cs.tmp, fmt.Sprintf("run-%05d.arrows", len(cs.runs)))
	rw, err := createRun(path, cs.runRows())
	if err != nil {
		return err
	}
	if err := rw.write(cs.window, clusterOrder(cs.window, segmentClusterColumns)); err != nil {
		rw.abort()
		return err
	}
	size, err := rw.close()
	if err != nil {
		return err
	}
	cs.Spilled += size
	cs.runs = append(cs.runs, path)
	if len(cs.runs) == 1 {
		rolloverHook("spilled")
	}
	return nil
}

// finish writes every record added, in clustering order, to the output.
func (cs *clusterSorter) finish(ctx context.Context) error {
	if len(cs.runs) == 0 {
		// One window: sort and write it.
		defer cs.release()
		return cs.out.writeWindow(cs.window, segmentClusterColumns, cs.rgRows, nil)
	}
	if len(cs.window) > 0 {
		if err := cs.spill(); err != nil {
			return err
		}
	}
	// Merge in rounds until one merge can read every run.
	for round := 0; len(cs.runs) > mergeWays; round++ {
		var next []string
		for i := 0; i < len(cs.runs); i += mergeWays {
			group := cs.runs[i:min(i+mergeWays, len(cs.runs))]
			path := filepath.Join(cs.tmp, fmt.Sprintf("merge-%02d-%05d.arrows", round, len(next)))
			rw, err := createRun(path, cs.runRows())
			if err != nil {
				return err
			}
			err = mergeRuns(ctx, group, rw.rows, func(w []windowBatch, refs []rowRef) error { return rw.write(w, refs) })
			if err != nil {
				rw.abort()
				return err
			}
			size, err := rw.close()
			if err != nil {
				return err
			}
			cs.Spilled += size
			for _, p := range group {
				os.Remove(p)
			}
			next = append(next, path)
		}
		cs.runs = next
	}
	err := mergeRuns(ctx, cs.runs, cs.rgRows, func(w []windowBatch, refs []rowRef) error {
		return cs.out.writeRowGroup(w, refs, false, nil)
	})
	for _, p := range cs.runs {
		os.Remove(p)
	}
	return err
}

// runWriter writes a sorted run in batches of rows rows.
type runWriter struct {
	f    *os.File
	buf  *bufio.Writer
	w    *ipc.Writer
	rows int
}

func createRun(path string, rows int) (*runWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	buf := bufio.NewWriterSize(f, 1<<20)
	return &runWriter{f: f, buf: buf, w: ipc.NewWriter(buf, ipc.WithSchema(occurrence.Schema()), ipc.WithLZ4()), rows: rows}, nil
}

// write appends the rows refs of window.
func (rw *runWriter) write(window []windowBatch, refs []rowRef) error {
	for len(refs) > 0 {
		n := min(len(refs), rw.rows)
		cols := make([]arrow.Array, occurrence.NumColumns())
		for c := range cols {
			cols[c] = gatherArray(window, c, refs[:n])
		}
		b := array.NewRecordBatch(occurrence.Schema(), cols, int64(n))
		for _, a := range cols {
			a.Release()
		}
		err := rw.w.Write(b)
		b.Release()
		if err != nil {
			return fmt.Errorf("write sort run %s: %w", rw.f.Name(), err)
		}
		refs = refs[n:]
	}
	return nil
}

// close finishes the run and returns its size.
func (rw *runWriter) close() (int64, error) {
	err := errors.Join(rw.w.Close(), rw.buf.Flush())
	st, serr := rw.f.Stat()
	err = errors.Join(err, serr, rw.f.Close())
	if err != nil {
		return 0, fmt.Errorf("write sort run %s: %w", rw.f.Name(), err)
	}
	return st.Size(), nil
}

func (rw *runWriter) abort() {
	rw.w.Close()
	rw.f.Close()
	os.Remove(rw.f.Name())
}

// runReader reads one run during a merge: cur is its current batch, at
// window index idx, row the next row to take.
type runReader struct {
	f    *os.File
	r    *ipc.Reader
	idx  int
	row  int
	rows int
	keys []arrow.Array
	seq  int // the run's position, to break ties stably
}

// next moves to the run's next batch, appending it to *window; false at
// the end of the run.
func (rr *runReader) next(window *[]windowBatch) (bool, error) {
	if !rr.r.Next() {
		return false, rr.r.Err()
	}
	b := rr.r.RecordBatch()
	b.Retain()
	wb := newWindowBatch(b)
	rr.idx, rr.row, rr.rows = len(*window), 0, wb.rows
	rr.keys = rr.keys[:0]
	for _, name := range segmentClusterColumns {
		rr.keys = append(rr.keys, wb.cols[occurrence.ColumnIndex(name)])
	}
	*window = append(*window, wb)
	return true, nil
}

// runHeap orders runs by their current row's clustering key.
type runHeap []*runReader

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	for c := range a.keys {
		if d := compareCell(a.keys[c], a.row, b.keys[c], b.row); d != 0 {
			return d < 0
		}
	}
	return a.seq < b.seq
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeRuns merges sorted runs, calling emit with every chunk rows rows
// (the last one shorter) as references into a window of batches that stays
// valid until emit returns.
func mergeRuns(ctx context.Context, paths []string, chunk int, emit func([]windowBatch, []rowRef) error) error {
	var window []windowBatch
	h := runHeap{}
	defer func() {
		for _, rr := range h {
			rr.r.Release()
			rr.f.Close()
		}
		releaseBatches(window)
	}()
	for i, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		r, err := ipc.NewReader(bufio.NewReaderSize(f, 256<<10))
		if err != nil {
			f.Close()
			return fmt.Errorf("read sort run %s: %w", p, err)
		}
		rr := &runReader{f: f, r: r, seq: i}
		ok, err := rr.next(&window)
		if err != nil || !ok {
			r.Release()
			f.Close()
			if err != nil {
				return fmt.Errorf("read sort run %s: %w", p, err)
			}
			continue
		}
		h = append(h, rr)
	}
	heap.Init(&h)
	refs := make([]rowRef, 0, chunk)
	flush := func() error {
		if len(refs) == 0 {
			return nil
		}
		if err := emit(window, refs); err != nil {
			return err
		}
		refs = refs[:0]
		// Every batch but the runs' current ones is used up: keep those.
		var kept []windowBatch
		keep := map[int]bool{}
		for _, rr := range h {
			keep[rr.idx] = true
		}
		for i := range window {
			if !keep[i] {
				releaseBatches(window[i : i+1])
			}
		}
		for _, rr := range h {
			kept = append(kept, window[rr.idx])
			rr.idx = len(kept) - 1
		}
		window = kept
		return ctx.Err()
	}
	for len(h) > 0 {
		rr := h[0]
		refs = append(refs, rowRef{batch: int32(rr.idx), row: int32(rr.row)})
		rr.row++
		if rr.row == rr.rows {
			ok, err := rr.next(&window)
			if err != nil {
				return fmt.Errorf("read sort run %s: %w", rr.f.Name(), err)
			}
			if !ok {
				heap.Pop(&h)
				rr.r.Release()
				rr.f.Close()
			} else {
				heap.Fix(&h, 0)
			}
		} else {
			heap.Fix(&h, 0)
		}
		if len(refs) == chunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}
