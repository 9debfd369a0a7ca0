package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/abcd"
	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
	"github.com/biodiversity-downloads/downloader/occurrence"
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
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Logger: slog.New(slog.DiscardHandler)}
	code = run(context.Background(), append([]string{"convert"}, args...), env)
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
	lines := zipLines(t, out)
	// 652 units; identification/multimedia rows as counted by the mapping.
	want := map[string]int{abcd.CoreFile: 652, "identification.txt": 0, "multimedia.txt": 0, "measurementorfact.txt": 0}
	ctx := context.Background()
	src, err := abcd.OpenSources(ctx, abcdSamples(t), abcd.SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := src.Next(ctx)
		if err != nil {
			break
		}
		for rt, rows := range rec.Extensions {
			want[abcd.ExtensionFiles[rt]] += len(rows)
		}
	}
	src.Close()
	for name, n := range want {
		if lines[name] != n {
			t.Errorf("%s: %d rows, want %d", name, lines[name], n)
		}
	}
	if want["identification.txt"] < 46 || want["multimedia.txt"] < 200 || want["measurementorfact.txt"] < 1 {
		t.Errorf("extension rows %v: the samples have more", want)
	}
	checkMeta(t, out)
	pythonReadsConverted(t, out, want)
}

func checkMeta(t *testing.T, path string) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	for _, name := range []string{"meta.xml", "eml.xml", abcd.CoreFile} {
		if files[name] == nil {
			t.Fatalf("%s missing from %v", name, files)
		}
	}
	rc, _ := files["meta.xml"].Open()
	m, err := dwca.ParseMeta(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	if m.Core.RowType != occurrence.RowTypeOccurrence || m.Core.IDIndex != 0 || m.Core.FieldsTerminatedBy != "\t" ||
		m.Core.FieldsEnclosedBy != "" || m.Core.IgnoreHeaderLines != 1 || len(m.Core.Fields) != len(abcd.CoreTerms) ||
		m.Metadata != "eml.xml" || len(m.Extensions) != 3 {
		t.Errorf("meta.xml %+v", m)
	}
	for _, e := range m.Extensions {
		if e.IDIndex != 0 || len(e.Fields) != len(abcd.ExtensionTerms[e.RowType]) || e.Fields[0].Index != 1 {
			t.Errorf("extension %s: %+v", e.RowType, e)
		}
	}
	rc, _ = files["eml.xml"].Open()
	var eml bytes.Buffer
	eml.ReadFrom(rc)
	rc.Close()
	if !strings.Contains(eml.String(), "<title>AlgaTerra</title>") {
		t.Errorf("eml.xml is not the first document's dataset:\n%.400s", eml.String())
	}
}

// pythonReadsConverted reads the archive back with python-dwca-reader (a
// real third-party reader): core rows and extension rows per core row.
func pythonReadsConverted(t *testing.T, path string, want map[string]int) {
	t.Helper()
	if exec.Command("python3", "-c", "import dwca.read").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python-dwca-reader not installed (scripts/ci/python-readers.sh)")
		}
		t.Skip("python-dwca-reader not installed (scripts/ci/python-readers.sh installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "python3", "-c", `
import sys, json
from dwca.read import DwCAReader
res = {"core": 0, "ext": {}, "first": {}}
with DwCAReader(sys.argv[1]) as d:
    for row in d:
        res["core"] += 1
        if res["core"] == 1:
            res["first"] = {k.split("/")[-1]: v for k, v in row.data.items() if v}
        for e in row.extensions:
            name = e.rowtype.split("/")[-1]
            res["ext"][name] = res["ext"].get(name, 0) + 1
print(json.dumps(res))
`, path).CombinedOutput()
	if err != nil {
		t.Fatalf("python-dwca-reader: %v\n%s", err, out)
	}
	var res struct {
		Core  int
		Ext   map[string]int
		First map[string]string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.Core != want[abcd.CoreFile] || res.Ext["Identification"] != want["identification.txt"] ||
		res.Ext["Multimedia"] != want["multimedia.txt"] || res.Ext["MeasurementOrFact"] != want["measurementorfact.txt"] {
		t.Errorf("python-dwca-reader saw %+v, want %v", res, want)
	}
	if res.First["occurrenceID"] != "urn:catalog:B:Diatoms:AT_73Gel2" || res.First["scientificName"] != "Eunotia Ehrenb." {
		t.Errorf("first row as python reads it: %v", res.First)
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
	if n := zipLines(t, out)[abcd.CoreFile]; n != 1 {
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
