package dwca

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// sample is one archive of testdata with the row counts it holds.
//
// The counts were computed once, independently of this package, with Python's
// csv module reading each data file with the dialect its meta.xml declares
// (rows after the header lines, blank lines not counted), and agree with
// python-dwca-reader 0.17.1 where that reader can open the archive (it cannot
// open the three dwca-io archives as zips: their files sit in a root folder;
// unpacked, it reads two of them). The lone
// CSV file has 4 lines (`unzip -p ... | wc -l`): a header and 3 rows.
type sample struct {
	file    string
	core    string // core rowType
	rows    map[string]int
	records int  // occurrence records, -1 when not occurrence data
	pyDir   bool // python-dwca-reader needs the archive unpacked
	// pyRejects: python-dwca-reader 0.17.1 cannot read it (a <coreid/>
	// without index makes it raise a TypeError)
	pyRejects bool
}

var samples = []sample{
	{"dissco-dwca-kew-gbif-media.zip", occurrence.RowTypeOccurrence,
		map[string]int{"occurrence.txt": 19, "identification.txt": 167663, "image.txt": 19}, 19, false, false},
	{"dissco-dwca-lux-associated-media.zip", occurrence.RowTypeOccurrence,
		map[string]int{"occurrence.txt": 20}, 20, false, false},
	{"dwca-io-archive-occ.zip", occurrence.RowTypeOccurrence,
		map[string]int{"DarwinCore.txt": 1534}, 1534, true, false},
	{"dwca-io-archive-tax.zip", RowTypeTaxon,
		map[string]int{"DarwinCore.txt": 3248, "VernacularName.txt": 1057}, -1, true, false},
	{"dwca-io-nullCoreID.zip", RowTypeTaxon,
		map[string]int{"DarwinCore.txt": 3248, "VernacularName.txt": 1057}, -1, true, true},
	{"gbif-validator-Archive.zip", occurrence.RowTypeOccurrence,
		map[string]int{"occurrence.txt": 19}, 19, false, false},
	{"pydwca-dwca-2extensions.zip", RowTypeTaxon,
		map[string]int{"taxon.txt": 4, "description.txt": 3, "vernacularname.txt": 4}, -1, false, false},
	{"pydwca-dwca-simple-csv-eml.zip", occurrence.RowTypeOccurrence,
		map[string]int{"0008333-160118175350007.csv": 3}, 3, false, false},
	{"pydwca-dwca-simple-test-archive-enclosed.zip", occurrence.RowTypeOccurrence,
		map[string]int{"occurrence.txt": 2}, 2, false, false},
	{"pydwca-dwca-utf8-eol-test.zip", occurrence.RowTypeOccurrence,
		map[string]int{"occurrence.txt": 1}, 1, false, false},
}

func openSample(t testing.TB, name string) *Archive {
	t.Helper()
	a, err := Open(context.Background(), filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// countRows reads every row of spec and fails the test on a broken row.
func countRows(t testing.TB, a *Archive, spec FileSpec) int {
	t.Helper()
	rr, err := a.Rows(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	n := 0
	for {
		_, err := rr.Next()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("%s: %v", spec.Files, err)
		}
		n++
	}
}

func TestSamplesRowCounts(t *testing.T) {
	for _, s := range samples {
		t.Run(s.file, func(t *testing.T) {
			a := openSample(t, s.file)
			if a.Meta.Core.RowType != s.core {
				t.Errorf("core rowType %q, want %q", a.Meta.Core.RowType, s.core)
			}
			specs := append([]FileSpec{a.Meta.Core}, a.Meta.Extensions...)
			if len(specs) != len(s.rows) {
				t.Errorf("%d data files, want %d", len(specs), len(s.rows))
			}
			for _, spec := range specs {
				want, ok := s.rows[spec.Files[0]]
				if !ok {
					t.Errorf("unexpected data file %q", spec.Files[0])
					continue
				}
				if got := countRows(t, a, spec); got != want {
					t.Errorf("%s: %d rows, want %d", spec.Files[0], got, want)
				}
			}
		})
	}
}

func TestSamplesRecords(t *testing.T) {
	for _, s := range samples {
		t.Run(s.file, func(t *testing.T) {
			a := openSample(t, s.file)
			sr, err := a.Records(context.Background())
			if s.records < 0 {
				if !errors.Is(err, ErrNotOccurrenceData) {
					t.Fatalf("Records: %v, want ErrNotOccurrenceData", err)
				}
				if want := s.core; !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name the core row type %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer sr.Close()
			n := 0
			for {
				rec, err := sr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(rec.Core) == 0 || rec.Source == "" {
					t.Fatalf("empty record %+v", rec)
				}
				n++
			}
			if n != s.records {
				t.Errorf("%d records, want %d", n, s.records)
			}
			if b := sr.Broken(); b.Count != 0 {
				t.Errorf("broken rows: %d (%v)", b.Count, b.Rows)
			}
		})
	}
}
