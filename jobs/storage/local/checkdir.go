package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CheckDir says, without changing anything, whether New(dir) can make dir
// and the service can write archives there: dir is a directory the process
// may write, or the nearest folder above it that exists is one it may
// write (New creates the rest). The write test is the system's access
// check (writable reports it), which also refuses a read-only mount.
func CheckDir(dir string) error {
	if dir == "" {
		return errors.New("storage directory: empty path")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("storage directory %s: %w", dir, err)
	}
	for p := abs; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		switch {
		case (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) && p != filepath.Dir(p):
			continue // not there, or under a file: the folder above says which
		case err != nil:
			return fmt.Errorf("storage directory %s: %w", dir, err)
		case !st.IsDir():
			return fmt.Errorf("storage directory %s: %s is not a directory", dir, p)
		}
		if err := writable(p); err != nil {
			if p == abs {
				return fmt.Errorf("storage directory %s: archives cannot be written there: %w", dir, err)
			}
			return fmt.Errorf("storage directory %s does not exist and cannot be made in %s: %w", dir, p, err)
		}
		return nil
	}
}
