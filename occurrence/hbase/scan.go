package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc"
)

var allNames = func() []string {
	out := make([]string, occurrence.NumColumns())
	for i, c := range occurrence.Columns() {
		out[i] = c.Name
	}
	return out
}()

// ScanSplit scans one salt bucket. The predicate goes to the region servers
// as a filter where it maps onto the filter cells (a superset of the
// matches); rows are then re-checked with the exact predicate unless the
// filter was exact, and only the requested columns of matching rows are
// decoded. Rows of generations outside the snapshot are skipped.
func (s *Store) ScanSplit(ctx context.Context, split occurrence.Split, req occurrence.ScanRequest, emit func(arrow.RecordBatch) error) (occurrence.ScanStats, error) {
	ref, ok := split.Ref.(splitRef)
	if !ok || ref.bucket < 0 || ref.bucket >= s.buckets {
		return occurrence.ScanStats{}, fmt.Errorf("hbase %s: split %d is not from this table's snapshot", s.cfg.Table, split.Index)
	}
	names := req.Columns
	if names == nil {
		names = allNames
	}
	for _, n := range names {
		if _, _, ok := occurrence.ColumnByName(n); !ok {
			return occurrence.ScanStats{}, fmt.Errorf("%w: %s", occurrence.ErrUnknownColumn, n)
		}
	}
	sc := &splitScan{s: s, ref: ref, pred: req.Predicate, names: names, emit: emit, batch: req.BatchSize,
		win: occurrence.NewWindow(req)}
	defer sc.release()
	if sc.batch <= 0 {
		sc.batch = occurrence.DefaultBatchSize
	}
	opts := sc.plan()
	var err error
	for _, r := range sc.ranges(opts) {
		opts.Start, opts.Stop = r[0], r[1]
		var hs hrpc.ScanStats
		hs, err = s.c.Scan(ctx, s.cfg.Table, opts, sc.rows)
		sc.stats.BytesRead += hs.Bytes
		if errors.Is(err, errWindowDone) {
			err = nil
		}
		if err != nil || sc.win.Done() {
			break
		}
	}
	if err == nil && !sc.win.Done() {
		err = sc.flush()
	}
	if err != nil {
		return sc.stats, fmt.Errorf("hbase %s split %d: %w", s.cfg.Table, split.Index, err)
	}
	return sc.stats, nil
}

type splitScan struct {
	s     *Store
	ref   splitRef
	pred  *occurrence.Predicate
	names []string
	emit  func(arrow.RecordBatch) error
	batch int

	recheck  bool // evaluate pred client-side
	keysOnly bool // no record needed: count rows
	pending  [][]byte
	sel      []bool
	predDec  *batchDecoder         // the predicate's columns
	outDec   *batchDecoder         // the requested columns
	cache    *occurrence.EvalCache // the predicate's state across batches
	keyRows  int
	stats    occurrence.ScanStats
	win      occurrence.Window // the request's Skip and Limit
}

// errWindowDone stops a region scan once the request's Limit rows were
// emitted.
var errWindowDone = errors.New("scan window complete")

// plan chooses the HBase scan: which families, which filter.
func (sc *splitScan) plan() hrpc.ScanOptions {
	b := byte(sc.ref.bucket)
	opts := hrpc.ScanOptions{Start: []byte{b}, Stop: []byte{b + 1}, Caching: sc.s.cfg.Caching,
		MaxResultSize: sc.s.cfg.MaxResultSize}
	var pd pushed
	havePD := false
	if sc.pred != nil && !sc.s.cfg.NoPushdown {
		pd, havePD = pushdown(sc.pred, sc.ref.header)
	}
	sc.recheck = sc.pred != nil && !(havePD && pd.exact)
	sc.keysOnly = len(sc.names) == 0 && !sc.recheck
	opts.Columns = []hrpc.Column{{Family: famRecord}}
	switch {
	case havePD && sc.keysOnly:
		opts.Columns = []hrpc.Column{{Family: famHeader}}
		opts.Filter = hrpc.FilterList{Filters: []hrpc.Filter{pd.filter, hrpc.KeyOnlyFilter{}}}
	case havePD:
		// The server tests the header family and reads the record family
		// only for rows that pass.
		opts.Columns = []hrpc.Column{{Family: famHeader}, {Family: famRecord}}
		opts.LoadColumnFamiliesOnDemand = true
		opts.Filter = pd.filter
	case sc.keysOnly:
		opts.Filter = hrpc.FilterList{Filters: []hrpc.Filter{hrpc.FirstKeyOnlyFilter{}, hrpc.KeyOnlyFilter{}}}
	}
	return opts
}

// ranges returns the key ranges to scan: the whole bucket, or only the
// countries the predicate allows.
func (sc *splitScan) ranges(opts hrpc.ScanOptions) [][2][]byte {
	ccs, ok := countrySet(sc.pred)
	if !ok || sc.s.cfg.NoPushdown {
		return [][2][]byte{{opts.Start, opts.Stop}}
	}
	out := make([][2][]byte, 0, len(ccs))
	for _, cc := range ccs {
		p := append([]byte{byte(sc.ref.bucket)}, cc...)
		out = append(out, [2][]byte{p, prefixEnd(p)})
	}
	return out
}

