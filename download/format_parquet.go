package download

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/biodiversity-downloads/downloader/internal/pzip"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Parquet part defaults.
const (
	defaultParquetPartBytes = 256 << 20
	parquetRowGroupRows     = 64 << 10
)

// simpleParquet is GBIF's SIMPLE_PARQUET: Parquet files
// occurrence.parquet/000000.parquet, 000001.parquet, ... inside the zip,
// streamed straight into the archive (a Parquet writer never seeks). A part
// is closed after about ExportOptions.ParquetPartBytes; a row group buffers
// at most 64Ki rows, so memory stays bounded. Columns keep their Arrow types
// and interpreted names; chosen verbatim terms are string columns. Parts are
// Snappy-compressed and stored in the zip without a second compression.
type simpleParquet struct {
	x      *Export
	fields []field
	verb   *verbatimRow
	schema *arrow.Schema
	fw     *pqarrow.FileWriter
	entry  *countingWriter
	parts  int
	limit  int64
	mem    memory.Allocator
}

// FormatSimpleParquet is GBIF's SIMPLE_PARQUET download.
const FormatSimpleParquet Format = "SIMPLE_PARQUET"

func init() {
	register(FormatInfo{
		Name:        FormatSimpleParquet,
		Description: "Parquet files of GBIF's simple columns, or of the fields chosen, under occurrence.parquet/",
		Extension:   ".zip", ContentType: "application/zip", Fields: true,
		BytesPerRecord: 58, CompressionRatio: 1, Order: 7,
		open: newSimpleParquet,
	})
}

func newSimpleParquet(_ context.Context, x *Export) (formatWriter, error) {
	names := x.spec.Fields
	var fields []field
	if names == nil {
		fields = occurrenceFields()
	} else {
		var err error
		if fields, err = resolveFields(names); err != nil {
			return nil, err
		}
	}
	p := &simpleParquet{x: x, fields: fields, verb: fieldsVerbatim(fields), limit: x.opts.ParquetPartBytes,
		mem: memory.NewGoAllocator()}
	if p.limit <= 0 {
		p.limit = defaultParquetPartBytes
	}
	return p, nil
}

func (p *simpleParquet) columns() []string { return fieldColumns(p.fields) }
func (p *simpleParquet) abort()            {}

// outSchema derives the part schema from the first batch.
func (p *simpleParquet) outSchema(b *batch) (*arrow.Schema, error) {
	fs := make([]arrow.Field, len(p.fields))
	for i, f := range p.fields {
		if f.column == "" {
			fs[i] = arrow.Field{Name: f.header, Type: arrow.BinaryTypes.String, Nullable: true}
			continue
		}
		a := b.col(f.column)
		if a == nil {
			return nil, fmt.Errorf("dwca: parquet: batch lacks column %s", f.column)
		}
		fs[i] = arrow.Field{Name: f.header, Type: a.DataType(), Nullable: true}
	}
	return arrow.NewSchema(fs, nil), nil
}

func (p *simpleParquet) openPart() error {
	name := fmt.Sprintf("occurrence.parquet/%06d.parquet", p.parts)
	w, err := p.x.zw.CreateHeader(&pzip.FileHeader{Name: name, Modified: p.x.created, Stored: true})
	if err != nil {
		return err
	}
	p.entry = &countingWriter{w: w}
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryDefault(true),
		parquet.WithMaxRowGroupLength(parquetRowGroupRows),
		parquet.WithStats(true),
		parquet.WithCreatedBy("downloader"),
	)
	p.fw, err = pqarrow.NewFileWriter(p.schema, p.entry, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return fmt.Errorf("dwca: parquet part %s: %w", name, err)
	}
	p.parts++
	return nil
}

func (p *simpleParquet) closePart() error {
	if p.fw == nil {
		return nil
	}
	err := p.fw.Close()
	p.fw = nil
	if err != nil {
		return fmt.Errorf("dwca: parquet part %d: %w", p.parts-1, err)
	}
	return nil
}

func (p *simpleParquet) write(b *batch) error {
	if b.n == 0 {
		return nil
	}
	if p.schema == nil {
		s, err := p.outSchema(b)
		if err != nil {
			return err
		}
		p.schema = s
	}
	if p.fw == nil {
		if err := p.openPart(); err != nil {
			return err
		}
	}
	rec, err := p.project(b)
	if err != nil {
		return err
	}
	defer rec.Release()
	if err := p.fw.WriteBuffered(rec); err != nil {
		return fmt.Errorf("dwca: parquet: %w", err)
	}
	if p.entry.n >= p.limit {
		return p.closePart()
	}
	return nil
}

// project builds the part's record from a scan batch.
func (p *simpleParquet) project(b *batch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(p.fields))
	var verbCols []*array.StringBuilder
	if p.verb != nil {
		n := len(p.verb.values)
		verbCols = make([]*array.StringBuilder, n)
		for i := range verbCols {
			verbCols[i] = array.NewStringBuilder(p.mem)
			defer verbCols[i].Release()
		}
		verb := b.col(occurrence.ColVerbatim)
		for i := 0; i < b.n; i++ {
			p.verb.parse(str(verb, i))
			for j, v := range p.verb.values {
				if v == "" {
					verbCols[j].AppendNull()
				} else {
					verbCols[j].Append(v)
				}
			}
		}
	}
	k := 0
	for i, f := range p.fields {
		if f.column == "" {
			cols[i] = verbCols[k].NewArray()
			k++
			continue
		}
		a := b.col(f.column)
		if !arrow.TypeEqual(a.DataType(), p.schema.Field(i).Type) {
			for _, c := range cols[:i] {
				if c != nil {
					c.Release()
				}
			}
			return nil, fmt.Errorf("dwca: parquet: column %s changed type from %s to %s", f.column, p.schema.Field(i).Type, a.DataType())
		}
		a.Retain()
		cols[i] = a
	}
	rec := array.NewRecordBatch(p.schema, cols, int64(b.n))
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

func (p *simpleParquet) finish(context.Context, ExportResult, []occurrence.DatasetInfo) error {
	if p.parts == 0 {
		// No record matched: one empty part keeps the layout readers expect.
		if p.schema == nil {
			p.schema = p.emptySchema()
		}
		if err := p.openPart(); err != nil {
			return err
		}
	}
	return p.closePart()
}

// emptySchema is the part schema when no batch arrived: the table's types.
func (p *simpleParquet) emptySchema() *arrow.Schema {
	fs := make([]arrow.Field, len(p.fields))
	for i, f := range p.fields {
		t := arrow.DataType(arrow.BinaryTypes.String)
		if c, _, ok := occurrence.ColumnByName(f.column); ok {
			t = c.Kind.ArrowType()
		}
		fs[i] = arrow.Field{Name: f.header, Type: t, Nullable: true}
	}
	return arrow.NewSchema(fs, nil)
}

// countingWriter counts bytes; it hides any Close of the zip entry from the
// Parquet writer.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
