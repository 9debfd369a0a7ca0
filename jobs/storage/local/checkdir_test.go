package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckDir passes what New can make and write, and names the folder that
// stops it otherwise, changing nothing.
func TestCheckDir(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root, filepath.Join(root, "a", "b", "c")} {
		if err := CheckDir(dir); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "a")); !os.IsNotExist(err) {
		t.Errorf("CheckDir made a folder: %v", err)
	}
	for dir, want := range map[string]string{
		file:                          file + " is not a directory",
		filepath.Join(file, "x", "y"): file + " is not a directory",
		"":                            "empty path",
	} {
		if err := CheckDir(dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", dir, err, want)
		}
	}
	// Permission bits: root writes anywhere, so only another user sees this
	// refused (the read-only mount case needs a mount, and is the system's
	// same access check).
	if os.Geteuid() == 0 {
		return
	}
	locked := filepath.Join(root, "locked")
	if err := os.Mkdir(locked, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(locked); err == nil || !strings.Contains(err.Error(), "archives cannot be written there") {
		t.Errorf("read-only folder: %v", err)
	}
	if err := CheckDir(filepath.Join(locked, "sub")); err == nil || !strings.Contains(err.Error(), "cannot be made in "+locked) {
		t.Errorf("under a read-only folder: %v", err)
	}
}
