package sqlquery

import (
	"cmp"
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/javafmt"
)

// Kind is a value's type.
type Kind uint8

// Value kinds. Bool values are Int 0 or 1; Time values are milliseconds
// since the Unix epoch, UTC, in Int.
const (
	Null Kind = iota
	Int
	Float
	String
	Bool
	Time
)

// Value is one cell of a query's result.
type Value struct {
	Kind  Kind
	Int   int64
	Float float64
	Str   string
}

var nullValue = Value{}

func intValue(i int64) Value     { return Value{Kind: Int, Int: i} }
func floatValue(f float64) Value { return Value{Kind: Float, Float: f} }
func strValue(s string) Value    { return Value{Kind: String, Str: s} }
func timeValue(ms int64) Value   { return Value{Kind: Time, Int: ms} }

func boolValue(b bool) Value {
	if b {
		return Value{Kind: Bool, Int: 1}
	}
	return Value{Kind: Bool}
}

// IsNull reports whether v is SQL NULL.
func (v Value) IsNull() bool { return v.Kind == Null }

// truth is v as a condition: true, false or unknown (NULL, ok false).
func (v Value) truth() (b, ok bool) {
	switch v.Kind {
	case Bool, Int, Time:
		return v.Int != 0, true
	case Float:
		return v.Float != 0, true
	case String:
		switch strings.ToLower(strings.TrimSpace(v.Str)) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return false, false
}

// number returns v as a double, and whether it is one (a string that
// reads as a number is one, as Spark casts it).
func (v Value) number() (float64, bool) {
	switch v.Kind {
	case Int, Bool, Time:
		return float64(v.Int), true
	case Float:
		return v.Float, true
	case String:
		f, err := strconv.ParseFloat(strings.TrimSpace(v.Str), 64)
		return f, err == nil
	}
	return 0, false
}

// integer returns v as an integer, and whether it is one exactly.
func (v Value) integer() (int64, bool) {
	switch v.Kind {
	case Int, Bool, Time:
		return v.Int, true
	case Float:
		if v.Float == math.Trunc(v.Float) && math.Abs(v.Float) < 1<<62 {
			return int64(v.Float), true
		}
	case String:
		i, err := strconv.ParseInt(strings.TrimSpace(v.Str), 10, 64)
		return i, err == nil
	}
	return 0, false
}

// text returns v as Spark casts it to a string, for functions on text:
// a double as Java's Double.toString writes it (100.0, 1.0E7), as the
// download writes result cells.
func (v Value) text() string {
	switch v.Kind {
	case Int:
		return strconv.FormatInt(v.Int, 10)
	case Float:
		return string(javafmt.AppendDouble(nil, v.Float))
	case Bool:
		if v.Int != 0 {
			return "true"
		}
		return "false"
	case Time:
		return time.UnixMilli(v.Int).UTC().Format("2006-01-02 15:04:05.999")
	}
	return v.Str
}

// compare orders two non-null values: numbers numerically, text by bytes,
// a timestamp against text by reading the text as a date. ok is false
// when they cannot be compared (text that is no number against a number),
// which SQL reads as NULL.
func compare(a, b Value) (int, bool) {
	if a.Kind == Time && b.Kind == String {
		ms, ok := parseTimestamp(b.Str)
		return cmp.Compare(a.Int, ms), ok
	}
	if b.Kind == Time && a.Kind == String {
		ms, ok := parseTimestamp(a.Str)
		return cmp.Compare(ms, b.Int), ok
	}
	if a.Kind == String && b.Kind == String {
		return strings.Compare(a.Str, b.Str), true
	}
	if a.Kind != Float && b.Kind != Float && a.Kind != String && b.Kind != String {
		return cmp.Compare(a.Int, b.Int), true
	}
	x, okx := a.number()
	y, oky := b.number()
	if !okx || !oky {
		return 0, false
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

// parseTimestamp reads a date or a date and time as Spark casts text to a
// timestamp (UTC here): "2020-05-01", "2020-05-01 10:00:00",
// "2020-05-01T10:00:00Z".
func parseTimestamp(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02", "2006-01-02 15:04:05", "2006-01-02T15:04:05",
		"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", time.RFC3339Nano, "2006-01"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t.UnixMilli(), true
		}
	}
	return 0, false
}

// sortCompare orders values for ORDER BY and for grouping's output: NULL
// first (Spark's default for ascending order), then by compare; values
// compare cannot order sort by kind, then text.
func sortCompare(a, b Value) int {
	switch {
	case a.Kind == Null && b.Kind == Null:
		return 0
	case a.Kind == Null:
		return -1
	case b.Kind == Null:
		return 1
	}
	if c, ok := compare(a, b); ok {
		return c
	}
	if a.Kind != b.Kind {
		return cmp.Compare(int64(a.Kind), int64(b.Kind))
	}
	return strings.Compare(a.text(), b.text())
}

// appendKey appends an encoding of v that is equal for equal values (a
// group's or a distinct set's key): a kind byte, then eight bytes of an
// integer or a double's bits, or a text's length and bytes. Integral
// doubles encode as integers, so 1 and 1.0 are one group, as Spark's
// numeric grouping has them.
func appendKey(dst []byte, v Value) []byte {
	switch v.Kind {
	case Null:
		return append(dst, 0)
	case Int, Bool:
		return binary.LittleEndian.AppendUint64(append(dst, 1), uint64(v.Int))
	case Time:
		return binary.LittleEndian.AppendUint64(append(dst, 4), uint64(v.Int))
	case Float:
		if i, ok := v.integer(); ok {
			return binary.LittleEndian.AppendUint64(append(dst, 1), uint64(i))
		}
		return binary.LittleEndian.AppendUint64(append(dst, 2), math.Float64bits(v.Float))
	}
	dst = binary.AppendUvarint(append(dst, 3), uint64(len(v.Str)))
	return append(dst, v.Str...)
}

// owned returns v with its text copied, for keeping beyond the batch it
// was read from.
func (v Value) owned() Value {
	if v.Kind == String {
		v.Str = strings.Clone(v.Str)
	}
	return v
}

// size is about the bytes v holds in memory, for the run's budget.
func (v Value) size() int64 { return 40 + int64(len(v.Str)) }
