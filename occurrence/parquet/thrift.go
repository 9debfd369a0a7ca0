package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The Thrift compact protocol, read-only and only as far as Parquet's
// footer, page headers and offset index need it (footer.go,
// pageheader.go). arrow-go parses these into complete generated structs
// with an object per field; a scan needs a handful of integers from each,
// so the package reads them straight off the bytes and skips the rest.

// errThrift is the kind of every malformed Thrift structure.
var errThrift = errors.New("parquet: malformed thrift")

// errShort reports that a structure continues past the bytes given: a page
// header reader then fetches more and tries again.
var errShort = fmt.Errorf("%w: truncated", errThrift)

// Compact protocol type ids.
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
)

// maxThriftDepth bounds the nesting skip follows: hostile input cannot
// exhaust the stack.
const maxThriftDepth = 32

// tdec reads compact-protocol values from b; the first error sticks and
// every later read returns zero values.
type tdec struct {
	b     []byte
	pos   int
	err   error
	depth int // structs entered, bounded by maxThriftDepth
}

func (d *tdec) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *tdec) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.pos >= len(d.b) {
		d.fail(errShort)
		return 0
	}
	c := d.b[d.pos]
	d.pos++
	return c
}

func (d *tdec) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.pos:])
	switch {
	case n == 0:
		d.fail(errShort)
		return 0
	case n < 0:
		d.fail(fmt.Errorf("%w: varint overflows 64 bits at byte %d", errThrift, d.pos))
		return 0
	}
	d.pos += n
	return v
}

func (d *tdec) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *tdec) i32() int32 {
	v := d.varint()
	if v != int64(int32(v)) {
		d.fail(fmt.Errorf("%w: i32 out of range at byte %d", errThrift, d.pos))
		return 0
	}
	return int32(v)
}

func (d *tdec) i64() int64 { return d.varint() }

// binary returns a string or binary field; the bytes alias d.b.
func (d *tdec) binary() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)-d.pos) {
		d.fail(errShort)
		return nil
	}
	s := d.b[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return s
}

// list reads a list or set header: element count and type. Every element
// takes at least a byte, so a count past the bytes left is truncated input.
func (d *tdec) list() (n int, elem byte) {
	h := d.byte()
	n, elem = int(h>>4), h&0x0f
	if n == 15 {
		u := d.uvarint()
		if u > uint64(len(d.b)-d.pos) {
			d.fail(errShort)
			return 0, elem
		}
		n = int(u)
	}
	return n, elem
}

// field reads the next field header of a struct whose previous field id was
// *last; ok is false at the struct's end (or on error).
func (d *tdec) field(last *int16) (id int16, typ byte, ok bool) {
	h := d.byte()
	if d.err != nil || h == tStop {
		return 0, 0, false
	}
	typ = h & 0x0f
	if delta := int16(h >> 4); delta != 0 {
		id = *last + delta
	} else {
		v := d.varint()
		if v != int64(int16(v)) {
			d.fail(fmt.Errorf("%w: field id out of range at byte %d", errThrift, d.pos))
			return 0, 0, false
		}
		id = int16(v)
	}
	*last = id
	return id, typ, true
}

// bool reads the value of a boolean field (it lives in the field header).
func boolField(typ byte) bool { return typ == tTrue }

// skip passes over a value of type typ.
func (d *tdec) skip(typ byte) {
	switch typ {
	case tTrue, tFalse:
	case tByte:
		d.byte()
	case tI16, tI32, tI64:
		d.uvarint()
	case tDouble:
		if len(d.b)-d.pos < 8 {
			d.fail(errShort)
			return
		}
		d.pos += 8
	case tBinary:
		d.binary()
	case tList, tSet:
		n, elem := d.list()
		for i := 0; i < n && d.err == nil; i++ {
			if elem == tTrue || elem == tFalse {
				d.byte() // list booleans take a byte each
				continue
			}
			d.skip(elem)
		}
	case tMap:
		n := d.uvarint()
		if n == 0 || d.err != nil {
			return
		}
		if n > uint64(len(d.b)-d.pos) {
			d.fail(errShort)
			return
		}
		kv := d.byte()
		for i := uint64(0); i < n && d.err == nil; i++ {
			d.skip(kv >> 4)
			d.skip(kv & 0x0f)
		}
	case tStruct:
		d.each(func(_ int16, typ byte) { d.skip(typ) })
	default:
		d.fail(fmt.Errorf("%w: unknown type %d at byte %d", errThrift, typ, d.pos))
	}
}

// each calls fn for each field of a struct; fn must consume the field's
// value (skip it if it has no use for it).
func (d *tdec) each(fn func(id int16, typ byte)) {
	if d.depth >= maxThriftDepth {
		d.fail(fmt.Errorf("%w: nested deeper than %d", errThrift, maxThriftDepth))
		return
	}
	d.depth++
	defer func() { d.depth-- }()
	var last int16
	for {
		id, typ, ok := d.field(&last)
		if !ok {
			return
		}
		fn(id, typ)
		if d.err != nil {
			return
		}
	}
}

// structList reads a field holding a list of structs and calls elem for
// each element, which elem reads with d.each.
func (d *tdec) structList(typ byte, what string, elem func()) {
	if !d.expect(typ, tList) {
		return
	}
	n, et := d.list()
	if n > 0 && et != tStruct {
		d.fail(fmt.Errorf("%w: %s of type %d", errThrift, what, et))
		return
	}
	for i := 0; i < n && d.err == nil; i++ {
		elem()
	}
}

// expect reports whether a field has the type the format gives it; a
// mismatch is skipped rather than misread.
func (d *tdec) expect(typ, want byte) bool {
	if typ == want || (want == tTrue && typ == tFalse) {
		return true
	}
	d.skip(typ)
	return false
}
