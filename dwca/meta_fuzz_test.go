package dwca

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// sampleMetas returns the meta.xml documents of the sample archives.
func sampleMetas(t testing.TB) [][]byte {
	t.Helper()
	zips, _ := filepath.Glob(filepath.Join("testdata", "*.zip"))
	var out [][]byte
	for _, z := range zips {
		zr, err := zip.OpenReader(z)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if strings.HasSuffix(f.Name, "meta.xml") && !strings.Contains(f.Name, "__MACOSX") {
				rc, _ := f.Open()
				b, _ := io.ReadAll(rc)
				rc.Close()
				out = append(out, b)
			}
		}
		zr.Close()
	}
	return out
}

// FuzzParseMeta checks that ParseMeta never panics and that whatever it
// accepts survives WriteXML and ParseMeta unchanged.
func FuzzParseMeta(f *testing.F) {
	for _, m := range sampleMetas(f) {
		f.Add(m)
	}
	f.Add([]byte(fixtureMeta))
	f.Add([]byte(eventMeta))
	f.Add([]byte(`<archive><core rowType="x" fieldsTerminatedBy="\\t" fieldsEnclosedBy="'"><files><location>a</location></files><field term="t" default="d"/></core></archive>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		m, err := ParseMeta(bytes.NewReader(doc))
		if err != nil {
			if _, ok := err.(*MetaError); !ok {
				t.Fatalf("error %T is not a *MetaError: %v", err, err)
			}
			return
		}
		var buf bytes.Buffer
		if err := m.WriteXML(&buf); err != nil {
			return // e.g. an extension without coreid: readable, not writable
		}
		back, err := ParseMeta(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("written meta.xml does not parse: %v\n%s", err, buf.Bytes())
		}
		if !reflect.DeepEqual(m, back) {
			t.Fatalf("round trip changed the meta:\n%+v\n%+v\n%s", m, back, buf.Bytes())
		}
	})
}

// FuzzOpenZip feeds arbitrary bytes to Open as a zip file and reads whatever
// opens: nothing may panic or hang.
func FuzzOpenZip(f *testing.F) {
	zips, _ := filepath.Glob(filepath.Join("testdata", "*.zip"))
	for _, z := range zips {
		if st, err := os.Stat(z); err == nil && st.Size() < 10<<10 {
			b, _ := os.ReadFile(z)
			f.Add(b)
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "f.zip")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// small caps, so that inputs reach them
		lim := Limits{MetaBytes: 8 << 10, EMLBytes: 8 << 10, RowBytes: 4 << 10, FileBytes: 1 << 20, SpillBytes: 1 << 20, RecordBytes: 16 << 10}
		a, err := Options{JoinBudget: 64 << 10, TempDir: dir, Limits: lim}.Open(t.Context(), p)
		if err != nil {
			return
		}
		defer a.Close()
		for _, spec := range append([]FileSpec{a.Meta.Core}, a.Meta.Extensions...) {
			rr, _ := a.Rows(t.Context(), spec)
			for range 10000 {
				if _, err := rr.Next(); err != nil {
					if _, ok := err.(*RowError); !ok {
						break
					}
				}
			}
			rr.Close()
		}
		if sr, err := a.Records(t.Context()); err == nil {
			for range 10000 {
				if _, err := sr.Next(); err != nil {
					break
				}
			}
			sr.Close()
		}
		if rc, err := a.EML(); err == nil {
			ReadDatasetInfo(rc)
			rc.Close()
		}
		if fp, err := a.Fingerprint(t.Context()); err == nil && !strings.HasPrefix(fp, "sha256:") {
			t.Fatalf("fingerprint %q", fp)
		}
		// whatever it read, it kept to the caps
		if left, _ := os.ReadDir(dir); len(left) != 1 {
			t.Errorf("temporary files left: %v", left)
		}
	})
}
