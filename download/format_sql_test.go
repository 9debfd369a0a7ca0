package download

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/sqlquery"
)

// A SQL download is one <key>.csv with the query's header and rows; its
// record count is the result's rows and its datasets and licence are those
// of the records its WHERE clause kept, as GBIF's SQL downloads count them.
func TestSQLDownload(t *testing.T) {
	key := "0000009-240506070809000"
	sql := `SELECT datasetKey, COUNT(*) AS "nRecords", MIN(gbifID) FROM occurrence
		WHERE datasetKey <> 'a1b2c3d4-0000-4000-8000-000000000001' GROUP BY datasetKey ORDER BY "nRecords" DESC`
	data, res := export(t, ExportSpec{Format: FormatSQLTSVZip, Key: key, SQL: sql}, testSource())
	names, content := entries(t, data)
	if len(names) != 1 || names[0] != key+".csv" {
		t.Fatalf("entries %v, want only %s.csv", names, key)
	}
	var want strings.Builder
	want.WriteString("datasetkey\tnRecords\tMIN(gbifid)\n")
	first := 1000
	mins := map[string]int{}
	for _, d := range testDatasets {
		mins[d.key] = first
		first += d.records
	}
	for _, d := range []testDataset{testDatasets[0], testDatasets[2], testDatasets[3]} {
		fmt.Fprintf(&want, "%s\t%d\t%d\n", d.key, d.records, mins[d.key])
	}
	if got := content[key+".csv"]; got != want.String() {
		t.Errorf("result\n%s\nwant\n%s", got, want.String())
	}
	if res.Records != 3 {
		t.Errorf("Records = %d, want the result's 3 rows", res.Records)
	}
	if len(res.Datasets) != 3 || res.Datasets[testDatasets[1].key] != 0 || res.Datasets[testDatasets[0].key] != int64(testDatasets[0].records) {
		t.Errorf("datasets %v: want the three the WHERE clause kept, with their records", res.Datasets)
	}
	// The unrecognized licence of the fourth dataset is reported, as for
	// any download.
	if len(res.UnknownLicense) != 1 || res.UnknownLicense[0] != testDatasets[3].key {
		t.Errorf("unknown licences %v", res.UnknownLicense)
	}
}

// Text cells are cleaned as the other text formats clean them, numbers
// printed as GBIF prints them.
func TestSQLDownloadCells(t *testing.T) {
	data, _ := export(t, ExportSpec{Format: FormatSQLTSVZip, Key: "k",
		SQL: "SELECT gbifid, locality, decimalLatitude * 1000000, 1 / 3, SQRT(-1) FROM occurrence WHERE gbifid IN (1001, 1003) ORDER BY gbifid"}, nil)
	rows := table(t, "k.csv", mustEntry(t, data, "k.csv"))
	if len(rows) != 3 {
		t.Fatalf("rows %q", rows)
	}
	for _, row := range rows[1:] {
		if len(row) != 5 {
			t.Errorf("row %q has %d cells, want 5: a value broke the row", row, len(row))
		}
		if row[3] != "0.3333333333333333" || row[4] != "NaN" {
			t.Errorf("row %q: 1/3 and SQRT(-1) as Java prints them", row)
		}
	}
	if rows[1][1] != "tab here" {
		t.Errorf("locality %q, want the tab made a space", rows[1][1])
	}
}

func mustEntry(t *testing.T, data []byte, name string) string {
	t.Helper()
	_, content := entries(t, data)
	s, ok := content[name]
	if !ok {
		t.Fatalf("no entry %s", name)
	}
	return s
}

func TestSQLSpecChecks(t *testing.T) {
	ctx := t.Context()
	var sb strings.Builder
	cases := []struct {
		spec ExportSpec
		want error
		text string
	}{
		{ExportSpec{Format: FormatSQLTSVZip}, ErrFormat, "takes a SQL query"},
		{ExportSpec{Format: FormatSQLTSVZip, SQL: "SELECT gbifid FROM occurrence", Predicate: &occurrence.Predicate{}}, ErrFormat, "no predicate"},
		{ExportSpec{Format: FormatSimpleCSV, SQL: "SELECT gbifid FROM occurrence"}, ErrFormat, "makes a SQL_TSV_ZIP download"},
		{ExportSpec{Format: FormatSQLTSVZip, SQL: "SELECT * FROM occurrence"}, sqlquery.ErrInvalidSQL, "SELECT * is not supported"},
	}
	for _, c := range cases {
		_, err := NewExport(ctx, &sb, c.spec, ExportOptions{})
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%+v: %v, want %v saying %q", c.spec, err, c.want, c.text)
		}
	}
}

// GBIF's verbatim columns (v_ and the term's simple name) read the
// record's verbatim values: v_modified is dcterms:modified as published,
// not the interpreted timestamp; a record without the term is NULL.
func TestSQLVerbatimColumns(t *testing.T) {
	data, _ := export(t, ExportSpec{Format: FormatSQLTSVZip, Key: "k",
		SQL: "SELECT gbifid, v_locality, v_modified, v_habitat, modified FROM occurrence WHERE v_locality IS NULL OR gbifid = 1001 ORDER BY gbifid"}, nil)
	rows := table(t, "k.csv", mustEntry(t, data, "k.csv"))
	if len(rows) < 3 || strings.Join(rows[0], " ") != "gbifid v_locality v_modified v_habitat modified" {
		t.Fatalf("rows %q", rows)
	}
	if got := rows[1]; got[0] != "1001" || got[1] != "tab here" || got[2] != "2020-01-01" || got[3] != "forest edge" || got[4] != "2020-01-01T00:00:00.250Z" {
		t.Errorf("record 1001: %q", got)
	}
	for _, row := range rows[2:] {
		// tricky's empty value: no locality term in the verbatim object.
		if row[1] != "" || (row[0] != "1007" && row[0] != "1015") {
			t.Errorf("a record without a verbatim locality: %q", row)
		}
	}
	if _, err := ParseSQL("SELECT v_nosuchterm FROM occurrence", sqlquery.Options{}); !errors.Is(err, sqlquery.ErrInvalidSQL) {
		t.Errorf("an unknown verbatim column: %v", err)
	}
	d, err := Describe(FormatSQLTSVZip)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range d.(DescribedTable).Fields {
		names[f.Name] = true
		switch f.Name {
		case "sex":
			if f.Type != "STRUCT<concept: STRING,lineage: ARRAY<STRING>>" {
				t.Errorf("sex is described as %s, GBIF's a struct", f.Type)
			}
		case "typestatus":
			if f.Type != "STRUCT<concepts: ARRAY<STRING>,lineage: ARRAY<STRING>>" || f.Delimiter != "" {
				t.Errorf("typestatus is described as %s (delimiter %q), GBIF's a struct of lists", f.Type, f.Delimiter)
			}
		}
		// Every column described is one a query may read (quoted: order).
		if _, err := ParseSQL(`SELECT "`+f.Name+`" FROM occurrence`, sqlquery.Options{}); err != nil {
			t.Errorf("describe/sql lists %s (%s), which a query cannot read: %v", f.Name, f.Type, err)
		}
	}
	if !names["v_scientificname"] || !names["v_modified"] || !names["scientificname"] || !names["gbifid"] || !names["eventdatelte"] || !names["isincluster"] {
		t.Errorf("describe/sql lacks columns: %d fields", len(names))
	}
}
