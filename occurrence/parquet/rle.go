package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// errRLE is the kind of every malformed RLE/bit-packed run.
var errRLE = errors.New("parquet: malformed RLE/bit-packed data")

// rleDecoder reads Parquet's RLE/bit-packing hybrid encoding (definition
// levels, dictionary indices, RLE booleans): a sequence of runs, each either
// one value repeated or groups of 8 values packed LSB first at a fixed width.
// arrow-go keeps its decoder internal, so the fast scan path carries this one.
type rleDecoder struct {
	data  []byte
	width uint // bits per value, 0..32
	// the current run: repeat > 0 is an RLE run of val; packed > 0 values
	// remain of a bit-packed run starting at bit bit of data.
	repeat   int
	val      uint32
	packed   int
	bit      uint64
	runBytes int // bytes of data the bit-packed run occupies
	// max is the largest value read since the caller last cleared it: a
	// dictionary's bounds are checked once per read, not once per value.
	max uint32
}

func (d *rleDecoder) reset(data []byte, width int) error {
	if width < 0 || width > 32 {
		return fmt.Errorf("%w: bit width %d", errRLE, width)
	}
	*d = rleDecoder{data: data, width: uint(width)}
	return nil
}

// nextRun reads the next run header.
func (d *rleDecoder) nextRun() error {
	h, n := binary.Uvarint(d.data)
	if n <= 0 {
		return fmt.Errorf("%w: truncated run header", errRLE)
	}
	d.data = d.data[n:]
	if h&1 == 0 {
		count := h >> 1
		nb := int(d.width+7) / 8
		if count == 0 || count > 1<<31 || len(d.data) < nb {
			return fmt.Errorf("%w: RLE run of %d values with %d bytes left", errRLE, count, len(d.data))
		}
		var v uint32
		for i := 0; i < nb; i++ {
			v |= uint32(d.data[i]) << (8 * i)
		}
		d.data = d.data[nb:]
		if d.width < 32 && v>>d.width != 0 {
			return fmt.Errorf("%w: value %d wider than %d bits", errRLE, v, d.width)
		}
		d.repeat, d.val = int(count), v
		return nil
	}
	groups := h >> 1
	if groups == 0 || groups > 1<<28 {
		return fmt.Errorf("%w: bit-packed run of %d groups", errRLE, groups)
	}
	// A final run may be cut short: only whole values are read from it.
	avail := uint64(len(d.data)) * 8
	want := groups * 8 * uint64(d.width)
	if want > avail {
		want = avail
	}
	count := groups * 8
	if d.width > 0 {
		count = want / uint64(d.width)
	}
	if count == 0 {
		return fmt.Errorf("%w: bit-packed run with no data", errRLE)
	}
	d.packed, d.bit, d.runBytes = int(count), 0, int((want+7)/8)
	if full := groups * uint64(d.width); full <= uint64(len(d.data)) {
		d.runBytes = int(full)
	}
	return nil
}

// read fills out with the next len(out) values.
func (d *rleDecoder) read(out []uint32) error {
	for len(out) > 0 {
		switch {
		case d.repeat > 0:
			k := min(d.repeat, len(out))
			v := d.val
			d.max = max(d.max, v)
			for i := range out[:k] {
				out[i] = v
			}
			d.repeat -= k
			out = out[k:]
		case d.packed > 0:
			k := min(d.packed, len(out))
			d.unpack(out[:k])
			d.packed -= k
			out = out[k:]
			if d.packed == 0 {
				d.finishPacked()
			}
		default:
			if err := d.nextRun(); err != nil {
				return err
			}
		}
	}
	return nil
}

// skip passes over the next n values without decoding them.
func (d *rleDecoder) skip(n int) error {
	for n > 0 {
		switch {
		case d.repeat > 0:
			k := min(d.repeat, n)
			d.repeat -= k
			n -= k
		case d.packed > 0:
			k := min(d.packed, n)
			d.bit += uint64(k) * uint64(d.width)
			d.packed -= k
			n -= k
			if d.packed == 0 {
				d.finishPacked()
			}
		default:
			if err := d.nextRun(); err != nil {
				return err
			}
		}
	}
	return nil
}

// finishPacked drops the bytes of a finished bit-packed run, padding values
// included.
func (d *rleDecoder) finishPacked() {
	d.data = d.data[min(d.runBytes, len(d.data)):]
	d.bit = 0
}

// unpack decodes len(out) values of the current bit-packed run. Values
// whose 8-byte little-endian word lies within data are read straight from
// it, with no test per value; the last few, near data's end, from a
// zero-padded copy of its last bytes.
func (d *rleDecoder) unpack(out []uint32) {
	w := uint64(d.width)
	if w == 0 {
		clear(out)
		return
	}
	mask := uint64(1)<<w - 1
	data := d.data
	bit := d.bit
	hi := d.max
	i := 0
	if len(data) >= 8 {
		// last is the last bit position whose word is whole in data.
		if last := uint64(len(data)-8) * 8; bit <= last {
			n := min(len(out), int((last-bit)/w)+1)
			for ; i < n; i++ {
				v := uint32(binary.LittleEndian.Uint64(data[bit>>3:])>>(bit&7)) & uint32(mask)
				hi = max(hi, v)
				out[i] = v
				bit += w
			}
		}
	}
	if i < len(out) {
		// nextRun bounds a run by the bits data holds, so each value left
		// starts within data's last 8 bytes.
		var tail [16]byte
		start := uint64(max(len(data)-8, 0))
		copy(tail[:], data[start:])
		for ; i < len(out); i++ {
			off := min(bit>>3-start, 8)
			v := uint32(binary.LittleEndian.Uint64(tail[off:])>>(bit&7)) & uint32(mask)
			hi = max(hi, v)
			out[i] = v
			bit += w
		}
	}
	d.bit = bit
	d.max = hi
}

// skipRun consumes the next n values if they lie in one RLE run of v (a
// column without nulls has one run of definition levels), reporting whether
// it did; otherwise nothing is consumed.
func (d *rleDecoder) skipRun(n int, v uint32) (bool, error) {
	if d.repeat == 0 && d.packed == 0 {
		if err := d.nextRun(); err != nil {
			return false, err
		}
	}
	if d.repeat >= n && d.val == v {
		d.repeat -= n
		return true, nil
	}
	return false, nil
}
