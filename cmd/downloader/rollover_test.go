package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// zipEntries returns each entry of an archive as its lines, sorted (a
// rollover changes the order of the records, nothing else).
func zipEntries(t *testing.T, path string) map[string][]string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string][]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		lines := strings.Split(string(b), "\n")
		slices.Sort(lines)
		out[f.Name] = lines
	}
	return out
}

// TestRolloverCommand: `downloader rollover` merges the table's datasets
// and prints what it did; a DWCA download of the whole table has the same
// files with the same lines before and after (but for the metadata, which
// names the snapshot), and a second rollover has nothing to do.
func TestRolloverCommand(t *testing.T) {
	table := exportTable(t)
	dir := t.TempDir()
	export := func(name string) map[string][]string {
		path := filepath.Join(dir, name)
		runCmd(t, "export", "--table", table, "--format", "DWCA", "--key", "dl1", "-o", path)
		return zipEntries(t, path)
	}
	before := export("before.zip")
	out, _ := runCmd(t, "rollover", "--table", table, "--keep-for", "0", "--keep-snapshots", "1")
	for _, want := range []string{"snapshot 2 -> 3", "files       2 -> 1", "row groups  12 -> 1", "600; 600 rewritten", "2 datasets merged", "retired     2 snapshots [1 2]: 2 directories"} {
		if !strings.Contains(out, want) {
			t.Errorf("rollover printed\n%s\nwant %q in it", out, want)
		}
	}
	after := export("after.zip")
	if len(after) != len(before) || len(before) < 5 {
		t.Fatalf("archive entries %d after, %d before", len(after), len(before))
	}
	for name, lines := range before {
		if name == "metadata.xml" {
			continue
		}
		if !slices.Equal(after[name], lines) {
			t.Errorf("%s differs after the rollover", name)
		}
	}
	js, _ := runCmd(t, "rollover", "--table", table, "--json")
	var rep parquet.RolloverReport
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("--json printed %q: %v", js, err)
	}
	if rep.Before != "3" || rep.After != "3" || rep.RowsRewritten != 0 || rep.FilesAfter != 1 {
		t.Errorf("a second rollover reported %+v, want nothing done", rep)
	}
}

func TestRolloverCommandErrors(t *testing.T) {
	table := exportTable(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rollover"}, "no table"},
		{[]string{"rollover", "--table", t.TempDir(), "--snapshot-dir", t.TempDir()}, "--snapshot-dir is for an HBase --table"},
		{[]string{"rollover", "--table", "hbase://127.0.0.1:1/t"}, "needs --snapshot-dir"},
		{[]string{"serve", "--db", "sqlite:" + filepath.Join(t.TempDir(), "jobs.db"), "--table", table, "--export-table", t.TempDir()}, "holds no snapshot"},
	} {
		var errb bytes.Buffer
		env := &Env{Stdout: io.Discard, Stderr: &errb, Logger: slog.New(slog.DiscardHandler)}
		if code := run(context.Background(), c.args, env); code == 0 {
			t.Errorf("%v succeeded", c.args)
		}
		if stderr := errb.String(); !strings.Contains(stderr, c.want) {
			t.Errorf("%v: %q, want %q", c.args, stderr, c.want)
		}
	}
}
