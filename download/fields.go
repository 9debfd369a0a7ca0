package download

import (
	"fmt"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// CheckFields checks a choice of fields for format f as an export would
// (ExportSpec.Fields) before one runs: the format must let requests choose
// their columns, and each name must be an interpreted column or a
// verbatim term, once; a format may check more (SIMPLE_AVRO: one Avro
// field each).
func CheckFields(f Format, names []string) error {
	info, err := LookupFormat(string(f))
	if err != nil {
		return err
	}
	if !info.Fields {
		return fmt.Errorf("%w: fields can be chosen for %s, not %s", ErrFormat, strings.Join(fieldFormats(), " and "), f)
	}
	fields, err := resolveFields(names)
	if err == nil && info.checkFields != nil {
		err = info.checkFields(fields)
	}
	return err
}

// ChoosableFields lists the interpreted columns a request may choose as
// fields, in the table's order (verbatim terms may be chosen too, by name
// or URI).
func ChoosableFields() []string {
	var out []string
	for _, c := range occurrence.Columns()[:occurrence.GBIFColumns] {
		if !jsonColumns[c.Name] {
			out = append(out, c.Name)
		}
	}
	return out
}

// DefaultFields returns the columns format f writes when no fields are
// chosen (nil for a format whose columns cannot be chosen).
func DefaultFields(f Format) []string {
	info, err := LookupFormat(string(f))
	if err != nil || !info.Fields {
		return nil
	}
	// SIMPLE_CSV, SIMPLE_AVRO and SIMPLE_PARQUET all write GBIF's simple columns.
	return append([]string(nil), simpleCSVColumns...)
}
