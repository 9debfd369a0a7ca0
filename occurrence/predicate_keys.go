package occurrence

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/biodiversity-downloads/downloader/internal/dnaseq"
)

// valueKind says how a search key's values are parsed and compared.
type valueKind int

const (
	vText  valueKind = iota // free text; case-insensitive unless matchCase
	vExact                  // normalized code (country, UUID, vocabulary); exact
	vMulti                  // ";"-joined vocabulary values; any element matches
	vPiped                  // lists of people and identifiers: whole value or any ";"- (or "|"-) separated part
	vInt                    // int32/int64 column(s)
	vFloat                  // float64 column
	vBool                   // boolean column
	vDate                   // eventDate: interval in eventDateStart/eventDateEnd
	vTime                   // single timestamp column
)

func (k valueKind) numeric() bool { return k == vInt || k == vFloat || k == vDate || k == vTime }
func (k valueKind) text() bool    { return k == vText || k == vExact || k == vMulti || k == vPiped }

// TaxonKeyColumns returns the columns TAXON_KEY matches (a backend may
// index them for membership, e.g. with Parquet bloom filters).
func TaxonKeyColumns() []string { return slices.Clone(taxonKeyColumns) }

// keySpec describes one GBIF search parameter.
type keySpec struct {
	name  string   // canonical GBIF name, e.g. TAXON_KEY
	label string   // human words for Describe
	cols  []string // columns read; a row matches when any column matches
	kind  valueKind
	// norm validates and normalizes one value of a vText/vExact/vMulti key.
	norm     func(string) (string, error)
	min, max float64 // accepted numeric range when min < max
	// taxon marks the keys of the table's taxonomy (TAXON_KEY and the
	// ranks'), whose values a client may take from another checklist.
	taxon bool
	// fold compares a vExact/vMulti key's values ignoring case: a
	// vocabulary concept's ("Holotype") matches what tables written
	// before concepts were kept hold ("HOLOTYPE").
	fold bool
	// concepts is a concept key's vocabulary: a value also matches the
	// concepts under it.
	concepts *conceptVocabulary
	// geoTime marks GEOLOGICAL_TIME (predicate_geotime.go): a vFloat key
	// over a span, cols[0] its young end and cols[1] its old start, whose
	// values are GeoTime concepts or millions of years.
	geoTime bool
	// matchValue, when set, turns a normalized value into what the column
	// holds (a sequence into its identifier); the predicate keeps showing
	// the value, and like, which cannot be turned, is refused.
	matchValue func(string) string
	// figures marks a vFloat key over a column of ";"-joined numbers (a
	// DNA sequence figure, dna_figures.go): a row matches when one does.
	figures bool
}

var keySpecs = map[string]*keySpec{}

// keyAliases maps looseKey(name) and looseKey(camelCase) to the canonical name.
var keyAliases = map[string]string{}

func addKey(s *keySpec, aliases ...string) {
	keySpecs[s.name] = s
	keyAliases[looseKey(s.name)] = s.name
	for _, a := range aliases {
		keyAliases[looseKey(a)] = s.name
	}
}

// taxonKeyColumns are the columns TAXON_KEY matches: the record's own taxon,
// its accepted taxon and every higher rank the table keeps a key of (GBIF's
// seven and the intermediate ranks ingest fills: superfamily, subfamily,
// tribe, subtribe, subgenus), so that a taxon's key finds its descendants.
var taxonKeyColumns = []string{
	ColTaxonKey, ColAcceptedTaxonKey, ColKingdomKey, ColPhylumKey, ColClassKey,
	ColOrderKey, "superfamilyKey", ColFamilyKey, "subfamilyKey", "tribeKey", "subtribeKey",
	ColGenusKey, "subgenusKey", ColSpeciesKey,
}

