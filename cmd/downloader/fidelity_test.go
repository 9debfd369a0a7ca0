package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/internal/readers"
)

// GBIF's namespaces of the prefixes the column lists use (gbif/dwc-api
// DwcTerm, DcTerm, GbifTerm, GadmTerm, IucnTerm).
var gbifNamespaces = map[string]string{
	"dwc":     "http://rs.tdwg.org/dwc/terms/",
	"dcterms": "http://purl.org/dc/terms/",
	"gbif":    "http://rs.gbif.org/terms/1.0/",
	"gadm":    "http://rs.gbif.org/terms/gadm/3.0/",
	"iucn":    "http://iucn.org/terms/",
}

// gbifColumns reads one of GBIF's column lists (download/testdata, with
// provenance in its comment lines) as term URIs.
func gbifColumns(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "download", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		prefix, name, ok := strings.Cut(line, ":")
		if ns := gbifNamespaces[prefix]; ok && ns != "" {
			out = append(out, ns+name)
		} else {
			t.Fatalf("%s: %q has no known namespace prefix", f.Name(), line)
		}
	}
	return out
}

// simpleNames gives each term URI its local name, as GBIF's headers do.
func simpleNames(terms []string) []string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = t[strings.LastIndexAny(t, "/#")+1:]
	}
	return out
}

// zipEntry returns one entry of the archive at path.
func zipEntry(t *testing.T, path, name string) []byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	rc, err := zr.Open(name)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fidelitySources are real archives and ABCD documents whose records, with
// their identification, multimedia and measurement rows, a download must
// give back whole.
var fidelitySources = []string{
	"../../dwca/testdata/dissco-dwca-kew-gbif-media.zip",
	"testdata/export/dissco-dwca-lux-associated-media.zip",
	"testdata/export/gbif-validator-Archive.zip",
	"../../abcd/testdata/dissco-biocase-206-with-media.xml",
	"../../abcd/testdata/gbif-pipelines-abcd206_images.xml",
}

// TestDWCAHasTheWholeRecord loads real samples and checks the DWCA download
// as a GBIF user would: occurrence.txt has GBIF's columns in GBIF's order
// (the list taken from GBIF's source, see download/testdata), verbatim.txt
// starts with GBIF's verbatim columns, and every source row of every sample
// (core and the requested extensions, each non-empty term and value) is in
// verbatim.txt or verbatim/<extension>.txt, as python-dwca-reader reads the
// sources and the download.
func TestDWCAHasTheWholeRecord(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	runCmd(t, append([]string{"ingest", "--table", table}, fidelitySources...)...)
	path := filepath.Join(dir, "dl.zip")
	runCmd(t, "export", "--table", table, "--format", "DWCA", "-o", path,
		"--verbatim-extensions", "http://rs.tdwg.org/dwc/terms/Identification,MULTIMEDIA,measurement_or_fact")

	occTerms := gbifColumns(t, "gbif-occurrence-columns.txt")
	header, _, _ := bytes.Cut(zipEntry(t, path, "occurrence.txt"), []byte("\n"))
	if got, want := strings.Split(string(header), "\t"), simpleNames(occTerms); !slices.Equal(got, want) {
		t.Errorf("occurrence.txt header has %d columns, GBIF's %d:\n%v\nwant\n%v", len(got), len(want), got, want)
	}
	meta, err := dwca.ParseMeta(bytes.NewReader(zipEntry(t, path, "meta.xml")))
	if err != nil {
		t.Fatal(err)
	}
	var coreTerms []string
	for _, f := range meta.Core.Fields {
		if f.Index >= 0 {
			coreTerms = append(coreTerms, f.Term)
		}
	}
	if !slices.Equal(coreTerms, occTerms) {
		t.Errorf("meta.xml core terms differ from GBIF's:\n%v\nwant\n%v", coreTerms, occTerms)
	}
	verbTerms := gbifColumns(t, "gbif-verbatim-columns.txt")
	header, _, _ = bytes.Cut(zipEntry(t, path, "verbatim.txt"), []byte("\n"))
	got := strings.Split(string(header), "\t")
	if want := simpleNames(verbTerms); len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("verbatim.txt header does not start with GBIF's %d columns:\n%v", len(want), got)
	}

	// An extension file has GBIF's columns: gbifid, datasetkey, then the
	// properties of its definition in definition order (Darwin Core's
	// MeasurementOrFact, http://rs.gbif.org/extension/dwc/measurements_or_facts.xml,
	// the one gbif-api's Extension.AVAILABLE_EXTENSION_MAP names), then the
	// terms the sources published that it lacks.
	header, _, _ = bytes.Cut(zipEntry(t, path, "verbatim/measurementorfact.txt"), []byte("\n"))
	mof := []string{"gbifid", "datasetkey", "measurementid", "measurementtype", "measurementvalue", "measurementaccuracy",
		"measurementunit", "measurementdetermineddate", "measurementdeterminedby", "measurementmethod", "measurementremarks"}
	if got := strings.Split(string(header), "\t"); len(got) < len(mof) || !slices.Equal(got[:len(mof)], mof) {
		t.Errorf("verbatim/measurementorfact.txt header %v, want it to start with GBIF's %v", got, mof)
	}

	readers.RequirePython(t, "dwca")
	srcs := []string{}
	for _, s := range fidelitySources {
		if strings.HasSuffix(s, ".xml") { // an ABCD document: its source rows are its Darwin Core
			out := filepath.Join(dir, filepath.Base(s)+".zip")
			runCmd(t, "convert", "--from", "abcd", "-o", out, s)
			s = out
		}
		srcs = append(srcs, s)
	}
	out := readers.Python(t, 2*time.Minute, mustRead(t, "testdata/fidelity/dwca_rows.py"), append([]string{path}, srcs...)...)
	t.Logf("python-dwca-reader:\n%s", out)
	rowTypes := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rt string
		var src, dl, missing, extra int
		if _, err := fmt.Sscanf(line, "%s source %d download %d missing %d extra %d", &rt, &src, &dl, &missing, &extra); err != nil {
			continue
		}
		rowTypes++
		if src == 0 || missing != 0 || extra != 0 {
			t.Errorf("%s: %d source rows, %d in the download, %d missing, %d not from a source", rt, src, dl, missing, extra)
		}
	}
	if rowTypes != 4 { // occurrence, identification, multimedia, measurement
		t.Errorf("python-dwca-reader compared %d row types, want 4:\n%s", rowTypes, out)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
