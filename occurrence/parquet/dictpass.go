package parquet

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Dictionary pass-through (occurrence.ScanRequest.Dictionaries): a selected
// string column whose rows are dictionary indices leaves the scan as a
// Dictionary array instead of being decoded into a plain string array. The
// selected rows' indices are gathered into fresh memory; the dictionary is
// the source's copied once per column chunk, because the page decoder's
// dictionary lives in a pooled page buffer that is recycled when the chunk
// closes.

// dictType is the type of the dictionary columns a scan hands out.
var dictType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// dictCopies holds, per output column of a split scan, the last source
// dictionary seen and its stable copy. A split is one row group: a column has
// one chunk, hence one dictionary, so the copy is made once per split (a
// source that hands out a new dictionary per batch gets a copy per batch).
// Holding the source keeps its address from being reused by another array.
//
// Sources are told apart by their dictionary's ArrayData: every batch of a
// chunk shares it, while Dictionary.Dictionary makes a new array per batch.
type dictCopies struct {
	src []arrow.ArrayData
	cp  []*array.String
	// schema is the last batch schema built with dictionary columns, and
	// dict which columns were dictionaries in it.
	schema *arrow.Schema
	dict   []bool
}

// take returns the rows at pos of d as a Dictionary array over
// a stable copy of its dictionary, or nil when d is not an int32-indexed
// string dictionary without nulls in its values (the caller then decodes
// it as before). col is the output column's position.
func (dc *dictCopies) take(col, ncols int, d *array.Dictionary, pos []int32) arrow.Array {
	dict, ok := d.Dictionary().(*array.String)
	if !ok || dict.NullN() > 0 {
		return nil
	}
	ix, ok := d.Indices().(*array.Int32)
	if !ok {
		return nil
	}
	if dc.src == nil {
		dc.src = make([]arrow.ArrayData, ncols)
		dc.cp = make([]*array.String, ncols)
	}
	if src := d.Data().Dictionary(); dc.src[col] != src {
		dc.src[col], dc.cp[col] = src, copyStrings(dict)
	}
	return dictionaryOver(gatherIndices(ix.Int32Values(), pos), dc.cp[col], d, pos)
}

// copyStrings copies a string array's offsets (starting at zero) and value
// bytes into Go memory; the copy has no nulls (a null's entry is whatever
// bytes its offsets span, empty as Arrow builders and the page decoder
// write it: the indices that refer to it carry the null).
func copyStrings(a *array.String) *array.String { return copyStringsTo(a, nil) }

// copyStringsTo is copyStrings into buffers of mem, which the returned
// array's data owns (given back to mem when it is released); mem nil: Go
// memory, the bytes appended rather than cleared and then copied.
func copyStringsTo(a *array.String, mem memory.Allocator) *array.String {
	n := a.Len()
	src := a.ValueOffsets() // n+1 offsets, a's slice of them
	base := src[0]
	bytes := stringBytes(a)[base:src[n]]
	var ob, db []byte
	if mem == nil {
		ob, db = make([]byte, 4*(n+1)), append([]byte(nil), bytes...)
	} else {
		ob, db = mem.Allocate(4*(n+1)), mem.Allocate(len(bytes))
		copy(db, bytes)
	}
	offs := int32sOf(ob)
	for i, o := range src[:n+1] {
		offs[i] = o - base
	}
	return stringsOver(offs, db, mem)
}

// int32sOf is b's bytes as int32s, its capacity kept (an allocator frees
// a buffer by its capacity).
func int32sOf(b []byte) []int32 {
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(b))), cap(b)/4)[:len(b)/4]
}

// stringsOver is a string array without nulls over offsets offs (from 0)
// and bytes data, which it owns: given back to mem when it is released
// (mem nil: Go memory).
func stringsOver(offs []int32, data []byte, mem memory.Allocator) *array.String {
	ob := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(offs))), 4*cap(offs))[:4*len(offs)]
	obuf, dbuf := memory.NewBufferWithAllocator(ob, mem), memory.NewBufferWithAllocator(data, mem)
	d := array.NewData(arrow.BinaryTypes.String, len(offs)-1, []*memory.Buffer{nil, obuf, dbuf}, nil, 0, 0)
	obuf.Release()
	dbuf.Release()
	defer d.Release()
	return array.NewStringData(d)
}

// gatherIndices returns idx[i] for the rows i at pos.
func gatherIndices(idx []int32, pos []int32) []int32 {
	out := make([]int32, len(pos))
	for j, i := range pos {
		out[j] = idx[i]
	}
	return out
}

// dictionaryOver is a Dictionary array of indices idx over dict, valid
// where the rows of nullsOf at pos are.
func dictionaryOver(idx []int32, dict *array.String, nullsOf arrow.Array, pos []int32) arrow.Array {
	valid, nulls := selectedValidity(nullsOf, pos)
	data := array.NewDataWithDictionary(dictType, len(idx),
		[]*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(idx))}, nulls, 0, dict.Data().(*array.Data))
	defer data.Release()
	return array.NewDictionaryData(data)
}

// schemaFor returns the schema of arrs: plain when no column is a
// dictionary, else one naming their types (schemaOf), reused while the same
// columns are dictionaries.
func (dc *dictCopies) schemaFor(plain *arrow.Schema, names []string, arrs []arrow.Array) *arrow.Schema {
	has, same := false, dc.schema != nil
	for i, a := range arrs {
		isDict := a.DataType().ID() == arrow.DICTIONARY
		has = has || isDict
		same = same && dc.dict[i] == isDict
	}
	if !has {
		return plain
	}
	if same {
		return dc.schema
	}
	dc.schema = schemaOf(names, arrs)
	dc.dict = dc.dict[:0]
	for _, a := range arrs {
		dc.dict = append(dc.dict, a.DataType().ID() == arrow.DICTIONARY)
	}
	return dc.schema
}

// take is takeAt of the part's selected rows (sc.selIdx), except that with
// req.Dictionaries a string dictionary column stays one (dictCopies.take),
// and a plain string column of which at least half the rows are selected
// goes out as a dictionary over a copy of the whole column: one bulk copy
// instead of one per selected value.
//
// owner, when set, is the page decoder that decoded a (a value column of
// the part; nil for the predicate's columns, which are slices of a larger
// batch): a string column most of whose rows match then leaves as a
// dictionary over the decoder's own buffers, handed over (flatColumn.handOver)
// instead of copied.
func (sc *splitScan) take(col int, a arrow.Array, pos []int32, owner *flatColumn) arrow.Array {
	if x, ok := a.(*array.String); ok && nullEverywhere(x) {
		return takeAt(a, pos) // nulls: nothing to copy (nullArray)
	}
	if sc.req.Dictionaries {
		switch x := a.(type) {
		case *array.Dictionary:
			if out := sc.dicts.take(col, len(sc.cols), x, pos); out != nil {
				return out
			}
		case *array.String:
			if 2*len(pos) < a.Len() {
				break
			}
			var mem memory.Allocator // nil: Go memory
			if sc.transient(col) {
				mem = &recycled
			}
			var cp *array.String
			if owner != nil && owner.owns(x) {
				offs, data := owner.handOver(mem)
				cp = stringsOver(offs, data, mem)
			} else {
				cp = copyStringsTo(x, mem)
			}
			defer cp.Release() // the dictionary holds its own reference
			return dictionaryOver(pos, cp, x, pos)
		}
	}
	return takeAt(a, pos)
}
