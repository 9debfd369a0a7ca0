package occurrence

import (
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// MayMatch reports whether a split with these statistics may hold a matching
// row. It returns false only when the statistics prove that no row matches
// (min/max, null counts, complete dictionaries); missing statistics never
// prune. A nil predicate or nil Stats always may match.
func (p *Predicate) MayMatch(s Stats) bool {
	if p == nil || s == nil {
		return true
	}
	return p.may(s)
}

func (p *Predicate) may(s Stats) bool {
	switch p.Type {
	case TypeAnd:
		for _, c := range p.Predicates {
			if !c.may(s) {
				return false
			}
		}
		return true
	case TypeOr:
		for _, c := range p.Predicates {
			if c.may(s) {
				return true
			}
		}
		return false
	case TypeNot:
		return !p.Predicate.all(s)
	}
	return p.comp().may(s)
}

// all reports whether the statistics prove that every row matches.
func (p *Predicate) all(s Stats) bool {
	switch p.Type {
	case TypeAnd:
		for _, c := range p.Predicates {
			if !c.all(s) {
				return false
			}
		}
		return true
	case TypeOr:
		for _, c := range p.Predicates {
			if c.all(s) {
				return true
			}
		}
		return false
	case TypeNot:
		return !p.Predicate.may(s)
	}
	return p.comp().all(s)
}

func allNull(cs ColumnStats) bool  { return cs.Rows > 0 && cs.NullCount >= cs.Rows }
func noNulls(cs ColumnStats) bool  { return cs.NullCount == 0 }
func (c *compiled) fl() bool       { return c.spec != nil && c.spec.kind == vFloat }
func (c *compiled) isDate() bool   { return c.spec != nil && c.spec.kind == vDate }
func (c *compiled) single() string { return c.spec.cols[0] }

func (c *compiled) may(s Stats) bool {
	switch c.op {
	case TypeWithin, TypeGeoDistance:
		return c.mayGeo(s)
	case TypeFullText:
		return true
	case TypeIsNull:
		cs, ok := s.ColumnStats(c.single())
		return !ok || !noNulls(cs)
	case TypeIsNotNull:
		cs, ok := s.ColumnStats(c.single())
		return !ok || !allNull(cs)
	}
	if c.isDate() || c.isSpan() {
		return c.maySpan(s)
	}
	if c.isFigures() { // text statistics say nothing of the numbers
		cs, ok := s.ColumnStats(c.single())
		return !ok || !allNull(cs)
	}
	for _, col := range c.spec.cols {
		cs, ok := s.ColumnStats(col)
		if !ok || c.mayColumn(cs) {
			return true
		}
	}
	return false
}

func (c *compiled) mayColumn(cs ColumnStats) bool {
	if allNull(cs) {
		return false
	}
	k := c.spec.kind
	switch {
	case k.text():
		if cs.Values != nil {
			var buf []byte
			for _, v := range cs.Values {
				if c.sm.match(v, &buf) {
					return true
				}
			}
			return false
		}
		if c.fold || c.sm.like || c.sm.sep != 0 || !cs.HasMinMax {
			return true
		}
		lo, ok1 := cs.Min.(string)
		hi, ok2 := cs.Max.(string)
		if !ok1 || !ok2 {
			return true
		}
		for _, v := range c.strs {
			if v >= lo && v <= hi {
				return true
			}
		}
		return false
	case k == vBool:
		lo, ok1 := cs.Min.(bool)
		hi, ok2 := cs.Max.(bool)
		if !cs.HasMinMax || !ok1 || !ok2 {
			return true
		}
		for _, b := range c.bools {
			if (b && hi) || (!b && !lo) {
				return true
			}
		}
		return false
	}
	lo, hi, ok := c.statRange(cs)
	if !ok {
		return true
	}
	for _, iv := range c.ivs {
		if c.fl() && iv.lo.f <= hi.f && iv.hi.f >= lo.f {
			return true
		}
		if !c.fl() && iv.lo.i <= hi.i && iv.hi.i >= lo.i {
			return true
		}
	}
	return false
}

// statRange converts a column's min/max to the key's number domain.
func (c *compiled) statRange(cs ColumnStats) (lo, hi num, ok bool) {
	if !cs.HasMinMax {
		return lo, hi, false
	}
	if c.fl() {
		a, b, ok := floatRange(cs)
		return num{f: a}, num{f: b}, ok
	}
	a, ok1 := toInt(cs.Min)
	b, ok2 := toInt(cs.Max)
	return num{i: a}, num{i: b}, ok1 && ok2
}

func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int:
		return int64(x), true
	case arrow.Timestamp:
		return int64(x), true
	case time.Time:
		return x.UnixMilli(), true
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	}
	return 0, false
}

