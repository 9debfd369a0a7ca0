package parquet

import (
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// takeSelected copies the rows of a where sel is true (m of them) into a new
// array of the same type; dictionary-encoded strings come out as plain
// strings. The page decoder's buffers are reused from batch to batch, so
// every column is copied.
func takeSelected(a arrow.Array, sel []bool, m int) arrow.Array {
	return takeAt(a, positions(sel, m))
}

// takeAt is takeSelected of the rows at pos (ascending positions in a):
// every column of a batch part gathers by the same positions, found once
// (positions), instead of testing each row's selection again.
func takeAt(a arrow.Array, pos []int32) arrow.Array {
	if _, dict := a.(*array.Dictionary); !dict && nullEverywhere(a) {
		if out := nullArray(a.DataType(), len(pos)); out != nil {
			return out
		}
	}
	switch x := a.(type) {
	case *array.Dictionary:
		return takeDictionary(x, pos)
	case *array.String:
		return takeStrings(a, x.ValueOffsets(), nil, stringBytes(x), pos)
	case *array.Int64, *array.Float64, *array.Timestamp:
		return takeFixed[uint64](a, pos)
	case *array.Int32:
		return takeFixed[uint32](a, pos)
	}
	refs := make([]rowRef, len(pos))
	for j, i := range pos {
		refs[j] = rowRef{0, i}
	}
	b := array.NewBuilder(memory.DefaultAllocator, a.DataType())
	defer b.Release()
	gatherColumn(b, []arrow.Array{a}, refs)
	return b.NewArray()
}

// takeFixed copies the rows at pos of a fixed-width array whose values are
// T-sized (their bits copied as they are) into Go memory.
func takeFixed[T uint32 | uint64](a arrow.Array, pos []int32) arrow.Array {
	data := a.Data()
	src := castTo[T](data.Buffers()[1].Bytes())[data.Offset():]
	m := len(pos)
	buf := make([]byte, m*int(unsafe.Sizeof(T(0))))
	out := castTo[T](buf)
	for j, i := range pos {
		out[j] = src[i]
	}
	vb, nulls := selectedValidity(a, pos)
	return array.MakeFromData(array.NewData(a.DataType(), m, []*memory.Buffer{vb, memory.NewBufferBytes(buf)}, nil, nulls, 0))
}

// selectedValidity is the validity bitmap of the rows at pos of a (nil when
// none of them is null) and their null count.
func selectedValidity(a arrow.Array, pos []int32) (*memory.Buffer, int) {
	switch n := a.NullN(); {
	case n == 0 || len(pos) == 0:
		return nil, 0
	case n == a.Len():
		// A column null in every row of the part (most of a DWCA's 230).
		return memory.NewBufferBytes(make([]byte, (len(pos)+7)/8)), len(pos)
	}
	bm, boff := a.NullBitmapBytes(), a.Data().Offset()
	vbits := make([]byte, (len(pos)+7)/8)
	set := 0
	// A byte of the new bitmap at a time: eight rows' bits gathered, one
	// store and one count for the eight.
	for j := range vbits {
		p := pos[j*8 : min(j*8+8, len(pos))]
		var b byte
		for k, i := range p {
			r := boff + int(i)
			b |= (bm[r>>3] >> (r & 7) & 1) << k
		}
		vbits[j] = b
		set += bits.OnesCount8(b)
	}
	if set == len(pos) {
		return nil, 0
	}
	return memory.NewBufferBytes(vbits), len(pos) - set
}

// positions returns the indices of the m true values of sel, without a
// branch per row: every row's index is written, and the next slot is taken
// only after a selected one.
func positions(sel []bool, m int) []int32 {
	out := make([]int32, m+1)
	bits := unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(sel))), len(sel))
	j := 0
	for i, b := range bits {
		out[j] = int32(i)
		j += int(b & 1)
	}
	return out[:j]
}

