package dwca

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/internal/tmpfile"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// writeDir writes files into a new temporary folder and returns it.
func writeDir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeZip writes files (in the given order) into a new zip and returns its path.
func writeZip(t testing.TB, names []string, files map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, files[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "a.zip")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// allRecords reads every record, failing on errors other than broken rows.
func allRecords(t testing.TB, a *Archive) ([]occurrence.RawRecord, *StarReader) {
	t.Helper()
	sr, err := a.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sr.Close() })
	var out []occurrence.RawRecord
	for {
		r, err := sr.Next()
		if err == io.EOF {
			return out, sr
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

func TestQuirkMacOSXRootFolder(t *testing.T) {
	a := openSample(t, "dwca-io-archive-occ.zip")
	for _, f := range a.Files() {
		if strings.Contains(f, "__MACOSX") || strings.HasPrefix(filepath.Base(f), ".") {
			t.Errorf("hidden file listed: %s", f)
		}
	}
	if got := strings.Join(a.Files(), ","); got != "DarwinCore.txt,eml.xml,meta.xml" {
		t.Errorf("files %s (root folder not flattened?)", got)
	}
	if a.Meta.Core.RowType != occurrence.RowTypeOccurrence {
		t.Errorf("old rowType DarwinCore not normalized: %s", a.Meta.Core.RowType)
	}
	recs, _ := allRecords(t, a)
	first := recs[0].Core
	// DwC 1.4 capitalized terms and old names map onto current terms.
	for _, term := range []string{"scientificName", "recordedBy", "eventDate", "decimalLatitude", "catalogNumber"} {
		if first[occurrence.NSDwC+term] == "" {
			t.Errorf("first record lacks %s: %v", term, first)
		}
	}
	if recs[0].Source != "DarwinCore.txt:2" {
		t.Errorf("source %q, want DarwinCore.txt:2 (after the header line)", recs[0].Source)
	}
	rc, err := a.EML()
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
}

func TestQuirkSingleQuoteEnclosed(t *testing.T) {
	a := openSample(t, "pydwca-dwca-simple-test-archive-enclosed.zip")
	if a.Meta.Core.FieldsEnclosedBy != "'" {
		t.Fatalf("quote %q", a.Meta.Core.FieldsEnclosedBy)
	}
	recs, _ := allRecords(t, a)
	got := []string{}
	for _, r := range recs {
		got = append(got, r.Core[occurrence.NSDwC+"basisOfRecord"]+"|"+r.Core[occurrence.NSDwC+"locality"]+"|"+
			r.Core[occurrence.NSDwC+"family"]+"|"+r.Core[occurrence.NSDwC+"scientificName"])
	}
	want := "Observation|Borneo|Tetraodontidae|tetraodon fluviatilis,Observation|Mumbai|Osphronemidae|betta splendens"
	if strings.Join(got, ",") != want {
		t.Errorf("got %q\nwant %q", strings.Join(got, ","), want)
	}
}

func TestQuirkUTF8LineEnds(t *testing.T) {
	a := openSample(t, "pydwca-dwca-utf8-eol-test.zip")
	recs, _ := allRecords(t, a)
	if len(recs) != 1 {
		t.Fatalf("%d records: U+0085 inside a value must not end the row", len(recs))
	}
	found := false
	for _, v := range recs[0].Core {
		if strings.Contains(v, "\u0085") {
			found = true
		}
	}
	if !found {
		t.Error("no value keeps the U+0085 character")
	}
	if a.Meta.Metadata != "metadata.xml" {
		t.Errorf("metadata %q", a.Meta.Metadata)
	}
}

func TestQuirkLoneCSV(t *testing.T) {
	a := openSample(t, "pydwca-dwca-simple-csv-eml.zip")
	c := a.Meta.Core
	if !a.Derived || c.FieldsTerminatedBy != "\t" || c.FieldsEnclosedBy != `"` || c.IgnoreHeaderLines != 1 ||
		c.RowType != occurrence.RowTypeOccurrence {
		t.Fatalf("derived meta %+v", c)
	}
	recs, _ := allRecords(t, a)
	r := recs[0].Core
	if r[occurrence.NSGBIF+"gbifID"] != "699220990" || r[occurrence.NSDwC+"countryCode"] != "JP" ||
		r[occurrence.NSDwC+"scientificName"] == "" || r[occurrence.NSGBIF+"datasetKey"] == "" {
		t.Errorf("header names not mapped onto terms: %v", r)
	}
	for _, term := range []string{occurrence.NSDwC + "decimalLatitude", occurrence.NSDC + "rights",
		occurrence.NSGBIF + "issue", occurrence.NSDwC + "infraspecificEpithet"} {
		if c.FieldIndex(term) < 0 {
			t.Errorf("derived meta lacks %s", term)
		}
	}
	for k := range r {
		if strings.Contains(k, `"`) {
			t.Errorf("quoted header kept: %q", k)
		}
	}
	rc, err := a.EML() // EML.xml, capitalized
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
}

func TestQuirkLoneFileSemicolonBOMCRLF(t *testing.T) {
	dir := writeDir(t, map[string]string{"data.csv": "\ufeffoccurrenceID;scientificName;dwc:country\r\n" +
		"o1;\"Puma; concolor\";Chile\r\no2;Abies alba;\r\n"})
	a, err := Open(context.Background(), filepath.Join(dir, "data.csv")) // a lone file, not a folder
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	recs, _ := allRecords(t, a)
	if len(recs) != 2 || recs[0].Core[occurrence.NSDwC+"occurrenceID"] != "o1" ||
		recs[0].Core[occurrence.NSDwC+"scientificName"] != "Puma; concolor" ||
		recs[0].Core[occurrence.NSDwC+"country"] != "Chile" || recs[1].Core[occurrence.NSDwC+"country"] != "" {
		t.Errorf("records %+v", recs)
	}
	if _, err := a.EML(); !errors.Is(err, ErrNoMetadata) {
		t.Errorf("EML: %v, want ErrNoMetadata", err)
	}
}

const fixtureMeta = `<?xml version="1.0"?>
<archive xmlns="http://rs.tdwg.org/dwc/text/">
  <core fieldsTerminatedBy="\t" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Occurrence">
    <files><location>occ.txt</location></files>
    <id index="0"/>
    <field index="0" term="http://rs.tdwg.org/dwc/terms/occurrenceID"/>
    <field index="1" term="http://rs.tdwg.org/dwc/terms/scientificName"/>
    <field index="2" term="http://rs.tdwg.org/dwc/terms/country" default="Denmark"/>
    <field term="http://purl.org/dc/terms/license" default="CC0"/>
  </core>
  <extension fieldsTerminatedBy="," ignoreHeaderLines="0" rowType="http://rs.gbif.org/terms/1.0/Multimedia">
    <files><location>sub/media.csv</location></files>
    <coreid index="1"/>
    <field index="0" term="http://purl.org/dc/terms/identifier"/>
  </extension>
</archive>`

func TestQuirkDefaultsBOMCRLFSubfolder(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"meta.xml": fixtureMeta,
		"occ.txt":  "\ufeffid\tname\tcountry\r\no1\tPuma concolor\t\r\no2\tAbies alba\tNorway\r\no3\tNULL\t \\N \r\n",
		// CR-only line ends, quoted values with commas and a doubled quote
		"sub/media.csv": "\"http://x/1.jpg\",o2\r\"http://x/a,\"\"b\"\".jpg\",o2\rhttp://x/3.jpg,o1\r",
	})
	a, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	recs, _ := allRecords(t, a)
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	c := occurrence.NSDwC + "country"
	lic := occurrence.NSDC + "license"
	if recs[0].Core[c] != "Denmark" || recs[1].Core[c] != "Norway" || recs[2].Core[c] != "Denmark" {
		t.Errorf("default= not applied to empty/NULL cells: %v %v %v", recs[0].Core[c], recs[1].Core[c], recs[2].Core[c])
	}
	if recs[0].Core[lic] != "CC0" || recs[0].Core[occurrence.NSDwC+"occurrenceID"] != "o1" {
		t.Errorf("constant default or BOM: %v", recs[0].Core)
	}
	if _, ok := recs[2].Core[occurrence.NSDwC+"scientificName"]; ok {
		t.Errorf("NULL kept as a value: %v", recs[2].Core)
	}
	media := recs[1].Extensions[occurrence.RowTypeMultimedia]
	if len(media) != 2 || media[1][occurrence.NSDC+"identifier"] != `http://x/a,"b".jpg` {
		t.Errorf("o2 media %v", media)
	}
	if len(recs[0].Extensions[occurrence.RowTypeMultimedia]) != 1 || recs[2].Extensions != nil {
		t.Errorf("o1/o3 extensions %v %v", recs[0].Extensions, recs[2].Extensions)
	}
}

