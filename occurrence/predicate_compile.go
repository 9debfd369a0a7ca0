package occurrence

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// compiled is the validated, typed form of a simple predicate, shared by the
// evaluators.
type compiled struct {
	spec *keySpec // nil for within/geoDistance
	op   string
	fold bool // case-insensitive text comparison

	// Text keys: normalized values (lower-cased when fold), or like patterns.
	strs []string
	// Numeric keys: the extent of each value; MatchRow applies op to these.
	exts []extent
	// Range predicate bounds (op == TypeRange).
	lower, upper *rangeBound
	bools        []bool

	geom   *geometry
	circle *circle

	// Full text (FullText): the words, and how many a record must hold.
	words     []string
	minWords  int
	maxWords  int    // len(words) when unbounded
	asciiWord []bool // words[i] is ASCII

	// Eval-ready forms, built once.
	sm   *strMatcher
	ivs  []interval // inclusive intervals of matching values (vInt/vFloat/vDate/vTime)
	iset map[int64]struct{}
	bits *bitSet
	ivx  *intervalIndex // many intervals without a set
}

// num is a numeric value: i for integer and timestamp keys, f for floats.
type num struct {
	i int64
	f float64
}

// extent is the inclusive span a value covers: [v, v] for a number,
// [first ms, last ms] for a date like "2000-05", [a, b] for a range "a,b".
type extent struct{ lo, hi num }

type rangeBound struct {
	v         num
	inclusive bool
}

// ptErr builds a *PredicateError for the invalid kind.
func ptErr(path, key, value, format string, args ...any) *PredicateError {
	return &PredicateError{Path: path, Key: key, Value: value, Reason: fmt.Sprintf(format, args...), Err: ErrInvalidPredicate}
}

func joinPath(base, field string) string {
	if base == "" {
		return field
	}
	return base + "." + field
}

// validateTree checks p's shape against the limits, compiles every leaf
// and checks the compiled predicate's work.
func validateTree(p *Predicate, lim Limits) error {
	w := &shapeWalker{lim: lim}
	w.walk(p, "", 1)
	if err := w.finish(); err != nil {
		return err
	}
	if err := compileTree(p, "", 0, lim); err != nil {
		return err
	}
	return checkWork(p, lim, nil)
}

// compileTree compiles the leaves of a tree whose shape was checked.
func compileTree(p *Predicate, path string, depth int, lim Limits) error {
	if p == nil {
		return ptErr(path, "", "", "null predicate")
	}
	if depth >= lim.MaxDepth {
		return limitErr(path, "", RuleDepth, depth+1, lim.MaxDepth, "nested deeper than %d levels (%s)", lim.MaxDepth, RuleDepth)
	}
	switch p.Type {
	case TypeAnd, TypeOr:
		if len(p.Predicates) == 0 {
			return ptErr(joinPath(path, "predicates"), "", "", "%s needs at least one predicate", p.Type)
		}
		for i, c := range p.Predicates {
			if err := compileTree(c, fmt.Sprintf("%s[%d]", joinPath(path, "predicates"), i), depth+1, lim); err != nil {
				return err
			}
		}
		if p.Type == TypeOr {
			planOr(p)
		}
		return nil
	case TypeNot:
		return compileTree(p.Predicate, joinPath(path, "predicate"), depth+1, lim)
	}
	c, err := compileLeaf(p, path, lim)
	if err != nil {
		return err
	}
	p.c.Store(c)
	return nil
}

