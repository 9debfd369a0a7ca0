package abcd

import (
	"archive/zip"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.tsv (then review the diff by hand)")

// samples are the real documents in testdata (see SOURCES.md).
var samples = []string{
	"cdmlib-DNA_AlgaTerra.xml",
	"cdmlib-MultipleIdentificationsPreferredFlag.xml",
	"dissco-biocase-206-response.xml",
	"dissco-biocase-206-with-media.xml",
	"dissco-biocase-biologia.xml",
	"dissco-biocase-culture-collection-of-algae.xml",
	"dissco-biocase-type-specimen.xml",
	"gbif-crawler-complete_results.xml",
	"gbif-crawler-dataset2.xml",
	"gbif-crawler-dropped_records_response.xml",
	"gbif-pipelines-7ef15372-1387-11e2-bb2e-00145eb45e9a.abcda",
	"gbif-pipelines-abcd206_all_simple_fields.xml",
	"gbif-pipelines-abcd206_id_latin.xml",
	"gbif-pipelines-abcd206_images.xml",
	"gbif-pipelines-abcd206_multi_ids_preferred_false.xml",
	"protocol/no_results.xml",
}

var unitTag = regexp.MustCompile(`<([A-Za-z0-9_]+:)?Unit[\s>]`)

// countUnits counts <Unit> start tags in the raw bytes, independently of the
// parser (entries of an archive included).
func countUnits(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("PK")) {
		return len(unitTag.FindAll(data, -1))
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		n += len(unitTag.FindAll(b, -1))
	}
	return n
}

// readAll reads every record of a sample through OpenSource.
func readAll(t *testing.T, path string) ([]occurrence.RawRecord, *Source) {
	t.Helper()
	ctx := context.Background()
	src, err := OpenSource(ctx, path, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	var recs []occurrence.RawRecord
	for {
		r, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if p := src.Problems(); len(p) > 0 {
		t.Fatalf("problems: %v", p)
	}
	return recs, src
}

// short turns a term URI into a readable name: dwc terms bare, others with
// their namespace prefix.
func short(term string) string {
	switch {
	case strings.HasPrefix(term, dwc):
		return term[len(dwc):]
	case strings.HasPrefix(term, dc):
		return "dcterms:" + term[len(dc):]
	case strings.HasPrefix(term, gbif):
		return "gbif:" + term[len(gbif):]
	}
	return term
}

var rowTypeNames = map[string]string{
	occurrence.RowTypeIdentification: "Identification",
	occurrence.RowTypeMultimedia:     "Multimedia",
	occurrence.RowTypeMeasurement:    "MeasurementOrFact",
}

// goldenTSV renders records as "record<TAB>row<TAB>term<TAB>value" lines,
// one per non-empty value: core rows first, then extension rows, in the
// column order of the archive.
func goldenTSV(recs []occurrence.RawRecord) string {
	var b strings.Builder
	b.WriteString("record\trow\tterm\tvalue\n")
	line := func(rec int, row, term, val string) {
		fmt.Fprintf(&b, "%d\t%s\t%s\t%s\n", rec, row, short(term), strings.NewReplacer("\t", " ", "\n", " ").Replace(val))
	}
	for i, r := range recs {
		for _, term := range coreTerms {
			if v := r.Core[term]; v != "" {
				line(i+1, "core", term, v)
			}
		}
		for _, rt := range extensionOrder {
			for j, row := range r.Extensions[rt] {
				for _, term := range extensionTerms[rt] {
					if v := row[term]; v != "" {
						line(i+1, fmt.Sprintf("%s.%d", rowTypeNames[rt], j+1), term, v)
					}
				}
			}
		}
	}
	return b.String()
}

// TestSamplesGolden: for every sample, units in = records out, every key is
// a declared column, and the output equals the reviewed golden file.
func TestSamplesGolden(t *testing.T) {
	for _, name := range samples {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			recs, _ := readAll(t, path)
			if want := countUnits(t, path); len(recs) != want {
				t.Fatalf("%d records from %d units", len(recs), want)
			}
			checkDeclared(t, recs)
			got := goldenTSV(recs)
			golden := filepath.Join("testdata", "golden", strings.ReplaceAll(strings.TrimSuffix(name, filepath.Ext(name)), "/", "_")+".tsv")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s:\n%s", golden, firstDiff(string(want), got))
			}
		})
	}
}

func checkDeclared(t *testing.T, recs []occurrence.RawRecord) {
	t.Helper()
	declared := map[string]bool{}
	for _, term := range coreTerms {
		declared[term] = true
	}
	for _, r := range recs {
		for k := range r.Core {
			if !declared[k] {
				t.Errorf("core term %s is not a declared column", k)
			}
		}
		for rt, rows := range r.Extensions {
			cols := map[string]bool{}
			for _, term := range extensionTerms[rt] {
				cols[term] = true
			}
			for _, row := range rows {
				for k := range row {
					if !cols[k] {
						t.Errorf("%s term %s is not a declared column", rt, k)
					}
				}
			}
		}
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d\nwant: %s\ngot:  %s", i+1, a, b)
		}
	}
	return ""
}

// core returns the core terms of record i by short name.
func coreOf(r occurrence.RawRecord) map[string]string {
	m := map[string]string{}
	for k, v := range r.Core {
		m[short(k)] = v
	}
	return m
}

func extOf(r occurrence.RawRecord, rowType string) []map[string]string {
	var out []map[string]string
	for _, row := range r.Extensions[rowType] {
		m := map[string]string{}
		for k, v := range row {
			m[short(k)] = v
		}
		out = append(out, m)
	}
	return out
}

func expect(t *testing.T, what string, got map[string]string, want map[string]string) {
	t.Helper()
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got[k] != want[k] {
			t.Errorf("%s: %s = %q, want %q", what, k, got[k], want[k])
		}
	}
}
