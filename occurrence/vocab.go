package occurrence

import "strings"

// GBIF vocabularies used by interpretation and by the predicate language. Values
// are spelled exactly as GBIF stores and publishes them (org.gbif.api.vocabulary).

// Stored licence values: the legal-code URIs of GBIF's License enum, or
// "unspecified" when a dataset gives none GBIF supports.
const (
	LicenseCC0         = "http://creativecommons.org/publicdomain/zero/1.0/legalcode"
	LicenseCCBY        = "http://creativecommons.org/licenses/by/4.0/legalcode"
	LicenseCCBYNC      = "http://creativecommons.org/licenses/by-nc/4.0/legalcode"
	LicenseUnspecified = "unspecified"
)

// licenseValues maps GBIF's License enum names (as predicates use them) to the
// stored licence value.
var licenseValues = map[string]string{
	"CC0_1_0":      LicenseCC0,
	"CC_BY_4_0":    LicenseCCBY,
	"CC_BY_NC_4_0": LicenseCCBYNC,
	"UNSPECIFIED":  LicenseUnspecified,
}

// Basis of record values (GBIF BasisOfRecord).
const (
	BasisPreservedSpecimen  = "PRESERVED_SPECIMEN"
	BasisFossilSpecimen     = "FOSSIL_SPECIMEN"
	BasisLivingSpecimen     = "LIVING_SPECIMEN"
	BasisObservation        = "OBSERVATION"
	BasisHumanObservation   = "HUMAN_OBSERVATION"
	BasisMachineObservation = "MACHINE_OBSERVATION"
	BasisMaterialSample     = "MATERIAL_SAMPLE"
	BasisLiterature         = "LITERATURE"
	BasisMaterialCitation   = "MATERIAL_CITATION"
	BasisOccurrence         = "OCCURRENCE"
)

// basisOfRecordValues lists GBIF's BasisOfRecord vocabulary.
var basisOfRecordValues = []string{
	BasisPreservedSpecimen, BasisFossilSpecimen, BasisLivingSpecimen, BasisObservation,
	BasisHumanObservation, BasisMachineObservation, BasisMaterialSample, BasisLiterature,
	BasisMaterialCitation, BasisOccurrence,
}

// occurrenceStatusValues lists GBIF's OccurrenceStatus vocabulary.
var occurrenceStatusValues = []string{"PRESENT", "ABSENT"}

// mediaTypeValues lists GBIF's MediaType vocabulary (stored in this case).
var mediaTypeValues = []string{"StillImage", "MovingImage", "Sound", "InteractiveResource"}

// Interpretation issues (GBIF OccurrenceIssue names) the interpreter raises.
const (
	IssueZeroCoordinate               = "ZERO_COORDINATE"
	IssueCoordinateOutOfRange         = "COORDINATE_OUT_OF_RANGE"
	IssueCoordinateInvalid            = "COORDINATE_INVALID"
	IssueCoordinateRounded            = "COORDINATE_ROUNDED"
	IssueGeodeticDatumAssumedWGS84    = "GEODETIC_DATUM_ASSUMED_WGS84"
	IssueCoordinateUncertaintyInvalid = "COORDINATE_UNCERTAINTY_METERS_INVALID"
	IssueCountryCoordinateMismatch    = "COUNTRY_COORDINATE_MISMATCH"
	IssueCountryMismatch              = "COUNTRY_MISMATCH"
	IssueCountryInvalid               = "COUNTRY_INVALID"
	IssueCountryDerivedFromCoords     = "COUNTRY_DERIVED_FROM_COORDINATES"
	IssuePresumedSwappedCoordinate    = "PRESUMED_SWAPPED_COORDINATE"
	IssuePresumedNegatedLongitude     = "PRESUMED_NEGATED_LONGITUDE"
	IssuePresumedNegatedLatitude      = "PRESUMED_NEGATED_LATITUDE"
	IssueRecordedDateMismatch         = "RECORDED_DATE_MISMATCH"
	IssueRecordedDateInvalid          = "RECORDED_DATE_INVALID"
	IssueRecordedDateUnlikely         = "RECORDED_DATE_UNLIKELY"
	IssueDepthNonNumeric              = "DEPTH_NON_NUMERIC"
	IssueDepthMinMaxSwapped           = "DEPTH_MIN_MAX_SWAPPED"
	IssueElevationNonNumeric          = "ELEVATION_NON_NUMERIC"
	IssueElevationMinMaxSwapped       = "ELEVATION_MIN_MAX_SWAPPED"
	IssueModifiedDateInvalid          = "MODIFIED_DATE_INVALID"
	IssueIdentifiedDateInvalid        = "IDENTIFIED_DATE_INVALID"
	IssueContinentInvalid             = "CONTINENT_INVALID"
	IssueBasisOfRecordInvalid         = "BASIS_OF_RECORD_INVALID"
	IssueTypeStatusInvalid            = "TYPE_STATUS_INVALID"
	IssueSuspectedType                = "SUSPECTED_TYPE"
	IssueMultimediaURIInvalid         = "MULTIMEDIA_URI_INVALID"
	IssueIndividualCountInvalid       = "INDIVIDUAL_COUNT_INVALID"
	IssueOccurrenceStatusUnparsable   = "OCCURRENCE_STATUS_UNPARSABLE"
	IssueInterpretationError          = "INTERPRETATION_ERROR"
	// IssueCountryDerivedFromName is this project's flag for a country code
	// interpreted from a country name (dwc:country) because dwc:countryCode was
	// absent. GBIF's vocabulary has no such issue; it is accepted in predicates.
	IssueCountryDerivedFromName = "COUNTRY_DERIVED_FROM_NAME"
)

