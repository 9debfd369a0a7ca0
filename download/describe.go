package download

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/sqlquery"
)

// A format's description lists the columns its files have, in the shape of
// GBIF's /occurrence/download/describe endpoints. It is built from what the
// writers themselves use (the SIMPLE_CSV columns and their resolution, the
// DWCA files' fields and terms, the SPECIES_LIST columns, the Parquet
// writer's schema) and the interpreted columns' kinds, so that it follows
// any change to them.

// DescribedField is one column of a download file, as GBIF describes it:
// its header name, its type in Hive's names (STRING, INT, BIGINT, DOUBLE,
// BOOLEAN, ARRAY<STRING>; timestamps are DATE, as GBIF reports them), the
// text layout of a DATE in a text file, the separator of a multi-value
// column, its term URI, and whether it may be empty.
type DescribedField struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	TypeFormat string `json:"typeFormat,omitempty"`
	Delimiter  string `json:"delimiter,omitempty"`
	Term       string `json:"term"`
	Nullable   bool   `json:"nullable"`
}

// DescribedTable is one file's columns (GBIF's Table).
type DescribedTable struct {
	Fields []DescribedField `json:"fields"`
}

// DescribedDWCA is the DWCA download's files (GBIF's DwcDownload): the
// interpreted occurrence.txt, verbatim.txt (GBIF's columns; a table's
// extra terms follow them) and multimedia.txt, and the row types of GBIF's
// available extensions a request may add.
type DescribedDWCA struct {
	Verbatim           DescribedTable `json:"verbatim"`
	Multimedia         DescribedTable `json:"multimedia"`
	Interpreted        DescribedTable `json:"interpreted"`
	VerbatimExtensions []string       `json:"verbatimExtensions"`
}

// DescribedFasta is the FASTA archive's files: the DWCA's, and
// sequences.txt (GBIF has no description of this format; this is the
// DWCA's with the one more table).
type DescribedFasta struct {
	DescribedDWCA
	Sequences DescribedTable `json:"sequences"`
}

// describeFasta describes FASTA_ARCHIVE: the DWCA's files and
// sequences.txt, whose columns are GBIF's sequence terms.
func describeFasta() (DescribedFasta, error) {
	d, err := describeDWCA()
	if err != nil {
		return DescribedFasta{}, err
	}
	internal := "http://rs.gbif.org/terms/internal/nucleotide_"
	types := map[string]string{"gbifID": "BIGINT", "sequenceLength": "INT", "nRunsCapped": "INT",
		"gcContent": "DOUBLE", "nonIupacFraction": "DOUBLE", "nonACGTNFraction": "DOUBLE", "nFraction": "DOUBLE",
		"naturalLanguageDetected": "BOOLEAN", "endsTrimmed": "BOOLEAN", "gapsOrWhitespaceRemoved": "BOOLEAN", "invalid": "BOOLEAN"}
	var t DescribedTable
	for _, name := range sequencesHeader {
		f := DescribedField{Name: name, Type: "STRING", Term: internal + name, Nullable: name == "target_gene" || name == "gcContent"}
		if ty, ok := types[name]; ok {
			f.Type = ty
		}
		switch name {
		case "gbifID":
			f.Term = occurrence.NSGBIF + name
		case "target_gene":
			f.Term = "https://w3id.org/mixs/0000044"
		}
		t.Fields = append(t.Fields, f)
	}
	return DescribedFasta{DescribedDWCA: d, Sequences: t}, nil
}

// multiDelimiter separates the values of a multi-value column in text.
const multiDelimiter = ";"

// LookupDescribed returns the format a describe path names: GBIF's
// camel-case names (simpleCsv, speciesList, simpleParquet, dwca, and sql
// for SQL downloads) or any spelling of a registered name, ignoring case
// and '_'.
func LookupDescribed(name string) (Format, error) {
	if name == "sql" {
		return FormatSQLTSVZip, nil
	}
	squash := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	for _, f := range registry {
		if squash(string(f.Name)) == squash(name) {
			return f.Name, nil
		}
	}
	_, err := LookupFormat(name)
	return "", err
}

