package pzip

import (
	"fmt"
	"io"
)

// SpoolFile is the file a TempSpool deflates into and reads back: a
// temporary file (internal/tmpfile's, unlinked while open), closed by
// Remove.
type SpoolFile interface {
	io.ReadWriteSeeker
	io.Closer
}

// TempSpool is a Spool over a temporary file of its own: what is written to
// it is deflated by the Writer's workers into the file, and Add puts it into
// the archive as an entry without a second compression.
type TempSpool struct {
	*Spool
	f SpoolFile
}

// NewTempSpool starts a deflating spool over f, which the spool owns:
// Remove closes it, also when NewTempSpool fails.
func (zw *Writer) NewTempSpool(f SpoolFile) (*TempSpool, error) {
	sp, err := zw.NewSpool(f, false)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &TempSpool{Spool: sp, f: f}, nil
}

// Add closes the spool and adds its data to zw as the entry fh.
func (t *TempSpool) Add(zw *Writer, fh *FileHeader) error {
	if err := t.Close(); err != nil {
		return err
	}
	if _, err := t.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrSpool, fh.Name, err)
	}
	return zw.CreateSpooled(fh, t.Spool, t.f)
}

// Remove closes the spool's file (a temporary file is then deleted); safe
// to call more than once.
func (t *TempSpool) Remove() {
	if t != nil && t.f != nil {
		t.f.Close()
		t.f = nil
	}
}
