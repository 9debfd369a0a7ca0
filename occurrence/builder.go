package occurrence

import (
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Builder accumulates records into Arrow record batches of the full schema.
//
// It fills plain Go slices per column (validity bits, values, text offsets
// and bytes) and hands them to each batch as its buffers. Arrow's builders
// check capacity, write a value's offset and set its validity bit one call
// at a time, and zero every buffer they reserve: with the schema's 230
// columns that cost an ingest more than copying the values. A column's
// nulls cost nothing until its next value (they are zeros in every buffer),
// and a column null in every record of a batch is an array on one shared
// zero buffer.
type Builder struct {
	cols []colBuf
	n    int
}

// colBuf is one column of the batch being built. Its slices stay short of
// n until the column's next value or NewBatch pads them: a null is a zero
// validity bit and a zero (or empty) value.
type colBuf struct {
	kind  Kind
	valid []byte // validity bits of the rows up to the last value
	nulls int    // nulls among the rows up to the last value
	rows  int    // rows up to and including the last value
	// Values by kind: w64 for Int64, Timestamp and Float64 bits, w32 for
	// Int32, bits for Bool (one bit per row), offsets and text for String.
	w64     []uint64
	w32     []uint32
	bits    []byte
	offsets []int32
	text    []byte
	// lastRows and lastText are the previous batch's: the next batch of
	// this column is given that much room at its first value, rather than
	// growing by doubling (copying each time and keeping up to twice the
	// room it needs).
	lastRows, lastText int
	// spare holds the buffers of a batch handed back by Recycle.
	spare *colBuf
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	b := &Builder{cols: make([]colBuf, len(columns))}
	for i, c := range columns {
		b.cols[i].kind = c.Kind
	}
	return b
}

// Len is the number of records appended since the last NewBatch.
func (b *Builder) Len() int { return b.n }

// Append adds one record and returns an estimate of the bytes it takes in
// Arrow buffers (a fixed-width value or offset and a validity bit per
// column, and its text), from the same walk of its values.
func (b *Builder) Append(r *Record) int64 {
	row := b.n
	size := int64(len(r.vals)) * 9
	for i := range b.cols {
		if v := &r.vals[i]; v.Valid {
			b.cols[i].append(row, v)
			size += int64(len(v.S))
		}
	}
	b.n++
	return size
}

// append sets the column's value of row, padding the rows before it that
// got no value as nulls.
func (c *colBuf) append(row int, v *Value) {
	if c.rows == 0 && c.lastRows > 0 {
		c.reserve()
	}
	c.nulls += row - c.rows
	c.padTo(row)
	for len(c.valid) <= row>>3 {
		c.valid = append(c.valid, 0)
	}
	c.valid[row>>3] |= 1 << (row & 7)
	switch c.kind {
	case KindInt32:
		c.w32 = append(c.w32, uint32(int32(v.I)))
	case KindInt64, KindTimestamp:
		c.w64 = append(c.w64, uint64(v.I))
	case KindFloat64:
		c.w64 = append(c.w64, *(*uint64)(unsafe.Pointer(&v.F)))
	case KindBool:
		for len(c.bits) <= row>>3 {
			c.bits = append(c.bits, 0)
		}
		if v.B {
			c.bits[row>>3] |= 1 << (row & 7)
		}
	default:
		c.text = append(c.text, v.S...)
		c.offsets = append(c.offsets, int32(len(c.text)))
	}
	c.rows = row + 1
}

// padTo gives the values rows up to row (excluded) zeros: the nulls since
// the last value.
func (c *colBuf) padTo(row int) {
	switch c.kind {
	case KindInt32:
		c.w32 = pad(c.w32, row)
	case KindInt64, KindTimestamp, KindFloat64:
		c.w64 = pad(c.w64, row)
	case KindBool:
		// Bits of null rows stay zero; the bitmap grows as values come.
	default:
		if len(c.offsets) == 0 {
			c.offsets = append(c.offsets, 0)
		}
		for len(c.offsets) < row+1 {
			c.offsets = append(c.offsets, int32(len(c.text)))
		}
	}
}

func pad[T uint32 | uint64](s []T, n int) []T {
	for len(s) < n {
		s = append(s, 0)
	}
	return s
}

// reserve gives the column room for a batch like its last one, and a
// sixteenth more text: a batch is cut by its rows or by its estimated bytes,
// so batches of a source come out alike.
func (c *colBuf) reserve() {
	n := c.lastRows
	if c.useSpare(n) {
		return
	}
	c.valid = make([]byte, 0, bitutil.BytesForBits(int64(n)))
	switch c.kind {
	case KindInt32:
		c.w32 = make([]uint32, 0, n)
	case KindInt64, KindTimestamp, KindFloat64:
		c.w64 = make([]uint64, 0, n)
	case KindBool:
		c.bits = make([]byte, 0, bitutil.BytesForBits(int64(n)))
	default:
		c.offsets = make([]int32, 0, n+1)
		c.text = make([]byte, 0, c.lastText+c.lastText/16)
	}
}

// NewBatch returns the records appended so far as a batch and starts a new
// one. The batch owns its buffers (Go memory); releasing it is optional.
func (b *Builder) NewBatch() arrow.RecordBatch {
	n := b.n
	arrays := make([]arrow.Array, len(b.cols))
	for i := range b.cols {
		arrays[i] = b.cols[i].finish(n)
	}
	b.n = 0
	batch := array.NewRecordBatch(Schema(), arrays, int64(n))
	for _, a := range arrays {
		a.Release()
	}
	return batch
}

// finish returns the column's n rows as an array and empties the column.
func (c *colBuf) finish(n int) arrow.Array {
	typ := c.kind.ArrowType()
	if c.rows == 0 {
		c.lastRows, c.lastText = 0, 0
		return NullArray(typ, n)
	}
	nulls := c.nulls + n - c.rows
	c.padTo(n)
	var valid *memory.Buffer
	if nulls > 0 {
		c.valid = pad8(c.valid, n)
		valid = memory.NewBufferBytes(c.valid)
	}
	var bufs []*memory.Buffer
	switch c.kind {
	case KindInt32:
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(castBytes(c.w32))}
	case KindInt64, KindTimestamp, KindFloat64:
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(castBytes(c.w64))}
	case KindBool:
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(pad8(c.bits, n))}
	default:
		bufs = []*memory.Buffer{valid, memory.NewBufferBytes(castBytes(c.offsets)), memory.NewBufferBytes(c.text)}
		c.lastText = len(c.text)
	}
	a := array.MakeFromData(array.NewData(typ, n, bufs, nil, nulls, 0))
	c.lastRows = n
	*c = colBuf{kind: c.kind, lastRows: c.lastRows, lastText: c.lastText, spare: c.spare}
	return a
}

