package pzip

import (
	"fmt"
	"io"
	"os"
)

// TempSpool is a Spool over a temporary file of its own: what is written to
// it is deflated by the Writer's workers into the file, and Add puts it into
// the archive as an entry without a second compression.
type TempSpool struct {
	*Spool
	f *os.File
}

// NewTempSpool starts a deflating spool over a new temporary file in dir
// named after pattern (os.CreateTemp).
func (zw *Writer) NewTempSpool(dir, pattern string) (*TempSpool, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSpool, err)
	}
	sp, err := zw.NewSpool(f, false)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
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

// Remove deletes the temporary file; safe to call more than once.
func (t *TempSpool) Remove() {
	if t != nil && t.f != nil {
		t.f.Close()
		os.Remove(t.f.Name())
		t.f = nil
	}
}
