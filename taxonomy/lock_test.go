package taxonomy

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "load.lock")
	unlock, err := lockDir(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockDir(path); err == nil || !strings.Contains(err.Error(), "another load is running") {
		t.Fatalf("second load's lock: %v, want another load is running", err)
	}
	unlock()
	again, err := lockDir(path)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again()
}
