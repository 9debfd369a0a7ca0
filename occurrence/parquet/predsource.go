package parquet

import (
	"fmt"
	"slices"

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
		return sc.flatSource(names), nil
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

// flatSource decodes flat columns page by page (pages.go): the predicate
// columns of a split in row order, or the value columns of the slices that
// hold matches. Its arrays are valid until the next read.
type flatSource struct {
	sc    *splitScan
	names []string
	cols  []*flatColumn // opened on the first read
	arrs  []arrow.Array
	batch arrow.RecordBatch
}

func (sc *splitScan) flatSource(names []string) *flatSource {
	return &flatSource{sc: sc, names: names, arrs: make([]arrow.Array, len(names))}
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

// read decodes rows [pos, pos+n) of every column, seeking when pos is not
// the row a column delivers next.
func (fs *flatSource) read(pos, n int64) ([]arrow.Array, error) {
	fs.drop()
	for len(fs.cols) < len(fs.names) {
		c, err := fs.sc.openFlat(fs.names[len(fs.cols)])
		if err != nil {
			return nil, err
		}
		fs.cols = append(fs.cols, c)
	}
	for i, c := range fs.cols {
		if err := c.seek(pos); err != nil {
			return nil, err
		}
		a, err := c.next(int(n))
		if err != nil {
			return nil, err
		}
		fs.arrs[i] = a
	}
	return fs.arrs, nil
}

func (fs *flatSource) next(pos, n int64) (arrow.RecordBatch, error) {
	arrs, err := fs.read(pos, n)
	if err != nil {
		return nil, err
	}
	fs.batch = array.NewRecordBatch(schemaOf(fs.names, arrs), arrs, n)
	return fs.batch, nil
}

// schemaOf names arrays whose types vary from batch to batch (dictionary
// indices or plain values).
func schemaOf(names []string, arrs []arrow.Array) *arrow.Schema {
	fields := make([]arrow.Field, len(names))
	for i, a := range arrs {
		fields[i] = arrow.Field{Name: names[i], Type: a.DataType(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
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
	flat  *flatSource
	lists *lazyReader
	held  []arrow.Array // the list columns of the current batch
	batch arrow.RecordBatch
}

func (sc *splitScan) valueReader(names []string) *valueReader {
	var flat []string
	lists := &lazyReader{sc: sc}
	for _, n := range names {
		if c, _, ok := occurrence.ColumnByName(n); ok && flatKind(c.Kind) {
			flat = append(flat, n)
		} else {
			lists.names = append(lists.names, n)
		}
	}
	return &valueReader{flat: sc.flatSource(flat), lists: lists}
}

func (v *valueReader) empty() bool { return len(v.flat.names) == 0 && len(v.lists.names) == 0 }

// shareable reports whether a column of the batch may be handed on without
// a copy: pqarrow's arrays (list columns) may, the page decoder's buffers
// are reused.
func shareable(name string) bool {
	c, _, ok := occurrence.ColumnByName(name)
	return ok && !flatKind(c.Kind)
}

func (v *valueReader) at(pos, n int64) (arrow.RecordBatch, error) {
	v.drop()
	names := v.flat.names
	arrs, err := v.flat.read(pos, n)
	if err != nil {
		return nil, err
	}
	if len(v.lists.names) > 0 {
		lb, err := v.lists.at(pos, n)
		if err != nil {
			return nil, err
		}
		names = append(slices.Clip(names), v.lists.names...)
		arrs = slices.Clip(arrs)
		for i := range v.lists.names {
			a := lb.Column(lb.Schema().FieldIndices(v.lists.names[i])[0])
			a.Retain()
			v.held = append(v.held, a)
			arrs = append(arrs, a)
		}
	}
	v.batch = array.NewRecordBatch(schemaOf(names, arrs), arrs, n)
	return v.batch, nil
}

func (v *valueReader) drop() {
	if v.batch != nil {
		v.batch.Release()
		v.batch = nil
	}
	for _, a := range v.held {
		a.Release()
	}
	v.held = v.held[:0]
}

func (v *valueReader) release() {
	v.drop()
	v.flat.release()
	v.lists.release()
}