// Describe returns the columns of format f: a DescribedDWCA for DWCA, a
// DescribedTable for the one-file formats.
func Describe(f Format) (any, error) {
	switch f {
	case FormatDWCA:
		return describeDWCA()
	case FormatSimpleCSV:
		fields, err := resolveFields(simpleCSVColumns)
		if err != nil {
			return nil, err
		}
		return describeText(fields)
	case FormatSpeciesList:
		return describeSpeciesList()
	case FormatSimpleParquet:
		return describeParquet()
	case FormatSimpleAvro:
		fields, err := simpleAvroFields(nil)
		if err != nil {
			return nil, err
		}
		return describeAvro(fields), nil
	case FormatSimpleWithVerbatimAvro:
		fields, err := verbatimAvroFields()
		if err != nil {
			return nil, err
		}
		return describeAvro(fields), nil
	case FormatBionomia:
		return describeBionomia()
	case FormatMapOfLife:
		fields, err := mapOfLifeFields()
		if err != nil {
			return nil, err
		}
		return describeAvro(fields), nil
	case FormatSQLTSVZip:
		return describeSQL()
	case FormatFastaArchive:
		return describeFasta()
	}
	return nil, fmt.Errorf("%w: %s has no description", ErrFormat, f)
}

// describeSQL describes the table a SQL download's query reads, as GBIF's
// /describe/sql does: each interpreted column by its lower-case name, its
// type in Hive's names (a timestamp is a TIMESTAMP here, not text; a
// vocabulary column GBIF's struct), its term; the columns computed from
// others; then the verbatim v_ columns.
func describeSQL() (DescribedTable, error) {
	cols := sqlquery.TableColumns()
	concepts := occurrence.ConceptColumns()
	t := DescribedTable{Fields: make([]DescribedField, 0, len(cols))}
	for _, info := range cols {
		c, _, ok := occurrence.ColumnByName(info.Column)
		if !ok {
			return DescribedTable{}, fmt.Errorf("download: describe: no column %s", info.Column)
		}
		typ, _, delim, err := textType(c.Kind)
		if err != nil {
			return DescribedTable{}, err
		}
		if c.Kind == occurrence.KindTimestamp {
			typ = "TIMESTAMP"
		}
		// GBIF's table has its vocabulary columns as structs
		// (download-tables' HiveDataTypes), which queries read as
		// sex.concept, typestatus.concepts, .lineage.
		if cc, ok := concepts[c.Name]; ok {
			typ, delim = "STRUCT<concept: STRING,lineage: ARRAY<STRING>>", ""
			if cc.List {
				typ = "STRUCT<concepts: ARRAY<STRING>,lineage: ARRAY<STRING>>"
			}
		}
		t.Fields = append(t.Fields, DescribedField{Name: info.Name, Type: typ, Delimiter: delim, Term: c.Term, Nullable: !required(c.Term)})
	}
	// GBIF's columns computed from the table's (eventDateGte...).
	for _, d := range sqlquery.DerivedColumns() {
		t.Fields = append(t.Fields, DescribedField{Name: d.Name, Type: d.Type, Term: d.Term, Nullable: true})
	}
	// Then the verbatim columns, in GBIF's verbatim order, as its table.
	for _, term := range gbifVerbatimTerms {
		if name := sqlVerbatimColumn(term); sqlVerbatim[name] == term {
			t.Fields = append(t.Fields, DescribedField{Name: name, Type: "STRING", Term: term, Nullable: true})
		}
	}
	return t, nil
}

// required are the columns GBIF describes as never empty.
func required(term string) bool {
	return term == occurrence.NSGBIF+"gbifID" || term == occurrence.NSGBIF+"datasetKey"
}

