package download

import (
	"fmt"
	"strings"
)

// Extension is one of GBIF's extensions a download may carry the source
// rows of (a request's verbatimExtensions).
type Extension struct {
	// Name is GBIF's Extension enum name (MEASUREMENT_OR_FACT).
	Name string
	// RowType is the extension's row type URI, as requests name it.
	RowType string
	// Available marks GBIF's availableExtensions, the ones its describe
	// endpoint lists (any other is served too, from what datasets carry).
	Available bool
}

// File is the extension's file in a DWCA, as GBIF names it:
// verbatim/<name lower-cased, without underscores>.txt.
func (e Extension) File() string {
	return "verbatim/" + strings.ToLower(strings.ReplaceAll(e.Name, "_", "")) + ".txt"
}

// extensions are GBIF's Extension vocabulary, with its
// AVAILABLE_EXTENSION_MAP as Available (gbif-api
// src/main/java/org/gbif/api/vocabulary/Extension.java at 06da136).
var extensions = []Extension{
	{"AUDUBON", "http://rs.tdwg.org/ac/terms/Multimedia", true},
	{"AMPLIFICATION", "http://data.ggbn.org/schemas/ggbn/terms/Amplification", true},
	{"DESCRIPTION", "http://rs.gbif.org/terms/1.0/Description", false},
	{"DISTRIBUTION", "http://rs.gbif.org/terms/1.0/Distribution", false},
	{"EOL_MEDIA", "http://eol.org/schema/media/Document", false},
	{"EOL_REFERENCE", "http://eol.org/schema/reference/Reference", false},
	{"GERMPLASM_ACCESSION", "http://purl.org/germplasm/germplasmTerm#GermplasmAccession", true},
	{"GERMPLASM_MEASUREMENT_SCORE", "http://purl.org/germplasm/germplasmTerm#MeasurementScore", true},
	{"GERMPLASM_MEASUREMENT_TRAIT", "http://purl.org/germplasm/germplasmTerm#MeasurementTrait", true},
	{"GERMPLASM_MEASUREMENT_TRIAL", "http://purl.org/germplasm/germplasmTerm#MeasurementTrial", true},
	{"IDENTIFICATION", "http://rs.tdwg.org/dwc/terms/Identification", true},
	{"IDENTIFIER", "http://rs.gbif.org/terms/1.0/Identifier", true},
	{"IMAGE", "http://rs.gbif.org/terms/1.0/Image", true},
	{"MEASUREMENT_OR_FACT", "http://rs.tdwg.org/dwc/terms/MeasurementOrFact", true},
	{"MULTIMEDIA", "http://rs.gbif.org/terms/1.0/Multimedia", true},
	{"REFERENCE", "http://rs.gbif.org/terms/1.0/Reference", true},
	{"RESOURCE_RELATIONSHIP", "http://rs.tdwg.org/dwc/terms/ResourceRelationship", true},
	{"SPECIES_PROFILE", "http://rs.gbif.org/terms/1.0/SpeciesProfile", false},
	{"TYPES_AND_SPECIMEN", "http://rs.gbif.org/terms/1.0/TypesAndSpecimen", false},
	{"VERNACULAR_NAME", "http://rs.gbif.org/terms/1.0/VernacularName", false},
	{"CLONING", "http://data.ggbn.org/schemas/ggbn/terms/Cloning", true},
	{"GEL_IMAGE", "http://data.ggbn.org/schemas/ggbn/terms/GelImage", true},
	{"LOAN", "http://data.ggbn.org/schemas/ggbn/terms/Loan", true},
	{"MATERIAL_SAMPLE", "http://data.ggbn.org/schemas/ggbn/terms/MaterialSample", true},
	{"PERMIT", "http://data.ggbn.org/schemas/ggbn/terms/Permit", true},
	{"PREPARATION", "http://data.ggbn.org/schemas/ggbn/terms/Preparation", true},
	{"PRESERVATION", "http://data.ggbn.org/schemas/ggbn/terms/Preservation", true},
	{"EXTENDED_MEASUREMENT_OR_FACT", "http://rs.iobis.org/obis/terms/ExtendedMeasurementOrFact", true},
	{"CHRONOMETRIC_AGE", "http://rs.tdwg.org/chrono/terms/ChronometricAge", true},
	{"CHRONOMETRIC_DATE", "http://zooarchnet.org/dwc/terms/ChronometricDate", false},
	{"DNA_DERIVED_DATA", "http://rs.gbif.org/terms/1.0/DNADerivedData", true},
	{"HUMBOLDT", "http://rs.tdwg.org/eco/terms/Event", true},
	{"OCCURRENCE", "http://rs.tdwg.org/dwc/terms/Occurrence", true},
}

// LookupExtension finds an extension by its row type URI or its enum name
// (any case, underscores optional), as GBIF's Extension.fromRowType does.
func LookupExtension(s string) (Extension, error) {
	loose := func(v string) string { return strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(v), "_", "")) }
	for _, e := range extensions {
		if e.RowType == strings.TrimSpace(s) || loose(e.Name) == loose(s) {
			return e, nil
		}
	}
	return Extension{}, fmt.Errorf("%w: %q is not an extension GBIF knows (a row type such as http://rs.tdwg.org/dwc/terms/MeasurementOrFact)", ErrFormat, s)
}

// AvailableExtensions returns the row types of GBIF's available
// extensions, in its enum order.
func AvailableExtensions() []string {
	var out []string
	for _, e := range extensions {
		if e.Available {
			out = append(out, e.RowType)
		}
	}
	return out
}
