package parquet

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeSelected copies the rows of a where sel is true (m of them) into a new
// array of the same type; dictionary-encoded strings come out as plain
// strings. The copying is gather's (cluster.go).
func takeSelected(a arrow.Array, sel []bool, m int) arrow.Array {
	if d, ok := a.(*array.Dictionary); ok {
		return takeDictionary(d, sel, m)
	}
	if m == len(sel) {
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

// takeDictionary decodes the selected rows of a dictionary-encoded string
// column (how predicate columns are read) into a plain string array.
func takeDictionary(d *array.Dictionary, sel []bool, m int) arrow.Array {
	dict := d.Dictionary().(*array.String)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(m)
	for i, ok := range sel {
		if !ok {
			continue
		}
		if d.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(dict.Value(d.GetValueIndex(i)))
		}
	}
	return b.NewArray()
}
