// Package readers runs third-party archive readers (Info-ZIP unzip, 7-Zip,
// Python zipfile, python-dwca-reader, DuckDB, pyarrow, R's data.table,
// GDAL) over files the project writes, for tests. A missing reader skips
// the test with a one-line reason, or fails it when CI=true (the full test
// command installs them with scripts/ci/export-readers.sh).
package readers

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
)

// Require returns the path of tool, skipping (or failing under CI=true) the
// test when it is not installed.
func Require(t testing.TB, tool string) string {
	t.Helper()
	return testenv.Tool(t, tool, "scripts/ci/export-readers.sh installs it")
}

// RequirePython checks that python3 can import every module.
func RequirePython(t testing.TB, modules ...string) {
	t.Helper()
	Require(t, "python3")
	for _, m := range modules {
		if err := exec.Command("python3", "-c", "import "+m).Run(); err != nil {
			testenv.Missing(t, "python module "+m+" not installed (scripts/ci/export-readers.sh installs it)")
		}
	}
}

// Run runs a command with a timeout and returns its combined output, failing
// the test when it exits non-zero.
func Run(t testing.TB, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		s := out.String()
		if len(s) > 4000 {
			s = s[:2000] + "\n...\n" + s[len(s)-2000:]
		}
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, s)
	}
	return out.String()
}

// Python runs a python3 script with arguments and returns its output.
func Python(t testing.TB, timeout time.Duration, script string, args ...string) string {
	t.Helper()
	return Run(t, timeout, "python3", append([]string{"-c", script}, args...)...)
}

// pyTestZip checks every entry's CRC with Python's zipfile and prints the
// entry count.
const pyTestZip = `
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    if bad is not None:
        sys.exit("bad entry: " + bad)
    print(len(z.infolist()))
`

// Verify checks the archive at path with unzip -t, Python zipfile.testzip
// and 7z t, and returns the entry count Python saw.
func Verify(t testing.TB, path string, timeout time.Duration) int {
	t.Helper()
	Require(t, "unzip")
	Require(t, "7z")
	RequirePython(t, "zipfile")
	out := Run(t, timeout, "unzip", "-tqq", path)
	if strings.TrimSpace(out) != "" && !strings.Contains(out, "No errors detected") {
		t.Fatalf("unzip -t %s: %s", path, out)
	}
	out = Run(t, timeout, "7z", "t", "-bd", path)
	if !strings.Contains(out, "Everything is Ok") {
		t.Fatalf("7z t %s: %s", path, out)
	}
	out = strings.TrimSpace(Python(t, timeout, pyTestZip, path))
	var n int
	for _, c := range out {
		if c < '0' || c > '9' {
			t.Fatalf("python zipfile %s: %s", path, out)
		}
		n = n*10 + int(c-'0')
	}
	return n
}
