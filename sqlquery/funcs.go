package sqlquery

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// function is one scalar function of the dialect.
type function struct {
	name     string // as documented (GBIF's spelling for GBIF's)
	min, max int    // argument count; max -1: any
	doc      string
	fn       func(args []Value) Value
	// check validates constant arguments (a grid size) when the query is
	// compiled; nil accepts any.
	check func(args []expr) error
	// row marks functions compiled specially (GBIF_Within and
	// GBIF_GeoDistance become predicates on the record's coordinates).
	row bool
	// bind, when set, may give fn's place to one made for these arguments
	// (a constant pattern or format compiled once, list arguments known);
	// nil keeps fn. Its error refuses the query.
	bind func(c *compiler, args []expr) (func([]Value) Value, error)
}

// functions lists the scalar functions by lower-case name; Functions and
// docs/sql.md read it.
var functions = map[string]*function{}

func addFunc(f *function, aliases ...string) {
	functions[strings.ToLower(f.name)] = f
	for _, a := range aliases {
		functions[a] = f
	}
}

// FunctionInfo describes a function for documentation.
type FunctionInfo struct {
	Name        string
	Description string
}

// Functions lists the scalar, aggregate and window functions a query may
// use (docs/sql.md names each: TestDocsNameEveryFunction).
func Functions() []FunctionInfo {
	seen := map[*function]bool{}
	var out []FunctionInfo
	for _, f := range functions {
		if !seen[f] {
			seen[f] = true
			out = append(out, FunctionInfo{Name: f.name, Description: f.doc})
		}
	}
	for _, a := range aggregates {
		out = append(out, FunctionInfo{Name: a.name, Description: a.doc})
	}
	for name, doc := range windowFuncs {
		out = append(out, FunctionInfo{Name: strings.ToUpper(name), Description: doc})
	}
	sortInfos(out)
	return out
}