func TestUnsafeZipEntries(t *testing.T) {
	for _, name := range []string{"../evil.txt", "/etc/x.txt", `..\evil.txt`, "a/../../b.txt", "C:/x.txt"} {
		p := writeZip(t, []string{"meta.xml", name}, map[string]string{"meta.xml": fixtureMeta, name: "x"})
		_, err := Open(context.Background(), p)
		if !errors.Is(err, ErrUnsafePath) {
			t.Errorf("%q: %v, want ErrUnsafePath", name, err)
		}
	}
}

func TestZipBomb(t *testing.T) {
	zeros := strings.Repeat("\x00", 20<<20) // 20 MiB deflate to ~20 KiB: ratio ~1000
	meta := strings.Replace(fixtureMeta, "sub/media.csv", "occ.txt", 1)
	p := writeZip(t, []string{"meta.xml", "occ.txt"}, map[string]string{"meta.xml": meta, "occ.txt": zeros})
	_, err := Open(context.Background(), p)
	if !errors.Is(err, ErrZipBomb) || !strings.Contains(err.Error(), "occ.txt") {
		t.Fatalf("%v, want ErrZipBomb naming occ.txt", err)
	}
	a, err := Options{MaxRatio: 5000}.Open(context.Background(), p)
	if err != nil {
		t.Fatalf("a higher MaxRatio must accept it: %v", err)
	}
	a.Close()
}

