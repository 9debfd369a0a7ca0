package download

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/avro/ocf"
)

// readAvro reads a container with twmb/avro (an implementation of its
// own): its schema and its records.
func readAvro(t testing.TB, data []byte) (schema map[string]any, rows []map[string]any) {
	t.Helper()
	rd, err := ocf.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if err := json.Unmarshal(rd.Metadata()["avro.schema"], &schema); err != nil {
		t.Fatal(err)
	}
	if c := string(rd.Metadata()["avro.codec"]); c != "deflate" {
		t.Errorf("codec %q, want deflate as GBIF's", c)
	}
	for {
		var r map[string]any
		err := rd.Decode(&r)
		if errors.Is(err, io.EOF) {
			return schema, rows
		}
		if err != nil {
			t.Fatalf("record %d: %v", len(rows), err)
		}
		rows = append(rows, r)
	}
}

// avroText is an Avro value as SIMPLE_CSV writes it (lists joined with
// ";"; doubles compared as numbers by the caller).
func avroText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case []any:
		parts := make([]string, len(v))
		for i, p := range v {
			parts[i] = avroText(p)
		}
		return strings.Join(parts, ";")
	}
	return fmt.Sprint(v)
}

// SIMPLE_AVRO holds what SIMPLE_CSV holds, field by field, in GBIF's
// schema: the same records exported both ways agree on every cell.
func TestSimpleAvro(t *testing.T) {
	data, res := export(t, ExportSpec{Format: FormatSimpleAvro, Key: "0001005-130906152512535"}, testSource())
	if !bytes.HasPrefix(data, []byte("Obj\x01")) {
		t.Fatalf("not an Avro container: %q", data[:min(len(data), 8)])
	}
	schema, rows := readAvro(t, data)
	if schema["name"] != "SimpleOccurrence" || schema["namespace"] != "org.gbif.occurrence.download.avro" {
		t.Errorf("record %v in %v, want GBIF's", schema["name"], schema["namespace"])
	}
	types := map[string]string{}
	var names []string
	for _, f := range schema["fields"].([]any) {
		f := f.(map[string]any)
		b, _ := json.Marshal(f["type"])
		names = append(names, f["name"].(string))
		types[f["name"].(string)] = string(b)
	}
	if !slices.Equal(names, simpleCSVColumns) {
		t.Fatalf("fields %v, want SIMPLE_CSV's", names)
	}
	for name, want := range map[string]string{
		"gbifID": `"string"`, "taxonKey": `["string","null"]`, "decimalLatitude": `["double","null"]`,
		"year": `["int","null"]`, "issue": `[{"items":["string","null"],"type":"array"},"null"]`,
		"lastInterpreted": `["string","null"]`, "license": `["string","null"]`,
		// A vocabulary's concepts, joined (GBIF's AvroSchemaQueries).
		"typeStatus": `["string","null"]`, "recordedBy": `[{"items":["string","null"],"type":"array"},"null"]`,
	} {
		if types[name] != want {
			t.Errorf("%s: type %s, want %s", name, types[name], want)
		}
	}
	if len(rows) != testRecordCount() || res.Records != int64(testRecordCount()) {
		t.Fatalf("%d records, result %d, want %d", len(rows), res.Records, testRecordCount())
	}
	csvData, _ := export(t, ExportSpec{Format: FormatSimpleCSV, Key: "k"}, testSource())
	_, content := entries(t, csvData)
	csv := table(t, "k.csv", content["k.csv"])
	checked := 0
	for i, r := range rows {
		for j, name := range simpleCSVColumns {
			want, got := csv[i+1][j], r[name]
			if f, ok := got.(float64); ok {
				if w, err := strconv.ParseFloat(want, 64); err != nil || w != f {
					t.Errorf("record %d %s: %v, SIMPLE_CSV %q", i, name, f, want)
				}
				continue
			}
			if avroText(got) != want {
				t.Errorf("record %d %s: %#v, SIMPLE_CSV %q", i, name, got, want)
			}
			if want != "" {
				checked++
			}
		}
	}
	if checked < len(rows)*10 {
		t.Errorf("only %d filled cells compared", checked)
	}
	if r := rows[0]; r["lastInterpreted"] != "2024-01-02T03:04:05.006Z" || r["typeStatus"] != "HOLOTYPE;PARATYPE" || r["species"] != nil {
		t.Errorf("record 0: lastInterpreted %v typeStatus %#v species %#v", r["lastInterpreted"], r["typeStatus"], r["species"])
	}
}

func TestSimpleAvroFields(t *testing.T) {
	data, _ := export(t, ExportSpec{Format: FormatSimpleAvro, Fields: []string{"gbifID", "hasCoordinate", "habitat", "dcterms:modified", "http://example.org/terms/custom", "LOCALITY"}}, nil)
	schema, rows := readAvro(t, data)
	var names []string
	for _, f := range schema["fields"].([]any) {
		names = append(names, f.(map[string]any)["name"].(string))
	}
	// A field chosen by prefixed name or URI is named by its column or
	// term: Avro names are letters, digits and _.
	if want := []string{"gbifID", "hasCoordinate", "habitat", "modified", "custom", "locality"}; !slices.Equal(names, want) {
		t.Fatalf("fields %v, want %v", names, want)
	}
	if r := rows[0]; r["gbifID"] != "1000" || r["hasCoordinate"] != true || r["habitat"] != "forest edge" || r["modified"] != "2020-01-01T00:00:00Z" || r["custom"] != "x" {
		t.Fatalf("record %v", r)
	}
	for _, bad := range [][]string{{"http://example.org/terms/custom", "http://other.example.org/custom"}, {"nosuchthing"}} {
		_, err := NewExport(context.Background(), io.Discard, ExportSpec{Format: FormatSimpleAvro, Fields: bad}, ExportOptions{})
		if !errors.Is(err, ErrFormat) {
			t.Errorf("fields %q: %v", bad, err)
		}
		// A request is refused before any export runs (jobs checks so).
		if err := CheckFields(FormatSimpleAvro, bad); !errors.Is(err, ErrFormat) {
			t.Errorf("CheckFields %q: %v", bad, err)
		}
	}
}

// The description lists the writer's own fields and says how each is
// typed.
func TestDescribeSimpleAvro(t *testing.T) {
	d, err := Describe(FormatSimpleAvro)
	if err != nil {
		t.Fatal(err)
	}
	fields := d.(DescribedTable).Fields
	if len(fields) != len(simpleCSVColumns) {
		t.Fatalf("%d fields", len(fields))
	}
	byName := map[string]DescribedField{}
	for i, f := range fields {
		if f.Name != simpleCSVColumns[i] || f.Term == "" {
			t.Errorf("field %d: %+v", i, f)
		}
		byName[f.Name] = f
	}
	if f := byName["issue"]; f.Type != "ARRAY<STRING>" || f.Delimiter != "" {
		t.Errorf("issue %+v", f)
	}
	if f := byName["lastInterpreted"]; f.Type != "DATE" || f.TypeFormat == "" {
		t.Errorf("lastInterpreted %+v", f)
	}
	if f := byName["taxonKey"]; f.Type != "STRING" {
		t.Errorf("taxonKey %+v: the file holds it as a string", f)
	}
	if f := byName["gbifID"]; f.Nullable {
		t.Errorf("gbifID %+v", f)
	}
}
