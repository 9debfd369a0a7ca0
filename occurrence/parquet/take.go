package parquet

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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
