package parquet

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// flatSource decodes columns page by page (pages.go): the predicate columns
// of a split in row order, or the other requested columns of the 1,024-row
// slices that hold matches, seeking past the rest. A batch is valid until
// the next call.
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
	c, col, ok := occurrence.ColumnByName(name)
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
		// A file written before the column joined the schema: the
		// column is null in all of its rows.
		return newAbsentColumn(col, kind, fmt.Sprintf("%s column %s (absent)", sc.path, name)), nil
	}
	if sc.allNull(name) {
		// Most of a record's 230 columns are empty in most row groups:
		// their pages are not read at all.
		return newAbsentColumn(col, kind, fmt.Sprintf("%s column %s (all null)", sc.path, name)), nil
	}
	if sc.rg >= len(foot.rowGroups) {
		return nil, fmt.Errorf("read %s: no row group %d", sc.path, sc.rg)
	}
	where := fmt.Sprintf("%s row group %d column %s", sc.path, sc.rg, name)
	l := foot.leaves[leaf]
	if l.maxRep != 0 {
		return nil, fmt.Errorf("read %s: column %q is repeated", sc.path, name)
	}
	pr, err := newChunkPages(col, sc.file.f, sc.file.size, foot.rowGroups[sc.rg].chunks[leaf], where)
	if err != nil {
		return nil, err
	}
	return newFlatColumn(col, pr, kind, l.maxDef, where), nil
}

// allNull reports whether the split's statistics say column name holds no
// value in any row.
func (sc *splitScan) allNull(name string) bool {
	if s, ok := sc.split.(interface{ Nulls(string) (int64, bool) }); ok {
		n, ok := s.Nulls(name)
		return ok && n == sc.rows && n > 0
	}
	return false
}

// next decodes rows [pos, pos+n) of every column, seeking when pos is not
// the row a column delivers next.
func (fs *flatSource) next(pos, n int64) (arrow.RecordBatch, error) {
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
	fs.batch = array.NewRecordBatch(schemaOf(fs.names, fs.arrs), fs.arrs, n)
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
