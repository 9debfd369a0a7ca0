package tmpfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCreateLeavesNoName writes and rereads a temporary file through its
// descriptor while the directory shows no entry for it (where the system
// unlinks open files), and finds the directory empty after Close.
func TestCreateLeavesNoName(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(dir, "spool-*")
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	if runtime.GOOS == "windows" {
		named = 1
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "spool-*")); len(m) != named {
		t.Fatalf("entries while open: %v, want %d", m, named)
	}
	want := bytes.Repeat([]byte("occurrence\t"), 10_000)
	if _, err := f.Write(want); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read back %d bytes, wrote %d", len(got), len(want))
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("second Close: %v, want os.ErrClosed", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Fatalf("left behind: %v", m)
	}
}

// TestKilledProcessLeavesNothing kills a child process (this test binary)
// that holds a temporary file open and checks that its directory is empty.
func TestKilledProcessLeavesNothing(t *testing.T) {
	if dir := os.Getenv("TMPFILE_CHILD_DIR"); dir != "" {
		f, err := Create(dir, "spool-*")
		if err != nil {
			os.Exit(2)
		}
		f.Write([]byte("held"))
		os.Stdout.WriteString("ready\n")
		select {} // killed by the parent
	}
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps the name of an open file")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledProcessLeavesNothing$")
	cmd.Env = append(os.Environ(), "TMPFILE_CHILD_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 6)
	if _, err := io.ReadFull(out, line); err != nil || !strings.HasPrefix(string(line), "ready") {
		cmd.Process.Kill()
		t.Fatalf("child did not start: %q %v", line, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Fatalf("a killed process left %v", m)
	}
}

// TestSweepDead checks that sweepDead removes the named files of a process
// that exited and keeps those of this process, of a running one, of
// another host and of other prefixes.
func TestSweepDead(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process liveness is not checked on Windows")
	}
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^$")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	dead := child.Process.Pid
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { live.Process.Kill(); live.Wait() }()
	mine, err := CreateNamed(dir, "dwca", ".download")
	if err != nil {
		t.Fatal(err)
	}
	mine.Close()
	if !strings.HasPrefix(filepath.Base(mine.Name()), fmt.Sprintf("dwca-%s-%d-", hostTag(), os.Getpid())) {
		t.Fatalf("named %s", mine.Name())
	}
	orphan := fmt.Sprintf("dwca-%s-%d-123.download", hostTag(), dead)
	keep := []string{
		filepath.Base(mine.Name()),
		fmt.Sprintf("dwca-otherhost-%d-1.download", dead), // another host's process
		fmt.Sprintf("abcd-%s-%d-1.zip", hostTag(), dead),  // another prefix
		fmt.Sprintf("dwca-%s-notapid-1.download", hostTag()),
		fmt.Sprintf("dwca-%s-%d-1.download", hostTag(), live.Process.Pid), // a running process
	}
	for _, n := range append([]string{orphan}, keep[1:]...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := sweepDead(dir, "dwca"); len(got) != 1 || got[0] != orphan {
		t.Fatalf("swept %v, want [%s]", got, orphan)
	}
	for _, n := range keep {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if got := sweepDead(dir, "dwca"); len(got) != 0 {
		t.Fatalf("second sweep removed %v", got)
	}
}
