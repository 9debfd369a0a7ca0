package download

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/internal/avro"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// FormatSimpleAvro is GBIF's SIMPLE_AVRO download.
const FormatSimpleAvro Format = "SIMPLE_AVRO"

func init() {
	register(FormatInfo{
		Name:        FormatSimpleAvro,
		Description: "one Avro file <key>.avro (deflate) of GBIF's 50 simple columns, or of the fields chosen",
		Extension:   ".avro", ContentType: "application/octet-stream", Fields: true, Dictionaries: true,
		BytesPerRecord: 46, CompressionRatio: 11.4, Order: 2,
		open: newSimpleAvro, checkFields: checkAvroFields,
	})
}

// GBIF's SIMPLE_AVRO record (gbif/occurrence GenerateHQL.simpleAvroSchema)
// and the namespace of all its Avro downloads' records.
const (
	avroRecordName      = "SimpleOccurrence"
	avroRecordNamespace = "org.gbif.occurrence.download.avro"
)

// avroWriter writes GBIF's Avro downloads: one Avro object container
// file, deflated, its blocks compressed on the zip options' workers
// (internal/avro). SIMPLE_AVRO's is the download's one file, of the
// SIMPLE_CSV columns (or the fields chosen); SIMPLE_WITH_VERBATIM_AVRO's
// is the one entry of a zip (format_avro_verbatim.go).
//
// The schema is GBIF's (gbif/occurrence AvroSchemaQueries and
// AvroDataTypes over HiveDataTypes): fields named as SIMPLE_CSV's header
// (gbifID, verbatimScientificName), every field a union of its type and
// null but gbifID, a plain string; identifiers (gbifID, the taxon keys)
// as strings; list columns (issue, mediaType, recordedBy, identifiedBy,
// ...) as arrays of strings; dates, times and vocabularies (typeStatus,
// a list joined with ";", too) as the text SIMPLE_CSV writes; integers as int, coordinates and other
// decimals as double, booleans as boolean; the licence as its enum name.
type avroWriter struct {
	x      *Export
	fields []field
	types  []avroType
	verb   *verbatimRow
	aw     *avro.Writer
	cells  []avroCell
	// dicts are the fields' dictionaries with each entry encoded once, as
	// the field's cells are (union branch included): a dictionary-encoded
	// column then appends each row's bytes with no cleaning, splitting or
	// length encoding per row.
	dicts []dictText // by field
}

// avroType is how one field is typed and encoded.
type avroType uint8

const (
	avroString avroType = iota
	avroRequiredString
	avroInt64String // an identifier stored as int64, written as text
	avroList
	avroTimestamp // text in the field's layout
	avroLicence
	avroInt
	avroDouble
	avroBool
)

// avroCell appends row i of one field in Avro's binary form.
type avroCell func(dst []byte, i int) []byte

var newSimpleAvro = avroFile(avroRecordName, func(x *Export) ([]field, error) { return simpleAvroFields(x.spec.Fields) })

