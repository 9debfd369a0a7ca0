package download

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
)

func TestLookupExtension(t *testing.T) {
	for _, s := range []string{"http://rs.tdwg.org/dwc/terms/MeasurementOrFact", "MEASUREMENT_OR_FACT", "measurementorfact", " Measurement_Or_Fact "} {
		e, err := LookupExtension(s)
		if err != nil || e.Name != "MEASUREMENT_OR_FACT" || e.File() != "verbatim/measurementorfact.txt" {
			t.Errorf("LookupExtension(%q) = %+v, %v", s, e, err)
		}
	}
	if _, err := LookupExtension("http://example.org/Nothing"); !errors.Is(err, ErrFormat) {
		t.Errorf("unknown row type: %v, want ErrFormat", err)
	}
}

// GBIF's TermNormalizationUtils.normalizeFieldName: lower case, no "-" or
// "_", ":" as "_", a leading "_" before a digit.
func TestExtensionHeader(t *testing.T) {
	got := extensionHeader([]string{"http://rs.tdwg.org/dwc/terms/measurementID", "http://purl.org/dc/terms/date",
		"http://example.org/a/3d-model_url", "http://example.org/b/type", "http://purl.org/dc/terms/type"})
	want := []string{"gbifid", "datasetkey", "measurementid", "date", "_3dmodelurl", "http_//example.org/b/type", "dcterms_type"}
	if !slices.Equal(got, want) {
		t.Errorf("header %q\nwant   %q", got, want)
	}
}

func TestVerbatimExtensionsRefused(t *testing.T) {
	ctx := context.Background()
	for _, spec := range []ExportSpec{
		{Format: FormatSimpleCSV, VerbatimExtensions: []string{"MULTIMEDIA"}},
		{Format: FormatDWCA, VerbatimExtensions: []string{"NO_SUCH_EXTENSION"}},
	} {
		var buf bytes.Buffer
		if _, err := NewExport(ctx, &buf, spec, ExportOptions{TempDir: t.TempDir()}); !errors.Is(err, ErrFormat) {
			t.Errorf("%s with %v: %v, want ErrFormat", spec.Format, spec.VerbatimExtensions, err)
		}
	}
}

// TestExtensionDefinitions: every extension GBIF makes available (but the
// occurrence core) has its definition, of its own row type.
func TestExtensionDefinitions(t *testing.T) {
	for _, e := range extensions {
		d, ok := extensionDefinitions[e.Name]
		switch {
		case e.Available && e.Name != "OCCURRENCE" && !ok:
			t.Errorf("%s: no definition", e.Name)
		case ok && (d.rowType != e.RowType || len(d.terms) == 0):
			t.Errorf("%s: definition of %s with %d terms, want row type %s", e.Name, d.rowType, len(d.terms), e.RowType)
		}
	}
	if len(extensionDefinitions) != 24 {
		t.Errorf("%d definitions, gbif-api's AVAILABLE_EXTENSION_MAP names 24 besides the core", len(extensionDefinitions))
	}
}

// TestExtensionTermsDefinitionFirst: an extension file's columns are its
// definition's properties in definition order, then the published terms
// the definition lacks, sorted; an extension without a definition has the
// published terms alone.
func TestExtensionTermsDefinitionFirst(t *testing.T) {
	ctx := context.Background()
	c := testSource()
	e := c[testDatasets[0].key]
	e.info.Terms = map[string][]string{
		"http://rs.tdwg.org/dwc/terms/MeasurementOrFact": {"http://example.org/z", "http://rs.tdwg.org/dwc/terms/measurementValue", "http://example.org/a"},
		"http://rs.gbif.org/terms/1.0/Description":       {"http://purl.org/dc/terms/type", "http://purl.org/dc/terms/description"},
	}
	c[testDatasets[0].key] = e
	mof, _ := LookupExtension("MEASUREMENT_OR_FACT")
	got, err := extensionTerms(ctx, c, mof)
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(extensionDefinitions["MEASUREMENT_OR_FACT"].terms), "http://example.org/a", "http://example.org/z")
	if !slices.Equal(got, want) || got[0] != "http://rs.tdwg.org/dwc/terms/measurementID" {
		t.Errorf("MeasurementOrFact terms %q\nwant %q", got, want)
	}
	desc, _ := LookupExtension("DESCRIPTION")
	if got, _ := extensionTerms(ctx, c, desc); !slices.Equal(got, []string{"http://purl.org/dc/terms/description", "http://purl.org/dc/terms/type"}) {
		t.Errorf("Description (no definition) terms %q", got)
	}
}