// textType is how a text file writes a column of kind k.
func textType(k occurrence.Kind) (typ, format, delim string, err error) {
	switch k {
	case occurrence.KindString:
		return "STRING", "", "", nil
	case occurrence.KindMulti:
		return "ARRAY<STRING>", "", multiDelimiter, nil
	case occurrence.KindInt32:
		return "INT", "", "", nil
	case occurrence.KindInt64:
		return "BIGINT", "", "", nil
	case occurrence.KindFloat64:
		return "DOUBLE", "", "", nil
	case occurrence.KindBool:
		return "BOOLEAN", "", "", nil
	case occurrence.KindTimestamp:
		return "DATE", javaDateFormat(timeLayout), "", nil
	}
	return "", "", "", fmt.Errorf("download: describe: no type for column kind %d", k)
}

// javaDateFormat spells a Go time layout as GBIF's typeFormat does
// (yyyy-MM-ddTHH:mm:ss.SSSZ); fractional seconds that Go leaves out when
// zero are an optional section, [.SSS].
func javaDateFormat(layout string) string {
	return strings.NewReplacer("2006", "yyyy", "01", "MM", "02", "dd", "15", "HH", "04", "mm", "05", "ss",
		".000", ".SSS", ".999", "[.SSS]").Replace(layout)
}

// describeText describes fields as the text writers write them: an
// interpreted column by its kind, a verbatim term as text.
func describeText(fields []field) (DescribedTable, error) {
	t := DescribedTable{Fields: make([]DescribedField, 0, len(fields))}
	for _, f := range fields {
		d := DescribedField{Name: f.header, Type: "STRING", Term: f.term, Nullable: !required(f.term)}
		if f.column != "" {
			c, _, ok := occurrence.ColumnByName(f.column)
			if !ok {
				return DescribedTable{}, fmt.Errorf("download: describe: no column %s", f.column)
			}
			var err error
			if d.Type, d.TypeFormat, d.Delimiter, err = textType(c.Kind); err != nil {
				return DescribedTable{}, err
			}
		}
		t.Fields = append(t.Fields, d)
	}
	return t, nil
}

// verbatimTable describes a file of verbatim text columns: names in header
// order, terms from its meta.xml file spec.
func verbatimTable(names []string, spec dwca.FileSpec) (DescribedTable, error) {
	if len(names) != len(spec.Fields) {
		return DescribedTable{}, fmt.Errorf("download: describe: %s has %d header names for %d fields",
			spec.Files[0], len(names), len(spec.Fields))
	}
	t := DescribedTable{Fields: make([]DescribedField, len(names))}
	for i, f := range spec.Fields {
		t.Fields[i] = DescribedField{Name: names[i], Type: "STRING", Term: f.Term, Nullable: !required(f.Term)}
	}
	return t, nil
}

// describeDWCA describes the DWCA writer's three files.
func describeDWCA() (DescribedDWCA, error) {
	d := &dwcaWriter{occ: newTableWriter(occurrenceFields()), verbCols: verbatimTerms(nil)}
	_, verb, media := d.fileSpecs()
	var out DescribedDWCA
	var err error
	if out.Interpreted, err = describeText(d.occ.fields); err != nil {
		return out, err
	}
	if out.Verbatim, err = verbatimTable(append([]string{occurrence.ColGBIFID}, headerNames(d.verbCols)...), verb); err != nil {
		return out, err
	}
	if out.Multimedia, err = verbatimTable(append([]string{occurrence.ColGBIFID}, multimediaColumns...), media); err != nil {
		return out, err
	}
	out.VerbatimExtensions = AvailableExtensions()
	return out, nil
}

// speciesListTerms are the terms of SPECIES_LIST columns the table has no
// column for (GBIF's terms for them).
var speciesListTerms = map[string]string{
	"acceptedScientificName": occurrence.NSGBIF + "acceptedScientificName",
	"numberOfOccurrences":    occurrence.NSGBIF + "numberOfOccurrences",
	"taxonomicStatus":        occurrence.NSDwC + "taxonomicStatus",
	"iucnRedListCategory":    "http://iucn.org/terms/iucnRedListCategory",
}

