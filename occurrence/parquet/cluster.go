package parquet

import (
	"cmp"
	"slices"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Clustering. Scans are fast when a predicate's matches sit together: whole
// row groups are pruned by their statistics, and in the rest the reader skips
// pages without matches. Ingest is streaming, so records cannot be sorted
// globally; instead each window of ClusterRowGroups row groups is sorted by
// the columns portal users filter on most (country, then the taxonomic
// hierarchy, then year) before it is written. Memory stays bounded by the
// window, and within a dataset the order is deterministic.
var clusterColumns = []string{
	occurrence.ColCountryCode, occurrence.ColKingdom, occurrence.ColPhylum, occurrence.ColClass,
	occurrence.ColOrder, occurrence.ColFamily, occurrence.ColGenus, occurrence.ColSpecies,
	occurrence.ColYear, occurrence.ColGBIFID,
}

// windowBatch is a batch of the clustering window held as its columns, so
// that each column can be dropped as soon as it is written.
type windowBatch struct {
	cols []arrow.Array // nil once released
	rows int
}

// newWindowBatch takes over b's columns and releases b.
func newWindowBatch(b arrow.RecordBatch) windowBatch {
	cols := make([]arrow.Array, b.NumCols())
	for i := range cols {
		cols[i] = b.Column(i)
		cols[i].Retain()
	}
	wb := windowBatch{cols: cols, rows: int(b.NumRows())}
	b.Release()
	return wb
}

// release drops column c, handing its buffers to recycle when not nil.
func (wb *windowBatch) release(c int, recycle func(int, arrow.Array)) {
	if wb.cols[c] != nil {
		if recycle != nil {
			recycle(c, wb.cols[c])
		}
		wb.cols[c].Release()
		wb.cols[c] = nil
	}
}

// rowRef points at one row of a buffered batch.
type rowRef struct {
	batch, row int32
}

// segmentClusterColumns order the rows of a segment (segment.go), which
// holds many datasets sorted as one: year comes right after the kingdom.
// An ingest's windows hold one dataset, whose records usually span a few
// decades, so its row groups prune years whatever the order; a segment's
// row groups each cover a range of the sort order across datasets, and
// with year last every one of them spans every year. Lower taxon ranks
// prune little in either order (a country's records of one kingdom fill
// few row groups), so they give way.
var segmentClusterColumns = []string{
	occurrence.ColCountryCode, occurrence.ColKingdom, occurrence.ColYear, occurrence.ColPhylum, occurrence.ColClass,
	occurrence.ColOrder, occurrence.ColFamily, occurrence.ColGenus, occurrence.ColSpecies, occurrence.ColGBIFID,
}

// clusterOrder returns the rows of batches sorted by the columns keys
// (nulls last, ties in arrival order).
func clusterOrder(batches []windowBatch, keys []string) []rowRef {
	type keyCols struct{ cols []arrow.Array }
	cols := make([]keyCols, len(batches))
	var n int
	for i, b := range batches {
		for _, name := range keys {
			cols[i].cols = append(cols[i].cols, b.cols[occurrence.ColumnIndex(name)])
		}
		n += b.rows
	}
	refs := make([]rowRef, 0, n)
	for i, b := range batches {
		for r := 0; r < b.rows; r++ {
			refs = append(refs, rowRef{int32(i), int32(r)})
		}
	}
	slices.SortStableFunc(refs, func(a, b rowRef) int {
		ka, kb := cols[a.batch].cols, cols[b.batch].cols
		for c := range ka {
			if d := compareCell(ka[c], int(a.row), kb[c], int(b.row)); d != 0 {
				return d
			}
		}
		return 0
	})
	return refs
}

func compareCell(a arrow.Array, i int, b arrow.Array, j int) int {
	an, bn := a.IsNull(i), b.IsNull(j)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	switch a := a.(type) {
	case *array.String:
		return cmp.Compare(a.Value(i), b.(*array.String).Value(j))
	case *array.Int32:
		return cmp.Compare(a.Value(i), b.(*array.Int32).Value(j))
	case *array.Int64:
		return cmp.Compare(a.Value(i), b.(*array.Int64).Value(j))
	}
	return 0
}

// gatherArray copies column c of the rows refs of batches into a new array.
func gatherArray(batches []windowBatch, c int, refs []rowRef) arrow.Array {
	return gatherInto(nil, batches, c, refs)
}

// gatherInto copies column c of the rows refs of batches into an array
// built on g's buffers (new ones when g is nil). The array is valid until
// the next gatherInto on g: the table writer writes each column (its
// values copied into pages) before it gathers the next, so one set of
// buffers serves every column and row group instead of a column's worth
// of garbage each. Text and 64- and 32-bit columns are copied straight
// between value buffers; booleans through a builder.
func gatherInto(g *gatherBufs, batches []windowBatch, c int, refs []rowRef) arrow.Array {
	src := make([]arrow.Array, len(batches))
	for i, b := range batches {
		src[i] = b.cols[c]
	}
	typ := occurrence.Schema().Field(c).Type
	n := len(refs)
	if allNull(src) {
		// Most of the schema's columns are empty in most datasets.
		return occurrence.NullArray(typ, n)
	}
	var valid []byte
	nulls := 0
	if !noNulls(src) {
		valid = g.validity(n)
		for i, r := range refs {
			if src[r.batch].IsNull(int(r.row)) {
				nulls++
			} else {
				bitutil.SetBit(valid, i)
			}
		}
	}
	buf := func(b []byte) *memory.Buffer { return memory.NewBufferBytes(b) }
	var validBuf *memory.Buffer
	if valid != nil {
		validBuf = buf(valid)
	}
	switch typ.ID() {
	case arrow.STRING:
		offsets, data := gatherStrings(g, typed[*array.String](src), refs)
		return array.MakeFromData(array.NewData(typ, n, []*memory.Buffer{validBuf, buf(offsets), buf(data)}, nil, nulls, 0))
	case arrow.INT64, arrow.FLOAT64, arrow.TIMESTAMP:
		return array.MakeFromData(array.NewData(typ, n, []*memory.Buffer{validBuf, buf(gatherWords[uint64](g, src, refs))}, nil, nulls, 0))
	case arrow.INT32:
		return array.MakeFromData(array.NewData(typ, n, []*memory.Buffer{validBuf, buf(gatherWords[uint32](g, src, refs))}, nil, nulls, 0))
	}
	bld := array.NewBuilder(memory.DefaultAllocator, typ)
	defer bld.Release()
	gatherColumn(bld, src, refs)
	return bld.NewArray()
}

// gatherBufs are the buffers gatherInto reuses; the zero value is ready.
type gatherBufs struct {
	valid, offsets, data, words []byte
}

// grow returns (*p)[:n], reallocated when too small; with g nil, new memory.
func (g *gatherBufs) grow(p *[]byte, n int) []byte {
	if g == nil {
		return make([]byte, n)
	}
	if cap(*p) < n {
		*p = make([]byte, n+n/8)
	}
	return (*p)[:n]
}

// validity returns a cleared validity bitmap of n rows.
func (g *gatherBufs) validity(n int) []byte {
	var p *[]byte
	if g != nil {
		p = &g.valid
	}
	b := g.grow(p, int(bitutil.BytesForBits(int64(n))))
	clear(b)
	return b
}

// gatherStrings copies the text of refs (nulls as empty values) into g's
// offsets and data buffers.
func gatherStrings(g *gatherBufs, src []*array.String, refs []rowRef) (offsets, data []byte) {
	offs := make([][]int32, len(src))
	vals := make([][]byte, len(src))
	for i, a := range src {
		offs[i], vals[i] = a.ValueOffsets(), stringBytes(a)
	}
	size := 0
	for _, r := range refs {
		o := offs[r.batch]
		size += int(o[r.row+1] - o[r.row])
	}
	var po, pd *[]byte
	if g != nil {
		po, pd = &g.offsets, &g.data
	}
	offsets = g.grow(po, 4*(len(refs)+1))
	out := castTo[uint32](offsets)
	data = g.grow(pd, size)[:0]
	out[0] = 0
	for i, r := range refs {
		o := offs[r.batch]
		data = append(data, vals[r.batch][o[r.row]:o[r.row+1]]...)
		out[i+1] = uint32(len(data))
	}
	return offsets, data
}

// gatherWords copies the T-sized values of refs (whatever a null row
// holds) into g's value buffer.
func gatherWords[T uint32 | uint64](g *gatherBufs, src []arrow.Array, refs []rowRef) []byte {
	vals := make([][]T, len(src))
	for i, a := range src {
		d := a.Data()
		vals[i] = castTo[T](d.Buffers()[1].Bytes())[d.Offset():]
	}
	var p *[]byte
	if g != nil {
		p = &g.words
	}
	var zero T
	buf := g.grow(p, len(refs)*int(unsafe.Sizeof(zero)))
	out := castTo[T](buf)
	for i, r := range refs {
		out[i] = vals[r.batch][r.row]
	}
	return buf
}

// allNull reports whether every row of src is null.
func allNull(src []arrow.Array) bool {
	for _, a := range src {
		if a.NullN() != a.Len() {
			return false
		}
	}
	return true
}

// noNulls reports whether no row of src is null.
func noNulls(src []arrow.Array) bool {
	for _, a := range src {
		if a.NullN() != 0 {
			return false
		}
	}
	return true
}

func gatherColumn(bld array.Builder, src []arrow.Array, refs []rowRef) {
	bld.Reserve(len(refs))
	switch b := bld.(type) {
	case *array.StringBuilder:
		strs := typed[*array.String](src)
		var size int
		for _, r := range refs {
			size += len(strs[r.batch].Value(int(r.row)))
		}
		b.ReserveData(size)
		if noNulls(src) {
			for _, r := range refs {
				b.Append(strs[r.batch].Value(int(r.row)))
			}
			return
		}
		for _, r := range refs {
			a := strs[r.batch]
			if a.IsNull(int(r.row)) {
				b.AppendNull()
			} else {
				b.Append(a.Value(int(r.row)))
			}
		}
	case *array.Int32Builder:
		gatherFixed(b, typed[*array.Int32](src), refs)
	case *array.Int64Builder:
		gatherFixed(b, typed[*array.Int64](src), refs)
	case *array.Float64Builder:
		gatherFixed(b, typed[*array.Float64](src), refs)
	case *array.BooleanBuilder:
		gatherFixed(b, typed[*array.Boolean](src), refs)
	case *array.TimestampBuilder:
		gatherFixed(b, typed[*array.Timestamp](src), refs)
	default:
		panic("parquet: gather: unsupported builder")
	}
}

// typed asserts every source array to its concrete type once, outside the
// per-row loops.
func typed[A arrow.Array](src []arrow.Array) []A {
	out := make([]A, len(src))
	for i, a := range src {
		out[i] = a.(A)
	}
	return out
}

// fixedBuilder is an Arrow builder of fixed-width values.
type fixedBuilder[T any] interface {
	array.Builder
	Append(T)
}

func gatherFixed[T any, A interface {
	arrow.Array
	Value(int) T
}, B fixedBuilder[T]](b B, src []A, refs []rowRef) {
	for _, r := range refs {
		a := src[r.batch]
		if a.IsNull(int(r.row)) {
			b.AppendNull()
		} else {
			b.Append(a.Value(int(r.row)))
		}
	}
}
