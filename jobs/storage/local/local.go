// Package local stores download archives in a local directory. An upload is
// written to a hidden temporary file in the same directory, synced, and
// renamed into place on Commit, so a reader never sees a partial archive even
// when the writing process is killed.
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

	"github.com/biodiversity-downloads/downloader/jobs"
)

const partialPrefix = ".partial-"

// Store is a directory of archives.
type Store struct{ dir string }

var _ jobs.Storage = (*Store)(nil)

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
func (s *Store) Create(ctx context.Context, name string) (jobs.Upload, error) {
	final, err := s.path(name)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(s.dir, partialPrefix+name+"-*")
	if err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	return &upload{f: f, final: final}, nil
}

type upload struct {
	f     *os.File
	final string
	done  bool
}

func (u *upload) Write(p []byte) (int, error) { return u.f.Write(p) }

func (u *upload) Commit(ctx context.Context) error {
	if err := u.f.Sync(); err != nil {
		return u.fail(err)
	}
	if err := u.f.Close(); err != nil {
		return u.fail(err)
	}
	if err := os.Rename(u.f.Name(), u.final); err != nil {
		return u.fail(err)
	}
	u.done = true
	if d, err := os.Open(filepath.Dir(u.final)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

func (u *upload) fail(err error) error {
	_ = u.Abort(context.Background())
	return fmt.Errorf("storage: commit %s: %w", filepath.Base(u.final), err)
}

func (u *upload) Abort(ctx context.Context) error {
	if u.done {
		return nil
	}
	u.done = true
	_ = u.f.Close()
	if err := os.Remove(u.f.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
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

// Sweep removes temporary files left by killed writers.
func (s *Store) Sweep(ctx context.Context, olderThan time.Time) error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), partialPrefix) {
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
