package parquet

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeSelected copies the rows of a where sel is true (m of them) into a new
// array of the same type; dictionary-encoded strings come out as plain
// strings. The copying is gather's (cluster.go). With share set, a fully
// selected a is returned itself (retained) instead of copied; a's buffers must
// then outlive the batch, which the fast predicate reader's do not.
func takeSelected(a arrow.Array, sel []bool, m int, share bool) arrow.Array {
	if d, ok := a.(*array.Dictionary); ok {
		return takeDictionary(d, sel, m)
	}
	if share && m == len(sel) {
		a.Retain()
		return a
	}
	if str, ok := a.(*array.String); ok {
		return takeStrings(a, str.ValueOffsets(), nil, stringBytes(str), sel, m)
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
	var vbits []byte
	nulls := 0
	if bm != nil {
		vbits = make([]byte, (m+7)/8)
	}
	for i, ok := range sel {
		if !ok {
			continue
		}
		if valid(i) {
			k := key(i)
			out = append(out, data[offs[k]:offs[k+1]]...)
			if vbits != nil {
				j := len(offsets) - 1
				vbits[j>>3] |= 1 << (j & 7)
			}
		} else {
			nulls++
		}
		offsets = append(offsets, int32(len(out)))
	}
	var vb *memory.Buffer
	if vbits != nil {
		vb = memory.NewBufferBytes(vbits)
	}
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