// rows receives a scan response's rows.
func (sc *splitScan) rows(rows []hrpc.Row) error {
	for _, r := range rows {
		if len(r.Key) != keyLen || int(r.Key[0]) != sc.ref.bucket {
			continue
		}
		if _, ok := sc.ref.live[string(r.Key[genOff:genEnd])]; !ok {
			continue // another generation than the snapshot's
		}
		sc.stats.RowsScanned++
		if sc.keysOnly {
			sc.keyRows++
			if sc.keyRows >= sc.batch {
				if err := sc.flush(); err != nil {
					return err
				}
				if sc.win.Done() {
					return errWindowDone
				}
			}
			continue
		}
		rec := recordCell(r)
		if rec == nil {
			return fmt.Errorf("%w: row %x has no record cell", ErrCorruptRecord, r.Key)
		}
		sc.pending = append(sc.pending, rec)
		if len(sc.pending) >= sc.batch {
			if err := sc.flush(); err != nil {
				return err
			}
			if sc.win.Done() {
				return errWindowDone
			}
		}
	}
	return nil
}

func recordCell(r hrpc.Row) []byte {
	for _, c := range r.Cells {
		if bytes.Equal(c.Family, famRecord) && len(c.Qualifier) == 0 {
			return c.Value
		}
	}
	return nil
}

// flush evaluates and emits the pending rows.
func (sc *splitScan) flush() error {
	if sc.keysOnly {
		n := sc.win.Take(int64(sc.keyRows))
		sc.keyRows = 0
		return sc.emitEmpty(int(n))
	}
	recs := sc.pending
	sc.pending = sc.pending[:0]
	if len(recs) == 0 {
		return nil
	}
	var sel []bool // nil: every row
	m := len(recs)
	if sc.recheck {
		if sc.predDec == nil {
			sc.predDec = newBatchDecoder(sc.pred.Columns())
		}
		pb, err := sc.predDec.decode(recs, nil)
		if err != nil {
			return err
		}
		sel = slices.Grow(sc.sel[:0], len(recs))[:len(recs)]
		sc.sel = sel
		if sc.cache == nil {
			sc.cache = occurrence.NewEvalCache()
		}
		sc.pred.EvalCached(pb, sel, sc.cache)
		pb.Release()
		m = 0
		for _, ok := range sel {
			if ok {
				m++
			}
		}
	}
	if sc.win.Active() && m > 0 {
		if sel == nil {
			sel = slices.Grow(sc.sel[:0], len(recs))[:len(recs)]
			sc.sel = sel
			for i := range sel {
				sel[i] = true
			}
		}
		m = sc.win.Select(sel, m)
	}
	if m == 0 {
		return nil
	}
	if len(sc.names) == 0 {
		return sc.emitEmpty(m)
	}
	if sc.outDec == nil {
		sc.outDec = newBatchDecoder(sc.names)
	}
	out, err := sc.outDec.decode(recs, sel)
	if err != nil {
		return err
	}
	defer out.Release()
	sc.stats.RowsMatched += int64(m)
	return sc.emit(out)
}

// release frees the decoders' builders.
func (sc *splitScan) release() {
	for _, d := range []*batchDecoder{sc.predDec, sc.outDec} {
		if d != nil {
			d.rb.Release()
		}
	}
	if sc.cache != nil {
		sc.cache.Release()
	}
}

func (sc *splitScan) emitEmpty(n int) error {
	if n == 0 {
		return nil
	}
	sc.stats.RowsMatched += int64(n)
	b := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, int64(n))
	defer b.Release()
	return sc.emit(b)
}

// batchDecoder decodes the named columns of stored records into batches,
// reusing its record builder and column sink from batch to batch.
type batchDecoder struct {
	rb   *array.RecordBuilder
	sink *columnSink
	hint []float64 // string bytes per row of each column, last batch
}

func newBatchDecoder(names []string) *batchDecoder {
	rb := array.NewRecordBuilder(memory.DefaultAllocator, occurrence.SchemaOf(names))
	return &batchDecoder{rb: rb, sink: newColumnSink(rb.Fields(), names), hint: make([]float64, len(names))}
}

// decode decodes the selected records (all when sel is nil) into a batch.
// Builders are sized up front (strings from the bytes each string column
// took per row in the previous batch) so they do not grow by copying.
func (d *batchDecoder) decode(recs [][]byte, sel []bool) (arrow.RecordBatch, error) {
	n := len(recs)
	if sel != nil {
		n = 0
		for _, ok := range sel {
			if ok {
				n++
			}
		}
	}
	fields := d.rb.Fields()
	for i, f := range fields {
		f.Reserve(n)
		if sb, ok := f.(*array.StringBuilder); ok {
			per := 16.0
			if d.hint[i] > 0 {
				per = d.hint[i] * 1.1
			}
			sb.ReserveData(int(per * float64(n)))
		}
	}
	for i, rec := range recs {
		if sel != nil && !sel[i] {
			continue
		}
		if err := d.sink.decodeInto(rec); err != nil {
			for _, f := range fields { // drop the partial batch (columns may differ in length)
				f.NewArray().Release()
			}
			return nil, err
		}
	}
	if n > 0 {
		for i, f := range fields {
			if sb, ok := f.(*array.StringBuilder); ok {
				d.hint[i] = float64(sb.DataLen()) / float64(n)
			}
		}
	}
	return d.rb.NewRecordBatch(), nil
}
