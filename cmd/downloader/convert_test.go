package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
)

// abcdSamples are the real ABCD documents of the abcd package's testdata.
func abcdSamples(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"*.xml", "*.abcda"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "abcd", "testdata", pat))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) != 15 {
		t.Fatalf("found %d ABCD samples, want 15", len(out))
	}
	return out
}

func runConvertCmd(args ...string) (code int, stdout, stderr string) {
	return runCommand("convert", args...)
}

// runCommand runs a subcommand with captured output.
func runCommand(name string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Logger: slog.New(slog.DiscardHandler)}
	code = run(context.Background(), append([]string{name}, args...), env)
	return code, out.String(), errb.String()
}

func TestConvertABCD(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.zip")
	// flags after the inputs work too
	code, stdout, stderr := runConvertCmd(append(append([]string{"--from", "abcd"}, abcdSamples(t)...), "-o", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "converted 652 units from 15 documents (0 failed, 9 dropped by the provider)") {
		t.Errorf("summary %q", stdout)
	}
	if st, err := os.Stat(out); err != nil {
		t.Error(err)
	} else if st.Mode() != 0o644 {
		t.Errorf("archive mode %v, want -rw-r--r--", st.Mode())
	}
	// The archive's content is abcd.WriteArchive's (tested there): here,
	// that the command wrote all of it.
	lines := zipLines(t, out)
	for name, n := range map[string]int{"occurrence.txt": 652, "meta.xml": -1, "eml.xml": -1} {
		if got, ok := lines[name]; !ok || n >= 0 && got != n {
			t.Errorf("%s: %d rows (present %v), want %d", name, got, ok, n)
		}
	}
}

func TestConvertBrokenInput(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.xml")
	os.WriteFile(broken, []byte("<DataSets><DataSet><Units>\n<Unit><UnitID>1</UnitID></Unit>\n<Unit><UnitID>2</Units>"), 0o644)
	good := filepath.Join("..", "..", "abcd", "testdata", "gbif-crawler-dataset2.xml")
	out := filepath.Join(dir, "out.zip")
	code, _, stderr := runConvertCmd("--from", "abcd", "-o", out, good, broken)
	if code != 1 || !strings.Contains(stderr, "broken.xml:3 (unit 2): malformed XML") || !strings.Contains(stderr, "1 of 2 documents failed") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if n := zipLines(t, out)["occurrence.txt"]; n != 1 {
		t.Errorf("%d rows converted, want the good document's 1", n)
	}
	for _, args := range [][]string{{"--from", "dwca", "-o", out, good}, {"--from", "abcd", good}, {"--from", "abcd", "-o", out}, {"--from", "abcd", "-o", out, filepath.Join(dir, "missing.xml")}} {
		if code, _, stderr := runConvertCmd(args...); code == 0 || stderr == "" {
			t.Errorf("%v: exit %d", args, code)
		}
	}
	// the failed runs left no temporary files beside the output
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".convert-") || atomicfile.IsTemp(e.Name()) {
			t.Errorf("left behind %s", e.Name())
		}
	}
}
