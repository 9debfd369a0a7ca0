package download

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/internal/javafmt"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// batch is a record batch with its columns looked up by name.
type batch struct {
	n      int
	byName map[string]arrow.Array
	rec    arrow.RecordBatch
}

func newBatch(rec arrow.RecordBatch) *batch {
	b := &batch{n: int(rec.NumRows()), byName: make(map[string]arrow.Array, rec.NumCols()), rec: rec}
	for i, f := range rec.Schema().Fields() {
		a := rec.Column(i)
		if d, ok := a.(*array.Dictionary); ok {
			// Dictionary makes its values array on first use: made here,
			// the batch is only read by the goroutines formatting its rows
			// (rowHalves).
			d.Dictionary()
		}
		b.byName[f.Name] = a
	}
	return b
}

// col returns the named column, or nil when the batch does not carry it.
func (b *batch) col(name string) arrow.Array { return b.byName[name] }

// str returns row i of a string column, "" for null or a missing column.
func str(a arrow.Array, i int) string {
	switch a := a.(type) {
	case *array.String:
		if a.IsValid(i) {
			return a.Value(i)
		}
	case *array.LargeString:
		if a.IsValid(i) {
			return a.Value(i)
		}
	case *array.Dictionary:
		if a.IsValid(i) {
			return str(a.Dictionary(), a.GetValueIndex(i))
		}
	}
	return ""
}

// cellFn appends the GBIF text form of row i of a column to dst; a null
// appends nothing.
type cellFn func(dst []byte, i int) []byte

// timeLayout names ISO 8601 in UTC with three digits of milliseconds when
// there are any, none when there are none, as Java's ISO_INSTANT prints a
// millisecond instant (GBIF's lastInterpreted: 2021-01-08T08:15:08.500Z,
// 2021-01-08T08:15:08Z). Go's layouts cannot say "three digits or none"
// (.999 trims zeros, .000 keeps them): appendTime writes it.
const timeLayout = "2006-01-02T15:04:05.999Z"

// appendTime appends t in timeLayout's form.
func appendTime(dst []byte, t time.Time) []byte {
	t = t.UTC()
	if t.Nanosecond()/int(time.Millisecond) != 0 {
		return t.Truncate(time.Millisecond).AppendFormat(dst, "2006-01-02T15:04:05.000Z")
	}
	return t.AppendFormat(dst, "2006-01-02T15:04:05Z")
}

// cellFor returns the formatter of a column: floats without exponent or
// trailing zeros, timestamps ISO 8601 UTC, booleans lower case, multi-value
// columns as stored (joined with ";"). A nil column formats as empty.
func cellFor(a arrow.Array) (cellFn, error) {
	switch a := a.(type) {
	case nil:
		return func(dst []byte, _ int) []byte { return dst }, nil
	case *array.String:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return append(dst, a.Value(i)...)
		}, nil
	case *array.LargeString:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return append(dst, a.Value(i)...)
		}, nil
	case *array.Int32:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return appendInt(dst, int64(a.Value(i)))
		}, nil
	case *array.Int64:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return appendInt(dst, a.Value(i))
		}, nil
	case *array.Float64:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return appendFloat(dst, a.Value(i))
		}, nil
	case *array.Boolean:
		return func(dst []byte, i int) []byte {
			if a.IsNull(i) {
				return dst
			}
			return strconv.AppendBool(dst, a.Value(i))
		}, nil
	case *array.Timestamp:
		return timestampCell(a, timeLayout), nil
	case *array.Dictionary:
		inner, err := cellFor(a.Dictionary())
		if err != nil {
			return nil, err
		}
		// The index type is switched on once per batch, not per row as
		// GetValueIndex does.
		switch idx := a.Indices().(type) {
		case *array.Int8:
			return dictCell(a, idx.Int8Values(), inner), nil
		case *array.Uint8:
			return dictCell(a, idx.Uint8Values(), inner), nil
		case *array.Int16:
			return dictCell(a, idx.Int16Values(), inner), nil
		case *array.Uint16:
			return dictCell(a, idx.Uint16Values(), inner), nil
		case *array.Int32:
			return dictCell(a, idx.Int32Values(), inner), nil
		case *array.Uint32:
			return dictCell(a, idx.Uint32Values(), inner), nil
		case *array.Int64:
			return dictCell(a, idx.Int64Values(), inner), nil
		case *array.Uint64:
			return dictCell(a, idx.Uint64Values(), inner), nil
		}
	}
	return nil, fmt.Errorf("dwca: cannot format a column of type %s", a.DataType())
}