// issueValues lists the issue names predicates accept: GBIF's OccurrenceIssue
// vocabulary plus IssueCountryDerivedFromName.
var issueValues = []string{
	"ZERO_COORDINATE", "COORDINATE_OUT_OF_RANGE", "COORDINATE_INVALID", "COORDINATE_ROUNDED",
	"GEODETIC_DATUM_INVALID", "GEODETIC_DATUM_ASSUMED_WGS84", "COORDINATE_REPROJECTED",
	"COORDINATE_REPROJECTION_FAILED", "COORDINATE_REPROJECTION_SUSPICIOUS",
	"COORDINATE_ACCURACY_INVALID", "COORDINATE_PRECISION_INVALID",
	"COORDINATE_UNCERTAINTY_METERS_INVALID", "COORDINATE_PRECISION_UNCERTAINTY_MISMATCH",
	"FOOTPRINT_SRS_INVALID", "FOOTPRINT_WKT_MISMATCH", "FOOTPRINT_WKT_INVALID",
	"COUNTRY_COORDINATE_MISMATCH", "COUNTRY_MISMATCH", "COUNTRY_INVALID",
	"COUNTRY_DERIVED_FROM_COORDINATES", "CONTINENT_COORDINATE_MISMATCH",
	"CONTINENT_COUNTRY_MISMATCH", "CONTINENT_INVALID", "CONTINENT_DERIVED_FROM_COUNTRY",
	"CONTINENT_DERIVED_FROM_COORDINATES", "PRESUMED_SWAPPED_COORDINATE",
	"PRESUMED_NEGATED_LONGITUDE", "PRESUMED_NEGATED_LATITUDE", "RECORDED_DATE_MISMATCH",
	"RECORDED_DATE_INVALID", "RECORDED_DATE_UNLIKELY", "TAXON_MATCH_FUZZY",
	"TAXON_MATCH_HIGHERRANK", "TAXON_MATCH_AGGREGATE", "TAXON_MATCH_SCIENTIFIC_NAME_ID_IGNORED",
	"TAXON_MATCH_TAXON_CONCEPT_ID_IGNORED", "TAXON_MATCH_TAXON_ID_IGNORED",
	"SCIENTIFIC_NAME_ID_NOT_FOUND", "TAXON_CONCEPT_ID_NOT_FOUND", "TAXON_ID_NOT_FOUND",
	"SCIENTIFIC_NAME_AND_ID_INCONSISTENT", "TAXON_MATCH_NONE", "TAXON_MATCH_NAME_AND_ID_AMBIGUOUS",
	"DEPTH_NOT_METRIC", "DEPTH_UNLIKELY", "DEPTH_MIN_MAX_SWAPPED", "DEPTH_NON_NUMERIC",
	"ELEVATION_UNLIKELY", "ELEVATION_MIN_MAX_SWAPPED", "ELEVATION_NOT_METRIC",
	"ELEVATION_NON_NUMERIC", "MODIFIED_DATE_INVALID", "MODIFIED_DATE_UNLIKELY",
	"IDENTIFIED_DATE_UNLIKELY", "IDENTIFIED_DATE_INVALID", "BASIS_OF_RECORD_INVALID",
	"TYPE_STATUS_INVALID", "SUSPECTED_TYPE", "MULTIMEDIA_DATE_INVALID", "MULTIMEDIA_URI_INVALID",
	"REFERENCES_URI_INVALID", "INTERPRETATION_ERROR", "INDIVIDUAL_COUNT_INVALID",
	"INDIVIDUAL_COUNT_CONFLICTS_WITH_OCCURRENCE_STATUS", "OCCURRENCE_STATUS_UNPARSABLE",
	"OCCURRENCE_STATUS_INFERRED_FROM_INDIVIDUAL_COUNT",
	"OCCURRENCE_STATUS_INFERRED_FROM_BASIS_OF_RECORD", "GEOREFERENCED_DATE_UNLIKELY",
	"GEOREFERENCED_DATE_INVALID", "AMBIGUOUS_INSTITUTION", "AMBIGUOUS_COLLECTION",
	"INSTITUTION_MATCH_NONE", "COLLECTION_MATCH_NONE", "INSTITUTION_MATCH_FUZZY",
	"COLLECTION_MATCH_FUZZY", "INSTITUTION_COLLECTION_MISMATCH", "POSSIBLY_ON_LOAN",
	"DIFFERENT_OWNER_INSTITUTION",
	IssueEraInferredFromParentRank, IssuePeriodInferredFromParentRank,
	IssueEpochInferredFromParentRank, IssueAgeInferredFromParentRank,
	IssueEonRankMismatch, IssueEraRankMismatch, IssuePeriodRankMismatch,
	IssueEpochRankMismatch, IssueAgeRankMismatch,
	IssueEonInvalidRange, IssueEraInvalidRange, IssuePeriodInvalidRange,
	IssueEpochInvalidRange, IssueAgeInvalidRange,
	IssueEonEraMismatch, IssueEraPeriodMismatch, IssuePeriodEpochMismatch,
	IssueEpochAgeMismatch,
	IssueNucleotideSequenceNaturalLanguage, IssueNucleotideSequenceEndsTrimmed,
	IssueNucleotideSequenceGapsRemoved, IssueNucleotideSequenceInvalid,
	IssueNucleotideSequenceHighNFraction, IssueNucleotideSequenceHighAmbiguity,
	IssueTargetGeneInvalid, IssueDuplicateNucleotideSequences,
	"PARENT_EVENT_INFINITE_LINEAGE", // an event's; no occurrence has it
	IssueCountryDerivedFromName,
}

