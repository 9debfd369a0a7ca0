package local

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
)

func TestUploadVisibleOnlyAfterCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	up, err := s.Create(ctx, "a.zip", jobs.File{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(up, "partial"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(ctx, "a.zip"); !errors.Is(err, jobs.ErrNotFound) {
		t.Fatalf("open before commit: %v", err)
	}
	if _, err := io.WriteString(up, " and the rest"); err != nil {
		t.Fatal(err)
	}
	if err := up.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := up.Abort(ctx); err != nil { // no-op after commit
		t.Fatal(err)
	}
	o, err := s.Open(ctx, "a.zip")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(o.Content)
	o.Content.Close()
	if string(b) != "partial and the rest" || o.Size != int64(len(b)) {
		t.Fatalf("content %q size %d", b, o.Size)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries", len(entries))
	}
	st, err := os.Stat(filepath.Join(dir, "a.zip"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode() != archivePerm {
		t.Fatalf("archive mode %v, want %v", st.Mode(), os.FileMode(archivePerm))
	}
	if err := s.Delete(ctx, "a.zip"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "a.zip"); err != nil {
		t.Fatalf("deleting a missing object: %v", err)
	}
}

func TestAbortAndSweep(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	create := func(name, content string) jobs.Upload {
		t.Helper()
		up, err := s.Create(ctx, name, jobs.File{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(up, content); err != nil {
			t.Fatal(err)
		}
		return up
	}
	if err := create("b.zip", "x").Abort(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, dir); n != 0 {
		t.Fatalf("aborted upload left %d entries", n)
	}
	// A writer killed mid-upload leaves its temporary file: Sweep removes it
	// once it is old enough, and never touches committed archives.
	create("c.zip", "y")
	if err := create("d.zip", "z").Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// and so did one killed before uploads were named as atomicfile names them
	if err := os.WriteFile(filepath.Join(dir, ".partial-e.zip-123"), []byte("e"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Sweep(ctx, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, dir); n != 3 {
		t.Fatalf("young partial swept: %d entries", n)
	}
	if err := s.Sweep(ctx, time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "d.zip" {
		t.Fatalf("after sweep: %v", entries)
	}
	for _, bad := range []string{"", "../x", ".hidden", "a/b"} {
		if _, err := s.Create(ctx, bad, jobs.File{}); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
}

func count(t *testing.T, dir string) int {
	t.Helper()
	e, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(e)
}

// TestAbortUploads: the unfinished uploads of one download's attempts go,
// other downloads' uploads and committed archives stay; Check sees the
// directory vanish.
func TestAbortUploads(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"0000001-261130010203004-1.zip", "0000001-261130010203004-2.zip", "0000002-261130010203004-1.zip"} {
		up, err := s.Create(ctx, name, jobs.File{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(up, "partial"); err != nil {
			t.Fatal(err)
		}
	}
	done, err := s.Create(ctx, "0000001-261130010203004-0.zip", jobs.File{})
	if err != nil {
		t.Fatal(err)
	}
	if err := done.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.AbortUploads(ctx, "0000001-261130010203004-"); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if len(left) != 2 || left[0][:len(".0000002-")] != ".0000002-" || left[1] != "0000001-261130010203004-0.zip" {
		t.Fatalf("left %v", left)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadDir(dir); len(after) != len(entries) {
		t.Fatalf("Check left a file: %d entries, %d before", len(after), len(entries))
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err == nil {
		t.Fatal("Check passed without the directory")
	}
}

// TestCheckNeedsAWritableDirectory: a directory that takes no file (here
// /proc/self, which even root cannot write to, as a volume gone read-only
// or full) fails the check, so the readiness probe reports it.
func TestCheckNeedsAWritableDirectory(t *testing.T) {
	if st, err := os.Stat("/proc/self"); err != nil || !st.IsDir() {
		t.Skip("no /proc/self to stand for a read-only directory")
	}
	s := &Store{dir: "/proc/self"}
	if err := s.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "takes no file") {
		t.Fatalf("Check of a directory that takes no file: %v", err)
	}
}
