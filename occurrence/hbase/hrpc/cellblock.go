package hrpc

import (
	"encoding/binary"
	"fmt"
)

// Cell is one HBase cell. Slices may point into the response buffer they were
// decoded from; buffers are never reused, so a Cell may be kept.
type Cell struct {
	Row       []byte
	Family    []byte
	Qualifier []byte
	Timestamp uint64
	Type      byte // 4 put, 8 delete, 12 delete column, 14 delete family
	Value     []byte
}

// Cell types of the KeyValue format.
const (
	TypePut          byte = 4
	TypeDelete       byte = 8
	TypeDeleteColumn byte = 12
	TypeDeleteFamily byte = 14
)

// KeyValue layout (KeyValueCodec, no tags): a 4-byte big-endian length of
// what follows, then key length (4), value length (4), row length (2), row,
// family length (1), family, qualifier, timestamp (8), type (1), value.
const kvFixed = 2 + 1 + 8 + 1 // row len + family len + timestamp + type

// DecodeCellBlock decodes a KeyValueCodec cell block and appends its cells to
// dst. It checks every length against the block and never panics.
func DecodeCellBlock(block []byte, dst []Cell) ([]Cell, error) {
	off := 0
	for off < len(block) {
		c, n, err := decodeKeyValue(block[off:])
		if err != nil {
			return dst, fmt.Errorf("%w: cell block offset %d: %v", ErrProtocol, off, err)
		}
		dst = append(dst, c)
		off += n
	}
	return dst, nil
}

func decodeKeyValue(b []byte) (Cell, int, error) {
	if len(b) < 12 {
		return Cell{}, 0, fmt.Errorf("truncated cell header (%d bytes)", len(b))
	}
	total := int64(binary.BigEndian.Uint32(b))
	klen := int64(binary.BigEndian.Uint32(b[4:]))
	vlen := int64(binary.BigEndian.Uint32(b[8:]))
	if total != 8+klen+vlen {
		return Cell{}, 0, fmt.Errorf("cell length %d != 8 + key %d + value %d", total, klen, vlen)
	}
	if 4+total > int64(len(b)) {
		return Cell{}, 0, fmt.Errorf("cell of %d bytes exceeds block (%d left)", total, len(b)-4)
	}
	if klen < kvFixed {
		return Cell{}, 0, fmt.Errorf("key length %d too short", klen)
	}
	key := b[12 : 12+klen]
	rlen := int64(binary.BigEndian.Uint16(key))
	if 2+rlen+1 > klen {
		return Cell{}, 0, fmt.Errorf("row length %d exceeds key length %d", rlen, klen)
	}
	row := key[2 : 2+rlen]
	flen := int64(key[2+rlen])
	fstart := 2 + rlen + 1
	qlen := klen - fstart - flen - 9
	if qlen < 0 {
		return Cell{}, 0, fmt.Errorf("family length %d exceeds key length %d", flen, klen)
	}
	fam := key[fstart : fstart+flen]
	qual := key[fstart+flen : fstart+flen+qlen]
	ts := binary.BigEndian.Uint64(key[klen-9:])
	typ := key[klen-1]
	val := b[12+klen : 12+klen+vlen]
	return Cell{Row: row, Family: fam, Qualifier: qual, Timestamp: ts, Type: typ, Value: val}, int(4 + total), nil
}

// AppendKeyValue appends c in the KeyValueCodec format to dst.
func AppendKeyValue(dst []byte, c Cell) []byte {
	klen := kvFixed + len(c.Row) + len(c.Family) + len(c.Qualifier)
	dst = binary.BigEndian.AppendUint32(dst, uint32(8+klen+len(c.Value)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(klen))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(c.Value)))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(c.Row)))
	dst = append(dst, c.Row...)
	dst = append(dst, byte(len(c.Family)))
	dst = append(dst, c.Family...)
	dst = append(dst, c.Qualifier...)
	dst = binary.BigEndian.AppendUint64(dst, c.Timestamp)
	dst = append(dst, c.Type)
	return append(dst, c.Value...)
}
