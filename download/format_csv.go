package download

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

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
	multi    bool   // a list column (values joined with ";")
	// layout is a timestamp column's text form (occurrence.Column.Layout).
	layout string
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

// resolveField finds the column a requested name means: a column by its
// name (exact, else ignoring case), else the column written under the
// term the name spells (dcterms:modified, a term URI), else that term's
// verbatim value.
func resolveField(name string) (field, error) {
	col := columnField
	if c, _, ok := occurrence.ColumnByName(name); ok && !jsonColumns[name] {
		return col(c), nil
	}
	for _, c := range occurrence.Columns() {
		if strings.EqualFold(c.Name, name) && !jsonColumns[c.Name] {
			return col(c), nil
		}
	}
	term := dwca.TermForName(name)
	if !strings.Contains(term, "://") {
		return field{}, fmt.Errorf("%w: field %q is neither an interpreted column nor a known term (use a term URI for others)", ErrFormat, name)
	}
	if c, ok := columnOfTerm(term); ok {
		f := col(c)
		f.header = name
		return f, nil
	}
	return field{header: name, term: term, verbatim: occurrence.VerbatimKey(term)}, nil
}

// columnField is the field of one column.
func columnField(c occurrence.Column) field {
	return field{header: c.Name, column: c.Name, term: c.Term, multi: c.Kind == occurrence.KindMulti, layout: c.Layout}
}

// columnOfTerm returns the column written under term, if any.
func columnOfTerm(term string) (occurrence.Column, bool) {
	for _, c := range occurrence.Columns() {
		if c.Term == term && !jsonColumns[c.Name] {
			return c, true
		}
	}
	return occurrence.Column{}, false
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
	// empty[j] > 0 starts a run of that many columns null in the whole
	// batch (see writeBatch).
	empty []int
	// valid[j] is field j's validity bitmap when its column has nulls in
	// the batch (nil otherwise), from bit voff[j]: a null cell is counted
	// into the row's run of empty cells without a call.
	valid [][]byte
	voff  []int
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
//
// A DWCA's occurrence.txt has 230 columns of which a record fills a few
// dozen: the columns null in every row of the batch are found first, and
// each run of them is written as its tabs at once.
func (t *tableWriter) writeBatch(b *batch) error {
	t.fns, t.clean = t.fns[:0], t.clean[:0]
	t.empty, t.valid, t.voff = t.empty[:0], t.valid[:0], t.voff[:0]
	for j, f := range t.fields {
		var fn cellFn
		clean := false
		var valid []byte
		off := 0
		if f.column != "" {
			a := b.col(f.column)
			var err error
			if fn, clean, err = t.cell(j, a); err != nil {
				return fmt.Errorf("column %s: %w", f.column, err)
			}
			if a != nil && a.NullN() > 0 {
				valid, off = a.NullBitmapBytes(), a.Data().Offset()
			}
		}
		t.fns = append(t.fns, fn)
		t.clean = append(t.clean, clean)
		t.empty = append(t.empty, 0)
		t.valid = append(t.valid, valid)
		t.voff = append(t.voff, off)
	}
	// empty[j] is the number of all-null columns from j on (0 for others).
	for j := len(t.fields) - 1; j >= 0; j-- {
		f := t.fields[j]
		if a := b.col(f.column); f.column != "" && (a == nil || a.NullN() == a.Len()) {
			t.empty[j] = 1
			if j+1 < len(t.empty) {
				t.empty[j] += t.empty[j+1]
			}
		}
	}
	verb := b.col(occurrence.ColVerbatim)
	for i := 0; i < b.n; i++ {
		if t.verb != nil {
			t.verb.parse(str(verb, i))
		}
		k := 0   // next verbatim value
		gap := 0 // empty cells not yet written
		for j := 0; j < len(t.fns); j++ {
			if e := t.empty[j]; e > 0 {
				gap += e
				j += e - 1
				continue
			}
			if v := t.valid[j]; v != nil {
				if p := t.voff[j] + i; v[p>>3]&(1<<(p&7)) == 0 {
					gap++
					continue
				}
			}
			if gap > 0 {
				t.rw.EmptyCells(gap)
				gap = 0
			}
			switch fn := t.fns[j]; {
			case t.clean[j]:
				t.rw.CleanCell(fn, i)
			case fn != nil:
				t.rw.Cell(fn, i)
			default:
				t.rw.Value(t.verb.values[k])
				k++
			}
		}
		t.rw.EmptyCells(gap)
		if err := t.rw.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

// cell returns the formatter of field j's column a in this batch, and
// whether its output needs no cleaning: the licence as GBIF's enum names,
// timestamps in their column's layout, dictionaries through dictText, the
// rest through cellFor.
func (t *tableWriter) cell(j int, a arrow.Array) (cellFn, bool, error) {
	f := t.fields[j]
	switch {
	case f.column == occurrence.ColLicense && a != nil:
		return licenseCell(a), true, nil
	case f.layout != "":
		if ts, ok := a.(*array.Timestamp); ok {
			return timestampCell(ts, f.layout), true, nil
		}
	}
	if fn, clean := t.dicts[j].cell(a); clean {
		return fn, true, nil
	}
	fn, err := cellFor(a)
	return fn, cleanOutput(a), err
}

// simpleCSV is GBIF's SIMPLE_CSV: one tab-separated <key>.csv entry.
type simpleCSV struct {
	x *Export
	t *tableWriter
}

func newSimpleCSV(_ context.Context, x *Export) (formatWriter, error) {
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
