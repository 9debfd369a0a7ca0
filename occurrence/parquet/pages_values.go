package parquet

import (
	"encoding/binary"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/internal/wordcopy"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// The value side of the page decoder: the present values of a run of rows
// become dictionary indices, fixed-width values, booleans or string bytes
// in the batch's buffers, which array wraps for the caller.

// values decodes the present values of rows [row, row+k), leaving null
// slots zero (or empty).
func (c *flatColumn) values(row, k, present int) error {
	spaced := present < k
	if c.useDict && c.asDict && !spaced {
		// Indices straight into the batch's index buffer.
		return c.readIndices(unsafe.Slice((*uint32)(unsafe.Pointer(&c.idxOut[row])), k))
	}
	if c.useDict || c.boolRLE {
		c.idxBuf = grow(c.idxBuf, present)
		if c.boolRLE {
			if err := c.idx.read(c.idxBuf[:present]); err != nil {
				return c.errorf("values: %v", err)
			}
		} else if err := c.readIndices(c.idxBuf[:present]); err != nil {
			return err
		}
	}
	switch c.kind {
	case occurrence.KindString:
		return c.stringValues(row, k, present, spaced)
	case occurrence.KindBool:
		return c.boolValues(row, k, present)
	default:
		return c.fixedValues(row, k, present, spaced)
	}
}

// readIndices decodes dictionary indices into out and checks them against
// the dictionary's size.
func (c *flatColumn) readIndices(out []uint32) error {
	c.idx.max = 0
	if err := c.idx.read(out); err != nil {
		return c.errorf("values: %v", err)
	}
	if len(out) > 0 && int(c.idx.max) >= c.dictLen {
		return c.errorf("dictionary index %d of %d", c.idx.max, c.dictLen)
	}
	return nil
}

// rowsOf calls f(r, j) for the j-th present value landing on row r.
func (c *flatColumn) rowsOf(row, k int, spaced bool, f func(r, j int)) {
	if !spaced {
		for j := 0; j < k; j++ {
			f(row+j, j)
		}
		return
	}
	j := 0
	for r := row; r < row+k; r++ {
		if c.valid[r>>3]&(1<<(r&7)) != 0 {
			f(r, j)
			j++
		}
	}
}

func (c *flatColumn) stringValues(row, k, present int, spaced bool) error {
	if c.useDict && c.asDict {
		c.dictIndices(row, k, present, spaced)
		return nil
	}
	if c.asDict {
		c.toPlain(row)
	}
	if c.useDict {
		c.rowsOfEach(row, k, spaced, func(j int) {
			c.strData = append(c.strData, c.dictStr.Value(int(c.idxBuf[j]))...)
		})
		return nil
	}
	return c.plainStrings(row, k, spaced)
}

// plainStrings appends the PLAIN strings of rows [row, row+k) (each a
// 4-byte length and its bytes) to the plain output, null rows empty: one
// loop over the rows with the buffers in locals, no call per value but
// the copy of a long one.
func (c *flatColumn) plainStrings(row, k int, spaced bool) error {
	plain, data, offs, valid := c.plain, c.strData, c.offsets, c.valid
	var err error
	for r := row; r < row+k; r++ {
		if !spaced || valid[r>>3]&(1<<(r&7)) != 0 {
			if len(plain) < 4 || uint64(binary.LittleEndian.Uint32(plain)) > uint64(len(plain)-4) {
				err = c.errorf("truncated PLAIN string")
				break
			}
			l := int(binary.LittleEndian.Uint32(plain))
			data = wordcopy.Append(data, plain[4:4+l])
			plain = plain[4+l:]
		}
		offs = append(offs, int32(len(data)))
	}
	c.plain, c.strData, c.offsets = plain, data, offs
	return err
}

// dictIndices writes the decoded dictionary indices of rows [row, row+k).
func (c *flatColumn) dictIndices(row, k, present int, spaced bool) {
	out := c.idxOut
	if !spaced {
		for j, ix := range c.idxBuf[:present] {
			out[row+j] = int32(ix)
		}
		return
	}
	clear(out[row : row+k])
	c.rowsOf(row, k, true, func(r, j int) { out[r] = int32(c.idxBuf[j]) })
}

// rowsOfEach appends one string per row of [row, row+k) to the plain
// output: add(j) appends the j-th present value's bytes, null rows stay empty.
func (c *flatColumn) rowsOfEach(row, k int, spaced bool, add func(j int)) {
	j := 0
	for r := row; r < row+k; r++ {
		if !spaced || c.valid[r>>3]&(1<<(r&7)) != 0 {
			add(j)
			j++
		}
		c.offsets = append(c.offsets, int32(len(c.strData)))
	}
}

// toPlain turns the dictionary indices of rows [0, row) into plain strings:
// the batch met a page that is not dictionary-encoded.
func (c *flatColumn) toPlain(row int) {
	c.asDict = false
	for r := 0; r < row; r++ {
		if c.valid[r>>3]&(1<<(r&7)) != 0 {
			c.strData = append(c.strData, c.dictStr.Value(int(c.idxOut[r]))...)
		}
		c.offsets = append(c.offsets, int32(len(c.strData)))
	}
}

func (c *flatColumn) fixedValues(row, k, present int, spaced bool) error {
	if c.asDict {
		if c.useDict {
			c.dictIndices(row, k, present, spaced)
			return nil
		}
		c.toPlainFixed(row)
	}
	w := c.width
	if spaced {
		clear(c.fixed[row*w : (row+k)*w])
	}
	var src []byte
	if !c.useDict {
		if len(c.plain) < present*w {
			return c.errorf("%d PLAIN values in %d bytes", present, len(c.plain))
		}
		src = c.plain[:present*w]
		c.plain = c.plain[present*w:]
	}
	if w == 8 {
		scatter(castTo[uint64](c.fixed), castTo[uint64](c.dictFixed), castTo[uint64](src), c, row, k, present, spaced)
	} else {
		scatter(castTo[uint32](c.fixed), castTo[uint32](c.dictFixed), castTo[uint32](src), c, row, k, present, spaced)
	}
	return nil
}

// scatter writes the present values of rows [row, row+k) into out: looked up
// in dict by the decoded indices, or taken in order from plain.
func scatter[T uint32 | uint64](out, dict, plain []T, c *flatColumn, row, k, present int, spaced bool) {
	if !spaced {
		dst := out[row : row+k]
		if !c.useDict {
			copy(dst, plain)
			return
		}
		for j, ix := range c.idxBuf[:k] {
			dst[j] = dict[ix]
		}
		return
	}
	j := 0
	for r := row; r < row+k; r++ {
		if c.valid[r>>3]&(1<<(r&7)) == 0 {
			continue
		}
		if c.useDict {
			out[r] = dict[c.idxBuf[j]]
		} else {
			out[r] = plain[j]
		}
		j++
	}
}

// toPlainFixed turns the dictionary indices of rows [0, row) into values:
// the batch met a page that is not dictionary-encoded.
func (c *flatColumn) toPlainFixed(row int) {
	c.asDict = false
	w := c.width
	for r := 0; r < row; r++ {
		if c.valid[r>>3]&(1<<(r&7)) != 0 {
			ix := int(c.idxOut[r])
			copy(c.fixed[r*w:r*w+w], c.dictFixed[ix*w:ix*w+w])
		} else {
			clear(c.fixed[r*w : r*w+w])
		}
	}
}

// castTo views little-endian bytes as fixed-width values (the platforms Go
// and Arrow support here are little-endian, as Parquet's PLAIN encoding is).
func castTo[T uint32 | uint64](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(zero)))
}

