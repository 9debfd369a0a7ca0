//go:build unix

package taxonomy

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps a file read-only; unmap releases it. The mapping stays
// valid after the file is closed, renamed or removed.
func mapFile(f *os.File) (data []byte, unmap func() error, err error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if size == 0 {
		return nil, func() error { return nil }, nil
	}
	if size != int64(int(size)) {
		return nil, nil, fmt.Errorf("taxonomy: %s: too large to map", f.Name())
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("taxonomy: map %s: %w", f.Name(), err)
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
