package parquet

import (
	"io"
	"os"
)

// mappedFile is a table file's bytes mapped into memory read-only (mapFile):
// a scan's pages are decompressed straight out of the page cache, with no
// read call and no copy into a read window. Table files are never written
// after they are published (a new generation or segment is a new file,
// removed only when no scan holds it open), so the mapping never sees them
// change; a file that cannot be mapped is read with ReadAt instead.
type mappedFile []byte

// ReadAt copies like a file's ReadAt (footers and bloom filters read this
// way).
func (m mappedFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(m)) {
		return 0, io.EOF
	}
	n := copy(p, m[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// slice returns bytes [off, off+n) of the file, false when they are not all
// in it.
func (m mappedFile) slice(off int64, n int) ([]byte, bool) {
	if off < 0 || n < 0 || off > int64(len(m)) || int64(n) > int64(len(m))-off {
		return nil, false
	}
	return m[off : off+int64(n) : off+int64(n)], true
}

// reader is how the scan reads o: its mapping when it has one, else the
// file.
func (o *openFile) reader() io.ReaderAt {
	if o.mapped != nil {
		return o.mapped
	}
	return o.f
}

// mapFiles turns mapping off when false (a test reads files as platforms
// without mmap do).
var mapFiles = true

// mapOpen maps f (size bytes) when the platform and the file allow it;
// nil otherwise.
func mapOpen(f *os.File, size int64) mappedFile {
	if !mapFiles || size <= 0 || int64(int(size)) != size {
		return nil
	}
	b, err := mapFile(f, int(size))
	if err != nil {
		return nil
	}
	return b
}
