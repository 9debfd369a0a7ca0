// Package atomicfile owns the project's one way of replacing a file durably:
// a hidden temporary file beside the target, fsynced, renamed over the target,
// and the directory fsynced.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tempSuffix ends every temporary file's name; IsTemp recognises them.
const tempSuffix = ".part"

// File is a file being written under a temporary name beside its target. A
// reader of the target sees the old content (or none) until Commit, and the
// whole new content after it, also when the writing process is killed or the
// machine loses power in between.
type File struct {
	f    *os.File
	path string
	perm os.FileMode
	done bool // Commit or Abort ran
}

// Create starts a temporary file for path in path's directory, named
// ".NAME.RANDOM.part" after path's base name NAME. Commit gives it mode perm
// (exactly, not masked by the umask); until then only its owner can read it.
func Create(path string, perm os.FileMode) (*File, error) {
	path = filepath.Clean(path)
	dir, base := filepath.Split(path)
	if base == "" || base == "." || base == ".." {
		return nil, fmt.Errorf("create %s: not a file name", path)
	}
	if dir == "" {
		dir = "."
	}
	f, err := CreateTemp(dir, base)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{f: f, path: path, perm: perm}, nil
}

// CreateTemp creates a temporary file in dir named after base as IsTemp
// recognises them, so that a sweep of files left by killed processes
// collects it.
func CreateTemp(dir, base string) (*os.File, error) {
	return os.CreateTemp(dir, "."+base+".*"+tempSuffix)
}

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) { return f.f.Write(p) }

// Temp returns the temporary file itself, for writers that need its
// descriptor. Closing, renaming or removing it is left to Commit and Abort.
func (f *File) Temp() *os.File { return f.f }

// Commit makes the written content the target's: it sets the file's mode,
// fsyncs and closes it, renames it over the target and fsyncs the directory.
// If it fails before the rename, the temporary file is removed and the
// target is unchanged; a failure of the directory's fsync is reported with
// the target already replaced. Commit may be called once, and not after
// Abort.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("commit %s: %w", f.path, fs.ErrClosed)
	}
	f.done = true
	tmp := f.f.Name()
	if err := f.f.Chmod(f.perm); err != nil {
		return f.fail(err)
	}
	if err := f.f.Sync(); err != nil {
		return f.fail(err)
	}
	if err := f.f.Close(); err != nil {
		return f.fail(err)
	}
	if err := os.Rename(tmp, f.path); err != nil {
		return f.fail(err)
	}
	if err := syncDir(filepath.Dir(f.path)); err != nil {
		return fmt.Errorf("commit %s: %w", f.path, err)
	}
	return nil
}

// fail removes the temporary file after a failed Commit and wraps err.
func (f *File) fail(err error) error {
	_ = f.f.Close() // may already be closed
	_ = os.Remove(f.f.Name())
	return fmt.Errorf("commit %s: %w", f.path, err)
}

// Abort closes and removes the temporary file, leaving the target as it
// was. It may be called more than once, and after Commit, where it does
// nothing.
func (f *File) Abort() error {
	if f.done {
		return nil
	}
	f.done = true
	_ = f.f.Close()
	if err := os.Remove(f.f.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("abort %s: %w", f.path, err)
	}
	return nil
}

// WriteFile replaces path with what write writes, with mode perm: the target
// has either its old content or all of the new, never part of it. On an
// error of write the target is unchanged.
func WriteFile(path string, perm os.FileMode, write func(w io.Writer) error) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		_ = f.Abort()
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return f.Commit()
}

// IsTemp reports whether name (a base name) is that of a temporary file
// Create made, left behind by a writer that neither committed nor aborted
// it (a killed process, say) or still being written.
func IsTemp(name string) bool {
	rest, ok := strings.CutSuffix(name, tempSuffix)
	if !ok || !strings.HasPrefix(rest, ".") {
		return false
	}
	i := strings.LastIndexByte(rest, '.')
	if i < 2 || i == len(rest)-1 { // ".NAME." with NAME non-empty, then the random digits
		return false
	}
	for _, c := range rest[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// syncDir fsyncs directory dir, making a rename in it durable; a variable so
// that tests can observe and fail it.
var syncDir = func(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	return nil
}
