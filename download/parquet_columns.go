package download

import (
	"fmt"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// parquetColumn is one column of SIMPLE_PARQUET: its type in GBIF's schema
// and how a scan array becomes it.
type parquetColumn struct {
	typ     arrow.DataType
	convert func(mem memory.Allocator, a arrow.Array) (arrow.Array, error)
}

// timestampType is GBIF's TIMESTAMP (written by Spark as a timestamp
// without time zone); the values are UTC.
var timestampType = &arrow.TimestampType{Unit: arrow.Millisecond}

// parquetColumnOf gives a field its GBIF type: identifiers (gbifID and the
// taxon keys) as strings, list columns as lists of strings, timestamps and
// dateIdentified as timestamps, the licence as its enum name, the rest as
// the table stores them; text as the text formats clean it.
func parquetColumnOf(f field) parquetColumn {
	c, _, ok := occurrence.ColumnByName(f.column)
	switch {
	case f.column == "" || !ok:
		return parquetColumn{typ: arrow.BinaryTypes.String, convert: retain}
	case c.Kind == occurrence.KindInt64:
		return parquetColumn{typ: arrow.BinaryTypes.String, convert: intsAsStrings}
	case c.Kind == occurrence.KindMulti:
		return parquetColumn{typ: arrow.ListOf(arrow.BinaryTypes.String), convert: splitLists}
	case c.Kind == occurrence.KindTimestamp:
		return parquetColumn{typ: timestampType, convert: asTimestamps}
	case c.Name == occurrence.ColDateIdentified:
		return parquetColumn{typ: timestampType, convert: parseLocalTimes}
	case c.Name == occurrence.ColLicense:
		return parquetColumn{typ: arrow.BinaryTypes.String, convert: licenseNames}
	case c.Kind == occurrence.KindString:
		return parquetColumn{typ: arrow.BinaryTypes.String, convert: cleanStrings}
	}
	return parquetColumn{typ: c.Kind.ArrowType(), convert: retain}
}

// cleanStrings gives a text column GBIF's values: the text rules
// (dwca.CleanValue) applied, as gbif/pipelines' table build applies its
// CleanDelimiters to every text column that SIMPLE_PARQUET, like the text
// formats, is read from. A column whose bytes are all printable ASCII (one
// check over its value buffer; the table's values are trimmed at ingest) is
// written as it is.
func cleanStrings(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	if s, ok := a.(*array.String); ok && dwca.PlainASCII(s.ValueBytes()) {
		s.Retain()
		return s, nil
	}
	b := array.NewStringBuilder(mem)
	defer b.Release()
	if err := eachString(a, b, func(s string) error {
		b.Append(dwca.CleanValue(s))
		return nil
	}); err != nil {
		return nil, err
	}
	return b.NewArray(), nil
}

func retain(_ memory.Allocator, a arrow.Array) (arrow.Array, error) {
	a.Retain()
	return a, nil
}

// eachString calls f with row i's string of a string column (plain or
// dictionary-encoded); null rows append a null to b.
func eachString(a arrow.Array, b array.Builder, f func(s string) error) error {
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		if err := f(str(a, i)); err != nil {
			return err
		}
	}
	return nil
}

func intsAsStrings(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	ints, ok := a.(*array.Int64)
	if !ok {
		return nil, fmt.Errorf("want int64, got %s", a.DataType())
	}
	b := array.NewStringBuilder(mem)
	defer b.Release()
	var buf []byte
	for i := 0; i < ints.Len(); i++ {
		if ints.IsNull(i) {
			b.AppendNull()
			continue
		}
		buf = strconv.AppendInt(buf[:0], ints.Value(i), 10)
		b.BinaryBuilder.Append(buf)
	}
	return b.NewArray(), nil
}

func splitLists(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	b := array.NewListBuilder(mem, arrow.BinaryTypes.String)
	defer b.Release()
	vb := b.ValueBuilder().(*array.StringBuilder)
	err := eachString(a, b, func(s string) error {
		b.Append(true)
		for item := range listItems(s) {
			vb.Append(item)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.NewArray(), nil
}

func asTimestamps(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	ts, ok := a.(*array.Timestamp)
	if !ok {
		return nil, fmt.Errorf("want a timestamp, got %s", a.DataType())
	}
	b := array.NewTimestampBuilder(mem, timestampType)
	defer b.Release()
	for i := 0; i < ts.Len(); i++ {
		if ts.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(ts.Value(i))
		}
	}
	return b.NewArray(), nil
}

// parseLocalTimes reads dateIdentified's local ISO date-times (older
// tables stored the date's own text: any form ParseDateRange reads).
func parseLocalTimes(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	b := array.NewTimestampBuilder(mem, timestampType)
	defer b.Release()
	err := eachString(a, b, func(s string) error {
		if t, err := time.Parse(occurrence.LayoutLocalDateTime, s); err == nil {
			b.Append(arrow.Timestamp(t.UnixMilli()))
		} else if dr, ok := occurrence.ParseDateRange(s); ok {
			b.Append(arrow.Timestamp(dr.Start.UnixMilli()))
		} else {
			b.AppendNull()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.NewArray(), nil
}

func licenseNames(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	err := eachString(a, b, func(s string) error {
		if n, ok := occurrence.LicenseName(s); ok {
			s = n
		}
		b.Append(dwca.CleanValue(s))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.NewArray(), nil
}