// takeDictionary decodes the rows at pos of a dictionary-encoded column
// (how predicate columns are read: strings, and integers by the page
// decoder) into a plain array.
func takeDictionary(d *array.Dictionary, pos []int32) arrow.Array {
	ix, ok := d.Indices().(*array.Int32)
	switch dict := d.Dictionary().(type) {
	case *array.Int32:
		if ok {
			return takeDictFixed(d, ix.Int32Values(), dict.Int32Values(), pos)
		}
		return takeDict(d, dict.Value, array.NewInt32Builder(memory.DefaultAllocator), pos)
	case *array.Int64:
		if ok {
			return takeDictFixed(d, ix.Int32Values(), dict.Int64Values(), pos)
		}
		return takeDict(d, dict.Value, array.NewInt64Builder(memory.DefaultAllocator), pos)
	}
	dict := d.Dictionary().(*array.String)
	if ok {
		return takeStrings(d, dict.ValueOffsets(), ix.Int32Values(), stringBytes(dict), pos)
	}
	return takeDict(d, dict.Value, array.NewStringBuilder(memory.DefaultAllocator), pos)
}

// takeDictFixed decodes the rows at pos of an integer dictionary column
// with int32 indices idx over the values vals into a plain array of the
// values' type; a null row's value is zero (its index may be anything).
func takeDictFixed[T int32 | int64](d *array.Dictionary, idx []int32, vals []T, pos []int32) arrow.Array {
	m := len(pos)
	buf := make([]byte, m*int(unsafe.Sizeof(T(0))))
	out := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(buf))), m)
	n := uint32(len(vals))
	for j, i := range pos {
		if k := uint32(idx[i]); k < n {
			out[j] = vals[k]
		}
	}
	vb, nulls := selectedValidity(d, pos)
	if nulls > 0 {
		bits := vb.Bytes()
		for j := range out {
			if bits[j>>3]>>(j&7)&1 == 0 {
				out[j] = 0
			}
		}
	}
	typ := d.Dictionary().DataType()
	return array.MakeFromData(array.NewData(typ, m, []*memory.Buffer{vb, memory.NewBufferBytes(buf)}, nil, nulls, 0))
}

func takeDict[T any, B interface {
	array.Builder
	Append(T)
}](d *array.Dictionary, value func(int) T, b B, pos []int32) arrow.Array {
	defer b.Release()
	b.Reserve(len(pos))
	for _, i := range pos {
		if d.IsNull(int(i)) {
			b.AppendNull()
		} else {
			b.Append(value(d.GetValueIndex(int(i))))
		}
	}
	return b.NewArray()
}

// takeStrings copies the rows at pos of a string column into a new array
// over Go-allocated buffers sized in a first pass. Row i's value is
// data[offs[k]:offs[k+1]] with k = i, or k = idx[i] for dictionary indices;
// a supplies the nulls (a null row's offsets may span bytes: they are not
// copied).
func takeStrings(a arrow.Array, offs, idx []int32, data []byte, pos []int32) arrow.Array {
	vb, nulls := selectedValidity(a, pos)
	var valid []byte
	if vb != nil {
		valid = vb.Bytes()
	}
	key := func(i int32) int32 {
		if idx != nil {
			return idx[i]
		}
		return i
	}
	size := 0
	for j, i := range pos {
		if valid == nil || valid[j>>3]>>(j&7)&1 != 0 {
			k := key(i)
			size += int(offs[k+1] - offs[k])
		}
	}
	offsets := make([]int32, 1, len(pos)+1)
	out := make([]byte, 0, size)
	for j, i := range pos {
		if valid == nil || valid[j>>3]>>(j&7)&1 != 0 {
			k := key(i)
			out = append(out, data[offs[k]:offs[k+1]]...)
		}
		offsets = append(offsets, int32(len(out)))
	}
	return array.NewStringData(array.NewData(arrow.BinaryTypes.String, len(pos),
		[]*memory.Buffer{vb, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)), memory.NewBufferBytes(out)}, nil, nulls, 0))
}

// stringBytes is the whole value buffer of a, which ValueOffsets index into
// (ValueBytes starts at the first offset of a slice).
func stringBytes(a *array.String) []byte {
	if b := a.Data().Buffers()[2]; b != nil {
		return b.Bytes()
	}
	return nil
}

// nullArray is occurrence.NullArray (n nulls over a shared zero buffer)
// for the table's column types, nil for another type. Most of a DWCA's 230
// columns are null in most parts: their arrays then take no memory.
func nullArray(dt arrow.DataType, n int) arrow.Array {
	switch dt.ID() {
	case arrow.STRING, arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.TIMESTAMP, arrow.BOOL:
		if n > 0 {
			return occurrence.NullArray(dt, n)
		}
	}
	return nil
}

// nullEverywhere reports whether every row of a is null.
func nullEverywhere(a arrow.Array) bool { return a.Len() > 0 && a.NullN() == a.Len() }