func compileLeaf(p *Predicate, path string, lim Limits) (*compiled, error) {
	c := &compiled{op: p.Type}
	switch p.Type {
	case TypeWithin:
		g, err := parseWKT(p.Geometry, lim.MaxPolygonPoints)
		if err != nil {
			pe := ptErr(joinPath(path, "geometry"), "GEOMETRY", p.Geometry, "%v", err)
			var pts *pointsError
			if errors.As(err, &pts) {
				pe.Err, pe.Rule, pe.Got, pe.Limit = ErrPredicateTooComplex, RulePolygonPoints, pts.got, pts.limit
			}
			return nil, pe
		}
		c.geom = g
		return c, nil
	case TypeGeoDistance:
		ci, err := newCircle(p.Latitude, p.Longitude, p.Distance)
		if err != nil {
			return nil, ptErr(path, "", p.Distance, "%v", err)
		}
		c.circle = ci
		return c, nil
	case TypeIsNull, TypeIsNotNull:
		spec, ok := lookupKey(p.Parameter)
		if !ok {
			return nil, unknownKey(joinPath(path, "parameter"), p.Parameter)
		}
		p.Parameter = spec.name
		c.spec = spec
		return c, nil
	case TypeEquals, TypeIn, TypeLike, TypeLessThan, TypeLessThanOrEquals,
		TypeGreaterThan, TypeGreaterThanOrEquals, TypeRange:
	default:
		return nil, ptErr(joinPath(path, "type"), "", p.Type, "unknown predicate type (one of %s)", strings.Join(predicateTypes, ", "))
	}
	spec, ok := lookupKey(p.Key)
	if !ok {
		if looseKey(p.Key) == "GEOMETRY" {
			return nil, ptErr(joinPath(path, "key"), p.Key, "", "geometry takes a within predicate")
		}
		return nil, unknownKey(joinPath(path, "key"), p.Key)
	}
	p.Key = spec.name
	c.spec = spec
	if err := c.compileValues(p, path); err != nil {
		return nil, err
	}
	c.prepareEval()
	return c, nil
}

func unknownKey(path, key string) *PredicateError {
	if key == "" {
		return ptErr(path, "", "", "missing search parameter")
	}
	return ptErr(path, key, "", "unknown search parameter (supported: %s)", strings.Join(SearchKeys(), ", "))
}

func (c *compiled) compileValues(p *Predicate, path string) error {
	spec := c.spec
	switch p.Type {
	case TypeLessThan, TypeLessThanOrEquals, TypeGreaterThan, TypeGreaterThanOrEquals, TypeRange:
		if !spec.kind.numeric() {
			return ptErr(joinPath(path, "type"), spec.name, "", "%s only applies to number and date parameters; %s takes equals, in, like", p.Type, spec.name)
		}
	case TypeLike:
		if !spec.kind.text() {
			return ptErr(joinPath(path, "type"), spec.name, "", "like only applies to text parameters")
		}
		if spec.matchValue != nil {
			return ptErr(joinPath(path, "type"), spec.name, "", "like is not available for %s: the table keeps identifiers of the values, not the values; use equals or in", spec.name)
		}
	}
	// matchCase is accepted on every key (GBIF writes "matchCase":false into
	// stored predicates) and only changes text comparisons.
	// Free text and like patterns compare case-insensitively unless matchCase;
	// codes are normalized and compared exactly.
	c.fold = (spec.kind == vText || spec.kind == vPiped || spec.fold || p.Type == TypeLike) && !p.matchCase()
	if p.Type == TypeRange {
		return c.compileRange(p, path)
	}
	vals := []string{p.Value}
	vpath := joinPath(path, "value")
	if p.Type == TypeIn {
		if len(p.Values) == 0 {
			return ptErr(joinPath(path, "values"), spec.name, "", "in needs at least one value")
		}
		vals = p.Values
	} else if len(p.Values) > 0 {
		return ptErr(joinPath(path, "values"), spec.name, "", "%s takes value, not values", p.Type)
	}
	single := p.Type != TypeEquals && p.Type != TypeIn
	for i, v := range vals {
		if p.Type == TypeIn {
			vpath = fmt.Sprintf("%s[%d]", joinPath(path, "values"), i)
		}
		nv, err := c.addValue(v, single, p.Type == TypeLike)
		if err != nil {
			err.Path = vpath
			return err
		}
		if p.Type == TypeIn {
			p.Values[i] = nv
		} else {
			p.Value = nv
		}
	}
	c.geoTimeBound()
	return nil
}

