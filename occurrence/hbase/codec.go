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
//	version byte (codecVersion)
//	presence bitmap: one bit per column of the version's layout, LSB first
//	the present values in layout order:
//	  strings  uvarint length + UTF-8 bytes
//	  integers and timestamps  zig-zag varint
//	  floats   8 bytes little-endian IEEE 754
//	  booleans 1 byte
//
// The layout of each version is frozen (codec_layouts.go): records written
// before a schema change decode with their own layout, columns the layout
// lacks read as null and columns it has that the schema dropped are
// skipped. Decoding walks the values once and materializes only the
// columns asked for.

const codecVersion = 5

// ErrCorruptRecord marks a stored record that cannot be decoded.
var ErrCorruptRecord = errors.New("corrupt stored record")

// layoutColumn is one column of a frozen layout.
type layoutColumn struct {
	name string
	kind occurrence.Kind
}

// layout is the column order of one encoding version.
type layout struct {
	cols      []layoutColumn
	bitmapLen int
}

var layouts = map[byte]*layout{
	2: {cols: v2Columns, bitmapLen: (len(v2Columns) + 7) / 8},
	3: {cols: v3Columns, bitmapLen: (len(v3Columns) + 7) / 8},
	4: {cols: v4Columns, bitmapLen: (len(v4Columns) + 7) / 8},
	5: {cols: v5Columns, bitmapLen: (len(v5Columns) + 7) / 8},
}

// current is the layout records are written with: the schema's own
// (TestCodecLayoutIsCurrent keeps them equal).
var current = layouts[codecVersion]

// encodeRecord appends r's encoding to dst.
func encodeRecord(dst []byte, r *occurrence.Record) []byte {
	dst = append(dst, codecVersion)
	bm := len(dst)
	dst = append(dst, make([]byte, current.bitmapLen)...)
	for i, c := range current.cols {
		v := r.Get(i)
		if !v.Valid {
			continue
		}
		dst[bm+i/8] |= 1 << (i % 8)
		switch c.kind {
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
	builders []array.Builder
	names    []string
	plans    map[byte]*sinkPlan // by encoding version, made on first use
}

// sinkPlan is where one layout's values go: slots by layout position (nil
// when not wanted), and the wanted columns the layout does not have.
type sinkPlan struct {
	l       *layout
	slots   []array.Builder
	last    int // highest wanted position
	missing []array.Builder
}

func newColumnSink(builders []array.Builder, names []string) *columnSink {
	return &columnSink{builders: builders, names: names, plans: map[byte]*sinkPlan{}}
}

func (s *columnSink) plan(version byte) (*sinkPlan, error) {
	if p, ok := s.plans[version]; ok {
		return p, nil
	}
	l, ok := layouts[version]
	if !ok {
		return nil, fmt.Errorf("%w: unknown encoding version %d", ErrCorruptRecord, version)
	}
	p := &sinkPlan{l: l, slots: make([]array.Builder, len(l.cols)), last: -1}
	pos := make(map[string]int, len(l.cols))
	for i, c := range l.cols {
		pos[c.name] = i
	}
	for i, n := range s.names {
		j, ok := pos[n]
		if !ok {
			p.missing = append(p.missing, s.builders[i])
			continue
		}
		p.slots[j] = s.builders[i]
		p.last = max(p.last, j)
	}
	s.plans[version] = p
	return p, nil
}

// decodeInto appends the wanted columns of one encoded record to the sink's
// builders (nulls for absent values).
func (s *columnSink) decodeInto(rec []byte) error {
	if len(rec) < 1 {
		return fmt.Errorf("%w: empty", ErrCorruptRecord)
	}
	p, err := s.plan(rec[0])
	if err != nil {
		return err
	}
	if len(rec) < 1+p.l.bitmapLen {
		return fmt.Errorf("%w: bad header", ErrCorruptRecord)
	}
	bm := rec[1 : 1+p.l.bitmapLen]
	off := 1 + p.l.bitmapLen
	for i := 0; i <= p.last; i++ {
		b := p.slots[i]
		if bm[i/8]&(1<<(i%8)) == 0 {
			if b != nil {
				b.AppendNull()
			}
			continue
		}
		n, err := value(p.l.cols[i].kind, rec[off:], b)
		if err != nil {
			return fmt.Errorf("%w: column %s: %v", ErrCorruptRecord, p.l.cols[i].name, err)
		}
		off += n
	}
	for _, b := range p.missing {
		b.AppendNull()
	}
	return nil
}

// value decodes (or skips, when b is nil) one value of a column of kind k
// and returns its length.
func value(k occurrence.Kind, p []byte, b array.Builder) (int, error) {
	switch k {
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
