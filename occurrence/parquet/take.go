package parquet

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeSelected copies the rows of a where sel is true (m of them) into a new
// array of the same type; dictionary-encoded strings come out as plain
// strings. The page decoder's buffers are reused from batch to batch, so
// every column is copied.
func takeSelected(a arrow.Array, sel []bool, m int) arrow.Array {
	switch x := a.(type) {
	case *array.Dictionary:
		return takeDictionary(x, sel, m)
	case *array.String:
		return takeStrings(a, x.ValueOffsets(), nil, stringBytes(x), sel, m)
	case *array.Int64, *array.Float64, *array.Timestamp:
		return takeFixed[uint64](a, sel, m)
	case *array.Int32:
		return takeFixed[uint32](a, sel, m)
	}
	refs := make([]rowRef, 0, m)
	for i, ok := range sel {
		if ok {
			refs = append(refs, rowRef{0, int32(i)})
		}
	}
	b := array.NewBuilder(memory.DefaultAllocator, a.DataType())
	defer b.Release()
	gatherColumn(b, []arrow.Array{a}, refs)
	return b.NewArray()
}

// takeFixed copies the selected rows of a fixed-width array whose values
// are T-sized (their bits copied as they are) into Go memory.
func takeFixed[T uint32 | uint64](a arrow.Array, sel []bool, m int) arrow.Array {
	data := a.Data()
	src := castTo[T](data.Buffers()[1].Bytes())[data.Offset():]
	buf := make([]byte, m*int(unsafe.Sizeof(T(0))))
	out := castTo[T](buf)
	j := 0
	for i, ok := range sel {
		if ok {
			out[j] = src[i]
			j++
		}
	}
	vb, nulls := selectedValidity(a, sel, m)
	return array.MakeFromData(array.NewData(a.DataType(), m, []*memory.Buffer{vb, memory.NewBufferBytes(buf)}, nil, nulls, 0))
}

// selectedValidity is the validity bitmap of the m selected rows of a (nil
// when none of them is null) and their null count.
func selectedValidity(a arrow.Array, sel []bool, m int) (*memory.Buffer, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	bm, boff := a.NullBitmapBytes(), a.Data().Offset()
	vbits := make([]byte, (m+7)/8)
	j, nulls := 0, 0
	for i, ok := range sel {
		if !ok {
			continue
		}
		if bitutil.BitIsSet(bm, boff+i) {
			vbits[j>>3] |= 1 << (j & 7)
		} else {
			nulls++
		}
		j++
	}
	if nulls == 0 {
		return nil, 0
	}
	return memory.NewBufferBytes(vbits), nulls
}

// takeDictionary decodes the selected rows of a dictionary-encoded column
// (how predicate columns are read: strings, and integers by the page
// decoder) into a plain array.
func takeDictionary(d *array.Dictionary, sel []bool, m int) arrow.Array {
	switch dict := d.Dictionary().(type) {
	case *array.Int32:
		return takeDict(d, dict.Value, array.NewInt32Builder(memory.DefaultAllocator), sel, m)
	case *array.Int64:
		return takeDict(d, dict.Value, array.NewInt64Builder(memory.DefaultAllocator), sel, m)
	}
	dict := d.Dictionary().(*array.String)
	if ix, ok := d.Indices().(*array.Int32); ok {
		return takeStrings(d, dict.ValueOffsets(), ix.Int32Values(), stringBytes(dict), sel, m)
	}
	return takeDict(d, dict.Value, array.NewStringBuilder(memory.DefaultAllocator), sel, m)
}

func takeDict[T any, B interface {
	array.Builder
	Append(T)
}](d *array.Dictionary, value func(int) T, b B, sel []bool, m int) arrow.Array {
	defer b.Release()
	b.Reserve(m)
	for i, ok := range sel {
		if !ok {
			continue
		}
		if d.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(value(d.GetValueIndex(i)))
		}
	}
	return b.NewArray()
}

// takeStrings copies the selected rows of a string column into a new array
// over Go-allocated buffers sized in a first pass. Row i's value is
// data[offs[k]:offs[k+1]] with k = i, or k = idx[i] for dictionary indices;
// a supplies the nulls.
func takeStrings(a arrow.Array, offs, idx []int32, data []byte, sel []bool, m int) arrow.Array {
	var bm []byte
	boff := 0
	if a.NullN() > 0 {
		bm, boff = a.NullBitmapBytes(), a.Data().Offset()
	}
	valid := func(i int) bool { return bm == nil || bitutil.BitIsSet(bm, boff+i) }
	key := func(i int) int32 {
		if idx != nil {
			return idx[i]
		}
		return int32(i)
	}
	size := 0
	for i, ok := range sel {
		if ok && valid(i) {
			k := key(i)
			size += int(offs[k+1] - offs[k])
		}
	}
	offsets := make([]int32, 1, m+1)
	out := make([]byte, 0, size)
	for i, ok := range sel {
		if !ok {
			continue
		}
		if valid(i) {
			k := key(i)
			out = append(out, data[offs[k]:offs[k+1]]...)
		}
		offsets = append(offsets, int32(len(out)))
	}
	vb, nulls := selectedValidity(a, sel, m)
	return array.NewStringData(array.NewData(arrow.BinaryTypes.String, m,
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
