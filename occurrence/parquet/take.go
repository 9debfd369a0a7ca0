package parquet

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// takeSelected copies the rows of a where sel is true (m of them) into a new
// array of the same type.
func takeSelected(a arrow.Array, sel []bool, m int) arrow.Array {
	if d, ok := a.(*array.Dictionary); ok {
		return takeDictionary(d, sel, m)
	}
	if m == len(sel) {
		a.Retain()
		return a
	}
	mem := memory.DefaultAllocator
	switch a := a.(type) {
	case *array.String:
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(m)
		var n int
		for i, ok := range sel {
			if ok && a.IsValid(i) {
				n += len(a.Value(i))
			}
		}
		b.ReserveData(n)
		for i, ok := range sel {
			if !ok {
				continue
			}
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(a.Value(i))
			}
		}
		return b.NewArray()
	case *array.Int32:
		return takeFixed(array.NewInt32Builder(mem), a, sel, m, a.Value)
	case *array.Int64:
		return takeFixed(array.NewInt64Builder(mem), a, sel, m, a.Value)
	case *array.Float64:
		return takeFixed(array.NewFloat64Builder(mem), a, sel, m, a.Value)
	case *array.Timestamp:
		b := array.NewTimestampBuilder(mem, a.DataType().(*arrow.TimestampType))
		return takeFixed(b, a, sel, m, a.Value)
	case *array.Boolean:
		return takeFixed(array.NewBooleanBuilder(mem), a, sel, m, a.Value)
	default:
		panic("parquet: takeSelected: unsupported type " + a.DataType().String())
	}
}

type fixedBuilder[T any] interface {
	array.Builder
	Append(T)
}

func takeFixed[T any, B fixedBuilder[T]](b B, a arrow.Array, sel []bool, m int, val func(int) T) arrow.Array {
	defer b.Release()
	b.Reserve(m)
	for i, ok := range sel {
		if !ok {
			continue
		}
		if a.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(val(i))
		}
	}
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
