package search

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// batchOf builds a one-row batch of the named columns from rec.
func batchOf(t *testing.T, rec *occurrence.Record, cols []string) arrow.RecordBatch {
	t.Helper()
	b := occurrence.NewBuilder()
	defer b.Release()
	b.Append(rec)
	full := b.NewBatch()
	defer full.Release()
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		arrs[i] = full.Column(full.Schema().FieldIndices(c)[0])
	}
	out := array.NewRecordBatch(occurrence.SchemaOf(cols), arrs, 1)
	t.Cleanup(out.Release)
	return out
}

func testRecord() *occurrence.Record {
	r := occurrence.NewRecord()
	set := func(c, v string) { r.SetString(occurrence.ColumnIndex(c), v) }
	r.SetInt(occurrence.ColumnIndex(occurrence.ColGBIFID), 4242)
	set(occurrence.ColDatasetKey, "8f1c9b2e-0000-4000-8000-000000000001")
	set(occurrence.ColPublishingOrgKey, "8f1c9b2e-0000-4000-8000-000000000002")
	set(occurrence.ColBasisOfRecord, "PRESERVED_SPECIMEN")
	set(occurrence.ColCountryCode, "DK")
	set(occurrence.ColCatalogNumber, "C-1 \"quoted\" <b>")
	set(occurrence.ColRecordedBy, "Hansen, J.;Olsen, K.")
	set(occurrence.ColTypeStatus, "HOLOTYPE;PARATYPE")
	set(occurrence.ColIssue, "COORDINATE_ROUNDED;GEODETIC_DATUM_ASSUMED_WGS84")
	set(occurrence.ColLicense, occurrence.LicenseUnspecified)
	set(occurrence.ColDateIdentified, "2001-02-03T04:05:06")
	set(occurrence.ColMediaType, "StillImage")
	set("recordedByID", "https://orcid.org/0000-0002-1825-0097;http://www.wikidata.org/entity/Q42;someone")
	set("level0Gid", "DNK")
	set("level0Name", "Denmark")
	set(occurrence.ColVerbatimScientificName, "Puffinus puffinus")
	set("protocol", "DWC_ARCHIVE")
	set(occurrence.ColDNASequenceID, "b094827177f3d081b99d53b84323ffaf;31e91beccf6059ff57c696827c0c6a4b")
	set(occurrence.ColTargetGene, "COI")
	set(occurrence.ColDwcaExtension, occurrence.RowTypeMeasurement+";"+occurrence.RowTypeMultimedia)
	set(occurrence.ColMeasurementType, "length")
	r.SetFloat(occurrence.ColumnIndex(occurrence.ColGeologicalStartAge), 23.03)
	r.SetFloat(occurrence.ColumnIndex(occurrence.ColGeologicalEndAge), 2.58)
	r.SetFloat(occurrence.ColumnIndex(occurrence.ColDecimalLatitude), 55.676098)
	r.SetFloat(occurrence.ColumnIndex(occurrence.ColDecimalLongitude), 12.568337)
	r.SetInt(occurrence.ColumnIndex(occurrence.ColYear), 2001)
	r.SetInt(occurrence.ColumnIndex(occurrence.ColTaxonKey), 2481433)
	r.SetBool(occurrence.ColumnIndex(occurrence.ColHasCoordinate), true)
	r.SetTime(occurrence.ColumnIndex(occurrence.ColLastInterpreted), time.Date(2025, 6, 1, 12, 30, 0, 0, time.UTC))
	set(occurrence.ColMultimedia, `[{"identifier":"https://example.org/a.jpg","type":"StillImage"}]`)
	set(occurrence.ColExtensions, `{"http://rs.tdwg.org/dwc/terms/MeasurementOrFact":[{"measurementType":"length","measurementValue":"12","measurementUnit":"cm"}],`+
		`"http://rs.gbif.org/terms/1.0/Multimedia":[{"dcterms:identifier":"https://example.org/a.jpg"}]}`)
	set(occurrence.ColVerbatim, `{"catalogNumber":"C-1","country":"Danmark","verbatimLatitude":"55 40 N","someNewTerm":"x",`+
		`"http://example.org/terms/private":"y","dcterms:modified":"2001","decimalLatitude":"55.676098123"}`)
	return r
}