// addValue parses one value and returns its normalized spelling.
func (c *compiled) addValue(v string, single, like bool) (string, *PredicateError) {
	spec := c.spec
	if strings.TrimSpace(v) == "" {
		return "", ptErr("", spec.name, v, "empty value")
	}
	if !utf8.ValidString(v) {
		return "", ptErr("", spec.name, v, "not valid UTF-8")
	}
	switch spec.kind {
	case vBool:
		lv := strings.ToLower(strings.TrimSpace(v))
		if lv != "true" && lv != "false" {
			return "", ptErr("", spec.name, v, "not true or false")
		}
		c.bools = append(c.bools, lv == "true")
		return lv, nil
	case vInt, vFloat, vDate, vTime:
		e, err := parseExtent(spec, v, single)
		if err != nil {
			return "", ptErr("", spec.name, v, "%v", err)
		}
		c.exts = append(c.exts, e)
		return strings.TrimSpace(v), nil
	}
	nv := v
	if spec.norm != nil && !like {
		n, err := spec.norm(v)
		if err != nil {
			return "", ptErr("", spec.name, v, "%v", err)
		}
		nv = n
	}
	for _, s := range append([]string{nv}, c.narrower(nv, like)...) {
		if spec.matchValue != nil {
			s = spec.matchValue(s)
		}
		if c.fold {
			s = foldString(s)
		}
		c.strs = append(c.strs, s)
	}
	return nv, nil
}

// narrower are the concepts under a concept value, which GBIF's search
// matches too (its vocabulary fields are searched by lineage).
func (c *compiled) narrower(v string, like bool) []string {
	if c.spec.concepts == nil || like {
		return nil
	}
	return c.spec.concepts.narrower(v)
}

func (c *compiled) compileRange(p *Predicate, path string) error {
	r := p.Range
	vpath := joinPath(path, "value")
	if r == nil {
		return ptErr(vpath, c.spec.name, "", "range needs a value {gte|gt, lte|lt}")
	}
	if (r.Gte == "") == (r.Gt == "") {
		return ptErr(vpath, c.spec.name, "", "range needs exactly one of gte, gt")
	}
	if (r.Lte == "") == (r.Lt == "") {
		return ptErr(vpath, c.spec.name, "", "range needs exactly one of lte, lt")
	}
	parse := func(field, s string, lower bool) (*rangeBound, error) {
		e, err := parseExtent(c.spec, s, true)
		if err != nil {
			return nil, ptErr(joinPath(vpath, field), c.spec.name, s, "%v", err)
		}
		inclusive := field == "gte" || field == "lte"
		// gte/lt compare with the value's first instant, gt/lte with its last.
		v := e.lo
		if (lower && !inclusive) || (!lower && inclusive) {
			v = e.hi
		}
		return &rangeBound{v: v, inclusive: inclusive}, nil
	}
	var err error
	if r.Gte != "" {
		c.lower, err = parse("gte", r.Gte, true)
	} else {
		c.lower, err = parse("gt", r.Gt, true)
	}
	if err != nil {
		return err
	}
	if r.Lte != "" {
		c.upper, err = parse("lte", r.Lte, false)
	} else {
		c.upper, err = parse("lt", r.Lt, false)
	}
	if err != nil {
		return err
	}
	if less(c.spec, c.upper.v, c.lower.v) {
		return ptErr(vpath, c.spec.name, "", "range start is after its end")
	}
	return nil
}

