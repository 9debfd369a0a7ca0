package dwca

import (
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Term namespaces besides those in package occurrence.
const (
	NSAudubon    = "http://rs.tdwg.org/ac/terms/"
	RowTypeTaxon = "http://rs.tdwg.org/dwc/terms/Taxon"
)

// dwcTerms are the Darwin Core term names (rs.tdwg.org/dwc/terms/), current
// and recently deprecated ones, used to canonicalize the capitalization of
// terms and to map bare header names onto URIs.
const dwcTerms = `acceptedNameUsage acceptedNameUsageID associatedMedia associatedOccurrences
associatedOrganisms associatedReferences associatedSequences associatedTaxa basisOfRecord bed
behavior catalogNumber class collectionCode collectionID continent coordinatePrecision
coordinateUncertaintyInMeters country countryCode county cultivarEpithet dataGeneralizations
datasetID datasetName dateIdentified day decimalLatitude decimalLongitude degreeOfEstablishment
disposition dynamicProperties earliestAgeOrLowestStage earliestEonOrLowestEonothem
earliestEpochOrLowestSeries earliestEraOrLowestErathem earliestPeriodOrLowestSystem
endDayOfYear establishmentMeans eventDate eventID eventRemarks eventTime eventType family
fieldNotes fieldNumber footprintSpatialFit footprintSRS footprintWKT formation genericName genus
geodeticDatum geologicalContextID georeferencedBy georeferencedDate georeferenceProtocol
georeferenceRemarks georeferenceSources georeferenceVerificationStatus group habitat
higherClassification higherGeography higherGeographyID highestBiostratigraphicZone
identificationID identificationQualifier identificationReferences identificationRemarks
identificationVerificationStatus identifiedBy identifiedByID individualCount informationWithheld
infragenericEpithet infraspecificEpithet institutionCode institutionID island islandGroup kingdom
latestAgeOrHighestStage latestEonOrHighestEonothem latestEpochOrHighestSeries
latestEraOrHighestErathem latestPeriodOrHighestSystem lifeStage lithostratigraphicTerms locality
locationAccordingTo locationID locationRemarks lowestBiostratigraphicZone
materialEntityID materialSampleID maximumDepthInMeters maximumDistanceAboveSurfaceInMeters
maximumElevationInMeters measurementAccuracy measurementDeterminedBy measurementDeterminedDate
measurementID measurementMethod measurementRemarks measurementType measurementUnit
measurementValue member minimumDepthInMeters minimumDistanceAboveSurfaceInMeters
minimumElevationInMeters month municipality nameAccordingTo nameAccordingToID namePublishedIn
namePublishedInID namePublishedInYear nomenclaturalCode nomenclaturalStatus occurrenceID
occurrenceRemarks occurrenceStatus order organismID organismName organismQuantity
organismQuantityType organismRemarks organismScope originalNameUsage originalNameUsageID
otherCatalogNumbers ownerInstitutionCode parentEventID parentNameUsage parentNameUsageID
pathway phylum pointRadiusSpatialFit preparations previousIdentifications recordedBy
recordedByID recordNumber relatedResourceID relationshipAccordingTo relationshipEstablishedDate
relationshipOfResource relationshipOfResourceID relationshipRemarks reproductiveCondition
resourceID resourceRelationshipID sampleSizeUnit sampleSizeValue samplingEffort
samplingProtocol scientificName scientificNameAuthorship scientificNameID sex specificEpithet
startDayOfYear stateProvince subfamily subgenus subtribe superfamily taxonConceptID taxonID
taxonomicStatus taxonRank taxonRemarks tribe typeStatus verbatimCoordinates
verbatimCoordinateSystem verbatimDepth verbatimElevation verbatimEventDate verbatimIdentification
verbatimLabel verbatimLatitude verbatimLocality verbatimLongitude verbatimSRS verbatimTaxonRank
vernacularName waterBody year`

// dcTerms are the Dublin Core terms (purl.org/dc/terms/) found in archives.
const dcTerms = `abstract accessRights audience bibliographicCitation contributor coverage created
creator date description format identifier isPartOf language license modified publisher
references relation rights rightsHolder source spatial subject temporal title type`

// gbifTerms are GBIF terms (rs.gbif.org/terms/1.0/) as they appear in GBIF
// downloads and extensions.
const gbifTerms = `gbifID datasetKey publishingOrgKey publishingCountry installationKey
networkKey protocol lastCrawled lastParsed lastInterpreted taxonKey acceptedTaxonKey
kingdomKey phylumKey classKey orderKey familyKey genusKey subgenusKey speciesKey species
acceptedScientificName verbatimScientificName verbatimScientificNameAuthorship
typifiedName elevation elevationAccuracy depth depthAccuracy distanceAboveSurface
distanceAboveSurfaceAccuracy issue mediaType hasCoordinate hasGeospatialIssue repatriated
iucnRedListCategory taxonomicIssue numberOfOccurrences`

// termAliases maps lower-case old names (DwC 1.4 and earlier) onto current term URIs.
var termAliases = map[string]string{
	"collector":             occurrence.NSDwC + "recordedBy",
	"earliestdatecollected": occurrence.NSDwC + "eventDate",
	"catalognumbertext":     occurrence.NSDwC + "catalogNumber",
}

// DarwinCoreTerms returns the URIs of the Darwin Core terms the reader knows
// (current and recently deprecated ones), in the order of the reader's list.
func DarwinCoreTerms() []string { return termURIs(occurrence.NSDwC, dwcTerms) }

// DublinCoreTerms returns the URIs of the Dublin Core terms found in
// archives, in alphabetical order.
func DublinCoreTerms() []string { return termURIs(occurrence.NSDC, dcTerms) }

func termURIs(ns, names string) []string {
	fields := strings.Fields(names)
	out := make([]string, len(fields))
	for i, n := range fields {
		out[i] = ns + n
	}
	return out
}

// knownTerms maps a lower-case bare term name onto its canonical URI. When a
// name exists in several namespaces the Darwin Core one wins, then Dublin Core.
var knownTerms = buildKnownTerms()

func buildKnownTerms() map[string]string {
	m := make(map[string]string, 400)
	for _, ns := range []struct{ uri, names string }{
		{occurrence.NSGBIF, gbifTerms}, {occurrence.NSDC, dcTerms}, {occurrence.NSDwC, dwcTerms},
	} {
		for _, n := range strings.Fields(ns.names) {
			m[strings.ToLower(n)] = ns.uri + n
		}
	}
	return m
}

// oldDwCNamespaces are namespaces of Darwin Core drafts whose terms live on
// under rs.tdwg.org/dwc/terms/.
var oldDwCNamespaces = []string{
	"http://rs.tdwg.org/dwc/dwcore/", "http://rs.tdwg.org/dwc/geospatial/",
	"http://rs.tdwg.org/dwc/curatorial/", "http://rs.tdwg.org/dwc/dwelement/",
	"http://rs.tdwg.org/dwc/terms/",
}

// CanonicalTerm returns the canonical URI of a term: Darwin Core, Dublin Core
// and GBIF terms are matched without regard to capitalization (old archives
// write "http://rs.tdwg.org/dwc/terms/ScientificName"), old Darwin Core
// namespaces and names are mapped onto the current ones, and anything else is
// returned unchanged.
func CanonicalTerm(uri string) string {
	ns, name := splitTerm(uri)
	if name == "" {
		return uri
	}
	lower := strings.ToLower(name)
	switch {
	case isOldDwC(ns):
		if a, ok := termAliases[lower]; ok {
			return a
		}
		if t, ok := knownTerms[lower]; ok && strings.HasPrefix(t, occurrence.NSDwC) {
			return t
		}
	case ns == occurrence.NSDC || ns == "http://purl.org/dc/elements/1.1/":
		if t, ok := knownTerms[lower]; ok && strings.HasPrefix(t, occurrence.NSDC) {
			return t
		}
	case ns == occurrence.NSGBIF:
		if t, ok := knownTerms[lower]; ok && strings.HasPrefix(t, occurrence.NSGBIF) {
			return t
		}
	}
	return uri
}

func isOldDwC(ns string) bool {
	for _, o := range oldDwCNamespaces {
		if ns == o {
			return true
		}
	}
	return false
}

// splitTerm splits a term URI after its last '/' or '#'.
func splitTerm(uri string) (ns, name string) {
	i := strings.LastIndexAny(uri, "/#")
	if i < 0 || i == len(uri)-1 {
		return "", ""
	}
	return uri[:i+1], uri[i+1:]
}

// TermForName maps a column header onto a term URI: full URIs are
// canonicalized, prefixed names (dwc:, dc:, dcterms:, gbif:, ac:) expanded and
// bare names of known terms matched without regard to capitalization. Unknown
// names are returned trimmed but otherwise as they are.
func TermForName(name string) string {
	name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))
	if strings.Contains(name, "://") {
		return CanonicalTerm(name)
	}
	if prefix, rest, ok := strings.Cut(name, ":"); ok {
		switch strings.ToLower(prefix) {
		case "dwc":
			return CanonicalTerm(occurrence.NSDwC + rest)
		case "dc", "dcterms":
			return CanonicalTerm(occurrence.NSDC + rest)
		case "gbif":
			return CanonicalTerm(occurrence.NSGBIF + rest)
		case "ac":
			return NSAudubon + rest
		}
	}
	lower := strings.ToLower(name)
	if a, ok := termAliases[lower]; ok {
		return a
	}
	if t, ok := knownTerms[lower]; ok {
		return t
	}
	return name
}

