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
	// ColExtensions holds the record's extension rows verbatim as a JSON
	// object {rowType: [{verbatim key: value}, ...]} (see VerbatimKey).
	ColExtensions = "extensions"
	// ColDNASequenceID holds the identifiers of the record's DNA-derived
	// sequences (GBIF's dnaSequenceID: the MD5 of each raw sequence's IUPAC
	// letters), ColTargetGene their target genes (GBIF's TargetGene
	// concepts); both ";"-joined, as GBIF's pipelines interpret them.
	ColDNASequenceID = "dnaSequenceID"
	ColTargetGene    = "targetGene"
	// ColNucleotideSequenceID holds the nucleotideSequenceIDs of the
	// record's usable sequences (the MD5 of each cleaned sequence, the id
	// FASTA_ARCHIVE names them by), ";"-joined.
	ColNucleotideSequenceID = "nucleotideSequenceID"
	// ColGeologicalStartAge and ColGeologicalEndAge are the record's
	// geological time in millions of years before present, from the
	// chronostratigraphy's GeoTime concepts (GBIF's geologicalTime: lte is
	// the start, the older bound; gt the end).
	ColGeologicalStartAge = "geologicalStartAge"
	ColGeologicalEndAge   = "geologicalEndAge"
	// ColDwcaExtension holds the row types the record has extension rows
	// of (GBIF's dwcaExtension); ColMeasurementType and
	// ColMeasurementTypeID the measurement types of its MeasurementOrFact
	// and ExtendedMeasurementOrFact rows and the latter's type IDs (GBIF's
	// measurementType and measurementTypeID). All three ";"-joined.
	ColDwcaExtension     = "dwcaExtension"
	ColMeasurementType   = "measurementType"
	ColMeasurementTypeID = "measurementTypeID"
)

// Column describes one column of the interpreted record.
type Column struct {
	Name string
	Kind Kind
	// Term is the Darwin Core (or GBIF) term URI the column is written under in
	// meta.xml; empty for internal columns.
	Term string
	// Fill says where the value comes from.
	Fill Fill
	// Source is the raw term a Passed column is copied from when it is not
	// Term itself (gbif:projectId from dwc:projectID).
	Source string
	// Layout is the text form of a timestamp column in downloads (a Go time
	// layout, always in UTC); empty means ISO 8601 with milliseconds when
	// there are any ("2006-01-02T15:04:05.999Z").
	Layout string
	// Extra marks the columns after GBIF's occurrence.txt columns: kept by
	// this table for SIMPLE_CSV, predicates and the DWCA's other files, not
	// written to occurrence.txt.
	Extra bool
}

// Fill says how interpretation fills a column.
type Fill int

const (
	// Passed columns carry the source's value of their term (Source, else
	// Term), trimmed, parsed to the column's kind when it is not text (an
	// unparsable value stays null); a multi-value column splits the value at
	// "|", as GBIF's pipelines do, and keeps its parts joined with ";".
	Passed Fill = iota
	// Interpreted columns are set by an interpretation step from one or
	// more source terms (coordinates, dates, vocabularies).
	Interpreted
	// Derived columns are GBIF's own (keys, flags, issues, dataset facts),
	// set by interpretation or by the table; null where nothing here knows
	// the value yet (see docs/record.md).
	Derived
)

// Short names of the namespaces in raw.go for the column table.
const (
	dwc  = NSDwC
	gbif = NSGBIF
	dcT  = NSDC
	gadm = "http://rs.gbif.org/terms/gadm/3.0/"
	iucn = "http://iucn.org/terms/"
	// gbint is GBIF's internal namespace (terms not published in a standard).
	gbint = NSGBIFInternal
	obis  = "http://rs.iobis.org/obis/terms/"
)

// Timestamp layouts of Column.Layout.
const (
	// LayoutUTCSeconds is how GBIF prints dcterms:modified (UTC, seconds).
	LayoutUTCSeconds = "2006-01-02T15:04:05Z"
)

// Columns returns the columns of the interpreted record in storage order
// (gbifID first): a copy, which the caller may keep or change.
func Columns() []Column { return slices.Clone(columns) }

// NumColumns is the number of columns of the interpreted record.
func NumColumns() int { return len(columns) }

// ColumnAt returns column i of Columns.
func ColumnAt(i int) Column { return columns[i] }

// GBIFColumns is the number of leading columns that are GBIF's DWCA
// occurrence.txt columns, in GBIF's order; the Extra ones follow.
var GBIFColumns = func() int {
	n := 0
	for n < len(columns) && !columns[n].Extra {
		n++
	}
	return n
}()

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
