//go:build !unix

package parquet

import (
	"errors"
	"os"
)

// mapFile is not used on this platform: files are read with ReadAt.
func mapFile(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) error { return nil }
