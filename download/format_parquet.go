package download

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/internal/pzip"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Parquet part defaults.
const (
	defaultParquetPartBytes = 256 << 20
	parquetRowGroupRows     = 64 << 10
)

// simpleParquet is GBIF's SIMPLE_PARQUET: Parquet files
// occurrence.parquet/000000, 000001, ... inside the zip (GBIF's entry
// names), streamed straight into the archive (a Parquet writer never
// seeks). A part is closed after about ExportOptions.ParquetPartBytes; a
// row group buffers at most 64Ki rows, so memory stays bounded. Parts are
// Snappy-compressed and stored in the zip without a second compression.
//
// The columns are GBIF's 50 simple ones unless fields are chosen, in GBIF's
// schema (gbif/occurrence ParquetSchemaQueries over download-tables'
// HiveDataTypes): lower-case names, gbifid and the taxon keys as strings,
// the list columns (issue, mediatype, recordedby, identifiedby, typestatus,
// ...) as lists of strings, dateidentified and lastinterpreted as
// timestamps, the licence as GBIF's enum name; chosen verbatim terms are
// strings.
type simpleParquet struct {
	x      *Export
	fields []field
	cols   []parquetColumn // by field
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
		Description: "Parquet files of GBIF's 50 simple columns, or of the fields chosen, under occurrence.parquet/",
		Extension:   ".zip", ContentType: "application/zip", Fields: true,
		BytesPerRecord: 58, CompressionRatio: 1, Order: 7,
		open: newSimpleParquet,
	})
}

func newSimpleParquet(_ context.Context, x *Export) (formatWriter, error) {
	names := x.spec.Fields
	if names == nil {
		names = simpleCSVColumns
	}
	fields, err := resolveFields(names)
	if err != nil {
		return nil, err
	}
	p := &simpleParquet{x: x, fields: fields, verb: fieldsVerbatim(fields), limit: x.opts.ParquetPartBytes,
		mem: memory.NewGoAllocator()}
	if p.limit <= 0 {
		p.limit = defaultParquetPartBytes
	}
	fs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		p.cols = append(p.cols, parquetColumnOf(f))
		fs[i] = arrow.Field{Name: strings.ToLower(f.header), Type: p.cols[i].typ, Nullable: true}
	}
	p.schema = arrow.NewSchema(fs, nil)
	return p, nil
}

func (p *simpleParquet) columns() []string { return fieldColumns(p.fields) }
func (p *simpleParquet) abort()            {}

func (p *simpleParquet) openPart() error {
	name := fmt.Sprintf("occurrence.parquet/%06d", p.parts)
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
		return fmt.Errorf("download: parquet part %s: %w", name, err)
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
		return fmt.Errorf("download: parquet part %d: %w", p.parts-1, err)
	}
	return nil
}

func (p *simpleParquet) write(b *batch) error {
	if b.n == 0 {
		return nil
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
		return fmt.Errorf("download: parquet: %w", err)
	}
	if p.entry.n >= p.limit {
		return p.closePart()
	}
	return nil
}

// project builds the part's record from a scan batch.
func (p *simpleParquet) project(b *batch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(p.fields))
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	verbCols := p.verbatimColumns(b)
	k := 0
	for i, f := range p.fields {
		if f.column == "" {
			cols[i] = verbCols[k]
			k++
			continue
		}
		a := b.col(f.column)
		if a == nil {
			release()
			return nil, fmt.Errorf("download: parquet: batch lacks column %s", f.column)
		}
		c, err := p.cols[i].convert(p.mem, a)
		if err != nil {
			release()
			return nil, fmt.Errorf("download: parquet: column %s: %w", f.column, err)
		}
		cols[i] = c
	}
	rec := array.NewRecordBatch(p.schema, cols, int64(b.n))
	release()
	return rec, nil
}

// verbatimColumns reads the chosen verbatim terms of a batch as string
// arrays, in field order.
func (p *simpleParquet) verbatimColumns(b *batch) []arrow.Array {
	if p.verb == nil {
		return nil
	}
	bs := make([]*array.StringBuilder, len(p.verb.values))
	for i := range bs {
		bs[i] = array.NewStringBuilder(p.mem)
		defer bs[i].Release()
	}
	verb := b.col(occurrence.ColVerbatim)
	for i := 0; i < b.n; i++ {
		p.verb.parse(str(verb, i))
		for j, v := range p.verb.values {
			if v = dwca.CleanValue(v); v == "" {
				bs[j].AppendNull()
			} else {
				bs[j].Append(v)
			}
		}
	}
	out := make([]arrow.Array, len(bs))
	for i, sb := range bs {
		out[i] = sb.NewArray()
	}
	return out
}

func (p *simpleParquet) finish(context.Context, ExportResult, []occurrence.DatasetInfo) error {
	if p.parts == 0 {
		// No record matched: one empty part keeps the layout readers expect.
		if err := p.openPart(); err != nil {
			return err
		}
	}
	return p.closePart()
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