func init() {
	text := func(name, label, col string, aliases ...string) {
		addKey(&keySpec{name: name, label: label, cols: []string{col}, kind: vText}, aliases...)
	}
	intKey := func(name, label string, cols []string, lo, hi float64, aliases ...string) {
		addKey(&keySpec{name: name, label: label, cols: cols, kind: vInt, min: lo, max: hi}, aliases...)
	}
	floatKey := func(name, label, col string, lo, hi float64) {
		addKey(&keySpec{name: name, label: label, cols: []string{col}, kind: vFloat, min: lo, max: hi})
	}
	vocab := func(name, label, col string, kind valueKind, v *vocabulary) {
		addKey(&keySpec{name: name, label: label, cols: []string{col}, kind: kind, norm: vocabNorm(v)})
	}
	// A concept key's value is looked up in GBIF's vocabulary (any of a
	// concept's names and labels) and matches the concept and the
	// concepts under it, as GBIF searches a concept's lineage.
	concept := func(name, label, col string, kind valueKind, v *conceptVocabulary) {
		addKey(&keySpec{name: name, label: label, cols: []string{col}, kind: kind, norm: v.norm, fold: true, concepts: v})
	}

	taxonKey := func(name, label string, cols ...string) {
		addKey(&keySpec{name: name, label: label, cols: cols, kind: vInt, taxon: true})
	}

	taxonKey("TAXON_KEY", "Taxon key", taxonKeyColumns...)
	taxonKey("ACCEPTED_TAXON_KEY", "Accepted taxon key", ColAcceptedTaxonKey)
	taxonKey("KINGDOM_KEY", "Kingdom key", ColKingdomKey)
	taxonKey("PHYLUM_KEY", "Phylum key", ColPhylumKey)
	taxonKey("CLASS_KEY", "Class key", ColClassKey)
	taxonKey("ORDER_KEY", "Order key", ColOrderKey)
	taxonKey("FAMILY_KEY", "Family key", ColFamilyKey)
	taxonKey("GENUS_KEY", "Genus key", ColGenusKey)
	taxonKey("SPECIES_KEY", "Species key", ColSpeciesKey)
	intKey("GBIF_ID", "GBIF ID", []string{ColGBIFID}, 0, 0, "gbifID")
	intKey("YEAR", "Year", []string{ColYear}, 0, 0)
	intKey("MONTH", "Month", []string{ColMonth}, 1, 12)
	intKey("DAY", "Day", []string{ColDay}, 1, 31)
	intKey("INDIVIDUAL_COUNT", "Individual count", []string{ColIndividualCount}, 0, 0)

	floatKey("DECIMAL_LATITUDE", "Latitude", ColDecimalLatitude, -90, 90)
	floatKey("DECIMAL_LONGITUDE", "Longitude", ColDecimalLongitude, -180, 180)
	floatKey("ELEVATION", "Elevation", ColElevation, 0, 0)
	floatKey("DEPTH", "Depth", ColDepth, 0, 0)
	floatKey("COORDINATE_UNCERTAINTY_IN_METERS", "Coordinate uncertainty in meters", ColCoordinateUncertaintyInMeters, 0, 0)

	addKey(&keySpec{name: "EVENT_DATE", label: "Event date", cols: []string{ColEventDateStart, ColEventDateEnd}, kind: vDate})
	addKey(&keySpec{name: "LAST_INTERPRETED", label: "Last interpreted", cols: []string{ColLastInterpreted}, kind: vTime})
	addKey(&keySpec{name: "HAS_COORDINATE", label: "Has coordinate", cols: []string{ColHasCoordinate}, kind: vBool})
	addKey(&keySpec{name: "HAS_GEOSPATIAL_ISSUE", label: "Has geospatial issue", cols: []string{ColHasGeospatialIssue}, kind: vBool}, "hasGeospatialIssues")

	addKey(&keySpec{name: "COUNTRY", label: "Country", cols: []string{ColCountryCode}, kind: vExact, norm: normCountry}, "countryCode")
	addKey(&keySpec{name: "DATASET_KEY", label: "Dataset", cols: []string{ColDatasetKey}, kind: vExact, norm: normUUID})
	addKey(&keySpec{name: "PUBLISHING_ORG", label: "Publisher", cols: []string{ColPublishingOrgKey}, kind: vExact, norm: normUUID}, "publishingOrgKey")
	addKey(&keySpec{name: "LICENSE", label: "Licence", cols: []string{ColLicense}, kind: vExact, norm: normLicense})
	vocab("BASIS_OF_RECORD", "Basis of record", ColBasisOfRecord, vExact, vocabBasisOfRecord)
	vocab("OCCURRENCE_STATUS", "Occurrence status", ColOccurrenceStatus, vExact, vocabOccurrenceStatus)
	concept("TYPE_STATUS", "Type status", ColTypeStatus, vMulti, conceptsTypeStatus)
	concept("ESTABLISHMENT_MEANS", "Establishment means", ColEstablishmentMeans, vExact, conceptsEstablishmentMeans)
	concept("DEGREE_OF_ESTABLISHMENT", "Degree of establishment", "degreeOfEstablishment", vExact, conceptsDegreeOfEstablishment)
	concept("PATHWAY", "Pathway", "pathway", vExact, conceptsPathway)
	concept("SEX", "Sex", "sex", vExact, conceptsSex)
	concept("LIFE_STAGE", "Life stage", "lifeStage", vExact, conceptsLifeStage)
	concept("NUCLEOTIDE_SEQUENCE_TARGET_GENE", "Target gene", ColTargetGene, vMulti, conceptsTargetGene)
	vocab("MEDIA_TYPE", "Media type", ColMediaType, vMulti, vocabMediaType)
	vocab("ISSUE", "Issue", ColIssue, vMulti, vocabIssue)
	vocab("TAXONOMIC_ISSUE", "Taxonomic issue", "taxonomicIssue", vMulti, vocabIssue)

	text("SCIENTIFIC_NAME", "Scientific name", ColScientificName)
	text("VERBATIM_SCIENTIFIC_NAME", "Verbatim scientific name", ColVerbatimScientificName)
	text("TAXON_RANK", "Taxon rank", ColTaxonRank)
	text("DATASET_NAME", "Dataset name", ColDatasetName)
	text("INSTITUTION_CODE", "Institution code", ColInstitutionCode)
	text("COLLECTION_CODE", "Collection code", ColCollectionCode)
	text("CATALOG_NUMBER", "Catalog number", ColCatalogNumber)
	text("RECORD_NUMBER", "Record number", ColRecordNumber)
	text("OCCURRENCE_ID", "Occurrence ID", ColOccurrenceID)
	text("STATE_PROVINCE", "State/province", ColStateProvince)
	text("LOCALITY", "Locality", ColLocality)
	// GBIF's GADM_GID matches a GADM area at any of its levels
	// (OccurrenceEsField GADM_GID: gadm.gids).
	addKey(&keySpec{name: "GADM_GID", label: "GADM area", cols: []string{"level0Gid", "level1Gid", "level2Gid", "level3Gid"}, kind: vText})
	// GBIF's three geological context parameters (OccurrenceEsField):
	// GEOLOGICAL_TIME the span of the chronostratigraphy, LITHOSTRATIGRAPHY
	// any of bed, formation, group and member, BIOSTRATIGRAPHY either zone.
	addKey(&keySpec{name: "GEOLOGICAL_TIME", label: "Geological time", cols: []string{ColGeologicalEndAge, ColGeologicalStartAge}, kind: vFloat, geoTime: true})
	addKey(&keySpec{name: "LITHOSTRATIGRAPHY", label: "Lithostratigraphy", cols: []string{"bed", "formation", "group", "member"}, kind: vText})
	addKey(&keySpec{name: "BIOSTRATIGRAPHY", label: "Biostratigraphy", cols: []string{"lowestBiostratigraphicZone", "highestBiostratigraphicZone"}, kind: vText})
	// The record's extension row types and measurement types, lists GBIF
	// compares element by element, ignoring case unless matchCase.
	addKey(&keySpec{name: "DWCA_EXTENSION", label: "Darwin Core Archive extension", cols: []string{ColDwcaExtension}, kind: vMulti, fold: true})
	addKey(&keySpec{name: "MEASUREMENT_TYPE", label: "Measurement type", cols: []string{ColMeasurementType}, kind: vMulti, fold: true})
	addKey(&keySpec{name: "MEASUREMENT_TYPE_ID", label: "Measurement type ID", cols: []string{ColMeasurementTypeID}, kind: vMulti, fold: true})
	// GBIF's NUCLEOTIDE_SEQUENCE_NUCLEOTIDE_SEQUENCE_ID and _SEQUENCE: a
	// record with a usable sequence of that identifier, or equal to that
	// sequence ignoring case (matched by its identifier).
	addKey(&keySpec{name: "NUCLEOTIDE_SEQUENCE_NUCLEOTIDE_SEQUENCE_ID", label: "Nucleotide sequence ID",
		cols: []string{ColNucleotideSequenceID}, kind: vMulti, fold: true})
	addKey(&keySpec{name: "NUCLEOTIDE_SEQUENCE_SEQUENCE", label: "Nucleotide sequence", cols: []string{ColNucleotideSequenceID},
		kind: vMulti, fold: true, norm: normSequence, matchValue: dnaseq.SequenceID})
	for _, f := range sequenceFigures {
		s := &keySpec{name: f.param, label: parameterLabel(f.param), cols: []string{f.col}, kind: vFloat, figures: true}
		if f.flag {
			s.kind, s.norm, s.figures = vMulti, normBool, false
		}
		addKey(s)
	}
	addKey(&keySpec{name: "RECORDED_BY", label: "Recorded by", cols: []string{ColRecordedBy}, kind: vPiped})
	addKey(&keySpec{name: "IDENTIFIED_BY", label: "Identified by", cols: []string{ColIdentifiedBy}, kind: vPiped})
	addParameterKeys()
}

