package download

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/biodiversity-downloads/downloader/dwca"
)

func describedTable(t *testing.T, f Format) DescribedTable {
	t.Helper()
	d, err := Describe(f)
	if err != nil {
		t.Fatal(err)
	}
	tbl, ok := d.(DescribedTable)
	if !ok {
		t.Fatalf("%s described as %T", f, d)
	}
	return tbl
}

func names(tbl DescribedTable) []string {
	out := make([]string, len(tbl.Fields))
	for i, f := range tbl.Fields {
		out[i] = f.Name
	}
	return out
}

func terms(tbl DescribedTable) []string {
	out := make([]string, len(tbl.Fields))
	for i, f := range tbl.Fields {
		out[i] = f.Term
	}
	return out
}

// checkValues checks every cell of a written text file against the
// description: the header is the described names, and each non-empty value
// parses as its described type (a DATE by the Go layout the typeFormat was
// made from, a multi-value cell split at its delimiter into non-empty
// values).
func checkValues(t *testing.T, file string, rows [][]string, tbl DescribedTable) {
	t.Helper()
	if !slices.Equal(rows[0], names(tbl)) {
		t.Fatalf("%s header\n%v\ndescribed\n%v", file, rows[0], names(tbl))
	}
	seen := map[string]bool{}
	for _, r := range rows[1:] {
		for i, v := range r {
			f := tbl.Fields[i]
			if v == "" {
				if !f.Nullable {
					t.Errorf("%s: %s is described as never empty but is empty", file, f.Name)
				}
				continue
			}
			seen[f.Type] = true
			var err error
			switch f.Type {
			case "INT":
				_, err = strconv.ParseInt(v, 10, 32)
			case "BIGINT":
				_, err = strconv.ParseInt(v, 10, 64)
			case "DOUBLE":
				_, err = strconv.ParseFloat(v, 64)
			case "BOOLEAN":
				_, err = strconv.ParseBool(v)
			case "DATE":
				if f.TypeFormat != javaDateFormat(timeLayout) {
					t.Errorf("%s: %s typeFormat %q", file, f.Name, f.TypeFormat)
				}
				_, err = time.Parse(timeLayout, v)
			case "ARRAY<STRING>":
				if f.Delimiter != ";" || slices.Contains(strings.Split(v, f.Delimiter), "") {
					t.Errorf("%s: %s = %q with delimiter %q", file, f.Name, v, f.Delimiter)
				}
			case "STRING":
			default:
				t.Errorf("%s: %s has type %q", file, f.Name, f.Type)
			}
			if err != nil {
				t.Errorf("%s: %s = %q is not %s: %v", file, f.Name, v, f.Type, err)
			}
		}
	}
	if file != "verbatim.txt" && file != "multimedia.txt" {
		for _, typ := range []string{"BIGINT", "DOUBLE", "DATE", "ARRAY<STRING>", "STRING"} {
			if !seen[typ] && file != "species list" {
				t.Errorf("%s: no value of type %s checked", file, typ)
			}
		}
	}
}

// TestDescribeSimpleCSV: the description is the header and the value types
// of the file SIMPLE_CSV writes.
func TestDescribeSimpleCSV(t *testing.T) {
	tbl := describedTable(t, FormatSimpleCSV)
	if len(tbl.Fields) != len(simpleCSVColumns) || tbl.Fields[0] != (DescribedField{Name: "gbifID", Type: "BIGINT",
		Term: "http://rs.gbif.org/terms/1.0/gbifID"}) {
		t.Fatalf("%d fields, first %+v", len(tbl.Fields), tbl.Fields[0])
	}
	data, _ := export(t, ExportSpec{Format: FormatSimpleCSV, Key: "k"}, nil)
	_, content := entries(t, data)
	checkValues(t, "k.csv", table(t, "k.csv", content["k.csv"]), tbl)
}

