package download

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// tricky holds values that the text rules must flatten: tabs, line breaks
// of every kind, quotes, NUL, non-BMP characters and XML specials.
var tricky = []string{
	"Puma concolor (Linnaeus, 1771)",
	"tab\there",
	"new\nline and\r\ncrlf",
	`"quoted" 'single' \backslash`,
	"vt\vff\fnel\u0085ls\u2028ps\u2029nul\x00end",
	"non-BMP 𝔊𝔅𝔌𝔉 🦉 and ørsted",
	"<xml> & ampersand;",
	"", // null
}

// testDataset describes a synthetic dataset for the tests.
type testDataset struct {
	key     string
	license string
	records int
}

var testDatasets = []testDataset{
	{"7ddf754f-d193-4cc9-b351-99906754a03b", occurrence.LicenseCCBY, 7},
	{"a1b2c3d4-0000-4000-8000-000000000001", occurrence.LicenseCC0, 5},
	{"a1b2c3d4-0000-4000-8000-000000000002", occurrence.LicenseCCBYNC, 3},
	{"a1b2c3d4-0000-4000-8000-000000000003", occurrence.LicenseUnspecified, 2},
}

// testRecords builds the records of testDatasets as Arrow batches of the full
// schema, batchRows rows each. Record n carries tricky[n%len(tricky)] in its
// locality, verbatim locality and multimedia title.
func testRecords(t testing.TB, batchRows int) []arrow.RecordBatch {
	t.Helper()
	return batchesOf(batchRows, func(add func(*occurrence.Record)) {
		eachTestRecord(func(_ testDataset, r *occurrence.Record) { add(r) })
	})
}

// batchesOf builds the records fill adds as Arrow batches of the full
// schema, batchRows rows each.
func batchesOf(batchRows int, fill func(add func(*occurrence.Record))) []arrow.RecordBatch {
	b := occurrence.NewBuilder()
	defer b.Release()
	var out []arrow.RecordBatch
	fill(func(r *occurrence.Record) {
		b.Append(r)
		if b.Len() == batchRows {
			out = append(out, b.NewBatch())
		}
	})
	if b.Len() > 0 {
		out = append(out, b.NewBatch())
	}
	return out
}

// eachTestRecord calls fn with every record of testDatasets in turn (r is
// reused).
func eachTestRecord(fn func(ds testDataset, r *occurrence.Record)) {
	r := occurrence.NewRecord()
	n := 0
	idx := occurrence.ColumnIndex
	for _, ds := range testDatasets {
		for j := 0; j < ds.records; j++ {
			r.Reset()
			v := tricky[n%len(tricky)]
			r.SetInt(idx(occurrence.ColGBIFID), int64(1000+n))
			r.SetString(idx(occurrence.ColDatasetKey), ds.key)
			r.SetString(idx(occurrence.ColLicense), ds.license)
			r.SetString(idx(occurrence.ColBasisOfRecord), "HUMAN_OBSERVATION")
			r.SetString(idx(occurrence.ColKingdom), "Animalia")
			sp := []string{"Puma concolor", "Strix aluco", "Bufo bufo"}[n%3]
			r.SetString(idx(occurrence.ColScientificName), sp)
			r.SetInt(idx(occurrence.ColTaxonKey), int64(2435099+n%3))
			r.SetString(idx(occurrence.ColTaxonRank), "SPECIES")
			r.SetString(idx(occurrence.ColLocality), v)
			r.SetString(idx(occurrence.ColCountryCode), "DK")
			r.SetFloat(idx(occurrence.ColDecimalLatitude), 55.5+float64(n)/1000)
			r.SetFloat(idx(occurrence.ColDecimalLongitude), 0.000001*float64(n+1))
			r.SetFloat(idx(occurrence.ColElevation), 1e21)
			r.SetBool(idx(occurrence.ColHasCoordinate), true)
			r.SetInt(idx(occurrence.ColYear), 2020)
			r.SetString(idx(occurrence.ColTypeStatus), "HOLOTYPE;PARATYPE")
			r.SetString(idx(occurrence.ColRecordedBy), "Smith, J.;Doe, A.")
			r.SetTime(idx(occurrence.ColLastInterpreted), time.Date(2024, 1, 2, 3, 4, 5, 6e6, time.UTC))
			// What interpretation makes of the verbatim values below.
			r.SetString(idx("habitat"), "forest\tedge")
			r.SetTime(idx("modified"), time.Date(2020, 1, 1, 0, 0, 0, 250e6, time.UTC)) // written to the second
			verb := map[string]string{"locality": v, "scientificName": sp, "habitat": "forest\tedge",
				"dcterms:modified": "2020-01-01", "http://example.org/terms/custom": "x"}
			for k, val := range verb {
				if val == "" {
					delete(verb, k)
				}
			}
			js, _ := json.Marshal(verb)
			r.SetString(idx(occurrence.ColVerbatim), string(js))
			if n%2 == 0 {
				media := []map[string]string{{"type": "StillImage", "identifier": fmt.Sprintf("https://img.example.org/%d.jpg", n), "title": v}}
				if n%4 == 0 {
					media = append(media, map[string]string{"type": "Sound", "format": "audio/mpeg", "identifier": "https://snd.example.org/x.mp3"})
				}
				js, _ := json.Marshal(media)
				r.SetString(idx(occurrence.ColMultimedia), string(js))
			}
			fn(ds, r)
			n++
		}
	}
}

