package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/readers"
)

// copyDir copies a fixture directory, so that a test may write to it.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// column returns the values of one column of a tab-separated entry, by
// header name.
func tsvColumn(t *testing.T, data []byte, name string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	header := strings.Split(lines[0], "\t")
	j := -1
	for i, h := range header {
		if h == name {
			j = i
		}
	}
	if j < 0 {
		t.Fatalf("no column %s in %v", name, header)
	}
	var out []string
	for _, l := range lines[1:] {
		cells := strings.Split(l, "\t")
		if len(cells) != len(header) {
			t.Fatalf("row of %d cells for %d columns", len(cells), len(header))
		}
		out = append(out, cells[j])
	}
	return out
}

// A table written before the record had GBIF's 230 columns (testdata/
// table-ea20ac4: the two samples of testdata/export ingested by the build
// of commit ea20ac4, 60 columns) is read by this one: its downloads have
// GBIF's occurrence.txt, the columns it had are filled, the ones it lacked
// are empty, and verbatim.txt still gives back every source row. A dataset
// ingested now lands next to the old ones, with its new columns filled.
func TestTableOfTheSixtyColumnSchema(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	copyDir(t, "testdata/table-ea20ac4", table)
	old := filepath.Join(dir, "old.zip")
	runCmd(t, "export", "--table", table, "--format", "DWCA", "-o", old)
	occ := zipEntry(t, old, "occurrence.txt")
	header, _, _ := bytes.Cut(occ, []byte("\n"))
	if n := len(strings.Split(string(header), "\t")); n != 230 {
		t.Fatalf("occurrence.txt of the old table has %d columns, want GBIF's 230", n)
	}
	// Every column the old build wrote has the same values, record by
	// record, but the licence, now GBIF's enum name (CC0_1_0) where it was
	// the URL, and the two columns GBIF's occurrence.txt lacks.
	want := mustRead(t, "testdata/table-ea20ac4/occurrence-by-ea20ac4.txt")
	wantHeader, _, _ := strings.Cut(want, "\n")
	compared := 0
	for _, c := range strings.Split(wantHeader, "\t") {
		if c == "license" || c == "publishingOrgKey" || c == "verbatimScientificNameAuthorship" {
			continue
		}
		if got, w := tsvColumn(t, occ, c), tsvColumn(t, []byte(want), c); !slices.Equal(got, w) {
			t.Errorf("column %s differs from the old build's:\n%q\nwant\n%q", c, got, w)
		}
		compared++
	}
	if compared != 57 {
		t.Errorf("compared %d of the old build's columns, want 57", compared)
	}
	filled := func(vals []string) int {
		n := 0
		for _, v := range vals {
			if v != "" {
				n++
			}
		}
		return n
	}
	if got := filled(tsvColumn(t, occ, "habitat")); got != 0 {
		t.Errorf("habitat (not an old column) filled in %d rows of the old table", got)
	}

	// Kew's sample, ingested now, has habitat as a column.
	runCmd(t, "ingest", "--table", table, "../../dwca/testdata/dissco-dwca-kew-gbif-media.zip")
	mixed := filepath.Join(dir, "mixed.zip")
	runCmd(t, "export", "--table", table, "--format", "DWCA", "-o", mixed)
	occ = zipEntry(t, mixed, "occurrence.txt")
	if got := len(tsvColumn(t, occ, "gbifID")); got != 39+19 {
		t.Fatalf("%d records after adding Kew's 19 to the old 39", got)
	}
	if got := filled(tsvColumn(t, occ, "habitat")); got == 0 {
		t.Error("no habitat from the dataset ingested into the old table")
	}

	readers.RequirePython(t, "dwca")
	out := readers.Python(t, 2*time.Minute, mustRead(t, "testdata/fidelity/dwca_rows.py"), old,
		"testdata/export/gbif-validator-Archive.zip", "testdata/export/dissco-dwca-lux-associated-media.zip")
	if !strings.Contains(out, "http://rs.tdwg.org/dwc/terms/Occurrence source 39 download 39 missing 0 extra 0") {
		t.Errorf("the old table's verbatim.txt does not give back the sources' rows:\n%s", out)
	}
}
