// Package occurrence owns the interpreted occurrence record: its Arrow schema,
// the interpretation of raw Darwin Core values, the GBIF predicate language and
// the backend contract (Table and its scans, Catalog, Loader; table.go).
// Backends live in sub-packages named after the backend (occurrence/parquet,
// occurrence/hbase) and run occurrencetest's conformance suite.
package occurrence

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
)

// Kind is the logical type of a column.
type Kind int

// Column kinds. Multi columns hold several controlled-vocabulary values joined
// with ";" (typeStatus, mediaType, issue); predicates match any element.
const (
	KindString Kind = iota
	KindMulti
	KindInt32
	KindInt64
	KindFloat64
	KindBool
	KindTimestamp // milliseconds since the Unix epoch, UTC
)

// Column names of the interpreted record, as in GBIF's occurrence.txt where a
// GBIF name exists.
const (
	ColGBIFID                           = "gbifID"
	ColDatasetKey                       = "datasetKey"
	ColDatasetName                      = "datasetName"
	ColPublishingOrgKey                 = "publishingOrgKey"
	ColOccurrenceID                     = "occurrenceID"
	ColInstitutionCode                  = "institutionCode"
	ColCollectionCode                   = "collectionCode"
	ColCatalogNumber                    = "catalogNumber"
	ColRecordNumber                     = "recordNumber"
	ColBasisOfRecord                    = "basisOfRecord"
	ColOccurrenceStatus                 = "occurrenceStatus"
	ColKingdom                          = "kingdom"
	ColPhylum                           = "phylum"
	ColClass                            = "class"
	ColOrder                            = "order"
	ColFamily                           = "family"
	ColGenus                            = "genus"
	ColSpecies                          = "species"
	ColInfraspecificEpithet             = "infraspecificEpithet"
	ColTaxonRank                        = "taxonRank"
	ColScientificName                   = "scientificName"
	ColVerbatimScientificName           = "verbatimScientificName"
	ColVerbatimScientificNameAuthorship = "verbatimScientificNameAuthorship"
	ColTaxonKey                         = "taxonKey"
	ColAcceptedTaxonKey                 = "acceptedTaxonKey"
	ColKingdomKey                       = "kingdomKey"
	ColPhylumKey                        = "phylumKey"
	ColClassKey                         = "classKey"
	ColOrderKey                         = "orderKey"
	ColFamilyKey                        = "familyKey"
	ColGenusKey                         = "genusKey"
	ColSpeciesKey                       = "speciesKey"
	ColCountryCode                      = "countryCode"
	ColStateProvince                    = "stateProvince"
	ColLocality                         = "locality"
	ColDecimalLatitude                  = "decimalLatitude"
	ColDecimalLongitude                 = "decimalLongitude"
	ColCoordinateUncertaintyInMeters    = "coordinateUncertaintyInMeters"
	ColCoordinatePrecision              = "coordinatePrecision"
	ColHasCoordinate                    = "hasCoordinate"
	ColHasGeospatialIssue               = "hasGeospatialIssues"
	ColEventDate                        = "eventDate"
	ColEventDateStart                   = "eventDateStart"
	ColEventDateEnd                     = "eventDateEnd"
	ColYear                             = "year"
	ColMonth                            = "month"
	ColDay                              = "day"
	ColElevation                        = "elevation"
	ColElevationAccuracy                = "elevationAccuracy"
	ColDepth                            = "depth"
	ColDepthAccuracy                    = "depthAccuracy"
	ColRecordedBy                       = "recordedBy"
	ColIdentifiedBy                     = "identifiedBy"
	ColDateIdentified                   = "dateIdentified"
	ColTypeStatus                       = "typeStatus"
	ColLicense                          = "license"
	ColRightsHolder                     = "rightsHolder"
	ColEstablishmentMeans               = "establishmentMeans"
	ColIndividualCount                  = "individualCount"
	ColMediaType                        = "mediaType"
	ColIssue                            = "issue"
	ColLastInterpreted                  = "lastInterpreted"
	// ColVerbatim holds every verbatim term of the source record as a JSON
	// object keyed by term (see VerbatimKey).
	ColVerbatim = "verbatim"
	// ColMultimedia holds the record's multimedia rows as a JSON array of
	// objects keyed by GBIF Multimedia term names.
	ColMultimedia = "multimedia"
	// ColExtensions holds other extension rows verbatim as a JSON object
	// {rowType: [{term: value}, ...]}.
	ColExtensions = "extensions"
)