// avroFile opens the writer of a format that is one Avro container of
// record name, of the fields given for the export.
func avroFile(name string, fields func(x *Export) ([]field, error)) func(context.Context, *Export) (formatWriter, error) {
	return func(_ context.Context, x *Export) (formatWriter, error) {
		fs, err := fields(x)
		if err != nil {
			return nil, err
		}
		a, err := newAvroWriter(x, x.file(), name, fs)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
}

// newAvroWriter writes records of fields as one Avro container of record
// name to out.
func newAvroWriter(x *Export, out io.Writer, name string, fields []field) (*avroWriter, error) {
	types := avroTypes(fields)
	schema, err := avroSchema(name, fields, types)
	if err != nil {
		return nil, err
	}
	a := &avroWriter{x: x, fields: fields, types: types, verb: fieldsVerbatim(fields), dicts: make([]dictText, len(fields))}
	for i, t := range types {
		a.dicts[i] = dictText{text: stringEncoder(t, false), plainText: stringEncoder(t, true), null: appendNull(nil)}
	}
	a.aw, err = avro.NewWriter(out, schema, avro.Options{Workers: x.opts.Zip.Workers, Level: x.opts.Zip.Level})
	if err != nil {
		return nil, fmt.Errorf("download: avro: %w", err)
	}
	return a, nil
}

// simpleAvroFields are SIMPLE_AVRO's fields: those chosen, or GBIF's
// simple columns (nil).
func simpleAvroFields(names []string) ([]field, error) {
	if names == nil {
		names = simpleCSVColumns
	}
	return resolveFields(names)
}

// avroTypes are fields' Avro types.
func avroTypes(fields []field) []avroType {
	types := make([]avroType, len(fields))
	for i, f := range fields {
		types[i] = avroTypeOf(f)
	}
	return types
}

// checkAvroFields checks that chosen fields name one Avro field each.
func checkAvroFields(fields []field) error {
	_, err := avroSchema(avroRecordName, fields, avroTypes(fields))
	return err
}

// avroTypeOf gives a field its GBIF Avro type.
func avroTypeOf(f field) avroType {
	c, _, ok := occurrence.ColumnByName(f.column)
	switch {
	case f.column == "" || !ok:
		return avroString
	case c.Name == occurrence.ColGBIFID:
		return avroRequiredString
	case c.Name == occurrence.ColLicense:
		return avroLicence
	case gbifVocabularyTerms[c.Term]:
		return avroString // a list (typeStatus) as its ";"-joined text
	}
	switch c.Kind {
	case occurrence.KindInt64:
		return avroInt64String
	case occurrence.KindMulti:
		return avroList
	case occurrence.KindTimestamp:
		return avroTimestamp
	case occurrence.KindInt32:
		return avroInt
	case occurrence.KindFloat64:
		return avroDouble
	case occurrence.KindBool:
		return avroBool
	}
	return avroString
}

// gbifVocabularyTerms are dwc-api's @Vocabulary terms, which GBIF keeps
// as concepts: its Avro schemas type them as text
// (AvroSchemaQueries.toHiveDataType), a list's concepts joined with ";"
// (Queries.toVocabularyConceptArrayHiveInitializer), so typeStatus is a
// string there where issue and recordedBy are arrays.
var gbifVocabularyTerms = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range []string{
		"sex", "lifeStage", "establishmentMeans", "degreeOfEstablishment", "pathway", "eventType", "typeStatus",
		"earliestEonOrLowestEonothem", "latestEonOrHighestEonothem", "earliestEraOrLowestErathem", "latestEraOrHighestErathem",
		"earliestPeriodOrLowestSystem", "latestPeriodOrHighestSystem", "earliestEpochOrLowestSeries", "latestEpochOrHighestSeries",
		"earliestAgeOrLowestStage", "latestAgeOrHighestStage",
	} {
		m[occurrence.NSDwC+name] = true
	}
	return m
}()

