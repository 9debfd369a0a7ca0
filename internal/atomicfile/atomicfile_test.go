package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name()
	}
	return names
}

// content reads path, failing the test if it cannot.
func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTargetAppearsOnlyOnCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.zip")
	f, err := Create(path, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, "first half, "); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f.Temp(), "second half"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("target before Commit: %v", err)
	}
	names := entries(t, dir)
	if len(names) != 1 || !IsTemp(names[0]) || !strings.HasPrefix(names[0], ".a.zip.") {
		t.Fatalf("while writing the directory holds %v, want one temporary file for a.zip", names)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := content(t, path); got != "first half, second half" {
		t.Errorf("content %q", got)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode() != 0o640 {
		t.Errorf("mode %v, want -rw-r-----", st.Mode())
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "a.zip" {
		t.Errorf("after Commit the directory holds %v", names)
	}
	if err := f.Abort(); err != nil { // nothing to do after Commit
		t.Fatal(err)
	}
	if got := content(t, path); got != "first half, second half" {
		t.Errorf("Abort after Commit changed the content to %q", got)
	}
	if err := f.Commit(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("second Commit: %v", err)
	}
}

func TestReplaceExisting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest.json")
	if err := os.WriteFile(path, []byte("old and longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := content(t, path); got != "new" {
		t.Errorf("content %q", got)
	}
	if st, err := os.Stat(path); err != nil || st.Mode() != 0o644 {
		t.Errorf("mode %v (%v), want -rw-r--r--", st.Mode(), err)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v", names)
	}
}

func TestAbortKeepsTarget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.zip")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, "new"); err != nil {
		t.Fatal(err)
	}
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := f.Abort(); err != nil {
		t.Fatalf("second Abort: %v", err)
	}
	if err := f.Commit(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Commit after Abort: %v", err)
	}
	if got := content(t, path); got != "old" {
		t.Errorf("content %q", got)
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "a.zip" {
		t.Errorf("directory holds %v", names)
	}
}

func TestWriteFileErrorKeepsTarget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "heap.prof")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFile(path, 0o600, func(w io.Writer) error {
		io.WriteString(w, "half of the new")
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v, want boom naming %s", err, path)
	}
	if got := content(t, path); got != "old" {
		t.Errorf("content %q", got)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v", names)
	}
}

// A writer that dies before Commit (its descriptor closed by the kernel)
// leaves the target as it was and a temporary file IsTemp recognises.
func TestCrashBeforeCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.zip")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, "new, never committed"); err != nil {
		t.Fatal(err)
	}
	f.Temp().Close()
	if got := content(t, path); got != "old" {
		t.Errorf("content %q", got)
	}
	var temps []string
	for _, n := range entries(t, dir) {
		if IsTemp(n) {
			temps = append(temps, n)
		}
	}
	if len(temps) != 1 {
		t.Fatalf("temporary files %v, want the dead writer's one", temps)
	}
	if got := content(t, filepath.Join(dir, temps[0])); got != "new, never committed" {
		t.Errorf("temporary file holds %q", got)
	}
}

// A failed rename (the target is a non-empty directory) removes the
// temporary file and leaves the target alone.
func TestCommitFailureRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.zip")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "x")
	err = f.Commit()
	var le *os.LinkError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "commit "+path+":") {
		t.Fatalf("Commit over a directory: %v", err)
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "a.zip" {
		t.Errorf("directory holds %v", names)
	}
	if names := entries(t, path); len(names) != 1 || names[0] != "inside" {
		t.Errorf("target directory holds %v", names)
	}
	if err := f.Abort(); err != nil {
		t.Errorf("Abort after a failed Commit: %v", err)
	}
}

// The directory is fsynced after the rename (when the new name is there to
// be made durable), and a failure to do so is Commit's error.
func TestCommitSyncsDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.zip")
	var synced []string
	fail := errors.New("directory fsync failed")
	old := syncDir
	t.Cleanup(func() { syncDir = old })
	syncDir = func(d string) error {
		got, err := os.ReadFile(path)
		if err != nil || string(got) != "data" {
			t.Errorf("directory synced before the rename: %q, %v", got, err)
		}
		synced = append(synced, d)
		if err := old(d); err != nil { // the real one works on this directory
			t.Errorf("sync %s: %v", d, err)
		}
		return fail
	}
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "data")
	if err := f.Commit(); !errors.Is(err, fail) || !strings.Contains(err.Error(), path) {
		t.Errorf("Commit: %v, want the directory's fsync error naming %s", err, path)
	}
	if len(synced) != 1 || synced[0] != dir {
		t.Errorf("directories synced %v, want [%s]", synced, dir)
	}
}

// The real directory fsync reports a directory it cannot open.
func TestSyncDirMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	if err := syncDir(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("sync of a missing directory: %v", err)
	}
}

func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "a.zip")
	if _, err := Create(missing, 0o644); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Create in a missing directory: %v", err)
	}
	for _, p := range []string{"", ".", "/", ".."} {
		if f, err := Create(p, 0o644); err == nil {
			f.Abort()
			t.Errorf("Create(%q) accepted", p)
		}
	}
	// a relative name is created in the working directory's sense of it
	t.Chdir(dir)
	if err := WriteFile("rel.txt", 0o644, func(w io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "rel.txt")); err != nil {
		t.Error(err)
	}
}

func TestIsTemp(t *testing.T) {
	for name, want := range map[string]bool{
		".a.zip.123.part":       true,
		".manifest.json.0.part": true,
		".a.zip..part":          false, // no random digits
		"..123.part":            false, // no target name
		".a.zip.12x.part":       false,
		"a.zip.123.part":        false, // not hidden
		".a.zip.123":            false,
		".partial-a.zip-123":    false,
		"a.zip":                 false,
	} {
		if got := IsTemp(name); got != want {
			t.Errorf("IsTemp(%q) = %v", name, got)
		}
	}
	// and it recognises what Create makes
	f, err := Create(filepath.Join(t.TempDir(), "x.y"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	if name := filepath.Base(f.Temp().Name()); !IsTemp(name) {
		t.Errorf("IsTemp(%q) = false for Create's own file", name)
	}
}