// enumParameters hold GBIF enum values (CONTINENT=EUROPE): matched exactly,
// upper-cased with spaces as underscores.
var enumParameters = map[string]bool{
	"CONTINENT": true, "PROTOCOL": true, "GBIF_REGION": true, "PUBLISHED_BY_GBIF_REGION": true,
	"IUCN_RED_LIST_CATEGORY": true, "TAXONOMIC_STATUS": true,
}

// addParameterKeys accepts every GBIF search parameter whose term is a
// column of the record and that the keys above do not already define: the
// column's kind says how its values are parsed and compared (text ignores
// case unless matchCase, list columns match any element).
func addParameterKeys() {
	byTerm := map[string]Column{}
	for _, c := range columns {
		if c.Term != "" {
			byTerm[c.Term] = c
		}
	}
	for _, p := range searchParameters {
		c, ok := byTerm[p.term]
		if _, have := keySpecs[p.name]; have || !ok {
			continue
		}
		s := &keySpec{name: p.name, label: parameterLabel(p.name), cols: []string{c.Name}}
		switch {
		case p.name == "PUBLISHING_COUNTRY":
			s.kind, s.norm = vExact, normCountry
		case enumParameters[p.name]:
			s.kind, s.norm = vExact, normEnum
		case c.Kind == KindMulti:
			s.kind = vPiped
		case c.Kind == KindInt32 || c.Kind == KindInt64:
			s.kind = vInt
		case c.Kind == KindFloat64:
			s.kind = vFloat
		case c.Kind == KindBool:
			s.kind = vBool
		case c.Kind == KindTimestamp:
			s.kind = vTime
		default:
			s.kind = vText
		}
		addKey(s, c.Name)
	}
}

