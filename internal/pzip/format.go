package pzip

import (
	"encoding/binary"
	"time"
)

// Record signatures and sizes of the ZIP format (PKWARE APPNOTE 6.3).
const (
	sigLocal       = 0x04034b50
	sigCentral     = 0x02014b50
	sigDescriptor  = 0x08074b50
	sigEnd         = 0x06054b50
	sigEnd64       = 0x06064b50
	sigEnd64Locate = 0x07064b50

	lenLocal       = 30
	lenCentral     = 46
	lenEnd         = 22
	lenEnd64       = 56
	lenEnd64Locate = 20

	flagDescriptor = 1 << 3  // CRC and sizes follow the data
	flagUTF8       = 1 << 11 // name is UTF-8

	versionDefault = 20 // 2.0: deflate, directories
	versionZip64   = 45 // 4.5: zip64 extensions
	madeByUnix     = 3 << 8

	extraZip64     = 0x0001
	extraTimestamp = 0x5455 // "UT" extended timestamp, seconds since 1970 UTC

	max16 = 0xffff
	max32 = 0xffffffff
)

// Compression methods.
const (
	Store   uint16 = 0
	Deflate uint16 = 8
)

// buf is a little-endian append helper.
type buf []byte

func (b buf) u16(v uint16) buf { return binary.LittleEndian.AppendUint16(b, v) }
func (b buf) u32(v uint32) buf { return binary.LittleEndian.AppendUint32(b, v) }
func (b buf) u64(v uint64) buf { return binary.LittleEndian.AppendUint64(b, v) }

// dosTime converts t (taken in UTC) to MS-DOS date and time fields. Times
// before 1980 are clamped to 1980-01-01.
func dosTime(t time.Time) (date, tm uint16) {
	t = t.UTC()
	if t.Year() < 1980 {
		t = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	date = uint16(t.Day() + int(t.Month())<<5 + (t.Year()-1980)<<9)
	tm = uint16(t.Second()/2 + t.Minute()<<5 + t.Hour()<<11)
	return date, tm
}

// timestampExtra is the extended timestamp field carrying the mtime.
func timestampExtra(b buf, t time.Time) buf {
	sec := t.Unix()
	if sec < 0 || sec > max32 {
		return b
	}
	return b.u16(extraTimestamp).u16(5).append8(1).u32(uint32(sec))
}

func (b buf) append8(v byte) buf { return append(b, v) }

// entry is what the central directory needs to know about a written entry.
type entry struct {
	name             string
	method           uint16
	flags            uint16
	modified         time.Time
	crc              uint32
	compressed, size uint64
	offset           uint64
	zip64Local       bool // local header carried a zip64 extra
	known            bool // CRC and sizes are in the local header (no descriptor)
}

// bigSizes reports whether a size needs 8 bytes.
func (e *entry) bigSizes() bool { return e.size >= max32 || e.compressed >= max32 }

// localHeader encodes the local file header. Unless the entry is known, CRC
// and sizes are zero: they follow the data in a descriptor. With zip64Local
// the header carries a zip64 extra (zero sizes when unknown) so that readers
// expect 8-byte descriptor sizes.
func (e *entry) localHeader() []byte {
	date, tm := dosTime(e.modified)
	version := uint16(versionDefault)
	var extra buf
	var crc, size32, comp32 uint32
	if e.known {
		crc, size32, comp32 = e.crc, uint32(e.size), uint32(e.compressed)
	}
	if e.zip64Local {
		version = versionZip64
		size32, comp32 = max32, max32
		var size, comp uint64
		if e.known {
			size, comp = e.size, e.compressed
		}
		extra = extra.u16(extraZip64).u16(16).u64(size).u64(comp)
	}
	extra = timestampExtra(extra, e.modified)
	b := make(buf, 0, lenLocal+len(e.name)+len(extra))
	b = b.u32(sigLocal).u16(version).u16(e.flags).u16(e.method).u16(tm).u16(date)
	b = b.u32(crc).u32(comp32).u32(size32)
	b = b.u16(uint16(len(e.name))).u16(uint16(len(extra)))
	b = append(b, e.name...)
	return append(b, extra...)
}

// descriptor encodes the data descriptor, with 8-byte sizes when the sizes
// need them or the local header announced zip64.
func (e *entry) descriptor() []byte {
	b := make(buf, 0, 24).u32(sigDescriptor).u32(e.crc)
	if e.zip64Local || e.bigSizes() {
		return b.u64(e.compressed).u64(e.size)
	}
	return b.u32(uint32(e.compressed)).u32(uint32(e.size))
}

// centralHeader encodes the central directory record. Fields that do not fit
// are set to their maximum and carried in a zip64 extra, in APPNOTE order
// (uncompressed size, compressed size, local header offset).
func (e *entry) centralHeader() []byte {
	date, tm := dosTime(e.modified)
	version := uint16(versionDefault)
	size, comp, off := uint32(e.size), uint32(e.compressed), uint32(e.offset)
	var z64 buf
	if e.bigSizes() || e.zip64Local {
		size, comp = max32, max32
		z64 = z64.u64(e.size).u64(e.compressed)
	}
	if e.offset >= max32 {
		off = max32
		z64 = z64.u64(e.offset)
	}
	var extra buf
	if len(z64) > 0 {
		version = versionZip64
		extra = extra.u16(extraZip64).u16(uint16(len(z64)))
		extra = append(extra, z64...)
	}
	extra = timestampExtra(extra, e.modified)
	b := make(buf, 0, lenCentral+len(e.name)+len(extra))
	b = b.u32(sigCentral).u16(madeByUnix | versionZip64).u16(version).u16(e.flags).u16(e.method)
	b = b.u16(tm).u16(date).u32(e.crc).u32(comp).u32(size)
	b = b.u16(uint16(len(e.name))).u16(uint16(len(extra))).u16(0) // no comment
	b = b.u16(0).u16(0).u32(0o100644 << 16)                       // disk, internal, external attrs
	b = b.u32(off)
	b = append(b, e.name...)
	return append(b, extra...)
}

// endRecords encodes the end of central directory, preceded by the zip64 end
// record and its locator when the entry count, directory size or offset
// overflow the classic fields.
func endRecords(count, dirOffset, dirSize uint64) []byte {
	var b buf
	if count >= max16 || dirOffset >= max32 || dirSize >= max32 {
		end64 := dirOffset + dirSize
		b = b.u32(sigEnd64).u64(lenEnd64 - 12).u16(madeByUnix | versionZip64).u16(versionZip64)
		b = b.u32(0).u32(0).u64(count).u64(count).u64(dirSize).u64(dirOffset)
		b = b.u32(sigEnd64Locate).u32(0).u64(end64).u32(1)
	}
	b = b.u32(sigEnd).u16(0).u16(0)
	b = b.u16(uint16(min(count, max16))).u16(uint16(min(count, max16)))
	b = b.u32(uint32(min(dirSize, max32))).u32(uint32(min(dirOffset, max32)))
	return b.u16(0)
}
