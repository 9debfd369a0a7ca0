package parquet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// openFile is a Parquet file shared by concurrent split scans: os.File.ReadAt
// is safe for concurrent use and the footer is parsed once.
type openFile struct {
	f    *os.File
	size int64
	// foot locates the column chunks, whose pages the scan reads and
	// decodes itself (chunk.go, pages.go).
	foot *footer
}

// valueBatch is the granularity at which non-predicate columns are read.
const valueBatch = 1024

func (o *openFile) close() error { return o.f.Close() }

// fileSlot is a file being opened or open; ready closes when it is either.
// refs counts the scans using it and stale marks a file the current
// snapshot no longer reads (files.go); both are guarded by Store.mu.
type fileSlot struct {
	ready chan struct{}
	o     *openFile
	err   error
	refs  int
	stale bool
}

// file returns the open file rel, opening it once: workers parse different
// files' footers in parallel, and wait for one another only on the same
// file. The caller gives it back with unref.
func (s *Store) file(rel string) (*openFile, *fileSlot, error) {
	s.mu.Lock()
	slot, ok := s.files[rel]
	if !ok {
		slot = &fileSlot{ready: make(chan struct{})}
		s.files[rel] = slot
	}
	slot.refs++
	s.mu.Unlock()
	if ok {
		<-slot.ready
		return slot.o, slot, slot.err
	}
	slot.o, slot.err = s.openFile(rel)
	close(slot.ready)
	if slot.err != nil {
		s.mu.Lock()
		if s.files[rel] == slot {
			delete(s.files, rel) // a later scan tries again
		}
		s.mu.Unlock()
	}
	return slot.o, slot, slot.err
}

