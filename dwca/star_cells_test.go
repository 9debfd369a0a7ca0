package dwca

import (
	"context"
	"errors"
	"io"
	"maps"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// TestCellsReadAsTerms reads archives with and without UseCells, handing
// each record's Cells back to the reader at once: the rows by position give
// the same core terms (defaults, null markers and empty cells as the maps
// have them), extensions and locations as the maps, and Cells are reused.
// The Kew archive's extension is joined on disk: its records keep maps.
func TestCellsReadAsTerms(t *testing.T) {
	for name, streamed := range map[string]bool{"dwca-io-archive-occ.zip": true, "gbif-validator-Archive.zip": true,
		"dissco-dwca-lux-associated-media.zip": true, "dissco-dwca-kew-gbif-media.zip": false} {
		read := func(cells bool) (out []occurrence.RawRecord, byCells, reused int) {
			sr := openRecords(t, filepath.Join("testdata", name))
			if cells {
				sr.UseCells()
			}
			seen := map[*occurrence.Cells]bool{}
			for {
				r, err := sr.Next()
				if err == io.EOF {
					return out, byCells, reused
				}
				var re *RowError
				if errors.As(err, &re) {
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if r.Cells != nil {
					byCells++
					if seen[r.Cells] {
						reused++
					}
					seen[r.Cells] = true
					if r.Core != nil {
						t.Fatalf("%s: a record with both Cells and Core", name)
					}
				}
				core := maps.Clone(r.CoreMap())
				sr.RecycleCells(r.Cells)
				out = append(out, occurrence.RawRecord{Core: core, Extensions: r.Extensions, Source: r.Source})
			}
		}
		want, _, _ := read(false)
		got, byCells, reused := read(true)
		if len(want) < 2 {
			t.Fatalf("%s: %d records", name, len(want))
		}
		if !streamed {
			if byCells != 0 {
				t.Errorf("%s: %d records of the disk join by Cells", name, byCells)
			}
		} else if byCells != len(got) || reused != len(got)-1 {
			t.Errorf("%s: %d of %d records by Cells, %d in reused Cells; want all, all but the first", name, byCells, len(got), reused)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: records by Cells differ from records by Terms", name)
		}
	}
}

// openRecords opens the archive at path and its records, closed when the
// test ends.
func openRecords(t *testing.T, path string) *StarReader {
	t.Helper()
	a, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	sr, err := a.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sr.Close() })
	return sr
}

// The star reader's streamed core gives each row the same slice of cells
// (fill is done with a row before the next), holding that row's values.
func TestStreamedCoreReusesCells(t *testing.T) {
	path := filepath.Join("testdata", "dwca-io-archive-occ.zip")
	sr := openRecords(t, path)
	plain, err := sr.a.Rows(context.Background(), sr.a.Meta.Core)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	var first *string
	for n := 0; n < 3; n++ {
		row, err := sr.core.Next()
		if err != nil {
			t.Fatal(err)
		}
		want, err := plain.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(row.Cells(), want.Cells()) {
			t.Fatalf("row %d: cells %q, want %q", n, row.Cells(), want.Cells())
		}
		if n == 0 {
			first = &row.Cells()[0]
		} else if &row.Cells()[0] != first {
			t.Errorf("row %d: a new slice of cells", n)
		}
	}
}