func (c *flatColumn) boolValues(row, k, present int) error {
	if !c.boolRLE && uint64(len(c.plain))*8 < c.plainBit+uint64(present) {
		return c.errorf("%d PLAIN booleans in %d bytes", present, len(c.plain))
	}
	c.rowsOf(row, k, present < k, func(r, j int) {
		var v bool
		if c.boolRLE {
			v = c.idxBuf[j] != 0
		} else {
			b := c.plainBit + uint64(j)
			v = c.plain[b>>3]&(1<<(b&7)) != 0
		}
		if v {
			c.fixed[r>>3] |= 1 << (r & 7)
		}
	})
	if !c.boolRLE {
		c.plainBit += uint64(present)
	}
	return nil
}

// array wraps the batch's buffers.
func (c *flatColumn) array(n int) arrow.Array {
	var valid *memory.Buffer
	if c.nulls > 0 {
		valid = memory.NewBufferBytes(c.valid[:(n+7)/8])
	}
	if c.asDict {
		typ := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: c.dictArr.DataType()}
		d := array.NewDataWithDictionary(typ, n,
			[]*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.idxOut[:n]))}, c.nulls, 0, c.dictArr.Data().(*array.Data))
		return array.NewDictionaryData(d)
	}
	switch c.kind {
	case occurrence.KindString:
		return array.NewStringData(array.NewData(arrow.BinaryTypes.String, n,
			[]*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(c.offsets)), memory.NewBufferBytes(c.strData)}, nil, c.nulls, 0))
	case occurrence.KindBool:
		return array.MakeFromData(array.NewData(arrow.FixedWidthTypes.Boolean, n,
			[]*memory.Buffer{valid, memory.NewBufferBytes(c.fixed[:(n+7)/8])}, nil, c.nulls, 0))
	default:
		return array.MakeFromData(array.NewData(c.kind.ArrowType(), n,
			[]*memory.Buffer{valid, memory.NewBufferBytes(c.fixed[:n*c.width])}, nil, c.nulls, 0))
	}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// handOver gives the string buffers of the last batch next returned (its
// offsets, from 0, and its bytes) to the caller, who owns them from then
// on; the column decodes its next batch into new buffers as large, from
// mem (nil: Go memory). A consumer that would copy the whole batch's
// strings (splitScan.take) takes them this way instead: the bytes were
// copied once already, out of the page.
func (c *flatColumn) handOver(mem memory.Allocator) (offs []int32, data []byte) {
	offs, data = c.offsets, c.strData
	c.offsets, c.strData = nil, nil
	c.handedMem, c.offsCap, c.dataCap = mem, cap(offs), cap(data)
	return offs, data
}

// owns reports whether a is the last string batch next returned, over the
// column's own buffers (handOver can give them away).
func (c *flatColumn) owns(a *array.String) bool {
	o := a.ValueOffsets()
	return c.flatBuffers != nil && len(o) > 0 && len(o) == len(c.offsets) && &o[0] == &c.offsets[0] &&
		a.Data().Offset() == 0
}

// newStringBuffers replaces the string buffers given away (handOver) with
// new ones of their capacities, for batches of up to n rows.
func (c *flatColumn) newStringBuffers(n int) {
	oc, dc := max(c.offsCap, n+1), c.dataCap
	if c.handedMem == nil {
		c.offsets, c.strData = make([]int32, 0, oc), make([]byte, 0, dc)
		return
	}
	c.offsets = int32sOf(c.handedMem.Allocate(4 * oc))[:0]
	c.strData = c.handedMem.Allocate(dc)[:0]
}
