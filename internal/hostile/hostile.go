// Package hostile generates hostile inputs for the tests of the readers:
// size bombs (a document whose filler inflates to gigabytes, written as it
// streams, so that a test pays for its compressed size only) and zip entries
// whose headers lie about their size. Nothing is committed as a blob: the
// tests build what they feed the readers.
//
// Zip entries are deflated by hand (one block with the fixed Huffman codes
// of RFC 1951: a literal and a 258-byte copy of it per 21 bits, about 99
// inflated bytes per compressed byte): the ratio stays under the readers'
// ratio checks (200x), as a careful attacker's would, so that the size caps
// are what stops them. archive/zip's own deflater would take seconds per
// gigabyte and exceed the ratio.
package hostile

import (
	"archive/zip"
	"bufio"
	"bytes"
	"hash/crc32"
	"io"
	"os"
)

// Entry is a file of a bomb: Head, then Filler bytes of Fill ('x' when 0),
// then Tail.
type Entry struct {
	Name   string
	Head   []byte
	Filler int64
	Fill   byte
	Tail   []byte
	// Declared, when not 0, is the uncompressed size the zip headers give
	// instead of the real one (a lie).
	Declared int64
}

// Size is the entry's real size.
func (e Entry) Size() int64 { return int64(len(e.Head)) + e.Filler + int64(len(e.Tail)) }

func (e Entry) fill() byte {
	if e.Fill == 0 {
		return 'x'
	}
	return e.Fill
}

// WriteZip writes a zip of the entries to path.
func WriteZip(path string, entries ...Entry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	zw := zip.NewWriter(bw)
	for _, e := range entries {
		if err := addEntry(zw, e); err != nil {
			f.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func addEntry(zw *zip.Writer, e Entry) error {
	var comp bytes.Buffer
	d := &deflater{w: &comp}
	d.bits(1, 1) // BFINAL
	d.bits(1, 2) // BTYPE 01: fixed Huffman codes
	for _, b := range e.Head {
		d.literal(b)
	}
	n := e.Filler
	c := e.fill()
	for n >= 259 {
		d.literal(c)
		d.copy258()
		n -= 259
	}
	for ; n > 0; n-- {
		d.literal(c)
	}
	for _, b := range e.Tail {
		d.literal(b)
	}
	d.code(0, 7) // end of block
	d.flush()
	size := e.Size()
	if e.Declared != 0 {
		size = e.Declared
	}
	w, err := zw.CreateRaw(&zip.FileHeader{Name: e.Name, Method: zip.Deflate, CRC32: e.crc(),
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: uint64(size)})
	if err != nil {
		return err
	}
	_, err = w.Write(comp.Bytes())
	return err
}

// crc is the CRC-32 of the entry's real content.
func (e Entry) crc() uint32 {
	h := crc32.NewIEEE()
	h.Write(e.Head)
	chunk := bytes.Repeat([]byte{e.fill()}, 1<<20)
	for n := e.Filler; n > 0; n -= int64(len(chunk)) {
		h.Write(chunk[:min(n, int64(len(chunk)))])
	}
	h.Write(e.Tail)
	return h.Sum32()
}

// WriteFile writes the entry as a plain file at path, in chunks.
func WriteFile(path string, e Entry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = e.write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (e Entry) write(w io.Writer) error {
	if _, err := w.Write(e.Head); err != nil {
		return err
	}
	chunk := bytes.Repeat([]byte{e.fill()}, 1<<20)
	for n := e.Filler; n > 0; n -= int64(len(chunk)) {
		if _, err := w.Write(chunk[:min(n, int64(len(chunk)))]); err != nil {
			return err
		}
	}
	_, err := w.Write(e.Tail)
	return err
}

// deflater writes a deflate bit stream (RFC 1951): bits go out least
// significant first, Huffman codes most significant first.
type deflater struct {
	w   *bytes.Buffer
	acc uint64
	n   uint
}

func (d *deflater) bits(v uint64, n uint) {
	d.acc |= v << d.n
	d.n += n
	for d.n >= 8 {
		d.w.WriteByte(byte(d.acc))
		d.acc >>= 8
		d.n -= 8
	}
}

// code writes a Huffman code of n bits, most significant bit first.
func (d *deflater) code(c uint64, n uint) {
	var r uint64
	for i := uint(0); i < n; i++ {
		r = r<<1 | (c>>i)&1
	}
	d.bits(r, n)
}

// literal writes byte b with the fixed literal codes.
func (d *deflater) literal(b byte) {
	if b <= 143 {
		d.code(0x30+uint64(b), 8)
	} else {
		d.code(0x190+uint64(b-144), 9)
	}
}

// copy258 copies the last 258 bytes at distance 1: length symbol 285 (8
// bits, no extra bits), distance code 0 (5 bits).
func (d *deflater) copy258() {
	d.code(0xC5, 8)
	d.code(0, 5)
}

func (d *deflater) flush() {
	if d.n > 0 {
		d.w.WriteByte(byte(d.acc))
		d.acc, d.n = 0, 0
	}
}
