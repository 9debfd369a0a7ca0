package download

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/internal/wordcopy"
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

// timeLayout is the text form of a timestamp field: its column's, else
// timeLayout.
func (f field) timeLayout() string {
	if f.layout != "" {
		return f.layout
	}
	return timeLayout
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

// tableWriter writes rows of chosen fields through its rowPlans.
type tableWriter struct {
	fields []field
	rw     *dwca.TextWriter
	// rows are the two formatters of a batch's rows (rowHalves): the first
	// half's and the second half's, each with state of its own.
	rows   [2]rowPlan
	dicts  []dictText
	halves *rowHalves
}

// rowPlan formats rows of the batch being written.
type rowPlan struct {
	// cells is how each field's cells of the batch are formatted (one per
	// field), made once per batch (makePlan).
	cells []cellPlan
	// steps are the cells of the fields not null in the whole batch, in
	// field order, each with the separators that precede it (steps); tail
	// is the separators after the last. A DWCA's occurrence.txt has 230
	// fields of which a batch fills some dozens: a row walks those only.
	steps []cellPlan
	tail  int
	verb  *verbatimRow // nil without verbatim fields
	vcol  arrow.Array  // the batch's verbatim column
}

// cellKind is how a field's cells of one batch become text.
type cellKind uint8

const (
	cellFunc     cellKind = iota // fn, its output clean (see cleaned)
	cellVerbatim                 // the next value of the verbatim record
	cellText                     // a string column: data[offs[i]:offs[i+1]], clean
	cellDict                     // a dictionary: data[offs[idx[i]]:offs[idx[i]+1]], clean
	cellInt64
	cellInt32
	cellFloat64
)

// cellPlan is one field of a batch, resolved once for all its rows: the
// column's buffers by kind, so that a row's cells are appended by a switch
// on the kind, with no call per cell for text, dictionaries and numbers.
type cellPlan struct {
	kind cellKind
	// empty marks a field null in the whole batch (not among the steps).
	empty bool
	// tabs are the separators written before the cell (steps).
	tabs int
	// valid is the column's validity bitmap when it has nulls in the
	// batch (nil otherwise), from bit voff: a null cell is written empty
	// without formatting.
	valid []byte
	voff  int
	fn    cellFn
	idx   []int32
	offs  []int32
	data  []byte
	i64   []int64
	i32   []int32
	f64   []float64
}

func newTableWriter(fields []field) *tableWriter {
	t := &tableWriter{fields: fields, dicts: make([]dictText, len(fields)), halves: newRowHalves()}
	for j, f := range fields {
		if f.column == occurrence.ColLicense {
			t.dicts[j].text = appendLicence
		}
	}
	for k := range t.rows {
		t.rows[k].verb = fieldsVerbatim(fields)
	}
	return t
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
	if err := t.makePlan(b); err != nil {
		return err
	}
	return t.halves.write(t.rw, b.n, t.rows[0].appendRow, t.rows[1].appendRow)
}

// makePlan resolves every field's column of b for both row formatters
// (rows): the second's plan is the first's with cell functions of its own,
// since some keep state between rows (timestampCell).
func (t *tableWriter) makePlan(b *batch) error {
	if err := t.makeCells(b); err != nil {
		return err
	}
	first, second := &t.rows[0], &t.rows[1]
	second.cells = append(second.cells[:0], first.cells...)
	for j := range second.cells {
		if p := &second.cells[j]; p.kind == cellFunc && !p.empty && keepsState(b.col(t.fields[j].column)) {
			q, err := t.cellPlan(j, b.col(t.fields[j].column))
			if err != nil {
				return err
			}
			p.fn = q.fn
		}
	}
	first.vcol = b.col(occurrence.ColVerbatim)
	second.vcol = first.vcol
	first.makeSteps()
	second.makeSteps()
	return nil
}

// makeSteps lists the cells of the fields not null in the whole batch,
// each with the separators before it: field j follows j separators in a
// row, of which those before the previous listed field are written.
func (r *rowPlan) makeSteps() {
	r.steps = r.steps[:0]
	done := 0 // separators written before the last listed field
	for j, p := range r.cells {
		if p.empty {
			continue
		}
		p.tabs, done = j-done, j
		r.steps = append(r.steps, p)
	}
	r.tail = len(r.cells) - 1 - done
}

// keepsState reports whether the cell functions of a keep state between
// rows, so that two goroutines cannot share one: timestamps remember the
// last one formatted (timestampCell). The others' are pure.
func keepsState(a arrow.Array) bool {
	if a == nil {
		return false
	}
	t := a.DataType()
	if d, ok := t.(*arrow.DictionaryType); ok {
		t = d.ValueType
	}
	return t.ID() == arrow.TIMESTAMP
}

// makeCells resolves every field's column of b for the first row
// formatter.
func (t *tableWriter) makeCells(b *batch) error {
	plan := t.rows[0].cells[:0]
	defer func() { t.rows[0].cells = plan }()
	for j, f := range t.fields {
		p := cellPlan{kind: cellVerbatim}
		if f.column != "" {
			a := b.col(f.column)
			if a == nil || a.NullN() == a.Len() {
				plan = append(plan, cellPlan{empty: true})
				continue
			}
			var err error
			if p, err = t.cellPlan(j, a); err != nil {
				return fmt.Errorf("column %s: %w", f.column, err)
			}
			if a.NullN() > 0 {
				p.valid, p.voff = a.NullBitmapBytes(), a.Data().Offset()
			}
		}
		plan = append(plan, p)
	}
	return nil
}

// appendRow appends row i of the planned batch, its line end included.
// Each listed cell starts with its separators (steps); a null cell is
// written empty without formatting.
func (r *rowPlan) appendRow(buf []byte, i int) []byte {
	if r.verb != nil {
		r.verb.parse(str(r.vcol, i))
	}
	k := 0 // next verbatim value
	steps := r.steps
	for s := range steps {
		p := &steps[s]
		if t := p.tabs; t == 1 {
			buf = append(buf, '\t')
		} else if t > 1 {
			buf = dwca.AppendTabs(buf, t)
		}
		if v := p.valid; v != nil {
			if q := p.voff + i; v[q>>3]&(1<<(q&7)) == 0 {
				continue // (verbatim cells have no bitmap)
			}
		}
		switch p.kind {
		case cellDict:
			c := p.idx[i]
			buf = wordcopy.Append(buf, p.data[p.offs[c]:p.offs[c+1]])
		case cellText:
			buf = wordcopy.Append(buf, p.data[p.offs[i]:p.offs[i+1]])
		case cellInt64:
			buf = appendInt(buf, p.i64[i])
		case cellInt32:
			buf = appendInt(buf, int64(p.i32[i]))
		case cellFloat64:
			buf = appendFloat(buf, p.f64[i])
		case cellFunc:
			buf = p.fn(buf, i)
		default:
			buf = dwca.AppendClean(buf, r.verb.values[k])
			k++
		}
	}
	if r.tail > 0 {
		buf = dwca.AppendTabs(buf, r.tail)
	}
	return append(buf, '\n')
}

// cellPlan returns how field j's column a is formatted in this batch: the
// licence as GBIF's enum names, timestamps in their column's layout,
// dictionaries through dictText, plain ASCII strings and numbers from
// their buffers, the rest through cellFor.
func (t *tableWriter) cellPlan(j int, a arrow.Array) (cellPlan, error) {
	f := t.fields[j]
	switch {
	case f.column == occurrence.ColLicense && a != nil:
		// GBIF's enum names, made once per dictionary (newTableWriter
		// sets dicts[j].text) when the column is one (it holds a few
		// distinct values), else per row.
		if idx, offs, data, ok := t.dicts[j].entries(a); ok {
			return cellPlan{kind: cellDict, idx: idx, offs: offs, data: data}, nil
		}
		return cellPlan{kind: cellFunc, fn: licenseCell(a)}, nil
	case f.layout != "":
		if ts, ok := a.(*array.Timestamp); ok {
			return cellPlan{kind: cellFunc, fn: timestampCell(ts, f.layout)}, nil
		}
	}
	if idx, offs, data, ok := t.dicts[j].entries(a); ok {
		return cellPlan{kind: cellDict, idx: idx, offs: offs, data: data}, nil
	}
	switch a := a.(type) {
	case *array.String:
		if dwca.PlainASCII(a.ValueBytes()) {
			offs, data := stringBuffers(a)
			return cellPlan{kind: cellText, offs: offs, data: data}, nil
		}
	case *array.Int64:
		return cellPlan{kind: cellInt64, i64: a.Int64Values()}, nil
	case *array.Int32:
		return cellPlan{kind: cellInt32, i32: a.Int32Values()}, nil
	case *array.Float64:
		return cellPlan{kind: cellFloat64, f64: a.Float64Values()}, nil
	}
	fn, err := cleanCellFor(a)
	if err != nil {
		return cellPlan{}, err
	}
	return cellPlan{kind: cellFunc, fn: fn}, nil
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
