// Package tmpfile creates temporary files that a killed process does not
// leave behind.
//
// Create makes a file with os.CreateTemp and unlinks it at once: its user
// reads and writes it through the open descriptor (spools reread, heaps
// memory-mapped), and the system frees it when the descriptor closes,
// whether Close runs or the process is killed. Where an open file cannot
// be unlinked (Windows), the name stays until Close removes it. A file
// that must keep its name (CreateNamed) carries its host and process id,
// and CreateNamed removes those whose process is gone (named.go).
package tmpfile

import (
	"errors"
	"os"
)

// File is an open temporary file without a name (see the package doc).
type File struct {
	*os.File
	// name is the path still to remove at Close ("" when unlinked).
	name string
}

// Create creates a temporary file in dir (os.TempDir when "") named after
// pattern, as os.CreateTemp does, and unlinks it.
func Create(dir, pattern string) (*File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	t := &File{File: f}
	if os.Remove(f.Name()) != nil {
		t.name = f.Name()
	}
	return t, nil
}

// Close closes the file, removing it where it still has a name (also
// when its *os.File was closed directly). A second Close returns
// os.ErrClosed.
func (t *File) Close() error {
	err := t.File.Close()
	if t.name != "" {
		if rerr := os.Remove(t.name); err == nil || errors.Is(err, os.ErrClosed) {
			err = rerr
		}
		t.name = ""
	}
	return err
}
