package occurrence

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Value is one cell of a Record. Which field is meaningful depends on the
// column's Kind: S for strings, I for integers and timestamps (ms), F for
// floats, B for booleans. Valid is false for null.
type Value struct {
	S     string
	I     int64
	F     float64
	B     bool
	Valid bool
}

// Record is one interpreted occurrence, a Value per column of Columns. It is
// meant to be reused: Reset clears it for the next record.
type Record struct {
	vals []Value
	// own holds the bytes of the value SetOwned set last, reused by the
	// next call.
	own []byte
}

// NewRecord returns an empty record.
func NewRecord() *Record { return &Record{vals: make([]Value, len(columns))} }

// Reset clears every value.
func (r *Record) Reset() { clear(r.vals) }

// Get returns the value of column index i (see ColumnIndex).
func (r *Record) Get(i int) Value { return r.vals[i] }

// SetString sets a string column; an empty string stays null.
func (r *Record) SetString(i int, s string) {
	if s == "" {
		r.vals[i] = Value{}
		return
	}
	r.vals[i] = Value{S: s, Valid: true}
}

// SetOwned sets string column i to the text of b, copied into a buffer the
// record keeps and reuses: the string stays valid until the record's next
// SetOwned, so only one column may be set this way and its value must not
// be kept past the record's reuse (the table writers copy what Append
// reads). For a large value set on every record (the verbatim document),
// this saves allocating a string each time. Empty stays null.
func (r *Record) SetOwned(i int, b []byte) {
	if len(b) == 0 {
		r.vals[i] = Value{}
		return
	}
	r.own = append(r.own[:0], b...)
	r.vals[i] = Value{S: unsafe.String(unsafe.SliceData(r.own), len(r.own)), Valid: true}
}

// SetNull sets a column to null.
func (r *Record) SetNull(i int) { r.vals[i] = Value{} }

// SetInt sets an integer column.
func (r *Record) SetInt(i int, v int64) { r.vals[i] = Value{I: v, Valid: true} }

// SetFloat sets a float column; NaN and infinities stay null.
func (r *Record) SetFloat(i int, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		r.vals[i] = Value{}
		return
	}
	r.vals[i] = Value{F: v, Valid: true}
}

// SetBool sets a boolean column.
func (r *Record) SetBool(i int, v bool) { r.vals[i] = Value{B: v, Valid: true} }

// SetTime sets a timestamp column.
func (r *Record) SetTime(i int, t time.Time) { r.vals[i] = Value{I: t.UnixMilli(), Valid: true} }

// ColumnIndex returns the index of a column in Columns, or -1.
func ColumnIndex(name string) int {
	if i, ok := columnIndex[name]; ok {
		return i
	}
	return -1
}

func mustIndex(name string) int {
	i := ColumnIndex(name)
	if i < 0 {
		panic("occurrence: no column " + name)
	}
	return i
}

// ReadRow sets r to row i of b, a batch of the full schema in column order
// (a scan with ScanRequest.Columns nil and plain strings): the inverse of
// Builder.Append, for rewriting stored records.
func (r *Record) ReadRow(b arrow.RecordBatch, i int) error {
	if int(b.NumCols()) != len(columns) {
		return fmt.Errorf("read row: batch of %d columns, the schema has %d", b.NumCols(), len(columns))
	}
	for j, c := range columns {
		a := b.Column(j)
		if a.IsNull(i) {
			r.vals[j] = Value{}
			continue
		}
		var ok bool
		switch c.Kind {
		case KindInt32:
			var x *array.Int32
			if x, ok = a.(*array.Int32); ok {
				r.vals[j] = Value{I: int64(x.Value(i)), Valid: true}
			}
		case KindInt64:
			var x *array.Int64
			if x, ok = a.(*array.Int64); ok {
				r.vals[j] = Value{I: x.Value(i), Valid: true}
			}
		case KindFloat64:
			var x *array.Float64
			if x, ok = a.(*array.Float64); ok {
				r.vals[j] = Value{F: x.Value(i), Valid: true}
			}
		case KindBool:
			var x *array.Boolean
			if x, ok = a.(*array.Boolean); ok {
				r.vals[j] = Value{B: x.Value(i), Valid: true}
			}
		case KindTimestamp:
			var x *array.Timestamp
			if x, ok = a.(*array.Timestamp); ok {
				r.vals[j] = Value{I: int64(x.Value(i)), Valid: true}
			}
		default:
			var x *array.String
			if x, ok = a.(*array.String); ok {
				r.vals[j] = Value{S: strings.Clone(x.Value(i)), Valid: true}
			}
		}
		if !ok {
			return fmt.Errorf("read row: column %s is %s, want %v", c.Name, a.DataType(), c.Kind)
		}
	}
	return nil
}
