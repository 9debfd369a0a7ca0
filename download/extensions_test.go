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