// rowTypeAliases maps lower-case old or bare row type names onto row type URIs.
var rowTypeAliases = map[string]string{
	"darwincore":           occurrence.RowTypeOccurrence,
	"simpledarwinrecord":   occurrence.RowTypeOccurrence,
	"simpledarwincore":     occurrence.RowTypeOccurrence,
	"occurrence":           occurrence.RowTypeOccurrence,
	"event":                occurrence.RowTypeEvent,
	"taxon":                RowTypeTaxon,
	"identification":       occurrence.RowTypeIdentification,
	"measurementorfact":    occurrence.RowTypeMeasurement,
	"multimedia":           occurrence.RowTypeMultimedia,
	"image":                occurrence.RowTypeMultimedia,
	"images":               occurrence.RowTypeMultimedia,
	"resourcerelationship": occurrence.NSDwC + "ResourceRelationship",
	"organism":             occurrence.NSDwC + "Organism",
	"materialsample":       occurrence.NSDwC + "MaterialSample",
	"location":             occurrence.NSDwC + "Location",
	"vernacularname":       occurrence.NSGBIF + "VernacularName",
	"description":          occurrence.NSGBIF + "Description",
	"distribution":         occurrence.NSGBIF + "Distribution",
	"reference":            occurrence.NSGBIF + "Reference",
	"references":           occurrence.NSGBIF + "Reference",
	"typesandspecimen":     occurrence.NSGBIF + "TypesAndSpecimen",
	"speciesprofile":       occurrence.NSGBIF + "SpeciesProfile",
	"identifier":           occurrence.NSGBIF + "Identifier",
}

// NormalizeRowType maps old and bare row type names onto current URIs the way
// GBIF's dwca-io does: "http://rs.tdwg.org/dwc/terms/DarwinCore",
// "http://rs.tdwg.org/dwc/xsd/simpledarwincore/SimpleDarwinRecord" and
// "DarwinCore" become the Occurrence row type; capitalization variants of
// Darwin Core and GBIF row types are fixed; other URIs are kept.
func NormalizeRowType(rt string) string {
	if rt == "" {
		return ""
	}
	ns, name := splitTerm(rt)
	if name == "" {
		ns, name = "", rt
	}
	lower := strings.ToLower(name)
	if ns == NSAudubon && lower == "multimedia" {
		return occurrence.RowTypeAudubon
	}
	dwcish := ns == "" || isOldDwC(ns) || strings.HasPrefix(ns, "http://rs.tdwg.org/dwc/")
	if dwcish || ns == occurrence.NSGBIF {
		if a, ok := rowTypeAliases[lower]; ok {
			return a
		}
	}
	return rt
}
