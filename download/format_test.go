package download

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

func TestSimpleCSV(t *testing.T) {
	data, res := export(t, ExportSpec{Format: FormatSimpleCSV, Key: "0001005-130906152512535"}, testSource())
	names, content := entries(t, data)
	if !slices.Equal(names, []string{"0001005-130906152512535.csv"}) {
		t.Fatalf("entries %v", names)
	}
	rows := table(t, names[0], content[names[0]])
	if !slices.Equal(rows[0], simpleCSVColumns) || len(rows[0]) != 50 {
		t.Fatalf("header %v", rows[0])
	}
	if len(rows)-1 != testRecordCount() || res.Records != int64(testRecordCount()) {
		t.Fatalf("%d rows, result %d, want %d", len(rows)-1, res.Records, testRecordCount())
	}
	loc, lat, lon := column(t, rows, "locality"), column(t, rows, "decimalLatitude"), column(t, rows, "decimalLongitude")
	elev, li, ts := column(t, rows, "elevation"), column(t, rows, "lastInterpreted"), column(t, rows, "typeStatus")
	for i, r := range rows[1:] {
		if want := dwca.CleanValue(tricky[i%len(tricky)]); r[loc] != want {
			t.Errorf("row %d locality %q, want %q", i, r[loc], want)
		}
		// Doubles as GBIF prints them (Java's Double.toString).
		if want := javaDouble(55.5 + float64(i)/1000); r[lat] != want {
			t.Errorf("row %d latitude %q, want %q", i, r[lat], want)
		}
		if want := javaDouble(0.000001 * float64(i+1)); r[lon] != want {
			t.Errorf("row %d longitude %q, want %q", i, r[lon], want)
		}
	}
	r := rows[1]
	if r[lon] != "1.0E-6" || r[elev] != "1.0E21" || r[li] != "2024-01-02T03:04:05.006Z" || r[ts] != "HOLOTYPE;PARATYPE" {
		t.Errorf("formatting: lon %q elevation %q lastInterpreted %q typeStatus %q", r[lon], r[elev], r[li], r[ts])
	}
	if r[column(t, rows, "kingdom")] != "Animalia" || r[column(t, rows, "species")] != "" {
		t.Errorf("values: %v", r)
	}
}

func TestSimpleCSVFields(t *testing.T) {
	data, _ := export(t, ExportSpec{Format: FormatSimpleCSV, Fields: []string{"gbifID", "hasCoordinate", "habitat", "dcterms:modified", "http://example.org/terms/custom", "LOCALITY"}}, nil)
	_, content := entries(t, data)
	rows := table(t, "occurrence.csv", content["occurrence.csv"])
	if want := []string{"gbifID", "hasCoordinate", "habitat", "dcterms:modified", "http://example.org/terms/custom", "locality"}; !slices.Equal(rows[0], want) {
		t.Fatalf("header %v, want %v", rows[0], want)
	}
	// habitat and dcterms:modified are columns (modified interpreted as a
	// timestamp, printed as GBIF does); the custom term is read from the
	// verbatim record.
	if got := rows[1]; got[0] != "1000" || got[1] != "true" || got[2] != "forest edge" || got[3] != "2020-01-01T00:00:00Z" || got[4] != "x" {
		t.Fatalf("row %q", got)
	}
	for _, bad := range [][]string{{"nosuchthing"}, {"gbifID", "gbifid"}, {""}, {"verbatim"}} {
		_, err := NewExport(context.Background(), io.Discard, ExportSpec{Format: FormatSimpleCSV, Fields: bad}, ExportOptions{})
		if !errors.Is(err, ErrFormat) {
			t.Errorf("fields %q: %v", bad, err)
		}
	}
}

