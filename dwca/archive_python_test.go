package dwca

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
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

// requirePythonModule skips (or fails when CI=true) without python3 and module.
func requirePythonModule(t *testing.T, module string) {
	t.Helper()
	missing := func(reason string) {
		if os.Getenv("CI") == "true" {
			t.Fatal(reason)
		}
		t.Skip(reason)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		missing("python3 not installed (scripts/ci/python-readers.sh installs it)")
	}
	cmd := exec.Command("python3", "-c", "import "+module)
	cmd.Dir = t.TempDir()
	if err := cmd.Run(); err != nil {
		missing("python module " + module + " not installed (scripts/ci/python-readers.sh installs it)")
	}
}

// TestPythonDwCAReaderAgrees compares the row counts of every sample with
// those python-dwca-reader finds. That reader cannot open archives whose
// files sit in a root folder, so those are unpacked (flattened) first.
func TestPythonDwCAReaderAgrees(t *testing.T) {
	requirePythonModule(t, "dwca.read")
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