// avroNamePattern is what the Avro specification allows a field's name.
var avroNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// avroSchema is the schema of record name with fields, as JSON text.
func avroSchema(name string, fields []field, types []avroType) (string, error) {
	type avroField struct {
		Name string `json:"name"`
		Type any    `json:"type"`
	}
	out := struct {
		Type      string      `json:"type"`
		Name      string      `json:"name"`
		Namespace string      `json:"namespace"`
		Fields    []avroField `json:"fields"`
	}{Type: "record", Name: name, Namespace: avroRecordNamespace}
	seen := map[string]bool{}
	for i, f := range fields {
		fname := avroFieldName(f)
		if !avroNamePattern.MatchString(fname) || seen[fname] {
			return "", fmt.Errorf("%w: field %q cannot name an Avro field (letters, digits and _, not twice)", ErrFormat, f.header)
		}
		seen[fname] = true
		out.Fields = append(out.Fields, avroField{Name: fname, Type: types[i].schema()})
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// avroFieldName is a field's name in the schema: its header, or for a
// field chosen by term URI or prefixed name, its column's name or the
// term's own name.
func avroFieldName(f field) string {
	switch {
	case avroNamePattern.MatchString(f.header):
		return f.header
	case f.column != "":
		return f.column
	}
	return f.term[strings.LastIndexAny(f.term, "/#:")+1:]
}

// schema is the type's Avro schema: GBIF's SchemaBuilder nullable(),
// which puts the type first and null second.
func (t avroType) schema() any {
	switch t {
	case avroRequiredString:
		return "string"
	case avroList:
		return []any{map[string]any{"type": "array", "items": []string{"string", "null"}}, "null"}
	case avroInt:
		return []string{"int", "null"}
	case avroDouble:
		return []string{"double", "null"}
	case avroBool:
		return []string{"boolean", "null"}
	}
	return []string{"string", "null"}
}

func (a *avroWriter) columns() []string { return fieldColumns(a.fields) }

// transient: every value is copied into the block being encoded while
// write runs (the scan may recycle the columns' memory).
func (a *avroWriter) transient() []string { return a.columns() }

func (a *avroWriter) write(b *batch) error {
	if b.n == 0 {
		return nil
	}
	if err := a.plan(b); err != nil {
		return err
	}
	var verb arrow.Array
	if a.verb != nil {
		verb = b.col(occurrence.ColVerbatim)
	}
	for i := 0; i < b.n; i++ {
		if verb != nil {
			a.verb.parse(str(verb, i))
		}
		buf := a.aw.Buffer()
		for _, c := range a.cells {
			buf = c(buf, i)
		}
		if err := a.aw.Commit(buf); err != nil {
			return fmt.Errorf("download: avro: %w", err)
		}
	}
	return nil
}

// plan makes each field's encoder for the batch.
func (a *avroWriter) plan(b *batch) error {
	a.cells = a.cells[:0]
	k := 0
	for i := 0; i < len(a.fields); i++ {
		f := a.fields[i]
		if f.column == "" {
			// A run of verbatim fields is one cell.
			n := 1
			for i+n < len(a.fields) && a.fields[i+n].column == "" {
				n++
			}
			a.cells = append(a.cells, a.verbatimCells(k, k+n))
			k += n
			i += n - 1
			continue
		}
		col := b.col(f.column)
		if col == nil {
			return fmt.Errorf("download: avro: batch lacks column %s", f.column)
		}
		c, err := a.cellOf(i, f, col)
		if err != nil {
			return fmt.Errorf("download: avro: column %s: %w", f.column, err)
		}
		a.cells = append(a.cells, c)
	}
	return nil
}

// verbatimCells encodes the verbatim values from to to of the row being
// written.
func (a *avroWriter) verbatimCells(from, to int) avroCell {
	return func(dst []byte, _ int) []byte {
		return a.verb.appendAvro(dst, from, to)
	}
}

// cellOf is the encoder of field i's column of a batch.
func (a *avroWriter) cellOf(i int, f field, col arrow.Array) (avroCell, error) {
	t := a.types[i]
	switch t {
	case avroString, avroLicence, avroList:
		if idx, offs, data, ok := a.dicts[i].entries(col); ok {
			return func(dst []byte, i int) []byte {
				if col.IsNull(i) {
					return appendNull(dst)
				}
				k := idx[i]
				return append(dst, data[offs[k]:offs[k+1]]...)
			}, nil
		}
		return stringCell(t, col), nil
	case avroRequiredString, avroInt64String:
		return idCell(t == avroRequiredString, col)
	case avroTimestamp:
		ts, ok := col.(*array.Timestamp)
		if !ok {
			return nil, fmt.Errorf("want a timestamp, got %s", col.DataType())
		}
		return textOf(timestampCell(ts, f.timeLayout()), col), nil
	case avroInt:
		ints, ok := col.(*array.Int32)
		if !ok {
			return nil, fmt.Errorf("want int32, got %s", col.DataType())
		}
		return func(dst []byte, i int) []byte {
			if ints.IsNull(i) {
				return appendNull(dst)
			}
			return avro.AppendLong(appendSome(dst), int64(ints.Value(i)))
		}, nil
	case avroDouble:
		fs, ok := col.(*array.Float64)
		if !ok {
			return nil, fmt.Errorf("want float64, got %s", col.DataType())
		}
		return func(dst []byte, i int) []byte {
			if fs.IsNull(i) {
				return appendNull(dst)
			}
			return avro.AppendDouble(appendSome(dst), fs.Value(i))
		}, nil
	case avroBool:
		bs, ok := col.(*array.Boolean)
		if !ok {
			return nil, fmt.Errorf("want a boolean, got %s", col.DataType())
		}
		return func(dst []byte, i int) []byte {
			if bs.IsNull(i) {
				return appendNull(dst)
			}
			return avro.AppendBool(appendSome(dst), bs.Value(i))
		}, nil
	}
	return nil, fmt.Errorf("no Avro encoding for %s", col.DataType())
}

// stringCell encodes a plain string column of a text-typed field, as
// the dictionary path encodes a dictionary's entries (stringEncoder).
func stringCell(t avroType, col arrow.Array) avroCell {
	s, ok := col.(*array.String)
	enc := stringEncoder(t, ok && dwca.PlainASCII(s.ValueBytes()))
	return func(dst []byte, i int) []byte {
		if col.IsNull(i) {
			return appendNull(dst)
		}
		return enc(dst, str(col, i))
	}
}

// idCell encodes an identifier stored as int64 as its decimal text
// (gbifID, a plain string that is never null in a table; the taxon keys,
// nullable).
func idCell(required bool, col arrow.Array) (avroCell, error) {
	ints, ok := col.(*array.Int64)
	if !ok {
		return nil, fmt.Errorf("want int64, got %s", col.DataType())
	}
	var digits []byte
	return func(dst []byte, i int) []byte {
		if ints.IsNull(i) {
			if required {
				return avro.AppendString(dst, "")
			}
			return appendNull(dst)
		}
		digits = strconv.AppendInt(digits[:0], ints.Value(i), 10)
		if !required {
			dst = appendSome(dst)
		}
		return avro.AppendBytes(dst, digits)
	}, nil
}

// textOf encodes a text formatter's output as a nullable string.
func textOf(fn cellFn, col arrow.Array) avroCell {
	var text []byte
	return func(dst []byte, i int) []byte {
		if col.IsNull(i) {
			return appendNull(dst)
		}
		text = fn(text[:0], i)
		return avro.AppendBytes(appendSome(dst), text)
	}
}

// stringEncoder is how a value of a text-typed field is encoded from its
// string: the text rules applied (unless the values are known to be plain
// ASCII), a licence as its name, a list split.
func stringEncoder(t avroType, plain bool) func(dst []byte, s string) []byte {
	switch t {
	case avroString:
		if plain {
			return appendAvroText
		}
		return func(dst []byte, s string) []byte { return appendAvroText(dst, dwca.CleanValue(s)) }
	case avroLicence:
		return func(dst []byte, s string) []byte {
			if name, ok := occurrence.LicenseName(s); ok {
				return appendAvroText(dst, name)
			}
			return appendAvroText(dst, dwca.CleanValue(s))
		}
	}
	return appendAvroList
}

// appendAvroList appends s's list items (listItems) as a non-null array
// of strings.
func appendAvroList(dst []byte, s string) []byte {
	var held [16]string
	items := held[:0]
	for item := range listItems(s) {
		items = append(items, item)
	}
	dst = appendSome(dst)
	if len(items) > 0 {
		dst = avro.AppendLong(dst, int64(len(items)))
		for _, item := range items {
			dst = avro.AppendString(appendSome(dst), item)
		}
	}
	return avro.AppendLong(dst, 0) // no more blocks of items
}

// A nullable field is the union [type, "null"] (GBIF's nullable()): branch
// 0 holds a value, branch 1 is null.
func appendSome(dst []byte) []byte { return avro.AppendLong(dst, 0) }
func appendNull(dst []byte) []byte { return avro.AppendLong(dst, 1) }

// appendNulls appends n nulls.
func appendNulls(dst []byte, n int) []byte {
	for range n {
		dst = appendNull(dst)
	}
	return dst
}

// appendAvroText appends a nullable string: null when empty, as the text
// formats write an empty cell for both.
func appendAvroText(dst []byte, s string) []byte {
	if s == "" {
		return appendNull(dst)
	}
	return avro.AppendString(appendSome(dst), s)
}

func (a *avroWriter) finish(context.Context, ExportResult, []occurrence.DatasetInfo) error {
	if err := a.aw.Close(); err != nil {
		return fmt.Errorf("download: avro: %w", err)
	}
	return nil
}

func (a *avroWriter) abort() { a.aw.Abort() }