func TestBadSpec(t *testing.T) {
	var buf bytes.Buffer
	for _, spec := range []ExportSpec{{Format: "ZIP"}, {Format: FormatDWCA, Key: "../x"}, {Format: FormatSpeciesList, Fields: []string{"gbifID"}}} {
		if _, err := NewExport(context.Background(), &buf, spec, ExportOptions{}); !errors.Is(err, ErrFormat) {
			t.Errorf("%+v: %v", spec, err)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("a rejected export wrote %d bytes", buf.Len())
	}
	if f, err := ParseFormat("simple_csv"); err != nil || f != FormatSimpleCSV {
		t.Errorf("ParseFormat: %v %v", f, err)
	}
}

func TestLicenceAndCounts(t *testing.T) {
	data, res := export(t, ExportSpec{Format: FormatSimpleCSV}, testSource())
	if res.License != occurrence.LicenseCCBYNC {
		t.Errorf("licence %q, want CC BY-NC", res.License)
	}
	if !slices.Equal(res.UnknownLicense, []string{testDatasets[3].key}) {
		t.Errorf("unknown licences %v", res.UnknownLicense)
	}
	for _, d := range testDatasets {
		if res.Datasets[d.key] != int64(d.records) {
			t.Errorf("dataset %s: %d records, want %d", d.key, res.Datasets[d.key], d.records)
		}
	}
	if sum := sha256.Sum256(data); res.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("sha256 %q, archive's is %x", res.SHA256, sum)
	}
}

func TestRankLicence(t *testing.T) {
	for in, want := range map[string]licenceRank{
		occurrence.LicenseCC0: licCC0, occurrence.LicenseCCBY: licCCBY, occurrence.LicenseCCBYNC: licCCBYNC,
		"CC_BY_NC_4_0": licCCBYNC, "CC0_1_0": licCC0, "http://creativecommons.org/licenses/by/4.0/": licCCBY,
		"unspecified": licUnknown, "": licUnknown, "All rights reserved": licUnknown,
		// Licences GBIF does not support are unknown, as at interpretation.
		"http://creativecommons.org/licenses/by-nc-nd/4.0/": licUnknown, "CC BY-NC-SA 4.0": licUnknown,
	} {
		if got := rankLicence(in); got != want {
			t.Errorf("%q: %d, want %d", in, got, want)
		}
		if norm, ok := occurrence.NormalizeLicense(in); ok != (want != licUnknown) {
			t.Errorf("%q: NormalizeLicense says %q (%v), the download ranks it %d", in, norm, ok, want)
		}
	}
}

func TestSpeciesList(t *testing.T) {
	data, _ := export(t, ExportSpec{Format: FormatSpeciesList, Key: "k1"}, nil)
	_, content := entries(t, data)
	rows := table(t, "k1.csv", content["k1.csv"])
	if !slices.Equal(rows[0], speciesListColumns) {
		t.Fatalf("header %v", rows[0])
	}
	n := testRecordCount()
	want := map[string]int{"Puma concolor": (n + 2) / 3, "Strix aluco": (n + 1) / 3, "Bufo bufo": n / 3}
	if len(rows) != 4 {
		t.Fatalf("%d taxa, want 3", len(rows)-1)
	}
	cnt, name := column(t, rows, "numberOfOccurrences"), column(t, rows, "scientificName")
	prev := 1 << 30
	for _, r := range rows[1:] {
		c, _ := strconv.Atoi(r[cnt])
		if c != want[r[name]] || c > prev {
			t.Errorf("%s: %s occurrences (want %d, sorted descending)", r[name], r[cnt], want[r[name]])
		}
		prev = c
	}
}

func TestSimpleParquet(t *testing.T) {
	data, _ := export(t, ExportSpec{Format: FormatSimpleParquet, Fields: []string{"gbifID", "locality", "decimalLatitude", "habitat"}}, nil)
	names, content := entries(t, data)
	if len(names) < 2 || names[0] != "occurrence.parquet/000000" || names[1] != "occurrence.parquet/000001" {
		t.Fatalf("parts %v (a 1-byte part limit must roll over)", names)
	}
	total := 0
	for _, n := range names {
		rdr, err := file.NewParquetReader(bytes.NewReader([]byte(content[n])))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := fr.ReadTable(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := tbl.Schema().Field(3).Name; got != "habitat" {
			t.Errorf("field 3 %q", got)
		}
		if got := tbl.Schema().Field(0); got.Name != "gbifid" || !arrow.TypeEqual(got.Type, arrow.BinaryTypes.String) {
			t.Errorf("field 0 %v: GBIF's gbifid is a string", got)
		}
		total += int(tbl.NumRows())
		tbl.Release()
		rdr.Close()
	}
	if total != testRecordCount() {
		t.Fatalf("%d parquet rows, want %d", total, testRecordCount())
	}
}