// TestDescribeDWCA: the three tables are the headers, value types and
// meta.xml terms of occurrence.txt, verbatim.txt and multimedia.txt.
func TestDescribeDWCA(t *testing.T) {
	d, err := Describe(FormatDWCA)
	if err != nil {
		t.Fatal(err)
	}
	dw := d.(DescribedDWCA)
	// GBIF's availableExtensions: 25 row types, each one a request may name.
	if len(dw.VerbatimExtensions) != 25 {
		t.Fatalf("verbatimExtensions %v", dw.VerbatimExtensions)
	}
	for _, rt := range dw.VerbatimExtensions {
		if e, err := LookupExtension(rt); err != nil || !e.Available {
			t.Errorf("described extension %s: %+v %v", rt, e, err)
		}
	}
	data, _ := export(t, ExportSpec{Format: FormatDWCA, Key: "k"}, testSource())
	_, content := entries(t, data)
	meta, err := dwca.ParseMeta(strings.NewReader(content["meta.xml"]))
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]dwca.FileSpec{meta.Core.Files[0]: meta.Core}
	for _, e := range meta.Extensions {
		specs[e.Files[0]] = e
	}
	for file, tbl := range map[string]DescribedTable{"occurrence.txt": dw.Interpreted, "verbatim.txt": dw.Verbatim,
		"multimedia.txt": dw.Multimedia} {
		checkValues(t, file, table(t, file, content[file]), tbl)
		var metaTerms []string
		for _, f := range specs[file].Fields {
			if f.Index >= 0 { // not the WGS84 geodeticDatum default
				metaTerms = append(metaTerms, f.Term)
			}
		}
		if !slices.Equal(metaTerms, terms(tbl)) {
			t.Errorf("%s: meta.xml terms\n%v\ndescribed\n%v", file, metaTerms, terms(tbl))
		}
	}
}

// TestDescribeSpeciesList: the header and types of SPECIES_LIST's file.
func TestDescribeSpeciesList(t *testing.T) {
	tbl := describedTable(t, FormatSpeciesList)
	data, _ := export(t, ExportSpec{Format: FormatSpeciesList, Key: "k"}, nil)
	_, content := entries(t, data)
	rows := table(t, "k.csv", content["k.csv"])
	checkValues(t, "species list", rows, tbl)
	count := slices.IndexFunc(tbl.Fields, func(f DescribedField) bool { return f.Name == "numberOfOccurrences" })
	if f := tbl.Fields[count]; f.Type != "BIGINT" || f.Nullable || f.Term != "http://rs.gbif.org/terms/1.0/numberOfOccurrences" {
		t.Fatalf("count column %+v", f)
	}
	for _, f := range tbl.Fields {
		if !strings.Contains(f.Term, "://") {
			t.Errorf("%s has no term URI: %q", f.Name, f.Term)
		}
	}
}

// TestDescribeSimpleParquet: the names and types of the columns of the
// Parquet parts SIMPLE_PARQUET writes.
func TestDescribeSimpleParquet(t *testing.T) {
	tbl := describedTable(t, FormatSimpleParquet)
	data, _ := export(t, ExportSpec{Format: FormatSimpleParquet}, nil)
	_, content := entries(t, data)
	part := content["occurrence.parquet/000000"]
	rdr, err := file.NewParquetReader(bytes.NewReader([]byte(part)))
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	schema, err := fr.Schema()
	if err != nil {
		t.Fatal(err)
	}
	want := map[arrow.Type]string{arrow.STRING: "STRING", arrow.INT32: "INT", arrow.INT64: "BIGINT",
		arrow.FLOAT64: "DOUBLE", arrow.BOOL: "BOOLEAN", arrow.TIMESTAMP: "DATE", arrow.LIST: "ARRAY<STRING>"}
	if schema.NumFields() != len(tbl.Fields) {
		t.Fatalf("part has %d columns, described %d", schema.NumFields(), len(tbl.Fields))
	}
	lists := 0
	for i, f := range schema.Fields() {
		d := tbl.Fields[i]
		if d.Name != f.Name || d.Type != want[f.Type.ID()] || d.TypeFormat != "" {
			t.Errorf("column %d: written %s %s, described %+v", i, f.Name, f.Type, d)
		}
		if d.Delimiter != "" {
			t.Errorf("column %s described with a text delimiter %q", d.Name, d.Delimiter)
		}
		if d.Type == "ARRAY<STRING>" {
			lists++
		}
	}
	if lists == 0 {
		t.Error("no list column described")
	}
}

func TestDescribeEveryFormatAndItsPathName(t *testing.T) {
	for _, f := range Formats() {
		if _, err := Describe(f.Name); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
	for path, want := range map[string]Format{"dwca": FormatDWCA, "simpleCsv": FormatSimpleCSV,
		"speciesList": FormatSpeciesList, "simpleParquet": FormatSimpleParquet, "simpleAvro": FormatSimpleAvro, "simpleWithVerbatimAvro": FormatSimpleWithVerbatimAvro,
		"SIMPLE_CSV": FormatSimpleCSV, "sql": FormatSQLTSVZip, "mapOfLife": FormatMapOfLife, "bionomia": FormatBionomia} {
		if got, err := LookupDescribed(path); err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", path, got, err, want)
		}
	}
	for _, bad := range []string{"xlsx", "SQL", ""} {
		if _, err := LookupDescribed(bad); !errors.Is(err, ErrFormat) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if got := javaDateFormat("2006-01-02T15:04:05.000Z"); got != "yyyy-MM-ddTHH:mm:ss.SSSZ" {
		t.Errorf("typeFormat %q", got)
	}
}