// maySpan: some row of a span leaf (eventDate; GEOLOGICAL_TIME's equals,
// in and range) needs its lower bound (cols[0]) >= lo and its upper bound
// (cols[1], the lower one when null) <= hi.
func (c *compiled) maySpan(s Stats) bool {
	ls, ok := s.ColumnStats(c.spec.cols[0])
	if !ok {
		return true
	}
	if allNull(ls) {
		return false
	}
	_, lMax, okL := c.statRange(ls)
	us, okU := s.ColumnStats(c.spec.cols[1])
	uMin, haveU := num{}, false
	if okU {
		if m, _, ok := c.statRange(us); ok {
			uMin, haveU = m, true
			if us.NullCount > 0 { // null upper bounds take the lower's value
				lMin, _, ok := c.statRange(ls)
				if !ok {
					haveU = false
				} else if less(c.spec, lMin, uMin) {
					uMin = lMin
				}
			}
		} else if allNull(us) {
			if lMin, _, ok := c.statRange(ls); ok {
				uMin, haveU = lMin, true
			}
		}
	}
	for _, iv := range c.ivs {
		if okL && less(c.spec, lMax, iv.lo) {
			continue
		}
		if haveU && less(c.spec, iv.hi, uMin) {
			continue
		}
		return true
	}
	return false
}

func (c *compiled) mayGeo(s Stats) bool {
	la, ok1 := s.ColumnStats(ColDecimalLatitude)
	lo, ok2 := s.ColumnStats(ColDecimalLongitude)
	if (ok1 && allNull(la)) || (ok2 && allNull(lo)) {
		return false
	}
	latMin, latMax, okLat := floatRange(la)
	lonMin, lonMax, okLon := floatRange(lo)
	okLat, okLon = okLat && ok1, okLon && ok2
	if c.circle != nil {
		return !okLat || (latMax >= c.circle.lat-c.circle.latDeg && latMin <= c.circle.lat+c.circle.latDeg)
	}
	g := c.geom
	if okLat && (latMax < g.minY || latMin > g.maxY) {
		return false
	}
	if !okLon {
		return true
	}
	for _, shift := range [3]float64{0, 360, -360} {
		// a longitude x is tested as x+shift against the polygon's extent
		if lonMax+shift >= g.minX-bboxSlack && lonMin+shift <= g.maxX+bboxSlack {
			return true
		}
	}
	return false
}

// floatRange returns a column's min/max as floats, when both are numbers.
func floatRange(cs ColumnStats) (lo, hi float64, ok bool) {
	if !cs.HasMinMax {
		return 0, 0, false
	}
	a, ok1 := toFloat(cs.Min)
	b, ok2 := toFloat(cs.Max)
	return a, b, ok1 && ok2 && !math.IsNaN(a) && !math.IsNaN(b)
}

// all reports whether the statistics prove every row matches (used under
// not). It is conservative: only single-column keys without nulls.
func (c *compiled) all(s Stats) bool {
	if c.spec == nil {
		return false
	}
	cs, ok := s.ColumnStats(c.single())
	if !ok {
		return false
	}
	switch c.op {
	case TypeIsNull:
		return allNull(cs)
	case TypeIsNotNull:
		return cs.Rows > 0 && noNulls(cs)
	}
	if len(c.spec.cols) != 1 || !noNulls(cs) || cs.Rows == 0 || c.isFigures() {
		return false
	}
	k := c.spec.kind
	switch {
	case k.text():
		if len(cs.Values) == 0 {
			return false
		}
		var buf []byte
		for _, v := range cs.Values {
			if !c.sm.match(v, &buf) {
				return false
			}
		}
		return true
	case k == vInt || k == vFloat || k == vTime:
		lo, hi, ok := c.statRange(cs)
		if !ok {
			return false
		}
		for _, iv := range c.ivs {
			if c.fl() && iv.lo.f <= lo.f && hi.f <= iv.hi.f {
				return true
			}
			if !c.fl() && iv.lo.i <= lo.i && hi.i <= iv.hi.i {
				return true
			}
		}
	}
	return false
}