// Column describes one column of the interpreted record.
type Column struct {
	Name string
	Kind Kind
	// Term is the Darwin Core (or GBIF) term URI the column is written under in
	// meta.xml; empty for internal columns.
	Term string
}

// Short names of the namespaces in raw.go for the column table.
const (
	dwc  = NSDwC
	gbif = NSGBIF
	dcT  = NSDC
)

// Columns returns the columns of the interpreted record in storage order
// (gbifID first): a copy, which the caller may keep or change.
func Columns() []Column { return slices.Clone(columns) }

// NumColumns is the number of columns of the interpreted record.
func NumColumns() int { return len(columns) }

// ColumnAt returns column i of Columns.
func ColumnAt(i int) Column { return columns[i] }

// columns lists the interpreted record in storage order. gbifID is first.
var columns = []Column{
	{ColGBIFID, KindInt64, gbif + "gbifID"},
	{ColDatasetKey, KindString, gbif + "datasetKey"},
	{ColDatasetName, KindString, dwc + "datasetName"},
	{ColPublishingOrgKey, KindString, gbif + "publishingOrgKey"},
	{ColOccurrenceID, KindString, dwc + "occurrenceID"},
	{ColInstitutionCode, KindString, dwc + "institutionCode"},
	{ColCollectionCode, KindString, dwc + "collectionCode"},
	{ColCatalogNumber, KindString, dwc + "catalogNumber"},
	{ColRecordNumber, KindString, dwc + "recordNumber"},
	{ColBasisOfRecord, KindString, dwc + "basisOfRecord"},
	{ColOccurrenceStatus, KindString, dwc + "occurrenceStatus"},
	{ColKingdom, KindString, dwc + "kingdom"},
	{ColPhylum, KindString, dwc + "phylum"},
	{ColClass, KindString, dwc + "class"},
	{ColOrder, KindString, dwc + "order"},
	{ColFamily, KindString, dwc + "family"},
	{ColGenus, KindString, dwc + "genus"},
	{ColSpecies, KindString, gbif + "species"},
	{ColInfraspecificEpithet, KindString, dwc + "infraspecificEpithet"},
	{ColTaxonRank, KindString, dwc + "taxonRank"},
	{ColScientificName, KindString, dwc + "scientificName"},
	{ColVerbatimScientificName, KindString, gbif + "verbatimScientificName"},
	{ColVerbatimScientificNameAuthorship, KindString, gbif + "verbatimScientificNameAuthorship"},
	{ColTaxonKey, KindInt64, gbif + "taxonKey"},
	{ColAcceptedTaxonKey, KindInt64, gbif + "acceptedTaxonKey"},
	{ColKingdomKey, KindInt64, gbif + "kingdomKey"},
	{ColPhylumKey, KindInt64, gbif + "phylumKey"},
	{ColClassKey, KindInt64, gbif + "classKey"},
	{ColOrderKey, KindInt64, gbif + "orderKey"},
	{ColFamilyKey, KindInt64, gbif + "familyKey"},
	{ColGenusKey, KindInt64, gbif + "genusKey"},
	{ColSpeciesKey, KindInt64, gbif + "speciesKey"},
	{ColCountryCode, KindString, dwc + "countryCode"},
	{ColStateProvince, KindString, dwc + "stateProvince"},
	{ColLocality, KindString, dwc + "locality"},
	{ColDecimalLatitude, KindFloat64, dwc + "decimalLatitude"},
	{ColDecimalLongitude, KindFloat64, dwc + "decimalLongitude"},
	{ColCoordinateUncertaintyInMeters, KindFloat64, dwc + "coordinateUncertaintyInMeters"},
	{ColCoordinatePrecision, KindFloat64, dwc + "coordinatePrecision"},
	{ColHasCoordinate, KindBool, gbif + "hasCoordinate"},
	{ColHasGeospatialIssue, KindBool, gbif + "hasGeospatialIssues"},
	{ColEventDate, KindString, dwc + "eventDate"},
	{ColEventDateStart, KindTimestamp, ""},
	{ColEventDateEnd, KindTimestamp, ""},
	{ColYear, KindInt32, dwc + "year"},
	{ColMonth, KindInt32, dwc + "month"},
	{ColDay, KindInt32, dwc + "day"},
	{ColElevation, KindFloat64, gbif + "elevation"},
	{ColElevationAccuracy, KindFloat64, gbif + "elevationAccuracy"},
	{ColDepth, KindFloat64, gbif + "depth"},
	{ColDepthAccuracy, KindFloat64, gbif + "depthAccuracy"},
	{ColRecordedBy, KindString, dwc + "recordedBy"},
	{ColIdentifiedBy, KindString, dwc + "identifiedBy"},
	{ColDateIdentified, KindString, dwc + "dateIdentified"},
	{ColTypeStatus, KindMulti, dwc + "typeStatus"},
	{ColLicense, KindString, dcT + "license"},
	{ColRightsHolder, KindString, dcT + "rightsHolder"},
	{ColEstablishmentMeans, KindString, dwc + "establishmentMeans"},
	{ColIndividualCount, KindInt32, dwc + "individualCount"},
	{ColMediaType, KindMulti, gbif + "mediaType"},
	{ColIssue, KindMulti, gbif + "issue"},
	{ColLastInterpreted, KindTimestamp, gbif + "lastInterpreted"},
	{ColVerbatim, KindString, ""},
	{ColMultimedia, KindString, ""},
	{ColExtensions, KindString, ""},
}

