package download

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
)

// verbatimAvroFile exports the test records as SIMPLE_WITH_VERBATIM_AVRO
// and returns its one entry's bytes, checking the zip's layout: GBIF's
// entry name, stored (its blocks are deflated already).
func verbatimAvroFile(t *testing.T) []byte {
	t.Helper()
	data, res := export(t, ExportSpec{Format: FormatSimpleWithVerbatimAvro, Key: "0001005-130906152512535"}, testSource())
	if res.Records != int64(testRecordCount()) {
		t.Fatalf("%d records, want %d", res.Records, testRecordCount())
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 1 || zr.File[0].Name != "occurrence.avro/000000" || zr.File[0].Method != zip.Store {
		for _, f := range zr.File {
			t.Errorf("entry %s method %d", f.Name, f.Method)
		}
		t.Fatal("want one stored entry occurrence.avro/000000")
	}
	rc, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// SIMPLE_WITH_VERBATIM_AVRO is GBIF's schema (GenerateHQL
// .simpleWithVerbatimAvroSchema): the simple fields with the two verbatim
// ones named v_, seven more interpreted fields, then v_<term> for GBIF's
// verbatim terms, sorted; its values are SIMPLE_AVRO's and verbatim.txt's.
func TestSimpleWithVerbatimAvro(t *testing.T) {
	schema, rows := readAvro(t, verbatimAvroFile(t))
	if schema["name"] != "SimpleWithVerbatimOccurrence" || schema["namespace"] != "org.gbif.occurrence.download.avro" {
		t.Errorf("record %v in %v, want GBIF's", schema["name"], schema["namespace"])
	}
	var names []string
	types := map[string]string{}
	for _, f := range schema["fields"].([]any) {
		f := f.(map[string]any)
		b, _ := json.Marshal(f["type"])
		names = append(names, f["name"].(string))
		types[f["name"].(string)] = string(b)
	}
	// The simple part: SIMPLE_AVRO's fields, renamed where GBIF takes them
	// from the verbatim record, then the higher taxon keys and
	// publishingCountry.
	simple := slices.Clone(simpleCSVColumns)
	simple[slices.Index(simple, "verbatimScientificName")] = "v_scientificName"
	simple[slices.Index(simple, "verbatimScientificNameAuthorship")] = "v_scientificNameAuthorship"
	simple = append(simple, "kingdomKey", "phylumKey", "classKey", "orderKey", "familyKey", "genusKey", "publishingCountry")
	if len(names) < len(simple) || !slices.Equal(names[:len(simple)], simple) {
		t.Fatalf("fields begin %v, want %v", names[:min(len(names), len(simple))], simple)
	}
	tail := names[len(simple):]
	if !slices.IsSorted(tail) || len(slices.Compact(slices.Clone(tail))) != len(tail) {
		t.Errorf("verbatim fields not sorted and unique: %v", tail)
	}
	// Every GBIF verbatim term is there once: the two in the simple part,
	// the others in the tail.
	if len(tail) != len(gbifVerbatimTerms)-2 {
		t.Errorf("%d verbatim fields after the simple ones, want %d", len(tail), len(gbifVerbatimTerms)-2)
	}
	for _, want := range []string{"v_eventID", "v_habitat", "v_locality", "v_modified", "v_occurrenceID", "v_year"} {
		if !slices.Contains(tail, want) {
			t.Errorf("no field %s", want)
		}
	}
	for _, n := range tail {
		if !strings.HasPrefix(n, "v_") || n == "v_scientificName" || types[n] != `["string","null"]` {
			t.Errorf("verbatim field %s typed %s", n, types[n])
		}
	}
	for name, want := range map[string]string{"gbifID": `"string"`, "kingdomKey": `["string","null"]`, "year": `["int","null"]`,
		"v_scientificName": `["string","null"]`, "issue": `[{"items":["string","null"],"type":"array"},"null"]`} {
		if types[name] != want {
			t.Errorf("%s: type %s, want %s", name, types[name], want)
		}
	}

	// The simple part holds what SIMPLE_AVRO holds.
	simpleData, _ := export(t, ExportSpec{Format: FormatSimpleAvro}, testSource())
	_, simpleRows := readAvro(t, simpleData)
	if len(rows) != len(simpleRows) {
		t.Fatalf("%d records, SIMPLE_AVRO %d", len(rows), len(simpleRows))
	}
	for i, r := range rows {
		for j, name := range simpleCSVColumns {
			if got, want := avroText(r[simple[j]]), avroText(simpleRows[i][name]); got != want {
				t.Errorf("record %d %s: %q, SIMPLE_AVRO's %s %q", i, simple[j], got, name, want)
			}
		}
	}

	// The verbatim fields hold what a DWCA's verbatim.txt holds.
	dwcaData, _ := export(t, ExportSpec{Format: FormatDWCA}, testSource())
	_, content := entries(t, dwcaData)
	verb := table(t, "verbatim.txt", content["verbatim.txt"])
	id := column(t, verb, "gbifID")
	byID := map[string][]string{}
	for _, row := range verb[1:] {
		byID[row[id]] = row
	}
	filled := 0
	for i, r := range rows {
		row, ok := byID[r["gbifID"].(string)]
		if !ok {
			t.Fatalf("record %d: gbifID %v not in verbatim.txt", i, r["gbifID"])
		}
		// (v_scientificName is the verbatimScientificName column, compared
		// with SIMPLE_AVRO's above; the test records leave it empty.)
		for _, name := range tail {
			want := row[column(t, verb, strings.TrimPrefix(name, "v_"))]
			if got := avroText(r[name]); got != want {
				t.Errorf("record %d %s: %q, verbatim.txt %q", i, name, got, want)
			}
			if want != "" {
				filled++
			}
		}
	}
	// habitat and modified are filled in every record, locality in most.
	if filled < len(rows)*2 {
		t.Errorf("only %d filled verbatim cells compared", filled)
	}
}

func TestDescribeSimpleWithVerbatimAvro(t *testing.T) {
	d, err := Describe(FormatSimpleWithVerbatimAvro)
	if err != nil {
		t.Fatal(err)
	}
	fields, _ := verbatimAvroFields()
	got := d.(DescribedTable).Fields
	if len(got) != len(fields) {
		t.Fatalf("%d fields described, %d written", len(got), len(fields))
	}
	for i, f := range got {
		if f.Name != avroFieldName(fields[i]) || f.Term == "" {
			t.Errorf("field %d: %+v", i, f)
		}
		// GBIF describes v_scientificName by the Darwin Core term it holds.
		if f.Name == "v_scientificName" && f.Term != "http://rs.tdwg.org/dwc/terms/scientificName" {
			t.Errorf("v_scientificName's term %s", f.Term)
		}
	}
	if _, err := NewExport(t.Context(), io.Discard, ExportSpec{Format: FormatSimpleWithVerbatimAvro, Fields: []string{"gbifID"}}, ExportOptions{}); err == nil {
		t.Error("fields accepted; GBIF's format has fixed fields")
	}
}
