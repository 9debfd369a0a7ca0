package download

import (
	"context"
	"fmt"
	"strings"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// FormatSimpleCSV is GBIF's SIMPLE_CSV download.
const FormatSimpleCSV Format = "SIMPLE_CSV"

func init() {
	register(FormatInfo{
		Name:        FormatSimpleCSV,
		Description: "one tab-separated <key>.csv of GBIF's 50 columns, or of the fields chosen",
		Extension:   ".zip", ContentType: "application/zip", Fields: true, Dictionaries: true,
		BytesPerRecord: 46, CompressionRatio: 10.5, Order: 1,
		open: newSimpleCSV,
	})
}

// simpleCSVColumns are GBIF's SIMPLE_CSV columns in GBIF's order.
var simpleCSVColumns = []string{
	"gbifID", "datasetKey", "occurrenceID", "kingdom", "phylum", "class", "order", "family",
	"genus", "species", "infraspecificEpithet", "taxonRank", "scientificName",
	"verbatimScientificName", "verbatimScientificNameAuthorship", "countryCode", "locality",
	"stateProvince", "occurrenceStatus", "individualCount", "publishingOrgKey", "decimalLatitude",
	"decimalLongitude", "coordinateUncertaintyInMeters", "coordinatePrecision", "elevation",
	"elevationAccuracy", "depth", "depthAccuracy", "eventDate", "day", "month", "year", "taxonKey",
	"speciesKey", "basisOfRecord", "institutionCode", "collectionCode", "catalogNumber",
	"recordNumber", "identifiedBy", "dateIdentified", "license", "rightsHolder", "recordedBy",
	"typeStatus", "establishmentMeans", "lastInterpreted", "mediaType", "issue",
}

// field is one output column: an interpreted column or a verbatim term.
type field struct {
	header   string // name in the header row
	column   string // interpreted column, or "" for a verbatim term
	term     string // term URI (meta.xml, verbatim lookup)
	verbatim string // occurrence.VerbatimKey(term) for verbatim fields
}

// jsonColumns hold nested data and cannot be chosen as fields.
var jsonColumns = map[string]bool{
	occurrence.ColVerbatim: true, occurrence.ColMultimedia: true, occurrence.ColExtensions: true,
}

// resolveFields maps chosen names onto fields: an interpreted column by its
// name (exact, else ignoring case), else a Darwin Core / Dublin Core / GBIF
// term name, prefixed name or URI read from the verbatim record.
func resolveFields(names []string) ([]field, error) {
	out := make([]field, 0, len(names))
	seen := map[string]bool{}
	for _, raw := range names {
		name := strings.TrimSpace(raw)
		if name == "" {
			return nil, fmt.Errorf("%w: empty field name in %q", ErrFormat, strings.Join(names, ","))
		}
		f, err := resolveField(name)
		if err != nil {
			return nil, err
		}
		id := f.column + "|" + f.term
		if seen[id] {
			return nil, fmt.Errorf("%w: field %q chosen twice", ErrFormat, name)
		}
		seen[id] = true
		out = append(out, f)
	}
	return out, nil
}

func resolveField(name string) (field, error) {
	if c, _, ok := occurrence.ColumnByName(name); ok && !jsonColumns[name] {
		return field{header: c.Name, column: c.Name, term: c.Term}, nil
	}
	for _, c := range occurrence.Columns() {
		if strings.EqualFold(c.Name, name) && !jsonColumns[c.Name] {
			return field{header: c.Name, column: c.Name, term: c.Term}, nil
		}
	}
	term := dwca.TermForName(name)
	if !strings.Contains(term, "://") {
		return field{}, fmt.Errorf("%w: field %q is neither an interpreted column nor a known term (use a term URI for others)", ErrFormat, name)
	}
	return field{header: name, term: term, verbatim: occurrence.VerbatimKey(term)}, nil
}

// fieldColumns returns the interpreted columns fields need, adding the
// verbatim column when a verbatim term is chosen.
func fieldColumns(fields []field) []string {
	var cols []string
	verb := false
	for _, f := range fields {
		if f.column != "" {
			cols = append(cols, f.column)
		} else {
			verb = true
		}
	}
	if verb {
		cols = append(cols, occurrence.ColVerbatim)
	}
	return cols
}

// tableWriter writes rows of chosen fields through a rowWriter.
type tableWriter struct {
	fields []field
	rw     *dwca.TextWriter
	verb   *verbatimRow // nil without verbatim fields
	fns    []cellFn
	// clean marks the fns whose output needs no cleaning: dictionary
	// columns formatted through dicts (one per field).
	clean []bool
	dicts []dictText
}

func newTableWriter(fields []field) *tableWriter {
	return &tableWriter{fields: fields, verb: fieldsVerbatim(fields), dicts: make([]dictText, len(fields))}
}

// fieldsVerbatim reads the verbatim fields' values, in field order; nil when
// no field is verbatim.
func fieldsVerbatim(fields []field) *verbatimRow {
	var keys []string
	for _, f := range fields {
		if f.column == "" {
			keys = append(keys, f.verbatim)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return newVerbatimRow(keys)
}

func (t *tableWriter) header() []string {
	h := make([]string, len(t.fields))
	for i, f := range t.fields {
		h[i] = f.header
	}
	return h
}

// writeBatch writes every row of b.
func (t *tableWriter) writeBatch(b *batch) error {
	t.fns, t.clean = t.fns[:0], t.clean[:0]
	for j, f := range t.fields {
		var fn cellFn
		clean := false
		if f.column != "" {
			col := b.col(f.column)
			if fn, clean = t.dicts[j].cell(col); !clean {
				var err error
				if fn, err = cellFor(col); err != nil {
					return fmt.Errorf("column %s: %w", f.column, err)
				}
				clean = cleanOutput(col)
			}
		}
		t.fns = append(t.fns, fn)
		t.clean = append(t.clean, clean)
	}
	verb := b.col(occurrence.ColVerbatim)
	for i := 0; i < b.n; i++ {
		if t.verb != nil {
			t.verb.parse(str(verb, i))
		}
		k := 0 // next verbatim value
		for j, fn := range t.fns {
			if t.clean[j] {
				t.rw.CleanCell(fn, i)
			} else if fn != nil {
				t.rw.Cell(fn, i)
			} else {
				t.rw.Value(t.verb.values[k])
				k++
			}
		}
		if err := t.rw.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

// simpleCSV is GBIF's SIMPLE_CSV: one tab-separated <key>.csv entry.
type simpleCSV struct {
	x *Export
	t *tableWriter
}

func newSimpleCSV(x *Export) (formatWriter, error) {
	names := x.spec.Fields
	if names == nil {
		names = simpleCSVColumns
	}
	fields, err := resolveFields(names)
	if err != nil {
		return nil, err
	}
	w, err := x.create(x.spec.Key + ".csv")
	if err != nil {
		return nil, err
	}
	s := &simpleCSV{x: x, t: newTableWriter(fields)}
	s.t.rw = dwca.NewExclusiveTextWriter(w)
	return s, s.t.rw.WriteRow(s.t.header())
}

func (s *simpleCSV) columns() []string    { return fieldColumns(s.t.fields) }
func (s *simpleCSV) write(b *batch) error { return s.t.writeBatch(b) }
func (s *simpleCSV) abort()               {}
func (s *simpleCSV) finish(context.Context, ExportResult, []occurrence.DatasetInfo) error {
	return s.t.rw.Flush()
}