// parameterLabel turns SAMPLING_PROTOCOL into "Sampling protocol".
func parameterLabel(name string) string {
	l := strings.ToLower(strings.ReplaceAll(name, "_", " "))
	return strings.ToUpper(l[:1]) + l[1:]
}

// normEnum normalizes a GBIF enum value: upper case, spaces and hyphens as
// underscores.
func normEnum(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("empty value")
	}
	return strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToUpper(s)), nil
}

// lookupKey resolves a search-parameter name in any accepted spelling
// (TAXON_KEY, taxonKey, taxon_key, case-insensitive).
func lookupKey(name string) (*keySpec, bool) {
	c, ok := keyAliases[looseKey(name)]
	if !ok {
		return nil, false
	}
	return keySpecs[c], true
}

// SearchKeys returns the canonical names of the accepted search parameters.
func SearchKeys() []string { return slices.Sorted(maps.Keys(keySpecs)) }

func vocabNorm(v *vocabulary) func(string) (string, error) {
	return func(s string) (string, error) {
		c, ok := v.lookup(s)
		if !ok {
			return "", fmt.Errorf("not a GBIF %s value (one of %s)", v.name, listSome(v.values, 12))
		}
		return c, nil
	}
}

func listSome(vals []string, n int) string {
	if len(vals) <= n {
		return strings.Join(vals, ", ")
	}
	return strings.Join(vals[:n], ", ") + ", ..."
}

