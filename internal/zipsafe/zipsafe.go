// Package zipsafe holds the checks every reader of untrusted input in the
// project applies (Darwin Core Archives, ABCD documents and archives,
// downloads): zip entry names, and size caps counted on the bytes as they
// stream (TooLargeError, matching ErrTooLarge).
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

// HiddenElement reports whether one element of a path names something
// archive readers pass over: dot-files and dot-folders, and the __MACOSX
// folder of resource forks macOS adds to zips (in any case).
func HiddenElement(elem string) bool {
	return strings.HasPrefix(elem, ".") || strings.EqualFold(elem, "__MACOSX")
}

// Hidden reports whether any element of a slash-separated entry name is
// hidden (HiddenElement).
func Hidden(name string) bool {
	for elem := range strings.SplitSeq(name, "/") {
		if elem != "" && HiddenElement(elem) {
			return true
		}
	}
	return false
}
