package abcd

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/internal/pzip"
	"github.com/biodiversity-downloads/downloader/internal/readers"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// convertSamples are the real ABCD documents and archives of testdata.
func convertSamples(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"*.xml", "*.abcda"} {
		m, err := filepath.Glob(filepath.Join("testdata", pat))
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

// TestWriteArchive converts the samples: every unit is a core row, every
// extension row of the mapping is in its file, meta.xml describes the files
// and eml.xml the dataset, no spool is left, and python-dwca-reader reads
// the archive back.
func TestWriteArchive(t *testing.T) {
	ctx := context.Background()
	want := map[string]int{coreFile: 0}
	for _, rt := range extensionOrder {
		want[extensionFiles[rt]] = 0
	}
	src, err := OpenSources(ctx, convertSamples(t), SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := src.Next(ctx)
		if err != nil {
			break
		}
		want[coreFile]++
		for rt, rows := range rec.Extensions {
			want[extensionFiles[rt]] += len(rows)
		}
	}
	src.Close()
	if want[coreFile] != 652 || want["identification.txt"] < 46 || want["multimedia.txt"] < 200 || want["measurementorfact.txt"] < 1 {
		t.Fatalf("rows %v: the samples have more", want)
	}

	spools := t.TempDir()
	path := filepath.Join(t.TempDir(), "converted.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err = OpenSources(ctx, convertSamples(t), SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zw, err := pzip.NewWriter(f, pzip.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, err := WriteArchive(ctx, src, zw, spools)
	src.Close()
	if err != nil || n != want[coreFile] {
		t.Fatalf("WriteArchive = %d, %v; want %d records", n, err, want[coreFile])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if left, _ := os.ReadDir(spools); len(left) != 0 {
		t.Errorf("spools left behind: %v", left)
	}
	files := archiveFiles(t, path)
	for name, rows := range want {
		if got := bytes.Count(files[name], []byte("\n")) - 1; got != rows {
			t.Errorf("%s: %d rows, want %d", name, got, rows)
		}
	}
	checkConvertedMeta(t, files)
	if !strings.Contains(string(files[emlFile]), "<title>AlgaTerra</title>") {
		t.Errorf("eml.xml is not the first document's dataset:\n%.400s", files[emlFile])
	}
	pythonReadsConverted(t, path, want)
}

// An extension without rows is left out of the archive and its meta.xml.
func TestWriteArchiveOmitsEmptyExtensions(t *testing.T) {
	ctx := context.Background()
	src, err := OpenSources(ctx, []string{filepath.Join("testdata", "gbif-crawler-dataset2.xml")}, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var buf bytes.Buffer
	zw, _ := pzip.NewWriter(&buf, pzip.Options{})
	if _, err := WriteArchive(ctx, src, zw, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if strings.Join(names, " ") != "occurrence.txt meta.xml eml.xml" {
		t.Fatalf("entries %v, want the core, meta.xml and eml.xml only", names)
	}
}

func archiveFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name], err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
	}
	return out
}

func checkConvertedMeta(t *testing.T, files map[string][]byte) {
	t.Helper()
	m, err := dwca.ParseMeta(bytes.NewReader(files["meta.xml"]))
	if err != nil {
		t.Fatal(err)
	}
	if m.Core.RowType != occurrence.RowTypeOccurrence || m.Core.IDIndex != 0 || m.Core.FieldsTerminatedBy != "\t" ||
		m.Core.FieldsEnclosedBy != "" || m.Core.IgnoreHeaderLines != 1 || len(m.Core.Fields) != len(coreTerms) ||
		m.Metadata != emlFile || len(m.Extensions) != 3 {
		t.Errorf("meta.xml %+v", m)
	}
	for _, e := range m.Extensions {
		if e.IDIndex != 0 || len(e.Fields) != len(extensionTerms[e.RowType]) || e.Fields[0].Index != 1 {
			t.Errorf("extension %s: %+v", e.RowType, e)
		}
	}
}

// pythonReadsConverted reads the archive back with python-dwca-reader (a
// real third-party reader): core rows and extension rows per core row.
func pythonReadsConverted(t *testing.T, path string, want map[string]int) {
	t.Helper()
	readers.RequirePython(t, "dwca.read")
	out := readers.Python(t, 2*time.Minute, `
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
`, path)
	var res struct {
		Core  int
		Ext   map[string]int
		First map[string]string
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.Core != want[coreFile] || res.Ext["Identification"] != want["identification.txt"] ||
		res.Ext["Multimedia"] != want["multimedia.txt"] || res.Ext["MeasurementOrFact"] != want["measurementorfact.txt"] {
		t.Errorf("python-dwca-reader saw %+v, want %v", res, want)
	}
	if res.First["occurrenceID"] != "urn:catalog:B:Diatoms:AT_73Gel2" || res.First["scientificName"] != "Eunotia Ehrenb." {
		t.Errorf("first row as python reads it: %v", res.First)
	}
}
