package taxonomy

import (
	"fmt"

	"github.com/gofrs/flock"
)

// lockDir takes the directory's load lock (a file lock, across processes),
// failing if another load holds it. A crashed load's lock goes with its
// process.
func lockDir(path string) (unlock func(), err error) {
	l := flock.New(path, flock.SetPermissions(0o644))
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("taxonomy: lock %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("taxonomy: %s: another load is running", path)
	}
	return func() { l.Unlock() }, nil
}