func init() {
	text1 := func(name, doc string, f func(string) string) {
		addFunc(&function{name: name, min: 1, max: 1, doc: doc, fn: func(a []Value) Value {
			if a[0].Kind == Null {
				return nullValue
			}
			return strValue(f(a[0].text()))
		}})
	}
	text1("LOWER", "text in lower case", strings.ToLower)
	text1("UPPER", "text in upper case", strings.ToUpper)
	text1("TRIM", "text without leading and trailing spaces", strings.TrimSpace)
	text1("LTRIM", "text without leading spaces", func(s string) string { return strings.TrimLeft(s, " \t\r\n") })
	text1("RTRIM", "text without trailing spaces", func(s string) string { return strings.TrimRight(s, " \t\r\n") })
	addFunc(&function{name: "LENGTH", min: 1, max: 1, doc: "number of characters", fn: func(a []Value) Value {
		if a[0].Kind == Null {
			return nullValue
		}
		return intValue(int64(utf8.RuneCountInString(a[0].text())))
	}}, "char_length", "character_length")
	addFunc(&function{name: "SUBSTRING", min: 2, max: 3, doc: "SUBSTRING(text, start[, length]): characters from start (1-based)", fn: substring}, "substr")
	addFunc(&function{name: "CONCAT", min: 1, max: -1, doc: "the texts joined; NULL if any is NULL", fn: func(a []Value) Value {
		var b strings.Builder
		for _, v := range a {
			if v.Kind == Null {
				return nullValue
			}
			b.WriteString(v.text())
		}
		return strValue(b.String())
	}})
	addFunc(&function{name: "CONCAT_WS", min: 2, max: -1, doc: "CONCAT_WS(separator, text or list...): the non-NULL texts and list elements joined by separator",
		fn: func(a []Value) Value { return concatWS(a, nil) },
		// Spark's concat_ws joins a list argument's elements.
		bind: func(c *compiler, es []expr) (func([]Value) Value, error) {
			lists := make([]bool, len(es))
			for i := 1; i < len(es); i++ {
				lists[i] = c.listValued(es[i])
			}
			if !slices.Contains(lists, true) {
				return nil, nil
			}
			return func(a []Value) Value { return concatWS(a, lists) }, nil
		}})
	addFunc(&function{name: "COALESCE", min: 1, max: -1, doc: "the first argument that is not NULL", fn: func(a []Value) Value {
		for _, v := range a {
			if v.Kind != Null {
				return v
			}
		}
		return nullValue
	}}, "ifnull", "nvl")
	addFunc(&function{name: "ISNULL", min: 1, max: 1, doc: "ISNULL(x): whether x is NULL (Spark's isnull)", fn: func(a []Value) Value {
		return boolValue(a[0].Kind == Null)
	}})
	addFunc(&function{name: "ISNOTNULL", min: 1, max: 1, doc: "ISNOTNULL(x): whether x is not NULL (Spark's isnotnull)", fn: func(a []Value) Value {
		return boolValue(a[0].Kind != Null)
	}})
	addFunc(&function{name: "NULLIF", min: 2, max: 2, doc: "NULL when both are equal, else the first", fn: func(a []Value) Value {
		if a[0].Kind != Null && a[1].Kind != Null {
			if r, ok := compare(a[0], a[1]); ok && r == 0 {
				return nullValue
			}
		}
		return a[0]
	}})
	addFunc(&function{name: "IF", min: 3, max: 3, doc: "IF(condition, then, else)", fn: func(a []Value) Value {
		if b, ok := a[0].truth(); ok && b {
			return a[1]
		}
		return a[2]
	}})
	addFunc(&function{name: "GREATEST", min: 1, max: -1, doc: "the largest argument; NULL if any is NULL", fn: extreme(1)})
	addFunc(&function{name: "LEAST", min: 1, max: -1, doc: "the smallest argument; NULL if any is NULL", fn: extreme(-1)})
	math1 := func(name, doc string, f func(float64) float64, integral bool, aliases ...string) {
		addFunc(&function{name: name, min: 1, max: 1, doc: doc, fn: func(a []Value) Value {
			if a[0].Kind == Int && integral {
				return a[0]
			}
			x, ok := a[0].number()
			if !ok || a[0].Kind == Null {
				return nullValue
			}
			r := f(x)
			if integral && !math.IsInf(r, 0) && !math.IsNaN(r) && math.Abs(r) < 1<<62 {
				return intValue(int64(r))
			}
			return floatValue(r)
		}}, aliases...)
	}
	math1("FLOOR", "the largest integer not above", math.Floor, true)
	math1("CEIL", "the smallest integer not below", math.Ceil, true, "ceiling")
	math1("SQRT", "square root", math.Sqrt, false)
	math1("LN", "natural logarithm", math.Log, false)
	math1("LOG10", "logarithm to base 10", math.Log10, false)
	addFunc(&function{name: "ABS", min: 1, max: 1, doc: "absolute value", fn: func(a []Value) Value {
		switch a[0].Kind {
		case Int:
			if a[0].Int < 0 {
				return intValue(-a[0].Int)
			}
			return a[0]
		case Null:
			return nullValue
		}
		x, ok := a[0].number()
		if !ok {
			return nullValue
		}
		return floatValue(math.Abs(x))
	}})
	addFunc(&function{name: "ROUND", min: 1, max: 2, doc: "ROUND(x[, digits]): rounded half away from zero, as Spark", fn: round})
	addFunc(&function{name: "POWER", min: 2, max: 2, doc: "POWER(x, y): x to the power y", fn: func(a []Value) Value {
		x, okx := a[0].number()
		y, oky := a[1].number()
		if !okx || !oky || a[0].Kind == Null || a[1].Kind == Null {
			return nullValue
		}
		return floatValue(math.Pow(x, y))
	}}, "pow")
	addFunc(&function{name: "MOD", min: 2, max: 2, doc: "MOD(x, y): remainder", fn: func(a []Value) Value {
		return arithmetic(opMod, a[0], a[1])
	}})
	for _, part := range []struct {
		name string
		get  func(time.Time) int
	}{{"YEAR", time.Time.Year}, {"MONTH", func(t time.Time) int { return int(t.Month()) }}, {"DAY", time.Time.Day},
		{"HOUR", time.Time.Hour}, {"MINUTE", time.Time.Minute}, {"SECOND", time.Time.Second}} {
		addFunc(&function{name: part.name, min: 1, max: 1, doc: "the " + strings.ToLower(part.name) + " of a timestamp or date text (UTC)",
			fn: func(a []Value) Value {
				ms, ok := asMillis(a[0])
				if !ok {
					return nullValue
				}
				return intValue(int64(part.get(time.UnixMilli(ms).UTC())))
			}})
	}
	addFunc(&function{name: "ARRAY_CONTAINS", min: 2, max: 2, doc: "ARRAY_CONTAINS(list column, value): the list holds the value",
		fn: func(a []Value) Value { return arrayContains(a[0], a[1], true) }})
	addFunc(&function{name: "ARRAYS_OVERLAP", min: 2, max: 2, doc: "ARRAYS_OVERLAP(list, list): the two lists share an element",
		fn: func(a []Value) Value {
			if a[0].Kind == Null || a[1].Kind == Null {
				return nullValue
			}
			for _, x := range elements(a[0]) {
				if slices.Contains(elements(a[1]), x) {
					return boolValue(true)
				}
			}
			return boolValue(false)
		}})
	addFunc(&function{name: "GBIF_StringArrayContains", min: 3, max: 3,
		doc: "GBIF_StringArrayContains(list column, value, caseSensitive): the list holds the value",
		fn: func(a []Value) Value {
			cs, _ := a[2].truth()
			return arrayContains(a[0], a[1], cs)
		}})
	addFunc(&function{name: "GBIF_StringArrayLike", min: 3, max: 3,
		doc: "GBIF_StringArrayLike(list column, pattern, caseSensitive): an element of the list is LIKE the pattern",
		fn:  func(a []Value) Value { return arrayLike(a, nil) },
		// A constant pattern is compiled once, not for every row.
		bind: func(_ *compiler, es []expr) (func([]Value) Value, error) {
			p, ok1 := constant(es[1])
			cs, ok2 := constant(es[2])
			if !ok1 || !ok2 || p.Kind == Null {
				return nil, nil
			}
			b, _ := cs.truth()
			re := likeRegexp(p.text(), '\\', !b)
			return func(a []Value) Value { return arrayLike(a, re) }, nil
		}})
	iso := func(name, doc string, unit int64) {
		addFunc(&function{name: name, min: 1, max: 1, doc: doc, fn: func(a []Value) Value {
			n, ok := a[0].integer()
			if !ok || a[0].Kind == Null {
				return nullValue
			}
			return strValue(time.UnixMilli(n * unit).UTC().Format("2006-01-02T15:04:05Z"))
		}})
	}
	iso("GBIF_MillisecondsToISO8601", "milliseconds since 1970 as an ISO 8601 UTC timestamp", 1)
	iso("GBIF_SecondsToISO8601", "seconds since 1970 as an ISO 8601 UTC timestamp", 1000)
	addFunc(&function{name: "GBIF_SecondsToLocalISO8601", min: 1, max: 1,
		doc: "seconds since 1970 as an ISO 8601 local date and time (no zone)",
		fn: func(a []Value) Value {
			n, ok := a[0].integer()
			if !ok || a[0].Kind == Null {
				return nullValue
			}
			return strValue(time.Unix(n, 0).UTC().Format("2006-01-02T15:04:05"))
		}})
	addFunc(&function{name: "GBIF_Within", min: 3, max: 3, row: true,
		doc: "GBIF_Within(WKT, decimalLatitude, decimalLongitude): the record's point lies in the geometry"})
	addFunc(&function{name: "GBIF_GeoDistance", min: 5, max: 5, row: true,
		doc: "GBIF_GeoDistance(latitude, longitude, distance, decimalLatitude, decimalLongitude): the record's point lies within distance (\"10km\") of the centre"})
}

