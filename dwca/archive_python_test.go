package dwca

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/readers"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// PythonDwCAReaderVersion is the python-dwca-reader release the cross-check
// runs against (scripts/ci/python-readers.sh installs it).
const pythonDwCAReaderVersion = "0.17.1"

// pyCount prints, as JSON, the rows python-dwca-reader iterates in the core
// and in each extension of an archive (zip or folder).
const pyCount = `
import sys, json
import importlib.metadata as md
from dwca.read import DwCAReader
out = {"version": md.version("python-dwca-reader"), "rows": {}}
with DwCAReader(sys.argv[1]) as d:
    core = d.core_file
    name = core.file_descriptor.file_location if d.descriptor else "core"
    out["rows"][name] = sum(1 for _ in core.iter_rows())
    for e in d.extension_files:
        out["rows"][e.file_descriptor.file_location] = sum(1 for _ in e.iter_rows())
print(json.dumps(out))
`

// TestPythonDwCAReaderAgrees compares the row counts of every sample with
// those python-dwca-reader finds. That reader cannot open archives whose
// files sit in a root folder, so those are unpacked (flattened) first.
func TestPythonDwCAReaderAgrees(t *testing.T) {
	readers.RequirePython(t, "dwca.read")
	for _, s := range samples {
		t.Run(s.file, func(t *testing.T) {
			a := openSample(t, s.file)
			target, _ := filepath.Abs(filepath.Join("testdata", s.file))
			if s.pyDir {
				target = unpack(t, a)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "python3", "-c", pyCount, target)
			cmd.Dir = t.TempDir()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if s.pyRejects {
				if err == nil {
					t.Fatalf("python-dwca-reader now reads %s (%s): compare its counts", s.file, out)
				}
				t.Logf("python-dwca-reader rejects it as expected: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("python-dwca-reader: %v\n%s", err, stderr.String())
			}
			var res struct {
				Version string
				Rows    map[string]int
			}
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if res.Version != pythonDwCAReaderVersion {
				t.Errorf("python-dwca-reader %s installed, the test pins %s", res.Version, pythonDwCAReaderVersion)
			}
			specs := append([]FileSpec{a.Meta.Core}, a.Meta.Extensions...)
			if len(res.Rows) != len(specs) {
				t.Errorf("python-dwca-reader sees %d data files %v, we see %d", len(res.Rows), res.Rows, len(specs))
			}
			for i, spec := range specs {
				name := spec.Files[0]
				py, ok := res.Rows[name]
				if !ok && i == 0 && a.Derived {
					py, ok = res.Rows["core"]
				}
				if !ok {
					t.Errorf("python-dwca-reader has no count for %s: %v", name, res.Rows)
					continue
				}
				if got := countRows(t, a, spec); got != py {
					t.Errorf("%s: we read %d rows, python-dwca-reader %d", name, got, py)
				}
			}
		})
	}
}

// unpack copies the visible files of an archive into a temporary folder.
func unpack(t *testing.T, a *Archive) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range a.Files() {
		rc, err := a.openFile(name)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(f, rc); err != nil {
			t.Fatal(err)
		}
		rc.Close()
		f.Close()
	}
	return dir
}

// pyValues prints the core rows python-dwca-reader reads, as JSON lists of
// the values of the given terms, and the number of extension rows.
const pyValues = `
import sys, json
from dwca.read import DwCAReader
terms = sys.argv[2:]
with DwCAReader(sys.argv[1]) as d:
    rows = [[r.data.get(t, "") for t in terms] for r in d.core_file.iter_rows()]
    ext = sum(1 for e in d.extension_files for _ in e.iter_rows())
print(json.dumps({"rows": rows, "ext": ext}))
`

// TestPythonReadsWrittenArchive writes an archive with Meta.WriteXML and
// TextWriter (what the download formats use) and reads it back with
// python-dwca-reader: values come back as CleanValue made them.
func TestPythonReadsWrittenArchive(t *testing.T) {
	readers.RequirePython(t, "dwca.read")
	sci := occurrence.NSDwC + "scientificName"
	loc := occurrence.NSDwC + "locality"
	meta := &Meta{Metadata: "metadata.xml",
		Core: FileSpec{RowType: occurrence.RowTypeOccurrence, Files: []string{"occurrence.txt"},
			Encoding: "UTF-8", FieldsTerminatedBy: "\t", LinesTerminatedBy: "\n", IgnoreHeaderLines: 1, IDIndex: 0,
			Fields: []Field{{Index: 0, Term: occurrence.NSGBIF + "gbifID"}, {Index: 1, Term: sci}, {Index: 2, Term: loc}}},
		Extensions: []FileSpec{{RowType: occurrence.RowTypeMultimedia, Files: []string{"multimedia.txt"},
			Encoding: "UTF-8", FieldsTerminatedBy: "\t", LinesTerminatedBy: "\n", IgnoreHeaderLines: 1, IDIndex: 0,
			Fields: []Field{{Index: 1, Term: occurrence.NSDC + "identifier"}}}},
	}
	rows := [][]string{
		{"1", "Puma concolor", "Tab\there, newline\nthere"},
		{"2", `"Quoted" & 'single'`, "non-BMP 𝔘, NEL\u0085, LS\u2028, VT\v"},
		{"3", "", "\\N backslash"},
	}
	var metaBuf, occ, media bytes.Buffer
	if err := meta.WriteXML(&metaBuf); err != nil {
		t.Fatal(err)
	}
	w := NewTextWriter(&occ)
	w.WriteHeader([]string{"gbifID", "scientificName", "locality"})
	for _, r := range rows {
		w.WriteRow(r)
	}
	w.Flush()
	mw := NewTextWriter(&media)
	mw.WriteHeader([]string{"gbifID", "identifier"})
	mw.WriteRow([]string{"1", "http://x/1.jpg"})
	mw.WriteRow([]string{"2", "http://x/2.jpg"})
	mw.Flush()
	p := writeZip(t, []string{"meta.xml", "occurrence.txt", "multimedia.txt", "metadata.xml"}, map[string]string{
		"meta.xml": metaBuf.String(), "occurrence.txt": occ.String(), "multimedia.txt": media.String(),
		"metadata.xml": "<eml:eml xmlns:eml=\"eml://ecoinformatics.org/eml-2.1.1\"><dataset><title>t</title></dataset></eml:eml>"})
	cmd := exec.Command("python3", "-c", pyValues, p, sci, loc)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python-dwca-reader: %v\n%s", err, out)
	}
	var res struct {
		Rows [][]string
		Ext  int
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(res.Rows) != len(rows) || res.Ext != 2 {
		t.Fatalf("python-dwca-reader read %d rows and %d extension rows: %s", len(res.Rows), res.Ext, out)
	}
	for i, r := range rows {
		want := []string{CleanValue(r[1]), CleanValue(r[2])}
		if !reflect.DeepEqual(res.Rows[i], want) {
			t.Errorf("row %d: python-dwca-reader read %q, want %q", i, res.Rows[i], want)
		}
	}
}
