package parquet

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// predicateSource reads the predicate's columns of one row group, batch by
// batch in row order.
func (sc *splitScan) predicateSource(names []string) (*flatSource, error) {
	for _, n := range names {
		if _, _, ok := occurrence.ColumnByName(n); !ok {
			return nil, fmt.Errorf("%w: %q", occurrence.ErrUnknownColumn, n)
		}
	}
	return sc.flatSource(names), nil
}

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
	kind := c.Kind
	if kind == occurrence.KindMulti {
		kind = occurrence.KindString // values joined with ";"
	}
	foot := sc.file.foot
	leaf, ok := foot.byName[name]
	if !ok {
		return nil, fmt.Errorf("read %s: no column %q", sc.path, name)
	}
	if sc.rg >= len(foot.rowGroups) {
		return nil, fmt.Errorf("read %s: no row group %d", sc.path, sc.rg)
	}
	where := fmt.Sprintf("%s row group %d column %s", sc.path, sc.rg, name)
	l := foot.leaves[leaf]
	if l.maxRep != 0 {
		return nil, fmt.Errorf("read %s: column %q is repeated", sc.path, name)
	}
	pr, err := newChunkPages(sc.file.f, sc.file.size, foot.rowGroups[sc.rg].chunks[leaf], where)
	if err != nil {
		return nil, err
	}
	return newFlatColumn(pr, kind, l.maxDef, where), nil
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
// for the value batches (valueBatch rows, aligned) that hold matches,
// seeking past rows without matches. A batch is valid until the next call.
type valueReader struct {
	flat  *flatSource
	batch arrow.RecordBatch
}

func (sc *splitScan) valueReader(names []string) *valueReader {
	return &valueReader{flat: sc.flatSource(names)}
}

func (v *valueReader) empty() bool { return len(v.flat.names) == 0 }

func (v *valueReader) at(pos, n int64) (arrow.RecordBatch, error) {
	v.drop()
	arrs, err := v.flat.read(pos, n)
	if err != nil {
		return nil, err
	}
	v.batch = array.NewRecordBatch(schemaOf(v.flat.names, arrs), arrs, n)
	return v.batch, nil
}

func (v *valueReader) drop() {
	if v.batch != nil {
		v.batch.Release()
		v.batch = nil
	}
}

func (v *valueReader) release() {
	v.drop()
	v.flat.release()
}
