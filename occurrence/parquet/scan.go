package parquet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// openFile is a Parquet file shared by concurrent split scans: os.File.ReadAt
// is safe for concurrent use and the footer is parsed once.
type openFile struct {
	f  *os.File
	md *metadata.FileMetaData
	// rdr reads pages: flat predicate columns are decoded from them
	// (pages.go), so a count needs nothing else.
	rdr *file.Reader
	// pred reads the predicate columns the page decoder does not (lists) in
	// scan batches; vals reads the other columns in smaller batches so that
	// only the parts of a batch that hold matches are decoded. Both are
	// built on first use.
	predOnce, valsOnce sync.Once
	pred, vals         *pqarrow.FileReader
	predErr, valsErr   error
}

func (o *openFile) predicates() (*pqarrow.FileReader, error) {
	o.predOnce.Do(func() {
		// Predicate string columns come back dictionary-encoded: the
		// predicate compares each distinct value once and no string is copied.
		props := pqarrow.ArrowReadProperties{BatchSize: occurrence.DefaultBatchSize}
		for i, c := range occurrence.Columns {
			if c.Kind == occurrence.KindString || c.Kind == occurrence.KindMulti {
				props.SetReadDict(i, true)
			}
		}
		o.pred, o.predErr = o.arrowReader(props)
	})
	return o.pred, o.predErr
}

func (o *openFile) values() (*pqarrow.FileReader, error) {
	o.valsOnce.Do(func() {
		o.vals, o.valsErr = o.arrowReader(pqarrow.ArrowReadProperties{BatchSize: valueBatch})
	})
	return o.vals, o.valsErr
}

// arrowReader is a pqarrow reader of the file with its own page reader
// (default allocator: pqarrow's arrays may outlive a batch).
func (o *openFile) arrowReader(props pqarrow.ArrowReadProperties) (*pqarrow.FileReader, error) {
	rdr, err := file.NewParquetReader(o.f, file.WithMetadata(o.md), file.WithReadProps(readProps(memory.DefaultAllocator)))
	if err != nil {
		return nil, err
	}
	return pqarrow.NewFileReader(rdr, props, memory.DefaultAllocator)
}

// readProps makes column chunks stream through a small buffer instead of
// being read whole: a scan that seeks to the pages around its matches then
// reads only those pages of a large column (verbatim, locality, ...).
// The buffer only needs to hold page headers (arrow-go peeks 16 KiB for
// one; a smaller buffer would be reallocated to that): page bodies larger
// than it are read straight into the page buffer. Every column chunk a scan
// opens allocates one, so it is kept small.
func readProps(mem memory.Allocator) *parquet.ReaderProperties {
	p := parquet.NewReaderProperties(mem)
	p.BufferedStreamEnabled = true
	p.BufferSize = 16 << 10
	return p
}

// valueBatch is the granularity at which non-predicate columns are read.
const valueBatch = 1024

func (o *openFile) close() error { return o.f.Close() }

// fileSlot is a file being opened or open; ready closes when it is either.
type fileSlot struct {
	ready chan struct{}
	o     *openFile
	err   error
}

