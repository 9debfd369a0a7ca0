//go:build unix

package local

import "golang.org/x/sys/unix"

// writable asks the system whether the process may create files in dir
// (access(2) with W_OK and X_OK: permissions and read-only mounts).
func writable(dir string) error {
	return unix.Access(dir, unix.W_OK|unix.X_OK)
}