// parseExtent parses a number or date value, or a range "a,b" unless single.
func parseExtent(spec *keySpec, v string, single bool) (extent, error) {
	v = strings.TrimSpace(v)
	if spec.geoTime {
		return parseGeoTime(v, single)
	}
	if strings.Count(v, ",") > 1 {
		return extent{}, fmt.Errorf("several values in one: a,b is a range; for several values use in (\"values\": [...])")
	}
	if a, b, ok := strings.Cut(v, ","); ok {
		if single {
			return extent{}, fmt.Errorf("a range is only allowed in equals and in")
		}
		lo, hi := minNum(spec), maxNum(spec)
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		if a != "*" {
			e, err := parseScalar(spec, a)
			if err != nil {
				return extent{}, err
			}
			lo = e.lo
		}
		if b != "*" {
			e, err := parseScalar(spec, b)
			if err != nil {
				return extent{}, err
			}
			hi = e.hi
		}
		if less(spec, hi, lo) {
			return extent{}, fmt.Errorf("range start is after its end")
		}
		return extent{lo, hi}, nil
	}
	if v == "*" {
		return extent{}, fmt.Errorf("* is only allowed in a range")
	}
	return parseScalar(spec, v)
}

func minNum(spec *keySpec) num {
	if spec.kind == vFloat {
		return num{f: math.Inf(-1)}
	}
	return num{i: math.MinInt64}
}

func maxNum(spec *keySpec) num {
	if spec.kind == vFloat {
		return num{f: math.Inf(1)}
	}
	return num{i: math.MaxInt64}
}

func less(spec *keySpec, a, b num) bool {
	if spec.kind == vFloat {
		return a.f < b.f
	}
	return a.i < b.i
}

func parseScalar(spec *keySpec, s string) (extent, error) {
	switch spec.kind {
	case vInt:
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			if spec.taxon {
				// pygbif's default checklist is the Catalogue of Life,
				// whose keys (4QHKG) are not this table's.
				return extent{}, fmt.Errorf("not an integer: taxon keys here are the integer keys of the table's taxonomy (the species API's, e.g. /v1/species/match?name=...), not Catalogue of Life keys")
			}
			return extent{}, fmt.Errorf("not an integer")
		}
		if spec.min < spec.max && (float64(i) < spec.min || float64(i) > spec.max) {
			return extent{}, fmt.Errorf("out of range %g..%g", spec.min, spec.max)
		}
		return extent{num{i: i}, num{i: i}}, nil
	case vFloat:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return extent{}, fmt.Errorf("not a decimal number")
		}
		if spec.min < spec.max && (f < spec.min || f > spec.max) {
			return extent{}, fmt.Errorf("out of range %g..%g", spec.min, spec.max)
		}
		return extent{num{f: f}, num{f: f}}, nil
	default:
		lo, hi, err := parseISODate(s)
		if err != nil {
			return extent{}, err
		}
		return extent{num{i: lo}, num{i: hi}}, nil
	}
}

// parseISODate returns the first and last millisecond (UTC) of an ISO 8601
// date yyyy, yyyy-MM, yyyy-MM-dd or date-time.
func parseISODate(s string) (lo, hi int64, err error) {
	layouts := []struct {
		layout string
		next   func(time.Time) time.Time
	}{
		{"2006", func(t time.Time) time.Time { return t.AddDate(1, 0, 0) }},
		// One- or two-digit months and days, as GBIF's IsoDateFormat
		// reads them (1999-6, 1999-6-7).
		{"2006-1", func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }},
		{"2006-1-2", func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }},
		{"2006-01-02T15:04", func(t time.Time) time.Time { return t.Add(time.Minute) }},
		{"2006-01-02T15:04:05", func(t time.Time) time.Time { return t.Add(time.Second) }},
		{time.RFC3339Nano, func(t time.Time) time.Time { return t.Add(time.Millisecond) }},
	}
	for _, l := range layouts {
		t, e := time.ParseInLocation(l.layout, s, time.UTC)
		if e != nil {
			continue
		}
		if t.Year() < 1 || t.Year() > 9999 {
			break
		}
		t = t.UTC().Truncate(time.Millisecond)
		return t.UnixMilli(), l.next(t).UnixMilli() - 1, nil
	}
	return 0, 0, fmt.Errorf("not an ISO 8601 date (yyyy, yyyy-MM, yyyy-MM-dd or date-time)")
}

// foldString is the case folding of case-insensitive text comparisons.
func foldString(s string) string { return strings.ToLower(s) }