// TestRecordJSON: a record as GBIF's occurrence JSON: typed values under
// the columns' names, GBIF's shapes for ids, issues, agents, GADM, media,
// extensions and facts, no hidden columns, and the verbatim terms no
// column carries and interpretation did not consume.
func TestRecordJSON(t *testing.T) {
	b := batchOf(t, testRecord(), recordJSON.cols)
	js := recordJSON.appendRecord(nil, b, 0)
	var got map[string]any
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	want := map[string]any{
		"key": 4242.0, "gbifID": "4242", "datasetKey": "8f1c9b2e-0000-4000-8000-000000000001",
		"publishingOrgKey": "8f1c9b2e-0000-4000-8000-000000000002", "basisOfRecord": "PRESERVED_SPECIMEN",
		"countryCode": "DK", "country": "Denmark", "catalogNumber": "C-1 \"quoted\" <b>",
		"recordedBy": "Hansen, J.|Olsen, K.", "typeStatus": "HOLOTYPE|PARATYPE",
		"issues":  []any{"COORDINATE_ROUNDED", "GEODETIC_DATUM_ASSUMED_WGS84"},
		"license": "unspecified", "dateIdentified": "2001-02-03T04:05:06.000+00:00",
		"decimalLatitude": 55.676098, "decimalLongitude": 12.568337, "geodeticDatum": "WGS84",
		"year": 2001.0, "taxonKey": 2481433.0, "lastInterpreted": "2025-06-01T12:30:00.000+00:00",
		"protocol": "DWC_ARCHIVE", "isSequenced": false, "isInCluster": false,
		"recordedByIDs": []any{
			map[string]any{"type": "ORCID", "value": "https://orcid.org/0000-0002-1825-0097"},
			map[string]any{"type": "WIKIDATA", "value": "http://www.wikidata.org/entity/Q42"},
			map[string]any{"type": "OTHER", "value": "someone"},
		},
		"identifiedByIDs": []any{},
		"gadm":            map[string]any{"level0": map[string]any{"gid": "DNK", "name": "Denmark"}},
		"media":           []any{map[string]any{"identifier": "https://example.org/a.jpg", "type": "StillImage"}},
		"extensions": map[string]any{
			occurrence.RowTypeMeasurement: []any{map[string]any{occurrence.NSDwC + "measurementType": "length",
				occurrence.NSDwC + "measurementValue": "12", occurrence.NSDwC + "measurementUnit": "cm"}},
			occurrence.RowTypeMultimedia: []any{map[string]any{occurrence.NSDC + "identifier": "https://example.org/a.jpg"}},
		},
		"facts":       []any{map[string]any{"type": "length", "value": "12", "unit": "cm"}},
		"identifiers": []any{}, "relations": []any{},
		"dnaSequenceID": []any{"b094827177f3d081b99d53b84323ffaf", "31e91beccf6059ff57c696827c0c6a4b"},
		// verbatim terms: a new Darwin Core term by its simple name, an
		// unknown one by URI
		"someNewTerm": "x", "http://example.org/terms/private": "y",
	}
	if !reflect.DeepEqual(got, want) {
		for k, v := range want {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("%s: %#v, want %#v", k, got[k], v)
			}
		}
		for k, v := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("unexpected %s: %#v", k, v)
			}
		}
		t.Fatalf("record JSON:\n%s", js)
	}
	if strings.Count(string(js), `"key"`) != 1 {
		t.Fatalf("a member written twice: %s", js)
	}
}

// TestRecordJSONCoreTermOfExtensionColumn: a core row's measurementType
// is a verbatim field of the record's JSON, though a column derived from
// the extension rows (hidden, as GBIF's JSON has no such field) carries
// the term.
func TestRecordJSONCoreTermOfExtensionColumn(t *testing.T) {
	r := testRecord()
	r.SetString(occurrence.ColumnIndex(occurrence.ColVerbatim), `{"catalogNumber":"C-1","measurementType":"in the core"}`)
	b := batchOf(t, r, recordJSON.cols)
	var got map[string]any
	if err := json.Unmarshal(recordJSON.appendRecord(nil, b, 0), &got); err != nil {
		t.Fatal(err)
	}
	if got["measurementType"] != "in the core" {
		t.Errorf("measurementType %#v, want the core's verbatim value", got["measurementType"])
	}
	for _, hidden := range []string{occurrence.ColDwcaExtension, occurrence.ColMeasurementTypeID, occurrence.ColGeologicalStartAge} {
		if v, ok := got[hidden]; ok {
			t.Errorf("%s shown: %#v", hidden, v)
		}
	}
}

// TestVerbatimJSON: GBIF's verbatim record keys every verbatim term by
// URI, with the record's keys and its extensions.
func TestVerbatimJSON(t *testing.T) {
	b := batchOf(t, testRecord(), verbatimCols)
	js := appendVerbatim(nil, b, 0)
	var got map[string]any
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	for k, v := range map[string]any{
		"key": 4242.0, "datasetKey": "8f1c9b2e-0000-4000-8000-000000000001", "protocol": "DWC_ARCHIVE",
		occurrence.NSGBIF + "gbifID": "4242", occurrence.NSDwC + "catalogNumber": "C-1", occurrence.NSDwC + "country": "Danmark",
		occurrence.NSDwC + "verbatimLatitude": "55 40 N", occurrence.NSDC + "modified": "2001",
		"http://example.org/terms/private": "y", occurrence.NSDwC + "someNewTerm": "x",
	} {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("%s: %#v, want %#v", k, got[k], v)
		}
	}
	if ext, ok := got["extensions"].(map[string]any); !ok || len(ext) != 2 {
		t.Errorf("extensions: %#v", got["extensions"])
	}
	if len(got) != 13 {
		t.Fatalf("%d members:\n%s", len(got), js)
	}
}