func normCountry(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) != 2 || !isASCIILetter(s[0]) || !isASCIILetter(s[1]) {
		return "", fmt.Errorf("not an ISO 3166-1 alpha-2 country code")
	}
	return strings.ToUpper(s), nil
}

func isASCIILetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func normUUID(s string) (string, error) {
	s = strings.TrimSpace(s)
	if !uuidRE.MatchString(s) {
		return "", fmt.Errorf("not a UUID")
	}
	return strings.ToLower(s), nil
}

// normLicense accepts GBIF's License enum names (CC_BY_4_0) and the licence
// URIs themselves, and returns the stored value.
func normLicense(s string) (string, error) {
	s = strings.TrimSpace(s)
	if v, ok := licenseValues[strings.ToUpper(s)]; ok {
		return v, nil
	}
	for _, v := range licenseValues {
		if strings.EqualFold(strings.TrimSuffix(s, "/"), v) {
			return v, nil
		}
	}
	return "", fmt.Errorf("not a GBIF licence (one of CC0_1_0, CC_BY_4_0, CC_BY_NC_4_0, UNSPECIFIED)")
}

// licenseName returns the enum name of a stored licence value for Describe.
func licenseName(v string) string {
	if n, ok := LicenseName(v); ok {
		return n
	}
	return v
}

// LicenseName returns GBIF's License enum name (CC_BY_4_0) of a stored
// licence value, as GBIF's downloads write it; ok is false for a value that
// is none of them.
func LicenseName(v string) (string, bool) {
	switch v {
	case LicenseCC0:
		return "CC0_1_0", true
	case LicenseCCBY:
		return "CC_BY_4_0", true
	case LicenseCCBYNC:
		return "CC_BY_NC_4_0", true
	case LicenseUnspecified:
		return "UNSPECIFIED", true
	}
	return "", false
}

// ComparableKey returns the search key that reads column col alone and
// compares it as a value (a number, a boolean, a code or text), so that
// a condition "col = v", "col < v" or "col IN (...)" can be said as a
// predicate of that key that keeps every row the condition keeps (text
// keys compare without case, so they may keep more). Keys over list
// columns, several columns or date intervals are not offered.
func ComparableKey(col string) (string, bool) {
	var found string
	for _, name := range SearchKeys() {
		s := keySpecs[name]
		if len(s.cols) != 1 || s.cols[0] != col || s.concepts != nil {
			continue
		}
		switch s.kind {
		case vInt, vFloat, vBool, vExact, vText:
			if found == "" {
				found = name
			}
		}
	}
	return found, found != ""
}
