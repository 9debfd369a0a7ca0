package download

import (
	"cmp"
	"fmt"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// FormatMapOfLife is GBIF's MAP_OF_LIFE download, the export Map of Life
// takes of GBIF's occurrences.
const FormatMapOfLife Format = "MAP_OF_LIFE"

func init() {
	register(FormatInfo{
		Name:        FormatMapOfLife,
		Description: "one Avro file <key>.avro (deflate) of the 76 columns Map of Life takes: identifiers, taxonomy, places, dates, collectors and sampling, with ten verbatim values",
		Extension:   ".avro", ContentType: "application/octet-stream", Dictionaries: true,
		BytesPerRecord: 50, CompressionRatio: 12.5, Order: 5, Project: true,
		open: newMapOfLife,
	})
}

// GBIF's record name for the format (GenerateHQL.mapOfLifeSchema).
const molRecordName = "MapOfLife"

// molFields are the format's fields as gbif/occurrence's
// MapOfLifeDownloadDefinition lists them, gbifID first as
// Queries.selectGroupedDownloadFields puts it. GBIF's list is a Java
// Set.of, whose order changes from one run of the JVM to the next, so its
// files' field order is not fixed; Avro readers read fields by name, and
// this one keeps the definition's order. An interpreted term is named by
// its simple name; a verbatim one as SimpleAvroSchemaQueries names it:
// verbatim + the term's name, or the term's own name when it starts with
// verbatim. Each is read from the column of its name but for
// molColumnOf's. The ten verbatim values come from the columns that keep
// them as published (the verbatim scientific name and authorship, and
// eight pass-through terms), not from the record's verbatim object:
// leaving that object unread took the export to 0.71x the CPU
// (alternated runs, BENCHMARKS.md). Values and types are the Avro
// formats' (avroTypeOf); eventDateGte, the start of the event date, is
// GBIF's secondsToLocalISO8601 text.
var molFields = []string{
	"gbifID", "publishingOrgKey", "datasetKey", "occurrenceID", "taxonomicStatus", "kingdom",
	"phylum", "class", "order", "family", "genus", "subgenus", "species", "specificEpithet",
	"infraspecificEpithet", "taxonRank", "scientificName", "acceptedScientificName",
	"verbatimTaxonRank", "verbatimScientificName", "verbatimScientificNameAuthorship",
	"verbatimVernacularName", "taxonKey", "acceptedTaxonKey", "speciesKey", "countryCode", "locality",
	"stateProvince", "habitat", "locationRemarks", "occurrenceStatus", "individualCount",
	"hasCoordinate", "decimalLatitude", "decimalLongitude", "coordinateUncertaintyInMeters",
	"coordinatePrecision", "elevation", "elevationAccuracy", "depth", "depthAccuracy",
	"hasGeospatialIssues", "verbatimCoordinateSystem", "verbatimElevation", "verbatimDepth",
	"verbatimLocality", "verbatimSRS", "eventDateGte", "eventTime", "day", "month", "year",
	"fieldNotes", "eventRemarks", "verbatimEventDate", "basisOfRecord", "institutionCode",
	"collectionCode", "catalogNumber", "recordNumber", "identifiedBy", "identifiedByID",
	"dateIdentified", "identificationRemarks", "license", "rightsHolder", "recordedBy", "typeStatus",
	"establishmentMeans", "sampleSizeUnit", "sampleSizeValue", "samplingEffort", "samplingProtocol",
	"lastInterpreted", "mediaType", "issue",
}

// molColumnOf are the columns of the fields whose column has another name.
var molColumnOf = map[string]string{
	"verbatimVernacularName": "vernacularName",
	"eventDateGte":           occurrence.ColEventDateStart,
}

// mapOfLifeFields resolves molFields to the writers' fields.
func mapOfLifeFields() ([]field, error) {
	cols := make([]string, len(molFields))
	for i, name := range molFields {
		cols[i] = cmp.Or(molColumnOf[name], name)
	}
	fields, err := resolveFields(cols)
	if err != nil {
		return nil, fmt.Errorf("download: %s: %w", FormatMapOfLife, err)
	}
	for i := range fields {
		fields[i].header = molFields[i]
		if fields[i].column == occurrence.ColEventDateStart {
			fields[i].term, fields[i].layout = occurrence.NSGBIFInternal+"eventDateGte", occurrence.LayoutLocalDateTime
		}
	}
	return fields, nil
}

// newMapOfLife writes GBIF's MAP_OF_LIFE download: one Avro container of
// record MapOfLife, deflated, as SIMPLE_AVRO's (GBIF's DownloadArchiver
// merges it into one .avro file as it does SIMPLE_AVRO's).
var newMapOfLife = avroFile(molRecordName, func(*Export) ([]field, error) { return mapOfLifeFields() })