func TestMissingDataFile(t *testing.T) {
	dir := writeDir(t, map[string]string{"meta.xml": fixtureMeta, "occ.txt": "id\n"})
	_, err := Open(context.Background(), dir)
	if !errors.Is(err, ErrMissingFile) || !strings.Contains(err.Error(), "sub/media.csv") {
		t.Fatalf("%v, want ErrMissingFile naming sub/media.csv", err)
	}
}

func TestOpenURL(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "gbif-validator-Archive.zip"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/a.zip" && r.URL.Path != "/page.html" {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/page.html" {
			io.WriteString(w, "<html>not an archive</html>")
			return
		}
		w.Write(body)
	}))
	defer srv.Close()
	tmp := t.TempDir()
	orphan := killedDownload(t, tmp)
	a, err := OpenURL(context.Background(), srv.Client(), srv.URL+"/a.zip", tmp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the download of a killed process is still there: %v", err)
	}
	if got := countRows(t, a, a.Meta.Core); got != 19 {
		t.Errorf("%d rows, want 19", got)
	}
	if a.Path != srv.URL+"/a.zip" {
		t.Errorf("path %q", a.Path)
	}
	a.Close()
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("Close left the download behind: %v", left)
	}
	if _, err := OpenURL(context.Background(), srv.Client(), srv.URL+"/missing.zip", tmp); err == nil ||
		!strings.Contains(err.Error(), "404") {
		t.Errorf("missing URL: %v", err)
	}
	_, err = OpenURL(context.Background(), srv.Client(), srv.URL+"/page.html", tmp)
	if !errors.Is(err, ErrNoMeta) || !strings.Contains(err.Error(), srv.URL+"/page.html") {
		t.Errorf("a page instead of an archive: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("a failed open left the download behind: %v", left)
	}
}

// killedDownload leaves in dir what a process killed mid-download leaves
// (a named temporary file, internal/tmpfile.CreateNamed, of a process that
// is gone) and returns its path.
func killedDownload(t *testing.T, dir string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("process liveness is not checked on Windows")
	}
	child := exec.Command(os.Args[0], "-test.run=^$")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	f, err := tmpfile.CreateNamed(dir, "dwca", ".download")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	name := strings.Replace(filepath.Base(f.Name()), fmt.Sprintf("-%d-", os.Getpid()), fmt.Sprintf("-%d-", child.Process.Pid), 1)
	orphan := filepath.Join(dir, name)
	if err := os.Rename(f.Name(), orphan); err != nil {
		t.Fatal(err)
	}
	return orphan
}

