package download

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// gbifMapOfLifeFields are the fields of GBIF's MapOfLife record, read from
// gbif/occurrence's MapOfLifeDownloadDefinition: its interpreted terms by
// their simple names (GbifInternalTerm.eventDateGte is eventDateGte), its
// verbatim ones as SimpleAvroSchemaQueries names them (verbatim and the
// term, or the term when it starts with verbatim).
var gbifMapOfLifeFields = []string{
	"gbifID", "publishingOrgKey", "datasetKey", "occurrenceID",
	"taxonomicStatus", "kingdom", "phylum", "class", "order", "family", "genus", "subgenus", "species",
	"specificEpithet", "infraspecificEpithet", "taxonRank", "scientificName", "acceptedScientificName",
	"verbatimTaxonRank", "verbatimScientificName", "verbatimScientificNameAuthorship", "verbatimVernacularName",
	"taxonKey", "acceptedTaxonKey", "speciesKey",
	"countryCode", "locality", "stateProvince", "habitat", "locationRemarks",
	"occurrenceStatus", "individualCount",
	"hasCoordinate", "decimalLatitude", "decimalLongitude", "coordinateUncertaintyInMeters", "coordinatePrecision",
	"elevation", "elevationAccuracy", "depth", "depthAccuracy", "hasGeospatialIssues",
	"verbatimCoordinateSystem", "verbatimElevation", "verbatimDepth", "verbatimLocality", "verbatimSRS",
	"eventDateGte", "eventTime", "day", "month", "year", "fieldNotes", "eventRemarks", "verbatimEventDate",
	"basisOfRecord", "institutionCode", "collectionCode", "catalogNumber", "recordNumber",
	"identifiedBy", "identifiedByID", "dateIdentified", "identificationRemarks",
	"license", "rightsHolder", "recordedBy", "typeStatus", "establishmentMeans",
	"sampleSizeUnit", "sampleSizeValue", "samplingEffort", "samplingProtocol",
	"lastInterpreted", "mediaType", "issue",
}

// gbifMapOfLifeType is a field's Avro type by GBIF's rules: dates and
// vocabularies text (AvroSchemaQueries.toHiveDataType), else download-tables'
// HiveDataTypes (INT, DOUBLE, BOOLEAN and ARRAY<STRING> terms), the rest
// text; every field nullable but gbifID (AvroDataTypes.avroField).
func gbifMapOfLifeType(name string) string {
	switch name {
	case "gbifID":
		return `"string"`
	case "individualCount", "day", "month", "year":
		return `["int","null"]`
	case "decimalLatitude", "decimalLongitude", "coordinateUncertaintyInMeters", "coordinatePrecision",
		"elevation", "elevationAccuracy", "depth", "depthAccuracy", "sampleSizeValue":
		return `["double","null"]`
	case "hasCoordinate", "hasGeospatialIssues":
		return `["boolean","null"]`
	case "identifiedBy", "identifiedByID", "recordedBy", "samplingProtocol", "mediaType", "issue":
		return `[{"items":["string","null"],"type":"array"},"null"]`
	}
	return `["string","null"]`
}

// molRecords are the test records with the columns and verbatim values
// only MAP_OF_LIFE of the Avro formats has.
func molRecords(t *testing.T) []arrow.RecordBatch {
	t.Helper()
	idx := occurrence.ColumnIndex
	n := 0
	return batchesOf(4, func(add func(*occurrence.Record)) {
		eachTestRecord(func(_ testDataset, r *occurrence.Record) {
			r.SetTime(idx(occurrence.ColEventDateStart), time.Date(2020, 5, 1+n%28, 0, 0, 0, 0, time.UTC))
			r.SetString(idx("identifiedByID"), "https://orcid.org/0000-0002-1825-0097;https://orcid.org/0000-0001-5109-3700")
			r.SetString(idx("samplingProtocol"), "pitfall trap")
			r.SetFloat(idx("sampleSizeValue"), 2.5)
			r.SetString(idx("sampleSizeUnit"), "square metre")
			r.SetBool(idx(occurrence.ColHasGeospatialIssue), n%2 == 0)
			r.SetString(idx("acceptedScientificName"), "Puma concolor (Linnaeus, 1771)")
			// The published values, as ingest keeps them in columns.
			r.SetString(idx(occurrence.ColVerbatimScientificName), "puma concolor")
			r.SetString(idx(occurrence.ColVerbatimScientificNameAuthorship), "L.")
			r.SetString(idx("vernacularName"), fmt.Sprintf("cougar %d", n))
			r.SetString(idx("verbatimEventDate"), "May 2020")
			n++
			add(r)
		})
	})
}

