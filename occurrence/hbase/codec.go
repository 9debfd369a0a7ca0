package hbase

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// The full record is one cell in a compact binary form:
//
//	version byte (2)
//	presence bitmap: one bit per column of occurrence.Columns(), LSB first
//	the present values in column order:
//	  strings  uvarint length + UTF-8 bytes
//	  integers and timestamps  zig-zag varint
//	  floats   8 bytes little-endian IEEE 754
//	  booleans 1 byte
//
// Decoding walks the values once and materializes only the columns asked for.

const codecVersion = 2

var bitmapLen = (occurrence.NumColumns() + 7) / 8

// ErrCorruptRecord marks a stored record that cannot be decoded.
var ErrCorruptRecord = errors.New("corrupt stored record")

// encodeRecord appends r's encoding to dst.
func encodeRecord(dst []byte, r *occurrence.Record) []byte {
	dst = append(dst, codecVersion)
	bm := len(dst)
	dst = append(dst, make([]byte, bitmapLen)...)
	for i, c := range occurrence.Columns() {
		v := r.Get(i)
		if !v.Valid {
			continue
		}
		dst[bm+i/8] |= 1 << (i % 8)
		switch c.Kind {
		case occurrence.KindInt32, occurrence.KindInt64, occurrence.KindTimestamp:
			dst = binary.AppendVarint(dst, v.I)
		case occurrence.KindFloat64:
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.F))
		case occurrence.KindBool:
			b := byte(0)
			if v.B {
				b = 1
			}
			dst = append(dst, b)
		default:
			dst = binary.AppendUvarint(dst, uint64(len(v.S)))
			dst = append(dst, v.S...)
		}
	}
	return dst
}

// columnSink receives decoded values of the columns a decoder materializes.
type columnSink struct {
	slots []array.Builder // by column index; nil when not wanted
	last  int             // highest wanted column index
}

func newColumnSink(builders []array.Builder, names []string) *columnSink {
	s := &columnSink{slots: make([]array.Builder, occurrence.NumColumns()), last: -1}
	for i, n := range names {
		_, ci, _ := occurrence.ColumnByName(n)
		s.slots[ci] = builders[i]
		s.last = max(s.last, ci)
	}
	return s
}

// decodeInto appends the wanted columns of one encoded record to the sink's
// builders (nulls for absent values).
func (s *columnSink) decodeInto(rec []byte) error {
	start := 1
	if len(rec) < start+bitmapLen || rec[0] != codecVersion {
		return fmt.Errorf("%w: bad header", ErrCorruptRecord)
	}
	bm := rec[start : start+bitmapLen]
	off := start + bitmapLen
	for i := 0; i <= s.last; i++ {
		b := s.slots[i]
		if bm[i/8]&(1<<(i%8)) == 0 {
			if b != nil {
				b.AppendNull()
			}
			continue
		}
		n, err := s.value(i, rec[off:], b)
		if err != nil {
			return fmt.Errorf("%w: column %s: %v", ErrCorruptRecord, occurrence.ColumnAt(i).Name, err)
		}
		off += n
	}
	return nil
}

// value decodes (or skips, when b is nil) one value and returns its length.
func (s *columnSink) value(ci int, p []byte, b array.Builder) (int, error) {
	switch occurrence.ColumnAt(ci).Kind {
	case occurrence.KindInt32, occurrence.KindInt64, occurrence.KindTimestamp:
		v, n := binary.Varint(p)
		if n <= 0 {
			return 0, errors.New("bad varint")
		}
		switch bb := b.(type) {
		case *array.Int32Builder:
			bb.Append(int32(v))
		case *array.Int64Builder:
			bb.Append(v)
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(v))
		}
		return n, nil
	case occurrence.KindFloat64:
		if len(p) < 8 {
			return 0, errors.New("truncated float")
		}
		if b != nil {
			b.(*array.Float64Builder).Append(math.Float64frombits(binary.LittleEndian.Uint64(p)))
		}
		return 8, nil
	case occurrence.KindBool:
		if len(p) < 1 {
			return 0, errors.New("truncated bool")
		}
		if b != nil {
			b.(*array.BooleanBuilder).Append(p[0] != 0)
		}
		return 1, nil
	default:
		l, n := binary.Uvarint(p)
		if n <= 0 || l > uint64(len(p)-n) {
			return 0, errors.New("bad string length")
		}
		if b != nil {
			b.(*array.StringBuilder).BinaryBuilder.Append(p[n : n+int(l)])
		}
		return n + int(l), nil
	}
}