func TestUnsafeLocationInFolder(t *testing.T) {
	parent := t.TempDir()
	os.WriteFile(filepath.Join(parent, "secret.txt"), []byte("x"), 0o644)
	dir := filepath.Join(parent, "archive")
	os.Mkdir(dir, 0o755)
	meta := strings.Replace(strings.Replace(fixtureMeta, "sub/media.csv", "../secret.txt", 1), "occ.txt", "o.txt", 1)
	os.WriteFile(filepath.Join(dir, "meta.xml"), []byte(meta), 0o644)
	os.WriteFile(filepath.Join(dir, "o.txt"), []byte("id\n"), 0o644)
	if _, err := Open(context.Background(), dir); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("%v, want ErrUnsafePath", err)
	}
}

func TestEncodings(t *testing.T) {
	meta := strings.Replace(fixtureMeta, `<core fieldsTerminatedBy`, `<core encoding="ISO-8859-1" fieldsTerminatedBy`, 1)
	meta = strings.Replace(meta, "sub/media.csv", "m.csv", 1)
	utf16 := []byte{0xFF, 0xFE} // UTF-16LE with BOM, though meta.xml says UTF-8
	for _, r := range "x,o1\n" {
		utf16 = append(utf16, byte(r), 0)
	}
	dir := writeDir(t, map[string]string{"meta.xml": meta,
		"occ.txt": "id\tname\tcountry\no1\tK\xf8benhavn\t\xc5land\n", "m.csv": string(utf16)})
	a, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	recs, _ := allRecords(t, a)
	if len(recs) != 1 || recs[0].Core[occurrence.NSDwC+"scientificName"] != "København" ||
		recs[0].Core[occurrence.NSDwC+"country"] != "Åland" {
		t.Fatalf("ISO-8859-1 not decoded: %+v", recs)
	}
	if m := recs[0].Extensions[occurrence.RowTypeMultimedia]; len(m) != 1 || m[0][occurrence.NSDC+"identifier"] != "x" {
		t.Errorf("UTF-16 extension not decoded: %+v", m)
	}
}

func TestMetaInNestedFolder(t *testing.T) {
	meta := strings.Replace(fixtureMeta, "sub/media.csv", "occ.txt", 1)
	p := writeZip(t, []string{"README.txt", "export/v1/meta.xml", "export/v1/occ.txt"}, map[string]string{
		"README.txt": "not data", "export/v1/meta.xml": meta, "export/v1/occ.txt": "id\tname\no1\tx\n"})
	a, err := Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got := strings.Join(a.Files(), ","); got != "meta.xml,occ.txt" {
		t.Errorf("files %s", got)
	}
	if n := countRows(t, a, a.Meta.Core); n != 1 {
		t.Errorf("%d rows", n)
	}
}

func TestRowsRejectsSpecWithoutSeparator(t *testing.T) {
	a := openSample(t, "gbif-validator-Archive.zip")
	spec := a.Meta.Core
	spec.FieldsTerminatedBy = ""
	if _, err := a.Rows(context.Background(), spec); !errors.Is(err, ErrInvalidMeta) {
		t.Errorf("%v, want ErrInvalidMeta", err)
	}
	spec = a.Meta.Core
	spec.LinesTerminatedBy = "" // read as "\n"
	if n := countRows(t, a, spec); n != 19 {
		t.Errorf("%d rows, want 19", n)
	}
}

// TestBlankCellsOfAnyLengthAreEmpty: a cell of whitespace only counts as
// empty (its field's default applies) however long it is, as in dwca-io.
func TestBlankCellsOfAnyLengthAreEmpty(t *testing.T) {
	spec := newFileSpec()
	spec.Files, spec.FieldsTerminatedBy, spec.FieldsEnclosedBy = []string{"d.txt"}, "\t", ""
	spec.Fields = []Field{{Index: 0, Term: "a", Default: "dflt"}, {Index: 1, Term: "b"}}
	var data strings.Builder
	for _, n := range []int{1, 16, 17, 40} {
		data.WriteString(strings.Repeat(" ", n) + "\t" + strings.Repeat(" ", n-1) + "NULL\n")
	}
	rr := newRowReader(context.Background(), memFiles{"d.txt": []byte(data.String())}, &spec)
	for i := 0; ; i++ {
		row, err := rr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if a, b := row.Value(0), row.Value(1); a != "dflt" || b != "" {
			t.Errorf("row %d (line %d): values %q %q, want the default and empty", i+1, row.Line(), a, b)
		}
	}
}