// cleanOutput reports whether everything cellFor formats from a is printable
// ASCII without a tab or line break, so that rows need no check per cell:
// numbers, booleans and timestamps always; strings when all of this batch's
// value bytes are plain ASCII (checked once, over the whole value buffer).
func cleanOutput(a arrow.Array) bool {
	switch a := a.(type) {
	case *array.Int32, *array.Int64, *array.Float64, *array.Boolean, *array.Timestamp:
		return true
	case *array.String:
		return dwca.PlainASCII(a.ValueBytes())
	}
	return false
}

// cleanCellFor is cellFor with its output cleaned where a's may need it
// (cleanOutput).
func cleanCellFor(a arrow.Array) (cellFn, error) {
	fn, err := cellFor(a)
	if err != nil || cleanOutput(a) {
		return fn, err
	}
	return cleaned(fn), nil
}

// cleaned is f with its output cleaned where it needs it.
func cleaned(f cellFn) cellFn {
	return func(dst []byte, i int) []byte {
		return dwca.CleanFrom(f(dst, i), len(dst))
	}
}

// dictCell formats row i of a dictionary column as its value idx[i] of the
// dictionary.
func dictCell[T int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64](a *array.Dictionary, idx []T, inner cellFn) cellFn {
	return func(dst []byte, i int) []byte {
		if a.IsNull(i) {
			return dst
		}
		return inner(dst, int(idx[i]))
	}
}

// appendFloat formats a double as GBIF's downloads print it: the text of
// Java's Double.toString, which is what GBIF's tables (Spark casting a
// DOUBLE column to STRING) write, as javafmt.AppendDouble writes it. NaN
// and infinities are never stored.
//
// Most values of a download (coordinates, elevations, uncertainties) have
// at most six decimals. When v is one (round(v*1e6)/1e6 == v, |v| < 1e7)
// that decimal is the shortest one reading back as v: decimals six places
// apart are farther apart than two neighbouring float64s below 1e9, so no
// other decimal of six places or fewer names v. It is then printed from the
// integer v*1e6, about twice as fast as the general shortest formatting
// (BenchmarkAppendFloat, five-decimal coordinates, per 1024 values on a
// shared 2-core machine: 38 against 91 µs in one run, 19-24 against 41-43 µs
// in three others); anything else goes to javafmt.
func appendFloat(dst []byte, v float64) []byte {
	const scale = 1e6
	r := math.Round(v * scale)
	if a := math.Abs(v); v == 0 || a < 1e-3 || a >= 1e7 || r/scale != v {
		return javafmt.AppendDouble(dst, v)
	}
	n := int64(r)
	if n < 0 {
		dst = append(dst, '-')
		n = -n
	}
	ip, fp := n/1e6, n%1e6
	dst = appendInt(dst, ip)
	if fp == 0 {
		return append(dst, '.', '0')
	}
	// The six decimals, then their trailing zeros taken off.
	l := len(dst)
	dst = slices.Grow(dst, 7)[:l+7]
	dst[l] = '.'
	putDigits(dst[l+1:l+7], uint64(fp))
	k := l + 7
	for dst[k-1] == '0' {
		k--
	}
	return dst[:k]
}

// timestampCell formats a timestamp column in layout (UTC).
func timestampCell(a *array.Timestamp, layout string) cellFn {
	unit := a.DataType().(*arrow.TimestampType).Unit
	// Neighbouring rows often share a timestamp (a dataset's lastInterpreted,
	// its modified date): the last one formatted is kept.
	var last arrow.Timestamp
	var text []byte
	return func(dst []byte, i int) []byte {
		if a.IsNull(i) {
			return dst
		}
		if v := a.Value(i); v != last || text == nil {
			last, text = v, appendTimestamp(text[:0], v, unit, layout)
		}
		return append(dst, text...)
	}
}

// licenseCell writes the licence as GBIF's downloads do: the License enum
// name (CC_BY_4_0), not the URI the table stores; a value that is no
// licence GBIF knows is written as it is, cleaned.
func licenseCell(a arrow.Array) cellFn {
	return func(dst []byte, i int) []byte {
		if a.IsNull(i) {
			return dst
		}
		return appendLicence(dst, str(a, i))
	}
}

// appendLicence appends licence v as GBIF's downloads write it: the
// License enum name (CC_BY_4_0) for a licence GBIF knows, else v cleaned.
func appendLicence(dst []byte, v string) []byte {
	if name, ok := occurrence.LicenseName(v); ok {
		return append(dst, name...)
	}
	return dwca.AppendClean(dst, v)
}

// formatTime is timeLayout for one value.
func formatTime(t time.Time) string { return string(appendTime(nil, t)) }

// listItems are the items of a list column's value (joined with ";") as
// the formats that type lists (SIMPLE_PARQUET, the Avro formats) write
// them: trimmed and cleaned, the empty ones left out.
func listItems(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for part := range strings.SplitSeq(s, ";") {
			if part = dwca.CleanValue(strings.TrimSpace(part)); part != "" && !yield(part) {
				return
			}
		}
	}
}
