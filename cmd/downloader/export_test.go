package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// exportTable builds an embedded table of two datasets with awkward values
// and returns its directory.
func exportTable(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	s, err := parquet.Open(dir, parquet.Config{RowGroupRows: 50}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	idx := occurrence.ColumnIndex
	n := 0
	for d, key := range []string{"3f8a1297-3259-4700-91fc-acc4170b27ce", "9e3b1f62-7c1b-4d2a-9a55-2b8f0f4d6e11"} {
		w, err := s.BeginDataset(ctx, occurrence.DatasetInfo{Key: key, Title: fmt.Sprintf("Dataset %d", d),
			License: []string{occurrence.LicenseCCBY, occurrence.LicenseCC0}[d]})
		if err != nil {
			t.Fatal(err)
		}
		r := occurrence.NewRecord()
		for i := 0; i < 300; i++ {
			r.Reset()
			r.SetInt(idx(occurrence.ColGBIFID), int64(n))
			r.SetString(idx(occurrence.ColDatasetKey), key)
			r.SetString(idx(occurrence.ColLicense), []string{occurrence.LicenseCCBY, occurrence.LicenseCC0}[d])
			r.SetString(idx(occurrence.ColCountryCode), []string{"DK", "SE", "NO"}[n%3])
			r.SetInt(idx(occurrence.ColYear), int64(1990+n%30))
			r.SetString(idx(occurrence.ColScientificName), []string{"Puma concolor", "Strix aluco"}[n%2])
			r.SetString(idx(occurrence.ColLocality), "tab\there, line\nbreak, \"quote\", 🦉 "+strconv.Itoa(n))
			r.SetFloat(idx(occurrence.ColDecimalLatitude), 55.25)
			js, _ := json.Marshal(map[string]string{"locality": "v" + strconv.Itoa(n), "habitat": "forest"})
			r.SetString(idx(occurrence.ColVerbatim), string(js))
			if n%5 == 0 {
				r.SetString(idx(occurrence.ColMultimedia), `[{"type":"StillImage","identifier":"https://example.org/a.jpg"}]`)
			}
			if err := w.Append(ctx, r); err != nil {
				t.Fatal(err)
			}
			n++
		}
		w.SetEML(ctx, strings.NewReader(`<?xml version="1.0"?><eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1"><dataset><title>D</title></dataset></eml:eml>`))
		if _, err := w.Commit(ctx, occurrence.LoadStats{}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func runCmd(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Logger: slog.New(slog.DiscardHandler)}
	if code := run(context.Background(), args, env); code != 0 {
		t.Fatalf("downloader %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	return out.String(), errb.String()
}

// zipLines counts the data lines (all but the header) of each text entry.
func zipLines(t *testing.T, path string) map[string]int {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string]int{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		out[f.Name] = bytes.Count(b, []byte("\n")) - 1
	}
	return out
}

func TestExportMatchesCount(t *testing.T) {
	table := exportTable(t)
	dir := t.TempDir()
	for _, q := range []string{"", "country=DK&year=2000,2010"} {
		args := []string{"--table", table}
		if q != "" {
			args = append(args, "--query", q)
		}
		out, _ := runCmd(t, append([]string{"count"}, args...)...)
		want, err := strconv.Atoi(strings.TrimSpace(out))
		if err != nil || want == 0 {
			t.Fatalf("count printed %q", out)
		}
		for _, f := range []string{"DWCA", "SIMPLE_CSV", "SPECIES_LIST", "SIMPLE_PARQUET"} {
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.zip", f, len(q)))
			_, stderr := runCmd(t, append([]string{"export", "--format", f, "--key", "dl1", "-o", path}, args...)...)
			if !strings.Contains(stderr, fmt.Sprintf("exported %d records from", want)) || !strings.Contains(stderr, "sha256 ") {
				t.Fatalf("%s summary: %q", f, stderr)
			}
			lines := zipLines(t, path)
			switch f {
			case "DWCA":
				if lines["occurrence.txt"] != want || lines["verbatim.txt"] != want {
					t.Errorf("%s %q: %v, count %d", f, q, lines, want)
				}
				pythonDwCACount(t, path, want)
			case "SIMPLE_CSV":
				if lines["dl1.csv"] != want {
					t.Errorf("%s %q: %v, count %d", f, q, lines, want)
				}
			case "SPECIES_LIST":
				if lines["dl1.csv"] != 2 {
					t.Errorf("%s: %v", f, lines)
				}
			}
		}
	}
	// the archives are readable by all, and nothing temporary is left
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 8 {
		t.Errorf("directory holds %v, want the 8 archives", left)
	}
	for _, e := range left {
		if info, err := e.Info(); err != nil {
			t.Error(err)
		} else if info.Mode() != 0o644 {
			t.Errorf("%s: mode %v, want -rw-r--r--", e.Name(), info.Mode())
		}
	}
	// --progress always draws the bar even without a terminal.
	_, stderr := runCmd(t, "export", "--table", table, "--format", "SIMPLE_CSV", "--progress", "always", "-o", filepath.Join(dir, "p.zip"))
	if !strings.Contains(stderr, "\r100.0% scanned 600/600, matched 600") || !strings.Contains(stderr, "ETA") {
		t.Errorf("progress bar: %q", stderr)
	}
	// stdout output is the same archive the file output is.
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Logger: slog.New(slog.DiscardHandler)}
	if code := run(context.Background(), []string{"export", "--table", table, "--format", "SIMPLE_CSV", "--fields", "gbifID,locality,habitat", "-o", "-"}, env); code != 0 {
		t.Fatal(errb.String())
	}
	zr, err := zip.NewReader(bytes.NewReader(out.Bytes()), int64(out.Len()))
	if err != nil || len(zr.File) != 1 || zr.File[0].Name != "occurrence.csv" {
		t.Fatalf("stdout archive: %v", err)
	}
}

func TestExportErrors(t *testing.T) {
	table := exportTable(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"export", "--table", table, "--format", "XML", "-o", filepath.Join(dir, "a.zip")},
		{"export", "--table", table, "--format", "SIMPLE_CSV", "--fields", "nonsense", "-o", filepath.Join(dir, "b.zip")},
		{"export", "--table", table, "--query", "nosuchparam=1", "-o", filepath.Join(dir, "c.zip")},
		{"export", "--table", table},
	} {
		var errb bytes.Buffer
		env := &Env{Stdout: io.Discard, Stderr: &errb, Logger: slog.New(slog.DiscardHandler)}
		if code := run(context.Background(), args, env); code == 0 {
			t.Errorf("%v succeeded", args)
		}
		if errb.Len() == 0 {
			t.Errorf("%v: no message", args)
		}
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 0 {
		t.Errorf("failed exports left files: %v", left)
	}
}

// pythonDwCACount iterates the archive with python-dwca-reader.
func pythonDwCACount(t *testing.T, path string, want int) {
	t.Helper()
	if exec.Command("python3", "-c", "import dwca").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python-dwca-reader not installed (scripts/ci/export-readers.sh)")
		}
		t.Log("python-dwca-reader not installed; row count checked with Go only")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "python3", "-c", `
import sys
from dwca.read import DwCAReader
with DwCAReader(sys.argv[1]) as d:
    print(sum(1 for _ in d))
`, path).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(want) {
		t.Errorf("python-dwca-reader: %q %v, want %d", out, err, want)
	}
}

// TestExportIngestedSamples ingests real archives and checks that the DWCA
// download holds every record, the multimedia the sources carry and each
// dataset's EML, and that python-dwca-reader agrees with `count`.
func TestExportIngestedSamples(t *testing.T) {
	table := t.TempDir()
	runCmd(t, "ingest", "--table", table, "testdata/export/dissco-dwca-lux-associated-media.zip", "testdata/export/gbif-validator-Archive.zip")
	out, _ := runCmd(t, "count", "--table", table)
	want, _ := strconv.Atoi(strings.TrimSpace(out))
	if want == 0 {
		t.Fatalf("count printed %q", out)
	}
	path := filepath.Join(t.TempDir(), "dl.zip")
	runCmd(t, "export", "--table", table, "--format", "DWCA", "-o", path)
	lines := zipLines(t, path)
	if lines["occurrence.txt"] != want || lines["verbatim.txt"] != want || lines["multimedia.txt"] < 1 {
		t.Fatalf("entries %v, count %d", lines, want)
	}
	emls := 0
	for name := range lines {
		if strings.HasPrefix(name, "dataset/") {
			emls++
		}
	}
	if emls != 2 {
		t.Errorf("%d dataset EML entries, want 2: %v", emls, lines)
	}
	pythonDwCACount(t, path, want)
}
