//go:build !unix

package taxonomy

import (
	"fmt"
	"os"
)

// lockDir takes the directory's load lock by creating it exclusively.
func lockDir(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("taxonomy: %s: another load is running, or a crashed one left it (%w)", path, err)
	}
	return func() { f.Close(); os.Remove(path) }, nil
}
