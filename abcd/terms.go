package abcd

import "github.com/biodiversity-downloads/downloader/occurrence"

const (
	dwc  = occurrence.NSDwC
	dc   = occurrence.NSDC
	gbif = occurrence.NSGBIF
)

// identTerms are the terms of one identification, used in the core
// (preferred identification) and in the Identification extension (others).
var identTerms = []string{
	dwc + "identifiedBy", dwc + "identifiedByID", dwc + "dateIdentified",
	dwc + "identificationQualifier", dwc + "identificationRemarks",
	dwc + "identificationReferences", dwc + "identificationVerificationStatus",
	dwc + "scientificName", dwc + "scientificNameID", dwc + "scientificNameAuthorship",
	dwc + "kingdom", dwc + "phylum", dwc + "class", dwc + "order", dwc + "family",
	dwc + "genus", dwc + "subgenus", dwc + "specificEpithet", dwc + "infraspecificEpithet",
	dwc + "taxonRank", dwc + "higherClassification", dwc + "nomenclaturalCode",
	dwc + "taxonRemarks",
}

// coreTerms are the occurrence core columns the mapping can fill, in the
// order a converted archive writes them. occurrenceID is also the row id.
var coreTerms = append([]string{
	dwc + "occurrenceID", dwc + "catalogNumber", dwc + "institutionCode", dwc + "collectionCode",
	dwc + "ownerInstitutionCode", dwc + "otherCatalogNumbers",
	dwc + "basisOfRecord", dwc + "occurrenceStatus", dc + "modified", dc + "references",
	dc + "license", dwc + "datasetID", dwc + "datasetName",
	dwc + "recordNumber", dwc + "fieldNumber", dwc + "recordedBy", dwc + "recordedByID",
	dwc + "preparations", dwc + "sex", dwc + "lifeStage", dwc + "occurrenceRemarks",
	dwc + "associatedSequences", dwc + "associatedOccurrences", dwc + "associatedReferences",
	dwc + "associatedTaxa",
	dwc + "eventDate", dwc + "eventTime", dwc + "startDayOfYear", dwc + "endDayOfYear",
	dwc + "verbatimEventDate", dwc + "samplingProtocol", dwc + "habitat", dwc + "eventRemarks",
	dwc + "continent", dwc + "waterBody", dwc + "islandGroup", dwc + "island",
	dwc + "country", dwc + "countryCode", dwc + "stateProvince", dwc + "county",
	dwc + "municipality", dwc + "higherGeography", dwc + "locality", dwc + "locationRemarks",
	dwc + "verbatimElevation", dwc + "minimumElevationInMeters", dwc + "maximumElevationInMeters",
	gbif + "elevationAccuracy",
	dwc + "verbatimDepth", dwc + "minimumDepthInMeters", dwc + "maximumDepthInMeters",
	gbif + "depthAccuracy",
	dwc + "minimumDistanceAboveSurfaceInMeters", dwc + "maximumDistanceAboveSurfaceInMeters",
	dwc + "decimalLatitude", dwc + "decimalLongitude", dwc + "geodeticDatum",
	dwc + "coordinateUncertaintyInMeters", dwc + "verbatimCoordinates",
	dwc + "verbatimLatitude", dwc + "verbatimLongitude",
	dwc + "verbatimCoordinateSystem", dwc + "verbatimSRS",
	dwc + "georeferenceProtocol", dwc + "georeferenceSources",
	dwc + "georeferenceVerificationStatus", dwc + "georeferenceRemarks",
	dwc + "earliestEonOrLowestEonothem", dwc + "latestEonOrHighestEonothem",
	dwc + "earliestEraOrLowestErathem", dwc + "latestEraOrHighestErathem",
	dwc + "earliestPeriodOrLowestSystem", dwc + "latestPeriodOrHighestSystem",
	dwc + "earliestEpochOrLowestSeries", dwc + "latestEpochOrHighestSeries",
	dwc + "earliestAgeOrLowestStage", dwc + "latestAgeOrHighestStage",
	dwc + "lowestBiostratigraphicZone", dwc + "highestBiostratigraphicZone",
	dwc + "lithostratigraphicTerms", dwc + "group", dwc + "formation", dwc + "member", dwc + "bed",
	dwc + "typeStatus", gbif + "typifiedName",
}, identTerms...)

// multimediaTerms are the columns of the GBIF Multimedia extension.
var multimediaTerms = []string{
	dc + "type", dc + "format", dc + "identifier", dc + "references", dc + "title",
	dc + "description", dc + "created", dc + "creator", dc + "license", dc + "rightsHolder",
}

// measurementTerms are the columns of the MeasurementOrFact extension.
var measurementTerms = []string{
	dwc + "measurementType", dwc + "measurementValue", dwc + "measurementAccuracy",
	dwc + "measurementUnit", dwc + "measurementDeterminedBy", dwc + "measurementDeterminedDate",
	dwc + "measurementMethod", dwc + "measurementRemarks",
}

// extensionTerms are the extension row types produced by the mapping, with
// their columns; the Identification extension holds the non-preferred
// identifications.
var extensionTerms = map[string][]string{
	occurrence.RowTypeIdentification: identTerms,
	occurrence.RowTypeMultimedia:     multimediaTerms,
	occurrence.RowTypeMeasurement:    measurementTerms,
}

// extensionOrder is the order extensions are written in an archive.
var extensionOrder = []string{occurrence.RowTypeIdentification, occurrence.RowTypeMultimedia, occurrence.RowTypeMeasurement}

// terms is a Terms builder that drops empty values and keeps the first value
// set for a key unless overwritten explicitly.
type terms occurrence.Terms

func (t terms) set(key, val string) {
	if val != "" {
		t[key] = val
	}
}

func (t terms) setDefault(key, val string) {
	if _, ok := t[key]; !ok && val != "" {
		t[key] = val
	}
}
