//go:build !unix

package taxonomy

import (
	"io"
	"os"
)

// mapFile reads the whole file where memory maps are not available.
func mapFile(f *os.File) (data []byte, unmap func() error, err error) {
	data, err = io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}
