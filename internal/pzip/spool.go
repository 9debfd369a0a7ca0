package pzip

import (
	"errors"
	"fmt"
	"io"
)

// Spool compresses the data of an entry that cannot be written yet because
// another entry is open (a download writes occurrence.txt, verbatim.txt and
// multimedia.txt from one scan). Its chunks are deflated by the Writer's
// workers into a temporary writer the caller provides (a temp file); once
// closed, CreateSpooled copies the compressed bytes into the archive with
// no second compression. Several spools may be open at once.
type Spool struct {
	ew   *entryWriter
	done bool
}

// ErrSpool reports misuse of a Spool.
var ErrSpool = errors.New("pzip: spool")

// NewSpool starts a spool writing deflated data to tmp. Stored selects no
// compression.
func (zw *Writer) NewSpool(tmp io.Writer, stored bool) (*Spool, error) {
	if zw.err != nil {
		return nil, zw.err
	}
	if zw.closed {
		return nil, ErrClosed
	}
	method := Deflate
	if stored {
		method = Store
	}
	s := &Spool{}
	s.ew = &entryWriter{zw: zw, e: &entry{method: method}, out: tmp, spool: s}
	return s, nil
}

// Write adds data to the spool.
func (s *Spool) Write(p []byte) (int, error) { return s.ew.Write(p) }

// AvailableBuffer is the entry writer's (see Writer.CreateHeader): bytes
// appended to it and passed to the next Write are not copied.
func (s *Spool) AvailableBuffer() []byte { return s.ew.AvailableBuffer() }

// Close ends the spooled data; the temporary writer then holds
// CompressedSize bytes.
func (s *Spool) Close() error {
	if s.done {
		return nil
	}
	s.done = true
	if err := s.ew.finishData(); err != nil {
		s.ew.drain()
		return s.ew.zw.fail(err)
	}
	return nil
}

// Size returns the uncompressed bytes written so far.
func (s *Spool) Size() int64 { return int64(s.ew.e.size) }

// CompressedSize returns the compressed bytes written to the temporary
// writer (final once closed).
func (s *Spool) CompressedSize() int64 { return int64(s.ew.e.compressed) }

// CreateSpooled adds an entry whose data is the closed spool s, reading its
// CompressedSize bytes from compressed (the temporary file, rewound). Sizes
// and CRC are known, so the local header carries them and no descriptor
// follows.
func (zw *Writer) CreateSpooled(fh *FileHeader, s *Spool, compressed io.Reader) error {
	if !s.done {
		return fmt.Errorf("%w: %q added before the spool was closed", ErrSpool, fh.Name)
	}
	if s.ew.zw != zw {
		return fmt.Errorf("%w: %q belongs to another writer", ErrSpool, fh.Name)
	}
	e, err := zw.startEntry(fh, s.ew.e.method)
	if err != nil {
		return err
	}
	e.flags &^= flagDescriptor
	e.known = true
	e.crc, e.size, e.compressed = s.ew.e.crc, s.ew.e.size, s.ew.e.compressed
	e.zip64Local = e.bigSizes()
	if _, err := zw.bw.Write(e.localHeader()); err != nil {
		return zw.fail(err)
	}
	n, err := io.CopyN(zw.bw, compressed, int64(e.compressed))
	if err != nil {
		return zw.fail(fmt.Errorf("copy spooled %q: %d of %d bytes: %w", fh.Name, n, e.compressed, err))
	}
	zw.entries = append(zw.entries, e)
	return nil
}
