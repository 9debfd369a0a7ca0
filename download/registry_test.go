package download

import (
	"errors"
	"slices"
	"testing"
)

// The registry lists each format once, in GBIF's order, with everything
// the API, the CLI and the estimates read.
func TestRegistry(t *testing.T) {
	if got, want := FormatNames(), []string{"DWCA", "SIMPLE_CSV", "SIMPLE_AVRO", "SIMPLE_WITH_VERBATIM_AVRO", "SPECIES_LIST", "MAP_OF_LIFE", "BIONOMIA", "SIMPLE_PARQUET", "SQL_TSV_ZIP", "FASTA_ARCHIVE"}; !slices.Equal(got, want) {
		t.Fatalf("FormatNames() = %v, want %v", got, want)
	}
	for _, f := range Formats() {
		if f.Description == "" || f.Extension == "" || f.ContentType == "" || f.BytesPerRecord <= 0 || f.CompressionRatio <= 0 {
			t.Errorf("format %s is incomplete: %+v", f.Name, f)
		}
		// A zip is served as one; SIMPLE_AVRO and MAP_OF_LIFE are GBIF's
		// one .avro file.
		if zip := f.Name != FormatSimpleAvro && f.Name != FormatMapOfLife; zip != (f.Extension == ".zip" && f.ContentType == "application/zip") || zip != f.zipped() {
			t.Errorf("format %s: extension %s, content type %s", f.Name, f.Extension, f.ContentType)
		}
		got, err := LookupFormat(string(f.Name))
		if err != nil || got.Name != f.Name {
			t.Errorf("LookupFormat(%s) = %v, %v", f.Name, got.Name, err)
		}
	}
	if got := fieldFormats(); !slices.Equal(got, []string{"SIMPLE_CSV", "SIMPLE_AVRO", "SIMPLE_PARQUET"}) {
		t.Errorf("formats with fields: %v", got)
	}
	// The API takes names as GBIF spells them; the command line any case.
	if _, err := LookupFormat("simple_csv"); !errors.Is(err, ErrFormat) {
		t.Errorf("LookupFormat(simple_csv) = %v, want ErrFormat", err)
	}
	if f, err := ParseFormat("simple_csv"); err != nil || f != FormatSimpleCSV {
		t.Errorf("ParseFormat(simple_csv) = %q, %v", f, err)
	}
	if _, err := ParseFormat("XLSX"); !errors.Is(err, ErrFormat) || err.Error() != `download: bad download format: "XLSX" (want one of DWCA, SIMPLE_CSV, SIMPLE_AVRO, SIMPLE_WITH_VERBATIM_AVRO, SPECIES_LIST, MAP_OF_LIFE, BIONOMIA, SIMPLE_PARQUET, SQL_TSV_ZIP, FASTA_ARCHIVE)` {
		t.Errorf("ParseFormat(XLSX) = %v", err)
	}
	// Formats returns a copy: a caller cannot change the registry.
	fs := Formats()
	fs[0].Name = "CHANGED"
	if Formats()[0].Name != FormatDWCA {
		t.Error("Formats() handed out the registry itself")
	}
}
