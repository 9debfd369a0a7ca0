package local

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
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
	// Permission bits: root writes anywhere, so as root (the full test
	// command runs as root) this part runs again in a copy of the test
	// binary as nobody. The read-only mount case needs a mount, and is the
	// system's same access check.
	if os.Geteuid() == 0 {
		runAsNobody(t, "^TestCheckDir$")
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

// runAsNobody runs the tests matching run in a copy of this test binary as
// the user nobody (setpriv, util-linux), failing when they fail.
func runAsNobody(t *testing.T, run string) {
	setpriv := testenv.Tool(t, "setpriv", "util-linux; runs the permission case as a user other than root")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A folder nobody may enter, holding a binary nobody may run: the test
	// binary's own folder is root's.
	dir, err := os.MkdirTemp("", "checkdir-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "local.test")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin, "-test.run", run, "-test.v")
	cmd.Dir = os.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestCheckDir") {
		t.Errorf("as nobody: %v\n%s", err, out)
	}
}
