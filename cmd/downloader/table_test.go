package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
)

// runCode runs a command line and returns its exit code and output.
func runCode(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Logger: slog.New(slog.DiscardHandler)}
	code = run(context.Background(), args, env)
	return code, out.String(), errb.String()
}

// Only ingest creates a table: count, export and serve on a missing
// directory (or one holding no table) fail naming it, print no count and
// create nothing.
func TestReadCommandsNeedATable(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such", "dir")
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	for _, table := range []string{missing, empty} {
		for _, args := range [][]string{
			{"count", "--table", table},
			{"export", "--table", table, "--format", "SIMPLE_CSV", "-o", filepath.Join(dir, "out.zip")},
			{"serve", "--table", table, "--db", "sqlite:" + filepath.Join(dir, "jobs.db"), "--storage", filepath.Join(dir, "files"), "--listen", "127.0.0.1:0"},
		} {
			code, stdout, stderr := runCode(args...)
			if code != 1 || stdout != "" || !strings.Contains(stderr, table+": no occurrence table") {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and an error naming %s", strings.Join(args, " "), code, stdout, stderr, table)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); !os.IsNotExist(err) {
		t.Errorf("a read command created %s (%v)", missing, err)
	}
	if left, _ := os.ReadDir(empty); len(left) != 0 {
		t.Errorf("a read command wrote into %s: %v", empty, left)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.zip")); !os.IsNotExist(err) {
		t.Errorf("export wrote an archive of a missing table (%v)", err)
	}
	// ingest creates the table; count then reads it
	table := filepath.Join(dir, "new", "table")
	runCmd(t, "ingest", "--table", table, "testdata/export/gbif-validator-Archive.zip")
	if out, _ := runCmd(t, "count", "--table", table); strings.TrimSpace(out) == "0" || out == "" {
		t.Errorf("count after ingest printed %q", out)
	}
}

// A predicate file is read up to its cap, as stdin is: a larger one (or an
// endless one) fails naming the file and the cap.
func TestPredicateFileCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.json")
	f, _ := os.Create(p)
	f.WriteString(`{"type":"equals","key":"COUNTRY","value":"DK"}`)
	f.Write(bytes.Repeat([]byte(" "), maxPredicateBytes))
	f.Close()
	code, _, stderr := runCode("count", "--table", t.TempDir(), "--predicate", p)
	if code != 1 || !strings.Contains(stderr, p+": predicate document larger than the limit of 16 MiB") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// count and export on a missing HBase table fail naming it, and create
// nothing (the second count finds it missing too).
func TestReadCommandsNeedAnHBaseTable(t *testing.T) {
	master := testenv.HBaseMaster(t)
	table := fmt.Sprintf("hbase://%s/no_such_table_%d", master, time.Now().UnixNano()%1e9)
	for _, args := range [][]string{
		{"count", "--table", table},
		{"export", "--table", table, "--format", "SIMPLE_CSV", "-o", filepath.Join(t.TempDir(), "out.zip")},
		{"count", "--table", table},
	} {
		code, stdout, stderr := runCode(args...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, "no occurrence table") || !strings.Contains(stderr, table[strings.LastIndex(table, "/")+1:]) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}