// file returns the open file rel, opening it once: workers parse different
// files' footers in parallel, and wait for one another only on the same file.
func (s *Store) file(rel string) (*openFile, error) {
	s.mu.Lock()
	slot, ok := s.files[rel]
	if !ok {
		slot = &fileSlot{ready: make(chan struct{})}
		s.files[rel] = slot
	}
	s.mu.Unlock()
	if ok {
		<-slot.ready
		return slot.o, slot.err
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
	return slot.o, slot.err
}

func (s *Store) openFile(rel string) (*openFile, error) {
	f, err := os.Open(filepath.Join(s.dir, rel))
	if err != nil {
		return nil, fmt.Errorf("open split file: %w", err)
	}
	// This reader only feeds the flat page decoder: its buffers are pooled.
	rdr, err := file.NewParquetReader(f, file.WithReadProps(readProps(pagePoolAllocator)))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	return &openFile{f: f, md: rdr.MetaData(), rdr: rdr}, nil
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
	o, err := s.file(ref.path)
	if err != nil {
		return st, err
	}
	sc := &splitScan{ctx: ctx, file: o, rg: ref.rowGroup, rows: split.Rows, req: req, cols: cols, emit: emit, stats: &st, path: ref.path, split: split.Stats}
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
	out := make([]string, len(occurrence.Columns))
	for i, c := range occurrence.Columns {
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
}

// run scans the split; without a predicate every row matches and the
// requested columns are read the same way, through the value readers.
func (sc *splitScan) run() error {
	if sc.req.Predicate == nil && len(sc.cols) == 0 {
		sc.stats.RowsScanned = sc.rows
		sc.stats.RowsMatched = sc.rows
		return sc.emitCounts(sc.rows)
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

func (sc *splitScan) recordReader(names []string) (pqarrow.RecordReader, error) {
	fr, err := sc.file.predicates()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sc.path, err)
	}
	return sc.readerOf(fr, names)
}

func (sc *splitScan) readerOf(fr *pqarrow.FileReader, names []string) (pqarrow.RecordReader, error) {
	idx, err := columnIndices(names)
	if err != nil {
		return nil, err
	}
	rr, err := fr.GetRecordReader(sc.ctx, idx, []int{sc.rg})
	if err != nil {
		return nil, fmt.Errorf("read %s row group %d: %w", sc.path, sc.rg, err)
	}
	return rr, nil
}

// filtered evaluates the predicate batch by batch and materializes the other
// requested columns only for batches with matches, seeking past the rest.
func (sc *splitScan) filtered() error {
	pred := sc.req.Predicate
	cache := occurrence.NewEvalCache()
	defer cache.Release()
	predCols := cache.Trim(pred, sc.split)
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
	var src predicateSource
	if len(predCols) > 0 {
		var err error
		if src, err = sc.predicateSource(predCols); err != nil {
			return err
		}
		defer src.release()
	}
	vals := sc.valueReader(rest)
	defer vals.release()
	// Predicate batches are DefaultBatchSize rows (pqarrow's batch for
	// predicate columns), a multiple of valueBatch.
	sel := make([]bool, occurrence.DefaultBatchSize)
	outSchema := occurrence.SchemaOf(sc.cols)
	var pos int64
	for pos < sc.rows {
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
		m := countTrue(sel)
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

func (sc *splitScan) emitMatches(pb arrow.RecordBatch, vals *valueReader, pos int64, sel []bool, m int, schema *arrow.Schema) error {
	if len(sc.cols) == 0 {
		return sc.emitCounts(int64(m))
	}
	if vals.empty() {
		return sc.emitPart(pb, nil, vals, 0, sel, m, schema)
	}
	// Decode the other columns only for the value batches that hold matches.
	for off := 0; off < len(sel); off += valueBatch {
		end := min(off+valueBatch, len(sel))
		k := countTrue(sel[off:end])
		if k == 0 {
			continue
		}
		vb, err := vals.at(pos+int64(off), int64(end-off))
		if err != nil {
			return err
		}
		if err := sc.emitPart(pb, vb, vals, off, sel[off:end], k, schema); err != nil {
			return err
		}
	}
	return nil
}

// emitPart emits the selected rows of pb[off:off+len(sel)] joined with vb
// (the same rows' other columns, or nil).
func (sc *splitScan) emitPart(pb, vb arrow.RecordBatch, vals *valueReader, off int, sel []bool, m int, schema *arrow.Schema) error {
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
		share := true
		if idx := pb.Schema().FieldIndices(name); len(idx) > 0 {
			col = array.NewSlice(pb.Column(idx[0]), int64(off), int64(off+len(sel)))
			share = false // predicate batches are reused
		} else {
			col = vb.Column(vb.Schema().FieldIndices(name)[0])
			col.Retain()
			share = shareable(name)
		}
		arrs[i] = takeSelected(col, sel, m, share)
		col.Release()
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

// lazyReader reads the non-predicate columns in step with the predicate
// reader, opening on first use and seeking over batches without matches
// (the page index lets the reader skip whole pages).
type lazyReader struct {
	sc    *splitScan
	names []string
	rr    pqarrow.RecordReader
	next  int64 // row the reader delivers next
}

func (l *lazyReader) at(pos, n int64) (arrow.RecordBatch, error) {
	if l.rr == nil {
		vr, err := l.sc.file.values()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", l.sc.path, err)
		}
		rr, err := l.sc.readerOf(vr, l.names)
		if err != nil {
			return nil, err
		}
		l.rr = rr
	}
	if pos != l.next {
		if err := l.rr.SeekToRow(pos); err != nil {
			return nil, fmt.Errorf("seek %s row %d: %w", l.sc.path, pos, err)
		}
		l.next = pos
	}
	if !l.rr.Next() {
		if err := l.rr.Err(); err != nil {
			return nil, fmt.Errorf("read %s: %w", l.sc.path, err)
		}
		return nil, fmt.Errorf("read %s: no rows at %d", l.sc.path, pos)
	}
	b := l.rr.RecordBatch()
	if b.NumRows() != n {
		return nil, fmt.Errorf("read %s: value batch of %d rows at %d, predicate batch has %d", l.sc.path, b.NumRows(), pos, n)
	}
	l.next = pos + n
	return b, nil
}

func (l *lazyReader) release() {
	if l.rr != nil {
		l.rr.Release()
	}
}