// concatWS joins a[1:] by a[0], skipping NULLs; the arguments lists marks
// are lists, whose elements are joined one by one.
func concatWS(a []Value, lists []bool) Value {
	if a[0].Kind == Null {
		return nullValue
	}
	var parts []string
	for i, v := range a[1:] {
		switch {
		case v.Kind == Null:
		case lists != nil && lists[i+1]:
			for item := range strings.SplitSeq(v.text(), ";") {
				if item != "" {
					parts = append(parts, item)
				}
			}
		default:
			parts = append(parts, v.text())
		}
	}
	return strValue(strings.Join(parts, a[0].text()))
}

func substring(a []Value) Value {
	for _, v := range a {
		if v.Kind == Null {
			return nullValue
		}
	}
	rs := []rune(a[0].text())
	start, ok := a[1].integer()
	if !ok {
		return nullValue
	}
	n := int64(len(rs))
	switch {
	case start > 0:
		start--
	case start < 0:
		start = max(n+start, 0)
	}
	end := n
	if len(a) == 3 {
		l, ok := a[2].integer()
		if !ok {
			return nullValue
		}
		end = min(start+max(l, 0), n)
	}
	if start >= n || start >= end {
		return strValue("")
	}
	return strValue(string(rs[start:end]))
}

func extreme(sign int) func([]Value) Value {
	return func(a []Value) Value {
		best := nullValue
		for _, v := range a {
			if v.Kind == Null {
				return nullValue
			}
			if best.Kind == Null || sortCompare(v, best)*sign > 0 {
				best = v
			}
		}
		return best
	}
}

