// Package local stores download archives in a local directory. An upload is
// written to a hidden temporary file in the same directory and moved into
// place durably on Commit (internal/atomicfile), so a reader never sees a
// partial archive even when the writing process is killed.
package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
	"github.com/biodiversity-downloads/downloader/jobs"
)

// legacyPartialPrefix began the temporary files of uploads before they were
// atomicfile's; Sweep still removes those a killed writer left.
const legacyPartialPrefix = ".partial-"

// archivePerm is a committed archive's mode: only the service reads it.
const archivePerm = 0o600

// Store is a directory of archives.
type Store struct{ dir string }

var (
	_ jobs.Storage        = (*Store)(nil)
	_ jobs.StorageChecker = (*Store)(nil)
	_ jobs.UploadAborter  = (*Store)(nil)
)

// New returns a Store in dir, creating it.
func New(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("storage directory: %w", err)
	}
	return &Store{dir: dir}, nil
}

func (s *Store) path(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return "", fmt.Errorf("storage: bad object name %q", name)
	}
	return filepath.Join(s.dir, name), nil
}

// Create starts a temporary file for name.
func (s *Store) Create(ctx context.Context, name string, _ jobs.File) (jobs.Upload, error) {
	final, err := s.path(name)
	if err != nil {
		return nil, err
	}
	f, err := atomicfile.Create(final, archivePerm)
	if err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	return &upload{f: f}, nil
}

type upload struct{ f *atomicfile.File }

func (u *upload) Write(p []byte) (int, error) { return u.f.Write(p) }

func (u *upload) Commit(ctx context.Context) error {
	if err := u.f.Commit(); err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}

func (u *upload) Abort(ctx context.Context) error {
	if err := u.f.Abort(); err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}

// Open opens a committed archive.
func (s *Store) Open(ctx context.Context, name string) (jobs.Object, error) {
	p, err := s.path(name)
	if err != nil {
		return jobs.Object{}, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return jobs.Object{}, fmt.Errorf("%w: %s", jobs.ErrNotFound, name)
	}
	if err != nil {
		return jobs.Object{}, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return jobs.Object{}, err
	}
	return jobs.Object{Content: f, Size: st.Size(), ModTime: st.ModTime()}, nil
}

// Check reports whether the directory is there and takes a file
// (jobs.StorageChecker): a byte is written to a temporary file, named as
// the sweep collects them, and the file removed, so that a volume gone
// read-only or full fails the readiness check instead of every download.
func (s *Store) Check(ctx context.Context) error {
	st, err := os.Stat(s.dir)
	if err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("storage: %s is not a directory", s.dir)
	}
	f, err := atomicfile.CreateTemp(s.dir, "readyz")
	if err != nil {
		return fmt.Errorf("storage: %s takes no file: %w", s.dir, err)
	}
	_, werr := f.Write([]byte{0})
	cerr := f.Close()
	rerr := os.Remove(f.Name())
	if err := errors.Join(werr, cerr, rerr); err != nil {
		return fmt.Errorf("storage: %s takes no file: %w", s.dir, err)
	}
	return nil
}

// Delete removes an archive.
func (s *Store) Delete(ctx context.Context, name string) error {
	p, err := s.path(name)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// AbortUploads removes the temporary files of unfinished uploads of the
// objects whose names begin with prefix (jobs.UploadAborter).
func (s *Store) AbortUploads(ctx context.Context, prefix string) error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !atomicfile.IsTemp(e.Name()) || !strings.HasPrefix(e.Name(), "."+prefix) {
			continue
		}
		if err := os.Remove(filepath.Join(s.dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Sweep removes temporary files left by killed writers.
func (s *Store) Sweep(ctx context.Context, olderThan time.Time) error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !atomicfile.IsTemp(e.Name()) && !strings.HasPrefix(e.Name(), legacyPartialPrefix) {
			continue
		}
		info, err := e.Info()
		if err != nil || info.ModTime().After(olderThan) {
			continue
		}
		if err := os.Remove(filepath.Join(s.dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
