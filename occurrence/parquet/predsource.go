package parquet

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// predicateSource delivers the predicate columns of one row group, batch by
// batch in row order. A batch is valid until the next call; the source owns it.
type predicateSource interface {
	next(pos, n int64) (arrow.RecordBatch, error)
	release()
}

// predicateSource reads names with the flat page decoder when every one is a
// flat column, else through pqarrow.
func (sc *splitScan) predicateSource(names []string) (predicateSource, error) {
	flat := true
	for _, n := range names {
		c, _, ok := occurrence.ColumnByName(n)
		if !ok {
			return nil, fmt.Errorf("%w: %q", occurrence.ErrUnknownColumn, n)
		}
		flat = flat && flatKind(c.Kind)
	}
	if flat {
		return sc.flatSource(names)
	}
	rr, err := sc.recordReader(names)
	if err != nil {
		return nil, err
	}
	return &arrowSource{rr: rr, path: sc.path, rg: sc.rg}, nil
}

// arrowSource reads predicate columns with a pqarrow record reader whose
// batch size is occurrence.DefaultBatchSize.
type arrowSource struct {
	rr   pqarrow.RecordReader
	path string
	rg   int
}

func (a *arrowSource) next(pos, n int64) (arrow.RecordBatch, error) {
	if !a.rr.Next() {
		if err := a.rr.Err(); err != nil {
			return nil, fmt.Errorf("read %s: %w", a.path, err)
		}
		return nil, fmt.Errorf("read %s: row group %d ended at row %d", a.path, a.rg, pos)
	}
	b := a.rr.RecordBatch()
	if b.NumRows() != n {
		return nil, fmt.Errorf("read %s: row group %d: batch of %d rows at row %d, want %d", a.path, a.rg, b.NumRows(), pos, n)
	}
	return b, nil
}

func (a *arrowSource) release() { a.rr.Release() }

// flatSource decodes flat predicate columns page by page (pages.go).
type flatSource struct {
	names []string
	cols  []*flatColumn
	arrs  []arrow.Array
	batch arrow.RecordBatch
}

func (sc *splitScan) flatSource(names []string) (*flatSource, error) {
	fs := &flatSource{names: names, arrs: make([]arrow.Array, len(names))}
	for _, name := range names {
		c, err := sc.openFlat(name)
		if err != nil {
			fs.release()
			return nil, err
		}
		fs.cols = append(fs.cols, c)
	}
	return fs, nil
}

// openFlat opens the page decoder on one flat column of the split.
func (sc *splitScan) openFlat(name string) (*flatColumn, error) {
	c, _, ok := occurrence.ColumnByName(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q", occurrence.ErrUnknownColumn, name)
	}
	rdr := sc.file.rdr
	schema := rdr.MetaData().Schema
	leaf := schema.ColumnIndexByName(name)
	if leaf < 0 {
		return nil, fmt.Errorf("read %s: no column %q", sc.path, name)
	}
	pr, err := rdr.RowGroup(sc.rg).GetColumnPageReader(leaf)
	if err != nil {
		return nil, fmt.Errorf("read %s row group %d column %s: %w", sc.path, sc.rg, name, err)
	}
	where := fmt.Sprintf("%s row group %d column %s", sc.path, sc.rg, name)
	return newFlatColumn(pr, c.Kind, schema.Column(leaf).MaxDefinitionLevel(), where), nil
}

func (fs *flatSource) next(_, n int64) (arrow.RecordBatch, error) {
	fs.drop()
	fields := make([]arrow.Field, len(fs.cols))
	for i, c := range fs.cols {
		a, err := c.next(int(n))
		if err != nil {
			return nil, err
		}
		fs.arrs[i] = a
		fields[i] = arrow.Field{Name: fs.names[i], Type: a.DataType(), Nullable: true}
	}
	fs.batch = array.NewRecordBatch(arrow.NewSchema(fields, nil), fs.arrs, n)
	return fs.batch, nil
}

// drop releases the previous batch's arrays (their buffers are the
// columns' own and are reused).
func (fs *flatSource) drop() {
	if fs.batch != nil {
		fs.batch.Release()
		fs.batch = nil
	}
	for i, a := range fs.arrs {
		if a != nil {
			a.Release()
			fs.arrs[i] = nil
		}
	}
}

func (fs *flatSource) release() {
	fs.drop()
	for _, c := range fs.cols {
		c.close()
	}
}

// valueReader reads the requested columns that are not predicate columns,
// for the value batches (valueBatch rows, aligned) that hold matches: flat
// columns with the page decoder, seeking past rows without matches; list
// columns through pqarrow (lazyReader). A batch is valid until the next call.
type valueReader struct {
	sc        *splitScan
	flatNames []string
	flat      []*flatColumn // opened on first use
	isFlat    map[string]bool
	lists     *lazyReader
	arrs      []arrow.Array
	batch     arrow.RecordBatch
}

func (sc *splitScan) valueReader(names []string) *valueReader {
	v := &valueReader{sc: sc, isFlat: make(map[string]bool), lists: &lazyReader{sc: sc}}
	for _, n := range names {
		if c, _, ok := occurrence.ColumnByName(n); ok && flatKind(c.Kind) {
			v.flatNames = append(v.flatNames, n)
			v.isFlat[n] = true
		} else {
			v.lists.names = append(v.lists.names, n)
		}
	}
	return v
}

func (v *valueReader) empty() bool { return len(v.flatNames) == 0 && len(v.lists.names) == 0 }

// shareable reports whether a column of the batch may be handed on without
// a copy: pqarrow's arrays may, the page decoder's buffers are reused.
func (v *valueReader) shareable(name string) bool { return !v.isFlat[name] }

func (v *valueReader) open() error {
	for _, name := range v.flatNames {
		c, err := v.sc.openFlat(name)
		if err != nil {
			return err
		}
		v.flat = append(v.flat, c)
	}
	return nil
}

func (v *valueReader) at(pos, n int64) (arrow.RecordBatch, error) {
	v.drop()
	if v.flat == nil && len(v.flatNames) > 0 {
		if err := v.open(); err != nil {
			return nil, err
		}
	}
	var fields []arrow.Field
	for i, c := range v.flat {
		if err := c.seek(pos); err != nil {
			return nil, err
		}
		a, err := c.next(int(n))
		if err != nil {
			return nil, err
		}
		v.arrs = append(v.arrs, a)
		fields = append(fields, arrow.Field{Name: v.flatNames[i], Type: a.DataType(), Nullable: true})
	}
	if len(v.lists.names) > 0 {
		lb, err := v.lists.at(pos, n)
		if err != nil {
			return nil, err
		}
		for i, f := range lb.Schema().Fields() {
			a := lb.Column(i)
			a.Retain()
			v.arrs = append(v.arrs, a)
			fields = append(fields, f)
		}
	}
	v.batch = array.NewRecordBatch(arrow.NewSchema(fields, nil), v.arrs, n)
	return v.batch, nil
}

func (v *valueReader) drop() {
	if v.batch != nil {
		v.batch.Release()
		v.batch = nil
	}
	for _, a := range v.arrs {
		a.Release()
	}
	v.arrs = v.arrs[:0]
}

func (v *valueReader) release() {
	v.drop()
	for _, c := range v.flat {
		c.close()
	}
	v.lists.release()
}
