package dwca

import (
	"fmt"
	"strconv"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/tidwall/gjson"
)

// batch is a record batch with its columns looked up by name.
type batch struct {
	rec    arrow.RecordBatch
	n      int
	byName map[string]arrow.Array
}

func newBatch(rec arrow.RecordBatch) (*batch, error) {
	b := &batch{rec: rec, n: int(rec.NumRows()), byName: make(map[string]arrow.Array, rec.NumCols())}
	for i, f := range rec.Schema().Fields() {
		b.byName[f.Name] = rec.Column(i)
	}
	return b, nil
}

// col returns the named column, or nil when the batch does not carry it.
func (b *batch) col(name string) arrow.Array { return b.byName[name] }

// str returns row i of a string column, "" for null or a missing column.
func str(a arrow.Array, i int) string {
	switch a := a.(type) {
	case *array.String:
		if a.IsValid(i) {
			return a.Value(i)
		}
	case *array.LargeString:
		if a.IsValid(i) {
			return a.Value(i)
		}
	case *array.Dictionary:
		if a.IsValid(i) {
			return str(a.Dictionary(), a.GetValueIndex(i))
		}
	}
	return ""
}

// cellFn appends the GBIF text form of row i of a column to dst; a null
// appends nothing.
type cellFn func(dst []byte, i int) []byte

// timeLayout is ISO 8601 in UTC with milliseconds only when there are any.
const timeLayout = "2006-01-02T15:04:05.999Z"

// cellFor returns the formatter of a column: floats without exponent or
// trailing zeros, timestamps ISO 8601 UTC, booleans lower case, multi-value
// columns as stored (joined with ";"). A nil column formats as empty.
func cellFor(a arrow.Array) (cellFn, error) {
	switch a := a.(type) {
	case nil:
		return func(dst []byte, _ int) []byte { return dst }, nil
	case *array.String:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return append(dst, a.Value(i)...)
		}, nil
	case *array.LargeString:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return append(dst, a.Value(i)...)
		}, nil
	case *array.Int32:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return strconv.AppendInt(dst, int64(a.Value(i)), 10)
		}, nil
	case *array.Int64:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return strconv.AppendInt(dst, a.Value(i), 10)
		}, nil
	case *array.Float64:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return appendFloat(dst, a.Value(i))
		}, nil
	case *array.Boolean:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return strconv.AppendBool(dst, a.Value(i))
		}, nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return a.Value(i).ToTime(unit).UTC().AppendFormat(dst, timeLayout)
		}, nil
	case *array.Dictionary:
		inner, err := cellFor(a.Dictionary())
		if err != nil {
			return nil, err
		}
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return inner(dst, a.GetValueIndex(i))
		}, nil
	}
	return nil, fmt.Errorf("dwca: cannot format a column of type %s", a.DataType())
}

// appendFloat formats like GBIF: plain decimal notation, shortest form that
// reads back the same value, no trailing zeros.
func appendFloat(dst []byte, v float64) []byte {
	return strconv.AppendFloat(dst, v, 'f', -1, 64)
}

// formatTime is timeLayout for one value.
func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// rowBuilder turns one row's cells into the []string TextWriter.WriteRow
// takes, without allocating: cells are appended to one buffer and viewed as
// strings that are valid until the next build.
type rowBuilder struct {
	buf   []byte
	ends  []int
	cells []string
}

func (r *rowBuilder) reset() {
	r.buf = r.buf[:0]
	r.ends = r.ends[:0]
}

// add appends one cell.
func (r *rowBuilder) add(f cellFn, i int) {
	r.buf = f(r.buf, i)
	r.ends = append(r.ends, len(r.buf))
}

// addString appends one cell from a string.
func (r *rowBuilder) addString(s string) {
	r.buf = append(r.buf, s...)
	r.ends = append(r.ends, len(r.buf))
}

// row returns the cells added since reset.
func (r *rowBuilder) row() []string {
	r.cells = r.cells[:0]
	start := 0
	for _, end := range r.ends {
		if end == start {
			r.cells = append(r.cells, "")
		} else {
			r.cells = append(r.cells, unsafe.String(&r.buf[start], end-start))
		}
		start = end
	}
	return r.cells
}

// verbatimRow extracts chosen keys of a verbatim JSON object
// ({"country": "Denmark", "dcterms:modified": ...}, see
// occurrence.VerbatimKey) into values by index.
type verbatimRow struct {
	index  map[string]int // verbatim key -> column
	values []string
	// unknown, when set, is called for keys without a column.
	unknown func(key string)
}

func newVerbatimRow(keys []string) *verbatimRow {
	v := &verbatimRow{index: make(map[string]int, len(keys)), values: make([]string, len(keys))}
	for i, k := range keys {
		v.index[k] = i
	}
	return v
}

// parse fills values from one JSON object (the store writes it with
// encoding/json); anything but an object leaves them empty and returns false.
func (v *verbatimRow) parse(js string) bool {
	clear(v.values)
	if js == "" {
		return true
	}
	res := gjson.Parse(js)
	if !res.IsObject() {
		return false
	}
	res.ForEach(func(k, val gjson.Result) bool {
		if i, ok := v.index[k.Str]; ok {
			v.values[i] = val.String()
		} else if v.unknown != nil && val.String() != "" {
			v.unknown(k.Str)
		}
		return true
	})
	return true
}