// Recycle hands back column c of a batch this builder made, once nothing
// reads that column any more: its buffers back the column's next batch
// instead of new memory (an ingest's record batches were a seventh of all
// it allocated, each new buffer faulted in page by page). It runs on the
// goroutine that appends.
func (b *Builder) Recycle(c int, a arrow.Array) {
	if a.NullN() == a.Len() {
		return // possibly on the shared zero buffer
	}
	bufs := a.Data().Buffers()
	col := &b.cols[c]
	sp := &colBuf{}
	if bufs[0] != nil {
		sp.valid = bufs[0].Buf()[:0]
	}
	switch col.kind {
	case KindInt32:
		sp.w32 = castTo[uint32](bufs[1].Buf())
	case KindInt64, KindTimestamp, KindFloat64:
		sp.w64 = castTo[uint64](bufs[1].Buf())
	case KindBool:
		sp.bits = bufs[1].Buf()[:0]
	default:
		sp.offsets = castTo[int32](bufs[1].Buf())
		sp.text = bufs[2].Buf()[:0]
	}
	col.spare = sp
}

// useSpare takes the recycled buffers when they hold n rows and the text
// the column's last batch had, and reports whether it did.
func (c *colBuf) useSpare(n int) bool {
	sp := c.spare
	if sp == nil {
		return false
	}
	switch c.kind {
	case KindInt32:
		if cap(sp.w32) < n {
			return false
		}
	case KindInt64, KindTimestamp, KindFloat64:
		if cap(sp.w64) < n {
			return false
		}
	case KindBool:
		if cap(sp.bits) < int(bitutil.BytesForBits(int64(n))) {
			return false
		}
	default:
		if cap(sp.offsets) < n+1 || cap(sp.text) < c.lastText {
			return false
		}
	}
	c.valid, c.w32, c.w64, c.bits, c.offsets, c.text = sp.valid, sp.w32, sp.w64, sp.bits, sp.offsets, sp.text
	if v := int(bitutil.BytesForBits(int64(n))); cap(c.valid) < v {
		c.valid = make([]byte, 0, v) // the recycled batch had no nulls
	}
	c.spare = nil
	return true
}

// castTo views the capacity of b as an empty slice of T.
func castTo[T int32 | uint32 | uint64](b []byte) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if cap(b) < size {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), cap(b)/size)[:0]
}

// pad8 extends a bitmap with zero bytes to n bits.
func pad8(b []byte, n int) []byte {
	for len(b) < int(bitutil.BytesForBits(int64(n))) {
		b = append(b, 0)
	}
	return b
}

func castBytes[T int32 | uint32 | uint64](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// zeros backs the arrays of columns null in a whole batch: validity bits,
// values and offsets all zero. It is replaced by a larger one when a batch
// needs more (arrays on the old one keep it) and is never written.
var zeros atomic.Pointer[[]byte]

// zerosOf returns n zero bytes of the shared zero buffer.
func zerosOf(n int) []byte {
	if z := zeros.Load(); z != nil && len(*z) >= n {
		return (*z)[:n]
	}
	z := make([]byte, max(n, 1<<16))
	zeros.Store(&z)
	return z[:n]
}

// NullArray returns an array of n nulls of typ (a column's Arrow type) on
// a shared zero buffer: no allocation once the buffer is large enough.
// The array must never be written to.
func NullArray(typ arrow.DataType, n int) arrow.Array {
	size := 8 * (n + 1)
	z := zerosOf(size)
	bufs := []*memory.Buffer{memory.NewBufferBytes(z[:bitutil.BytesForBits(int64(n))]), memory.NewBufferBytes(z)}
	if typ.ID() == arrow.STRING {
		bufs = append(bufs, memory.NewBufferBytes(nil))
	}
	return array.MakeFromData(array.NewData(typ, n, bufs, nil, n, 0))
}

// Release drops the builder's buffers.
func (b *Builder) Release() {
	for i := range b.cols {
		b.cols[i] = colBuf{kind: b.cols[i].kind}
	}
	b.n = 0
}