func round(a []Value) Value {
	if a[0].Kind == Null || (len(a) == 2 && a[1].Kind == Null) {
		return nullValue
	}
	d := int64(0)
	if len(a) == 2 {
		var ok bool
		if d, ok = a[1].integer(); !ok {
			return nullValue
		}
	}
	if a[0].Kind == Int && d >= 0 {
		return a[0]
	}
	x, ok := a[0].number()
	if !ok {
		return nullValue
	}
	p := math.Pow(10, float64(d))
	r := math.Round(x*p) / p
	if a[0].Kind == Int {
		return intValue(int64(r))
	}
	return floatValue(r)
}

func asMillis(v Value) (int64, bool) {
	switch v.Kind {
	case Time:
		return v.Int, true
	case String:
		s := v.Str
		if i := strings.IndexByte(s, '/'); i >= 0 { // an eventDate interval: its start
			s = s[:i]
		}
		return parseTimestamp(s)
	}
	return 0, false
}

// elements splits a list column's value (stored joined with ";").
func elements(v Value) []string {
	if v.Kind == Null || v.Str == "" {
		return nil
	}
	return strings.Split(v.text(), ";")
}

func arrayContains(list, want Value, caseSensitive bool) Value {
	if list.Kind == Null || want.Kind == Null {
		return nullValue
	}
	w := want.text()
	for _, e := range elements(list) {
		if e == w || (!caseSensitive && strings.EqualFold(e, w)) {
			return boolValue(true)
		}
	}
	return boolValue(false)
}

// arrayLike is GBIF_StringArrayLike; re is the pattern compiled once when
// the pattern and the case flag are constants (nil: compiled here).
func arrayLike(a []Value, re *regexp.Regexp) Value {
	if a[0].Kind == Null || a[1].Kind == Null {
		return nullValue
	}
	if re == nil {
		cs, _ := a[2].truth()
		re = likeRegexp(a[1].text(), '\\', !cs)
	}
	for _, e := range elements(a[0]) {
		if re.MatchString(e) {
			return boolValue(true)
		}
	}
	return boolValue(false)
}
