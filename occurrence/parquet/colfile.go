package parquet

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// columnFile writes one Parquet file of the table's schema a column chunk at
// a time, each chunk from as many Arrow arrays as its rows were gathered in.
//
// pqarrow.FileWriter takes a column chunk in one call, so the writer had to
// gather a row group's whole column first: for the verbatim documents of
// wide records, ~28 MB of copies alive at once beside the window they came
// from, which the garbage collector's soft limit paid for in collections.
// Written from pieces through pqarrow.WriteArrowToColumn into the column
// chunk writer, a piece's worth is enough; pieces of whole write batches
// (pieceRows) give the pages, and so the bytes, of the one-call write.
type columnFile struct {
	w   *file.Writer
	rg  file.SerialRowGroupWriter
	col file.ColumnChunkWriter
	// ctx carries pqarrow's write context (its scratch buffers) for the
	// file's columns.
	ctx context.Context
	// levels is the definition levels of the last piece written, reused.
	levels []int16
	// values is the last piece of a dictionary-encoded text column as the
	// column writer takes it, reused (see writeDictText).
	values []parquet.ByteArray
}

// newColumnFile starts a file of the table's schema on sink (closed by
// close and abort).
func newColumnFile(sink io.WriteCloser, props *parquet.WriterProperties) (*columnFile, error) {
	arrowProps := pqarrow.NewArrowWriterProperties()
	sc, err := pqarrow.ToParquet(occurrence.Schema(), props, arrowProps)
	if err != nil {
		return nil, err
	}
	// The empty key-value list is what pqarrow.FileWriter writes for a
	// schema without metadata: the footer stays the same bytes.
	w, err := file.NewParquetWriterWithError(sink, sc.Root(), file.WithWriterProps(props),
		file.WithWriteMetadata(metadata.KeyValueMetadata{}))
	if err != nil {
		return nil, err
	}
	return &columnFile{w: w, ctx: pqarrow.NewArrowWriteContext(context.Background(), &arrowProps)}, nil
}

// newRowGroup closes the current row group, if any, and starts the next.
func (f *columnFile) newRowGroup() error {
	if f.rg != nil {
		if err := f.rg.Close(); err != nil {
			return err
		}
	}
	rg, err := f.w.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	f.rg, f.col = rg, nil
	return nil
}

// nextColumn starts the row group's next column chunk.
func (f *columnFile) nextColumn() error {
	col, err := f.rg.NextColumn()
	if err != nil {
		return err
	}
	f.col = col
	return nil
}

// write appends a to the current column chunk. Every column of the table
// is a nullable leaf: its definition level is 1 where a row has a value.
func (f *columnFile) write(a arrow.Array) error {
	n := a.Len()
	if cap(f.levels) < n {
		f.levels = make([]int16, n)
	}
	levels := f.levels[:n]
	switch nulls := a.NullN(); {
	case nulls == 0:
		for i := range levels {
			levels[i] = 1
		}
	case nulls == n:
		clear(levels)
	default:
		for i := range levels {
			levels[i] = 0
			if a.IsValid(i) {
				levels[i] = 1
			}
		}
	}
	if bw, ok := f.col.(*file.ByteArrayColumnChunkWriter); ok && !bw.SupportsArrowOffsets() {
		if s, ok := a.(*array.String); ok {
			return f.writeDictText(bw, s, levels)
		}
	}
	return pqarrow.WriteArrowToColumn(f.ctx, f.col, a, levels, nil, true)
}

// writeDictText writes text to a column writer whose encoder takes a slice
// of values rather than Arrow's buffers (a dictionary encoder): the calls
// pqarrow makes, from a slice reused across pieces and columns where
// pqarrow allocates one for every call (a pointer-holding 24 bytes a row:
// 155 of the 1,715 MB a heap profile of a wide ingest had counted).
func (f *columnFile) writeDictText(w *file.ByteArrayColumnChunkWriter, s *array.String, levels []int16) error {
	n := s.Len()
	if cap(f.values) < n {
		f.values = make([]parquet.ByteArray, n)
	}
	values := f.values[:n]
	data := s.ValueBytes()
	offsets := s.ValueOffsets()
	for i := range values {
		values[i] = parquet.ByteArray(data[offsets[i]:offsets[i+1]])
	}
	var err error
	if s.NullN() == 0 {
		_, err = w.WriteBatch(values, levels, nil)
	} else {
		_, err = w.WriteBatchSpacedWithError(values, levels, nil, s.NullBitmapBytes(), int64(s.Data().Offset()))
	}
	clear(values) // the text it points at is the gather's, reused next
	return err
}

// close writes the footer and closes the sink.
func (f *columnFile) close() error { return f.w.Close() }
