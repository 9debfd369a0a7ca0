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
}

// File is the extension's file in a DWCA, as GBIF names it:
// verbatim/<name lower-cased, without underscores>.txt.
func (e Extension) File() string {
	return "verbatim/" + strings.ToLower(strings.ReplaceAll(e.Name, "_", "")) + ".txt"
}

// extensions are GBIF's Extension vocabulary (gbif-api
// src/main/java/org/gbif/api/vocabulary/Extension.java at 06da136).
var extensions = []Extension{
	{"AUDUBON", "http://rs.tdwg.org/ac/terms/Multimedia"},
	{"AMPLIFICATION", "http://data.ggbn.org/schemas/ggbn/terms/Amplification"},
	{"DESCRIPTION", "http://rs.gbif.org/terms/1.0/Description"},
	{"DISTRIBUTION", "http://rs.gbif.org/terms/1.0/Distribution"},
	{"EOL_MEDIA", "http://eol.org/schema/media/Document"},
	{"EOL_REFERENCE", "http://eol.org/schema/reference/Reference"},
	{"GERMPLASM_ACCESSION", "http://purl.org/germplasm/germplasmTerm#GermplasmAccession"},
	{"GERMPLASM_MEASUREMENT_SCORE", "http://purl.org/germplasm/germplasmTerm#MeasurementScore"},
	{"GERMPLASM_MEASUREMENT_TRAIT", "http://purl.org/germplasm/germplasmTerm#MeasurementTrait"},
	{"GERMPLASM_MEASUREMENT_TRIAL", "http://purl.org/germplasm/germplasmTerm#MeasurementTrial"},
	{"IDENTIFICATION", "http://rs.tdwg.org/dwc/terms/Identification"},
	{"IDENTIFIER", "http://rs.gbif.org/terms/1.0/Identifier"},
	{"IMAGE", "http://rs.gbif.org/terms/1.0/Image"},
	{"MEASUREMENT_OR_FACT", "http://rs.tdwg.org/dwc/terms/MeasurementOrFact"},
	{"MULTIMEDIA", "http://rs.gbif.org/terms/1.0/Multimedia"},
	{"REFERENCE", "http://rs.gbif.org/terms/1.0/Reference"},
	{"RESOURCE_RELATIONSHIP", "http://rs.tdwg.org/dwc/terms/ResourceRelationship"},
	{"SPECIES_PROFILE", "http://rs.gbif.org/terms/1.0/SpeciesProfile"},
	{"TYPES_AND_SPECIMEN", "http://rs.gbif.org/terms/1.0/TypesAndSpecimen"},
	{"VERNACULAR_NAME", "http://rs.gbif.org/terms/1.0/VernacularName"},
	{"CLONING", "http://data.ggbn.org/schemas/ggbn/terms/Cloning"},
	{"GEL_IMAGE", "http://data.ggbn.org/schemas/ggbn/terms/GelImage"},
	{"LOAN", "http://data.ggbn.org/schemas/ggbn/terms/Loan"},
	{"MATERIAL_SAMPLE", "http://data.ggbn.org/schemas/ggbn/terms/MaterialSample"},
	{"PERMIT", "http://data.ggbn.org/schemas/ggbn/terms/Permit"},
	{"PREPARATION", "http://data.ggbn.org/schemas/ggbn/terms/Preparation"},
	{"PRESERVATION", "http://data.ggbn.org/schemas/ggbn/terms/Preservation"},
	{"EXTENDED_MEASUREMENT_OR_FACT", "http://rs.iobis.org/obis/terms/ExtendedMeasurementOrFact"},
	{"CHRONOMETRIC_AGE", "http://rs.tdwg.org/chrono/terms/ChronometricAge"},
	{"CHRONOMETRIC_DATE", "http://zooarchnet.org/dwc/terms/ChronometricDate"},
	{"DNA_DERIVED_DATA", "http://rs.gbif.org/terms/1.0/DNADerivedData"},
	{"HUMBOLDT", "http://rs.tdwg.org/eco/terms/Event"},
	{"OCCURRENCE", "http://rs.tdwg.org/dwc/terms/Occurrence"},
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
