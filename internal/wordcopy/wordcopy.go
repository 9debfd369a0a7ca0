// Package wordcopy appends short byte strings without a call to memmove.
//
// In a tight loop that appends many short values (the cells of an export's
// rows, the PLAIN strings of a Parquet page), append's call to memmove costs
// more than the copy: Go saves and restores every value live across a call.
// Append copies a value of at most 16 bytes as two 8-byte words instead,
// when the words can be read and written in bounds, and inlines into its
// caller.
package wordcopy

import "encoding/binary"

// Append appends v to buf. A value of at most 16 bytes with 16 bytes
// readable from its start (cap(v) >= 16) and 16 free in buf is copied as
// two 8-byte words, whatever its length: the bytes written past it lie
// beyond the returned length, where the next append overwrites them.
// Anything else goes through append.
func Append(buf, v []byte) []byte {
	n := len(buf)
	if len(v) <= 16 && cap(v) >= 16 && cap(buf)-n >= 16 {
		dst, src := buf[n:n+16], v[:16]
		binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src))
		binary.LittleEndian.PutUint64(dst[8:], binary.LittleEndian.Uint64(src[8:]))
		return buf[:n+len(v)]
	}
	return append(buf, v...)
}