// describeSpeciesList describes SPECIES_LIST: the table columns it copies
// by their kind, the count as BIGINT and the columns it leaves empty as
// STRING. Every column may be empty, taxonKey too: taxa without a key are
// listed by name (GBIF describes taxonKey as never empty).
func describeSpeciesList() (DescribedTable, error) {
	t := DescribedTable{Fields: make([]DescribedField, 0, len(speciesListColumns))}
	for _, name := range speciesListColumns {
		d := DescribedField{Name: name, Type: "STRING", Term: speciesListTerms[name], Nullable: true}
		if src, ok := speciesSource[name]; ok {
			c, _, ok := occurrence.ColumnByName(src)
			if !ok {
				return DescribedTable{}, fmt.Errorf("download: describe: no column %s", src)
			}
			var err error
			if d.Type, d.TypeFormat, d.Delimiter, err = textType(c.Kind); err != nil {
				return DescribedTable{}, err
			}
			d.Term = c.Term
		}
		if name == "numberOfOccurrences" {
			d.Type, d.Nullable = "BIGINT", false
		}
		if d.Term == "" {
			return DescribedTable{}, fmt.Errorf("download: describe: no term for SPECIES_LIST column %s", name)
		}
		t.Fields = append(t.Fields, d)
	}
	return t, nil
}

// describeParquet describes SIMPLE_PARQUET by the schema its writer gives
// its parts (GBIF's: lowercase names, lists, no text delimiters).
func describeParquet() (DescribedTable, error) {
	fw, err := newSimpleParquet(context.Background(), &Export{})
	if err != nil {
		return DescribedTable{}, err
	}
	p := fw.(*simpleParquet)
	schema := p.schema
	t := DescribedTable{Fields: make([]DescribedField, 0, len(p.fields))}
	for i, f := range p.fields {
		d := DescribedField{Name: schema.Field(i).Name, Term: f.term, Nullable: !required(f.term)}
		switch schema.Field(i).Type.ID() {
		case arrow.STRING:
			d.Type = "STRING"
		case arrow.INT32:
			d.Type = "INT"
		case arrow.INT64:
			d.Type = "BIGINT"
		case arrow.FLOAT64:
			d.Type = "DOUBLE"
		case arrow.BOOL:
			d.Type = "BOOLEAN"
		case arrow.TIMESTAMP:
			d.Type = "DATE"
		case arrow.LIST:
			d.Type = "ARRAY<STRING>"
		default:
			return DescribedTable{}, fmt.Errorf("download: describe: no type for Parquet column %s (%s)", d.Name, schema.Field(i).Type)
		}
		t.Fields = append(t.Fields, d)
	}
	return t, nil
}

// describeAvro describes an Avro format by its writer's fields and types:
// the names in its schema, identifiers as the strings it writes, lists as
// ARRAY<STRING>, timestamps as DATE in the text layout they are written
// in (GBIF's describe gives them so).
func describeAvro(fields []field) DescribedTable {
	types := avroTypes(fields)
	t := DescribedTable{Fields: make([]DescribedField, 0, len(fields))}
	for i, f := range fields {
		d := DescribedField{Name: avroFieldName(f), Type: "STRING", Term: f.term, Nullable: !required(f.term)}
		switch types[i] {
		case avroList:
			d.Type = "ARRAY<STRING>"
		case avroInt:
			d.Type = "INT"
		case avroDouble:
			d.Type = "DOUBLE"
		case avroBool:
			d.Type = "BOOLEAN"
		case avroTimestamp:
			d.Type, d.TypeFormat = "DATE", javaDateFormat(f.timeLayout())
		}
		t.Fields = append(t.Fields, d)
	}
	return t
}