func (s *Store) openFile(rel string) (*openFile, error) {
	f, err := os.Open(filepath.Join(s.dir, rel))
	if err != nil {
		return nil, fmt.Errorf("open split file: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open split file: %w", err)
	}
	foot, err := readFooter(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	return &openFile{f: f, size: st.Size(), foot: foot}, nil
}

// ScanSplit scans one row group: statistics pruning, then the predicate's
// columns, then the remaining requested columns only where rows matched.
func (s *Store) ScanSplit(ctx context.Context, split occurrence.Split, req occurrence.ScanRequest, emit func(arrow.RecordBatch) error) (occurrence.ScanStats, error) {
	var st occurrence.ScanStats
	ref, ok := split.Ref.(splitRef)
	if !ok {
		return st, fmt.Errorf("parquet: split %d is not from this store", split.Index)
	}
	if req.Predicate != nil && split.Stats != nil && !req.Predicate.MayMatch(split.Stats) {
		st.SplitsPruned = 1
		return st, nil
	}
	cols := req.Columns
	if cols == nil {
		cols = allNames
	}
	o, slot, err := s.file(ref.path)
	defer s.unref(ref.path, slot)
	if err != nil {
		return st, err
	}
	rows := ref.rows
	if rows == 0 {
		rows = split.Rows
	}
	sc := &splitScan{ctx: ctx, file: o, rg: ref.rowGroup, rows: rows, req: req, cols: cols, emit: emit, stats: &st,
		path: ref.path, split: split.Stats, live: ref.live, win: occurrence.NewWindow(req)}
	if req.BatchSize <= 0 || req.BatchSize > occurrence.DefaultBatchSize {
		sc.batch = occurrence.DefaultBatchSize
	} else {
		sc.batch = req.BatchSize
	}
	if err := sc.run(); err != nil {
		return st, err
	}
	return st, nil
}

var allNames = func() []string {
	out := make([]string, occurrence.NumColumns())
	for i, c := range occurrence.Columns() {
		out[i] = c.Name
	}
	return out
}()

// splitScan is the state of one row group scan.
type splitScan struct {
	ctx   context.Context
	file  *openFile
	rg    int
	rows  int64
	batch int
	req   occurrence.ScanRequest
	cols  []string
	emit  func(arrow.RecordBatch) error
	stats *occurrence.ScanStats
	path  string
	// split is the row group's statistics (may be nil): they trim the
	// predicate's columns (EvalCache.Trim).
	split occurrence.Stats
	// dicts are the stable dictionary copies of req.Dictionaries.
	dicts dictCopies
	// live filters a segment row group's rows on their dataset (nil: all
	// rows are live; live.go).
	live map[string]bool
	// win is the request's Skip and Limit.
	win occurrence.Window
	// trans marks the output columns of req.Transient (transient).
	trans []bool
}

// run scans the split; without a predicate every row matches and the
// requested columns are read the same way, through the value readers.
func (sc *splitScan) run() error {
	if sc.req.Predicate == nil && len(sc.cols) == 0 && sc.live == nil {
		n := sc.win.Take(sc.rows)
		sc.stats.RowsScanned = sc.rows
		sc.stats.RowsMatched = n
		return sc.emitCounts(n)
	}
	return sc.filtered()
}

// noColumns is the schema of batches that carry only a row count.
var noColumns = arrow.NewSchema(nil, nil)

// emitCounts emits column-less batches that carry only row counts.
func (sc *splitScan) emitCounts(n int64) error {
	for n > 0 {
		k := min(n, int64(sc.batch))
		b := array.NewRecordBatch(noColumns, nil, k)
		err := sc.emit(b)
		b.Release()
		if err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// filtered evaluates the predicate batch by batch and materializes the other
// requested columns only for batches with matches, seeking past the rest.
func (sc *splitScan) filtered() error {
	pred := sc.req.Predicate
	cache := occurrence.NewEvalCache()
	defer cache.Release()
	predCols := sc.withLiveColumn(cache.Trim(pred, sc.trimStats()))
	sc.stats.ColumnsTrimmed += int64(cache.Trimmed())
	inPred := make(map[string]bool, len(predCols))
	for _, c := range predCols {
		inPred[c] = true
	}
	var rest []string
	for _, c := range sc.cols {
		if !inPred[c] {
			rest = append(rest, c)
		}
	}
	var src *flatSource
	if len(predCols) > 0 {
		src = sc.flatSource(predCols)
		defer src.release()
	}
	vals := sc.flatSource(rest)
	defer vals.release()
	// Predicate batches are DefaultBatchSize rows, a multiple of valueBatch.
	sel := make([]bool, occurrence.DefaultBatchSize)
	outSchema := occurrence.SchemaOf(sc.cols)
	var pos int64
	for pos < sc.rows && !sc.win.Done() {
		if err := sc.ctx.Err(); err != nil {
			return err
		}
		var pb arrow.RecordBatch
		n := min(int64(occurrence.DefaultBatchSize), sc.rows-pos)
		if src != nil {
			var err error
			if pb, err = src.next(pos, n); err != nil {
				return err
			}
		} else {
			pb = array.NewRecordBatch(noColumns, nil, n)
		}
		sel = sel[:n]
		clear(sel)
		pred.EvalCached(pb, sel, cache)
		sc.dropDead(pb, sel)
		m := sc.win.Select(sel, countTrue(sel))
		sc.stats.RowsScanned += n
		sc.stats.RowsMatched += int64(m)
		var err error
		if m > 0 {
			err = sc.emitMatches(pb, vals, pos, sel, m, outSchema)
		}
		if src == nil {
			pb.Release()
		}
		if err != nil {
			return err
		}
		pos += n
	}
	return nil
}

func (sc *splitScan) emitMatches(pb arrow.RecordBatch, vals *flatSource, pos int64, sel []bool, m int, schema *arrow.Schema) error {
	if len(sc.cols) == 0 {
		return sc.emitCounts(int64(m))
	}
	if len(vals.names) == 0 {
		return sc.emitPart(pb, nil, 0, sel, m, schema)
	}
	// Decode the other columns only for the value batches that hold matches.
	for off := 0; off < len(sel); off += valueBatch {
		end := min(off+valueBatch, len(sel))
		k := countTrue(sel[off:end])
		if k == 0 {
			continue
		}
		if _, err := vals.next(pos+int64(off), int64(end-off)); err != nil {
			return err
		}
		if err := sc.emitPart(pb, vals, off, sel[off:end], k, schema); err != nil {
			return err
		}
	}
	return nil
}

// emitPart emits the selected rows of pb[off:off+len(sel)] joined with
// the batch vals decoded last (the same rows' other columns; vals nil:
// none).
func (sc *splitScan) emitPart(pb arrow.RecordBatch, vals *flatSource, off int, sel []bool, m int, schema *arrow.Schema) error {
	// The selected rows' positions, found once for every column.
	pos := positions(sel, m)
	arrs := make([]arrow.Array, len(sc.cols))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, name := range sc.cols {
		var col arrow.Array
		var owner *flatColumn
		if idx := pb.Schema().FieldIndices(name); len(idx) > 0 {
			col = array.NewSlice(pb.Column(idx[0]), int64(off), int64(off+len(sel)))
		} else {
			k := vals.batch.Schema().FieldIndices(name)[0]
			col, owner = vals.batch.Column(k), vals.cols[k]
			col.Retain()
		}
		arrs[i] = sc.take(i, col, pos, owner)
		col.Release()
	}
	if sc.req.Dictionaries {
		schema = sc.dicts.schemaFor(schema, sc.cols, arrs)
	}
	out := array.NewRecordBatch(schema, arrs, int64(m))
	defer out.Release()
	return sc.emit(out)
}

// countTrue counts the true values of sel, eight at a time: a bool is one
// byte, 0 or 1, and multiplying a word by 0x0101010101010101 sums its bytes
// into the top one.
func countTrue(sel []bool) int {
	n := 0
	words := len(sel) / 8
	if words > 0 {
		w := unsafe.Slice((*uint64)(unsafe.Pointer(&sel[0])), words)
		for _, x := range w {
			n += int((x * 0x0101010101010101) >> 56)
		}
	}
	for _, b := range sel[words*8:] {
		if b {
			n++
		}
	}
	return n
}