// geospatialIssues are the issues that set hasGeospatialIssues (GBIF's
// OccurrenceIssue.GEOSPATIAL_RULES).
var geospatialIssues = []string{
	IssueZeroCoordinate, IssueCoordinateOutOfRange, IssueCoordinateInvalid,
	IssueCountryCoordinateMismatch, IssuePresumedSwappedCoordinate,
	IssuePresumedNegatedLongitude, IssuePresumedNegatedLatitude,
}

// vocabulary is a closed set of values looked up by a loose spelling: case,
// spaces, hyphens and underscores do not matter ("Preserved specimen" ->
// PRESERVED_SPECIMEN, "stillimage" -> StillImage).
type vocabulary struct {
	name   string
	byLoos map[string]string
	values []string
}

func newVocabulary(name string, values []string) *vocabulary {
	v := &vocabulary{name: name, byLoos: make(map[string]string, len(values)), values: values}
	for _, s := range values {
		v.byLoos[looseKey(s)] = s
	}
	return v
}

// lookup returns the canonical spelling of s.
func (v *vocabulary) lookup(s string) (string, bool) {
	c, ok := v.byLoos[looseKey(s)]
	return c, ok
}

// looseKey upper-cases s and drops spaces, hyphens and underscores.
func looseKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range strings.TrimSpace(s) {
		switch r {
		case ' ', '-', '_':
			continue
		}
		if r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

var (
	vocabBasisOfRecord    = newVocabulary("basis of record", basisOfRecordValues)
	vocabOccurrenceStatus = newVocabulary("occurrence status", occurrenceStatusValues)
	vocabMediaType        = newVocabulary("media type", mediaTypeValues)
	vocabIssue            = newVocabulary("issue", issueValues)
)
