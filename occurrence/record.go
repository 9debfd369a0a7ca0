package occurrence

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
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

// Builder accumulates records into Arrow record batches of the full schema.
type Builder struct {
	b *array.RecordBuilder
	n int
	// last is the previous batch's rows and each string column's bytes:
	// the next batch reserves room for as much at its first record, rather
	// than growing its buffers by doubling (reallocating and copying each
	// time, and keeping up to twice the room the batch needs).
	last     int
	lastData []int
	reserve  bool
	// nulls counts each column's nulls not yet appended: a record fills
	// a few dozen of the schema's columns, and appending the rest one
	// null at a time cost more than the values. They are appended as a
	// run before the column's next value and at NewBatch.
	nulls []int
}

// NewBuilder returns a builder allocating from mem (nil: the Go allocator).
func NewBuilder(mem memory.Allocator) *Builder {
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	return &Builder{b: array.NewRecordBuilder(mem, Schema()), nulls: make([]int, len(columns))}
}

// Len is the number of records appended since the last NewBatch.
func (b *Builder) Len() int { return b.n }

// Append adds one record.
func (b *Builder) Append(r *Record) {
	if b.reserve {
		b.reserveLast()
	}
	for i, c := range columns {
		v := r.vals[i]
		if !v.Valid {
			b.nulls[i]++
			continue
		}
		fb := b.b.Field(i)
		if n := b.nulls[i]; n > 0 {
			fb.AppendNulls(n)
			b.nulls[i] = 0
		}
		switch c.Kind {
		case KindInt32:
			fb.(*array.Int32Builder).Append(int32(v.I))
		case KindInt64:
			fb.(*array.Int64Builder).Append(v.I)
		case KindFloat64:
			fb.(*array.Float64Builder).Append(v.F)
		case KindBool:
			fb.(*array.BooleanBuilder).Append(v.B)
		case KindTimestamp:
			fb.(*array.TimestampBuilder).Append(arrow.Timestamp(v.I))
		default:
			fb.(*array.StringBuilder).Append(v.S)
		}
	}
	b.n++
}

// NewBatch returns the records appended so far as a batch and starts a new
// one. The caller releases the batch.
func (b *Builder) NewBatch() arrow.RecordBatch {
	if len(b.lastData) == 0 {
		b.lastData = make([]int, len(columns))
	}
	for i, n := range b.nulls {
		if n > 0 {
			b.b.Field(i).AppendNulls(n)
			b.nulls[i] = 0
		}
	}
	for i := range columns {
		if sb, ok := b.b.Field(i).(*array.StringBuilder); ok {
			b.lastData[i] = sb.DataLen()
		}
	}
	b.last, b.n, b.reserve = b.n, 0, b.n > 0
	return b.b.NewRecordBatch()
}

// reserveLast gives the builders room for a batch like the last one, and a
// sixteenth more text: a batch is cut by its rows or by its estimated
// bytes, so batches of a source come out alike. It runs at the batch's
// first record, not in NewBatch, so that a batch the writer writes and
// releases before it appends again (the Parquet writer's, when it filled
// the clustering window; the window's other batches stay held) is not
// held together with the room for the next.
func (b *Builder) reserveLast() {
	b.reserve = false
	for i := range columns {
		fb := b.b.Field(i)
		fb.Reserve(b.last)
		if sb, ok := fb.(*array.StringBuilder); ok && b.lastData[i] > 0 {
			sb.ReserveData(b.lastData[i] + b.lastData[i]/16)
		}
	}
}

// Release frees the builder's buffers.
func (b *Builder) Release() { b.b.Release() }

// Size estimates the bytes the record takes in Arrow buffers.
func (r *Record) Size() int64 {
	n := int64(len(r.vals)) * 9 // fixed-width value or offset, and validity
	for i := range r.vals {
		n += int64(len(r.vals[i].S))
	}
	return n
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
