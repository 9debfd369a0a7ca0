//go:build !unix

package local

// writable cannot ask the system on this platform; the readiness check's
// probe file finds an unwritable directory once the service runs.
func writable(string) error { return nil }
