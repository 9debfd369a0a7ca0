package occurrence

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// GEOLOGICAL_TIME, as GBIF's download and search services answer it
// (occurrence-search RequestFieldsTranslator.processGeoTimeParam, then
// gbif-predicates SQLQueryVisitor on the geologicaltime column, whose lte
// is the record's start age and gt its end age):
//
//   - equals (and each value of in) a GeoTime concept, "Jurassic", matches
//     the records whose geological time lies within the concept's span;
//     "A,B" within the span of both, from the younger end to the older
//     start, in either order ("*" leaves a side open); naming a concept
//     inside the other is an error, as in GBIF's;
//   - greaterThanOrEquals C: the record's end is no younger than C's end;
//     greaterThan C: its start is older than C's start; lessThanOrEquals C:
//     its start is no older than C's start; lessThan C: its end is younger
//     than C's end.
//
// Here a value may also be a number of millions of years, which GBIF's
// service refuses (it looks every value up in the vocabulary): "0,10" is
// the last ten million years.

// parseGeoTime parses a GEOLOGICAL_TIME value into the span it names: lo
// the young end, hi the old start, in millions of years.
func parseGeoTime(v string, single bool) (extent, error) {
	if strings.Count(v, ",") > 1 {
		return extent{}, fmt.Errorf("several values in one: a,b is a span; for several values use in (\"values\": [...])")
	}
	a, b, isRange := strings.Cut(v, ",")
	if !isRange {
		if v == "*" {
			return extent{}, fmt.Errorf("* is only allowed in a span a,b")
		}
		return geoTimeValue(v)
	}
	if single {
		return extent{}, fmt.Errorf("a span a,b is only allowed in equals and in")
	}
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if a == "*" && b == "*" {
		return extent{num{f: math.Inf(-1)}, num{f: math.Inf(1)}}, nil
	}
	if a == "*" || b == "*" {
		side := a
		if a == "*" {
			side = b
		}
		x, err := geoTimeValue(side)
		if err != nil {
			return extent{}, err
		}
		if a == "*" { // up to the older start of B
			return extent{num{f: math.Inf(-1)}, x.hi}, nil
		}
		return extent{x.lo, num{f: math.Inf(1)}}, nil // from A's end on
	}
	x, err := geoTimeValue(a)
	if err != nil {
		return extent{}, err
	}
	y, err := geoTimeValue(b)
	if err != nil {
		return extent{}, err
	}
	if isConcept(a) && isConcept(b) && (spanWithin(x, y) || spanWithin(y, x)) {
		return extent{}, fmt.Errorf("%s and %s: one of the spans lies within the other", a, b)
	}
	return extent{num{f: math.Min(x.lo.f, y.lo.f)}, num{f: math.Max(x.hi.f, y.hi.f)}}, nil
}

func spanWithin(in, out extent) bool { return in.lo.f >= out.lo.f && in.hi.f <= out.hi.f }

// isConcept reports a value that is no number (a concept's name).
func isConcept(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err != nil
}

// geoTimeValue is one value's span: a concept's, or a number's point.
func geoTimeValue(s string) (extent, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return extent{}, fmt.Errorf("not a number of millions of years before present")
		}
		return extent{num{f: f}, num{f: f}}, nil
	}
	_, start, end, ok := geoTimeSpan(s)
	if !ok {
		return extent{}, fmt.Errorf("not a concept of GBIF's GeoTime vocabulary (an eon, era, period, epoch or age such as %s) nor a number of millions of years",
			listSome([]string{"Phanerozoic", "Mesozoic", "Jurassic", "Miocene", "Zanclean"}, 5))
	}
	return extent{num{f: end}, num{f: start}}, nil
}

// geoTimeBound turns a GEOLOGICAL_TIME comparison into a comparison of one
// of its ages, GBIF's: greaterThanOrEquals and lessThan compare the end
// with the value's end, greaterThan and lessThanOrEquals the start with
// the value's start (the span's ends, lo and hi, are what the float key's
// comparisons read).
func (c *compiled) geoTimeBound() {
	if !c.spec.geoTime {
		return
	}
	col := ""
	switch c.op {
	case TypeGreaterThanOrEquals, TypeLessThan:
		col = c.spec.cols[0]
	case TypeGreaterThan, TypeLessThanOrEquals:
		col = c.spec.cols[1]
	default:
		return
	}
	one := *c.spec
	one.cols, one.geoTime = []string{col}, false
	c.spec = &one
}

// isSpan reports a leaf comparing a GEOLOGICAL_TIME span (equals, in,
// range), which reads both ages of each record.
func (c *compiled) isSpan() bool { return c.spec != nil && c.spec.geoTime }

// evalGeoTime evaluates a span leaf: the record's [end, start] within one
// of the leaf's spans.
func evalGeoTime(endArr, startArr arrow.Array, c *compiled, out, mask []bool) {
	ea, ok1 := endArr.(*array.Float64)
	sa, ok2 := startArr.(*array.Float64)
	if !ok1 || !ok2 {
		panic(fmt.Sprintf("occurrence: geological time columns must be float64, got %s and %s", endArr.DataType(), startArr.DataType()))
	}
	ev, sv := ea.Float64Values(), sa.Float64Values()
	for i := range out {
		if (mask != nil && !mask[i]) || ea.IsNull(i) || sa.IsNull(i) {
			out[i] = false
			continue
		}
		out[i] = c.spanIn(ev[i], sv[i])
	}
}

// spanIn reports whether [s, e] lies within one of a float leaf's
// intervals: through the interval index when the leaf has many, as the
// work estimate assumes.
func (c *compiled) spanIn(s, e float64) bool {
	if c.ivx != nil {
		return c.ivx.f.within(s, e)
	}
	for _, iv := range c.ivs {
		if iv.lo.f <= s && e <= iv.hi.f {
			return true
		}
	}
	return false
}