// MAP_OF_LIFE is GBIF's MapOfLife record (GenerateHQL.mapOfLifeSchema), one
// Avro file: its fields and their types by GBIF's rules, and its values
// those SIMPLE_AVRO writes for the same records, the verbatim ones and
// eventDateGte as GBIF writes them.
func TestMapOfLife(t *testing.T) {
	recs := molRecords(t)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	opts := ExportOptions{Catalog: testSource(), ParquetPartBytes: 1}
	data, res := exportRecords(t, ExportSpec{Format: FormatMapOfLife, Key: "0001005-130906152512535"}, opts, recs)
	if !bytes.HasPrefix(data, []byte("Obj\x01")) || res.Records != int64(testRecordCount()) {
		t.Fatalf("%d records in %q..., want an Avro container of %d", res.Records, data[:min(len(data), 8)], testRecordCount())
	}
	schema, rows := readAvro(t, data)
	if schema["name"] != "MapOfLife" || schema["namespace"] != "org.gbif.occurrence.download.avro" {
		t.Errorf("record %v in %v, want GBIF's", schema["name"], schema["namespace"])
	}
	var names []string
	for _, f := range schema["fields"].([]any) {
		f := f.(map[string]any)
		name := f["name"].(string)
		names = append(names, name)
		b, _ := json.Marshal(f["type"])
		if want := gbifMapOfLifeType(name); string(b) != want {
			t.Errorf("%s: type %s, want %s", name, b, want)
		}
	}
	if names[0] != "gbifID" {
		t.Errorf("first field %s, want gbifID (Queries.selectGroupedDownloadFields puts it first)", names[0])
	}
	got, want := slices.Clone(names), slices.Clone(gbifMapOfLifeFields)
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("fields %v, want GBIF's %v", got, want)
	}

	simple, _ := exportRecords(t, ExportSpec{Format: FormatSimpleAvro}, opts, recs)
	_, simpleRows := readAvro(t, simple)
	shared, checked := 0, 0
	for i, r := range rows {
		for _, name := range names {
			s, ok := simpleRows[i][name]
			if !ok {
				continue
			}
			if i == 0 {
				shared++
			}
			if fmt.Sprint(r[name]) != fmt.Sprint(s) {
				t.Errorf("record %d %s: %#v, SIMPLE_AVRO %#v", i, name, r[name], s)
			}
			if s != nil {
				checked++
			}
		}
		if r["eventDateGte"] != fmt.Sprintf("2020-05-%02dT00:00:00", 1+i%28) || avroText(r["identifiedByID"]) != "https://orcid.org/0000-0002-1825-0097;https://orcid.org/0000-0001-5109-3700" ||
			r["sampleSizeValue"] != 2.5 || r["hasGeospatialIssues"] != (i%2 == 0) || r["acceptedScientificName"] != "Puma concolor (Linnaeus, 1771)" {
			t.Errorf("record %d: eventDateGte %v identifiedByID %v sampleSizeValue %v hasGeospatialIssues %v acceptedScientificName %v",
				i, r["eventDateGte"], r["identifiedByID"], r["sampleSizeValue"], r["hasGeospatialIssues"], r["acceptedScientificName"])
		}
		if r["verbatimVernacularName"] != fmt.Sprintf("cougar %d", i) || r["verbatimEventDate"] != "May 2020" ||
			r["verbatimScientificName"] != "puma concolor" || r["verbatimScientificNameAuthorship"] != "L." || r["verbatimSRS"] != nil {
			t.Errorf("record %d: verbatim vernacular %v event date %v name %v authorship %v SRS %v", i, r["verbatimVernacularName"],
				r["verbatimEventDate"], r["verbatimScientificName"], r["verbatimScientificNameAuthorship"], r["verbatimSRS"])
		}
	}
	if shared < 40 || checked < len(rows)*10 {
		t.Errorf("%d fields shared with SIMPLE_AVRO, %d filled cells compared", shared, checked)
	}
	if d, err := Describe(FormatMapOfLife); err != nil || len(d.(DescribedTable).Fields) != len(gbifMapOfLifeFields) {
		t.Errorf("Describe: %v, %v", d, err)
	}
}

// MAP_OF_LIFE read by fastavro and Apache Avro's Python library alike.
func TestReadersMapOfLife(t *testing.T) {
	recs := molRecords(t)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	data, _ := exportRecords(t, ExportSpec{Format: FormatMapOfLife}, ExportOptions{Catalog: testSource(), ParquetPartBytes: 1}, recs)
	got, _ := readAvroInPython(t, data, "MapOfLife")
	if r := got.Records[1]; r["verbatimVernacularName"] != "cougar 1" || r["eventDateGte"] != "2020-05-02T00:00:00" || r["individualCount"] != nil {
		t.Errorf("record 1: %v %v %v", r["verbatimVernacularName"], r["eventDateGte"], r["individualCount"])
	}
}