var columnIndex = func() map[string]int {
	m := make(map[string]int, len(columns))
	for i, c := range columns {
		m[c.Name] = i
	}
	return m
}()

// ColumnByName returns the column and its index in Columns.
func ColumnByName(name string) (Column, int, bool) {
	i, ok := columnIndex[name]
	if !ok {
		return Column{}, -1, false
	}
	return columns[i], i, true
}

// ArrowType returns the Arrow data type used to store a column of kind k.
func (k Kind) ArrowType() arrow.DataType {
	switch k {
	case KindInt32:
		return arrow.PrimitiveTypes.Int32
	case KindInt64:
		return arrow.PrimitiveTypes.Int64
	case KindFloat64:
		return arrow.PrimitiveTypes.Float64
	case KindBool:
		return arrow.FixedWidthTypes.Boolean
	case KindTimestamp:
		return arrow.FixedWidthTypes.Timestamp_ms
	default:
		return arrow.BinaryTypes.String
	}
}

// Schema returns the Arrow schema of the full interpreted record. Every column
// is nullable: a null is a value the source did not carry or that failed
// interpretation (the issue column says which).
func Schema() *arrow.Schema { return fullSchema }

var fullSchema = SchemaOf(nil)

// SchemaOf returns the schema of the named columns in the given order; nil
// means all columns.
func SchemaOf(names []string) *arrow.Schema {
	if names == nil {
		names = make([]string, len(columns))
		for i, c := range columns {
			names[i] = c.Name
		}
	}
	fields := make([]arrow.Field, 0, len(names))
	for _, n := range names {
		c, _, ok := ColumnByName(n)
		if !ok {
			panic("occurrence: unknown column " + n)
		}
		fields = append(fields, arrow.Field{Name: c.Name, Type: c.Kind.ArrowType(), Nullable: true})
	}
	return arrow.NewSchema(fields, nil)
}
