// Package zipsafe holds the checks every reader of untrusted zip archives in
// the project applies (Darwin Core Archives, ABCD archives).
package zipsafe

import (
	"fmt"
	"strings"
)

// CheckName rejects an entry name that is absolute (Unix or Windows) or
// climbs out of the archive with "..": unpacking it would write outside the
// destination. Callers wrap the error with their own kind.
func CheckName(name string) error {
	n := strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(n, "/") || (len(n) > 1 && n[1] == ':') {
		return fmt.Errorf("entry %q has an absolute path", name)
	}
	for _, seg := range strings.Split(n, "/") {
		if seg == ".." {
			return fmt.Errorf("entry %q climbs out of the archive (..)", name)
		}
	}
	return nil
}