func testRecordCount() int {
	n := 0
	for _, d := range testDatasets {
		n += d.records
	}
	return n
}

// memCatalog is an in-memory occurrence.Catalog: the caller's dataset
// metadata for a download, as a table would give it.
type memCatalog map[string]struct {
	info occurrence.DatasetInfo
	eml  string
}

func (m memCatalog) Datasets(context.Context) ([]occurrence.DatasetInfo, error) {
	var out []occurrence.DatasetInfo
	for _, d := range m {
		out = append(out, d.info)
	}
	slices.SortFunc(out, func(a, b occurrence.DatasetInfo) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func (m memCatalog) Dataset(_ context.Context, key string) (occurrence.DatasetInfo, error) {
	d, ok := m[key]
	if !ok {
		return occurrence.DatasetInfo{}, fmt.Errorf("%w: %s", occurrence.ErrNoDataset, key)
	}
	return d.info, nil
}

func (m memCatalog) DatasetEML(_ context.Context, key string) (io.ReadCloser, error) {
	d, ok := m[key]
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: %s", occurrence.ErrNoDataset, key)
	case d.eml == "":
		return nil, occurrence.ErrNoEML
	}
	return io.NopCloser(strings.NewReader(d.eml)), nil
}

// testSource describes testDatasets: the first three with a title, a
// licence and an EML document, the last with nothing but its key (its
// records' licence then rules).
func testSource() memCatalog {
	m := memCatalog{}
	for i, d := range testDatasets {
		lic := d.license
		if i == 0 {
			lic = "Creative Commons Attribution (CC-BY) 4.0"
		}
		info := occurrence.DatasetInfo{Key: d.key, Records: int64(d.records)}
		eml := ""
		if i < 3 {
			info.Title, info.License, info.HasEML = fmt.Sprintf("Dataset %d & <friends>", i), lic, true
			eml = fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?><eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="%s"><dataset><title>Dataset %d</title></dataset></eml:eml>`, d.key, i)
		}
		m[d.key] = struct {
			info occurrence.DatasetInfo
			eml  string
		}{info, eml}
	}
	return m
}

// export runs one export over the test records and returns the archive.
// A nil c exports without a catalog.
func export(t testing.TB, spec ExportSpec, c occurrence.Catalog) ([]byte, ExportResult) {
	t.Helper()
	recs := testRecords(t, 4)
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	return exportRecords(t, spec, ExportOptions{Catalog: c, ParquetPartBytes: 1}, recs)
}

// exportRecords writes batches into an export of spec (created at a fixed
// time, temporary files in a test folder) and returns the archive.
func exportRecords(t testing.TB, spec ExportSpec, opts ExportOptions, batches []arrow.RecordBatch) ([]byte, ExportResult) {
	t.Helper()
	var buf bytes.Buffer
	ctx := context.Background()
	spec.Created = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	opts.TempDir = t.TempDir()
	x, err := NewExport(ctx, &buf, spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range batches {
		if err := x.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	res, err := x.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Bytes != int64(buf.Len()) {
		t.Fatalf("result says %d bytes, archive has %d", res.Bytes, buf.Len())
	}
	return buf.Bytes(), res
}

// entries reads every entry of an archive.
func entries(t testing.TB, data []byte) (names []string, content map[string]string) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	content = map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		names = append(names, f.Name)
		content[f.Name] = string(b)
	}
	return names, content
}

// table splits a text file into rows of cells, checking the file rules.
func table(t testing.TB, name, text string) [][]string {
	t.Helper()
	if !strings.HasSuffix(text, "\n") {
		t.Fatalf("%s does not end with a newline", name)
	}
	if strings.Contains(text, "\r") {
		t.Fatalf("%s contains CR", name)
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		rows = append(rows, strings.Split(line, "\t"))
	}
	for i, r := range rows {
		if len(r) != len(rows[0]) {
			t.Fatalf("%s line %d has %d cells, header %d", name, i+1, len(r), len(rows[0]))
		}
	}
	return rows
}

func column(t testing.TB, rows [][]string, name string) int {
	t.Helper()
	for i, h := range rows[0] {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %s in %v", name, rows[0])
	return -1
}

// specOf is the plainest spec of format f: every record, the format's
// own columns; a SQL download selects every record's gbifID.
func specOf(f Format) ExportSpec {
	if f == FormatSQLTSVZip {
		return ExportSpec{Format: f, SQL: "SELECT gbifid FROM occurrence"}
	}
	return ExportSpec{Format: f}
}
