package download

import (
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
// its simple name (column, GBIF's name when they differ); a verbatim one
// as SimpleAvroSchemaQueries names it: verbatim + the term's name, or the
// term's own name when it starts with verbatim. The ten verbatim values
// are read from the columns that keep them as published (the verbatim
// scientific name and authorship, and the eight pass-through terms),
// not from the record's verbatim object, whose reading took 29% of the
// export's CPU (bench/avro.sh). Values and types are the Avro formats' (avroTypeOf);
// eventDateGte, the start of the event date, is GBIF's
// secondsToLocalISO8601 text.
var molFields = []struct {
	name   string // the field's name
	column string // the column it is read from
}{
	{"gbifID", occurrence.ColGBIFID},
	{"publishingOrgKey", occurrence.ColPublishingOrgKey},
	{"datasetKey", occurrence.ColDatasetKey},
	{"occurrenceID", occurrence.ColOccurrenceID},
	// Taxonomy
	{"taxonomicStatus", "taxonomicStatus"},
	{"kingdom", "kingdom"},
	{"phylum", "phylum"},
	{"class", "class"},
	{"order", "order"},
	{"family", "family"},
	{"genus", "genus"},
	{"subgenus", "subgenus"},
	{"species", "species"},
	{"specificEpithet", "specificEpithet"},
	{"infraspecificEpithet", "infraspecificEpithet"},
	{"taxonRank", occurrence.ColTaxonRank},
	{"scientificName", occurrence.ColScientificName},
	{"acceptedScientificName", "acceptedScientificName"},
	{"verbatimTaxonRank", "verbatimTaxonRank"},
	{"verbatimScientificName", occurrence.ColVerbatimScientificName},
	{"verbatimScientificNameAuthorship", occurrence.ColVerbatimScientificNameAuthorship},
	{"verbatimVernacularName", "vernacularName"},
	// Taxonomy identifiers
	{"taxonKey", occurrence.ColTaxonKey},
	{"acceptedTaxonKey", occurrence.ColAcceptedTaxonKey},
	{"speciesKey", occurrence.ColSpeciesKey},
	// Location
	{"countryCode", occurrence.ColCountryCode},
	{"locality", occurrence.ColLocality},
	{"stateProvince", occurrence.ColStateProvince},
	{"habitat", "habitat"},
	{"locationRemarks", "locationRemarks"},
	// Observation
	{"occurrenceStatus", occurrence.ColOccurrenceStatus},
	{"individualCount", occurrence.ColIndividualCount},
	// Precise location
	{"hasCoordinate", occurrence.ColHasCoordinate},
	{"decimalLatitude", occurrence.ColDecimalLatitude},
	{"decimalLongitude", occurrence.ColDecimalLongitude},
	{"coordinateUncertaintyInMeters", occurrence.ColCoordinateUncertaintyInMeters},
	{"coordinatePrecision", "coordinatePrecision"},
	{"elevation", occurrence.ColElevation},
	{"elevationAccuracy", "elevationAccuracy"},
	{"depth", occurrence.ColDepth},
	{"depthAccuracy", "depthAccuracy"},
	{"hasGeospatialIssues", occurrence.ColHasGeospatialIssue},
	{"verbatimCoordinateSystem", "verbatimCoordinateSystem"},
	{"verbatimElevation", "verbatimElevation"},
	{"verbatimDepth", "verbatimDepth"},
	{"verbatimLocality", "verbatimLocality"},
	{"verbatimSRS", "verbatimSRS"},
	// Collection event
	{"eventDateGte", occurrence.ColEventDateStart},
	{"eventTime", "eventTime"},
	{"day", occurrence.ColDay},
	{"month", occurrence.ColMonth},
	{"year", occurrence.ColYear},
	{"fieldNotes", "fieldNotes"},
	{"eventRemarks", "eventRemarks"},
	{"verbatimEventDate", "verbatimEventDate"},
	{"basisOfRecord", occurrence.ColBasisOfRecord},
	{"institutionCode", occurrence.ColInstitutionCode},
	{"collectionCode", occurrence.ColCollectionCode},
	{"catalogNumber", occurrence.ColCatalogNumber},
	{"recordNumber", occurrence.ColRecordNumber},
	// Identification
	{"identifiedBy", occurrence.ColIdentifiedBy},
	{"identifiedByID", "identifiedByID"},
	{"dateIdentified", "dateIdentified"},
	{"identificationRemarks", "identificationRemarks"},
	// Rights
	{"license", occurrence.ColLicense},
	{"rightsHolder", "rightsHolder"},
	{"recordedBy", occurrence.ColRecordedBy},
	{"typeStatus", occurrence.ColTypeStatus},
	{"establishmentMeans", occurrence.ColEstablishmentMeans},
	// Sampling
	{"sampleSizeUnit", "sampleSizeUnit"},
	{"sampleSizeValue", "sampleSizeValue"},
	{"samplingEffort", "samplingEffort"},
	{"samplingProtocol", "samplingProtocol"},
	{"lastInterpreted", occurrence.ColLastInterpreted},
	{"mediaType", occurrence.ColMediaType},
	{"issue", occurrence.ColIssue},
}

// mapOfLifeFields resolves molFields to the writers' fields.
func mapOfLifeFields() ([]field, error) {
	out := make([]field, 0, len(molFields))
	for _, m := range molFields {
		c, _, ok := occurrence.ColumnByName(m.column)
		if !ok {
			return nil, fmt.Errorf("download: %s: no column %s", FormatMapOfLife, m.column)
		}
		f := columnField(c)
		f.header = m.name
		if m.column == occurrence.ColEventDateStart {
			f.term, f.layout = "http://rs.gbif.org/terms/internal/eventDateGte", occurrence.LayoutLocalDateTime
		}
		out = append(out, f)
	}
	return out, nil
}

// newMapOfLife writes GBIF's MAP_OF_LIFE download: one Avro container of
// record MapOfLife, deflated, as SIMPLE_AVRO's (GBIF's DownloadArchiver
// merges it into one .avro file as it does SIMPLE_AVRO's).
var newMapOfLife = avroFile(molRecordName, func(*Export) ([]field, error) { return mapOfLifeFields() })
