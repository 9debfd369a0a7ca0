package occurrence

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// interval is an inclusive span of matching values; for date keys a record
// matches when start >= lo and end <= hi.
type interval struct{ lo, hi num }

// prepareEval builds the vectorized forms of a compiled simple predicate.
func (c *compiled) prepareEval() {
	k := c.spec.kind
	switch {
	case k.text():
		c.sm = newStrMatcher(c)
	case k.numeric():
		c.buildIntervals()
	}
}

func (c *compiled) buildIntervals() {
	fl := c.spec.kind == vFloat
	prev := func(v num) (num, bool) {
		if fl {
			return num{f: math.Nextafter(v.f, math.Inf(-1))}, true
		}
		return num{i: v.i - 1}, v.i != math.MinInt64
	}
	next := func(v num) (num, bool) {
		if fl {
			return num{f: math.Nextafter(v.f, math.Inf(1))}, true
		}
		return num{i: v.i + 1}, v.i != math.MaxInt64
	}
	lo, hi := minNum(c.spec), maxNum(c.spec)
	add := func(a, b num, ok bool) {
		if ok {
			c.ivs = append(c.ivs, interval{a, b})
		}
	}
	switch c.op {
	case TypeEquals, TypeIn:
		for _, e := range c.exts {
			add(e.lo, e.hi, true)
		}
	case TypeLessThan:
		p, ok := prev(c.exts[0].lo)
		add(lo, p, ok)
	case TypeLessThanOrEquals:
		add(lo, c.exts[0].hi, true)
	case TypeGreaterThan:
		n, ok := next(c.exts[0].hi)
		add(n, hi, ok)
	case TypeGreaterThanOrEquals:
		add(c.exts[0].lo, hi, true)
	case TypeRange:
		a, b, ok1, ok2 := c.lower.v, c.upper.v, true, true
		if !c.lower.inclusive {
			a, ok1 = next(a)
		}
		if !c.upper.inclusive {
			b, ok2 = prev(b)
		}
		add(a, b, ok1 && ok2)
	}
	if c.spec.kind == vInt && len(c.ivs) > 4 {
		c.buildSet()
	}
	if c.bits == nil && c.iset == nil && len(c.ivs) > 8 {
		c.ivx = newIntervalIndex(c.ivs, fl)
	}
}

// intervalIndex finds whether a span [s, e] lies within one of many
// intervals in a binary search: the intervals sorted by start, with the
// largest end among each prefix (ints and timestamps, or floats).
type intervalIndex struct {
	i spans[int64]
	f spans[float64]
}

type spans[T cmp.Ordered] struct{ lo, hiMax []T }

func newIntervalIndex(ivs []interval, fl bool) *intervalIndex {
	x := &intervalIndex{}
	if fl {
		x.f = newSpans(ivs, func(v num) float64 { return v.f })
	} else {
		x.i = newSpans(ivs, func(v num) int64 { return v.i })
	}
	return x
}

func newSpans[T cmp.Ordered](ivs []interval, val func(num) T) spans[T] {
	s := slices.Clone(ivs)
	slices.SortFunc(s, func(a, b interval) int { return cmp.Compare(val(a.lo), val(b.lo)) })
	var x spans[T]
	for k, iv := range s {
		x.lo = append(x.lo, val(iv.lo))
		x.hiMax = append(x.hiMax, val(iv.hi))
		if k > 0 {
			x.hiMax[k] = max(x.hiMax[k], x.hiMax[k-1])
		}
	}
	return x
}

// within reports whether some interval holds [s, e]: of the intervals
// starting at or before s, the one reaching furthest must reach e.
func (x *spans[T]) within(s, e T) bool {
	lo, hi := 0, len(x.lo)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.lo[m] <= s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo > 0 && x.hiMax[lo-1] >= e
}

// buildSet turns many single integer values into a bit set when their span
// is small enough (taxon keys), else a hash set.
func (c *compiled) buildSet() {
	lo, hi := c.ivs[0].lo.i, c.ivs[0].lo.i
	for _, iv := range c.ivs {
		if iv.lo.i != iv.hi.i {
			return
		}
		lo, hi = min(lo, iv.lo.i), max(hi, iv.lo.i)
	}
	if span := uint64(hi - lo); hi-lo >= 0 && span < 1<<26 && span/64 <= uint64(64*len(c.ivs)+1024) {
		bs := &bitSet{min: lo, words: make([]uint64, span/64+1)}
		for _, iv := range c.ivs {
			d := uint64(iv.lo.i - lo)
			bs.words[d>>6] |= 1 << (d & 63)
		}
		c.bits = bs
		return
	}
	c.iset = make(map[int64]struct{}, len(c.ivs))
	for _, iv := range c.ivs {
		c.iset[iv.lo.i] = struct{}{}
	}
}

// strMatcher matches text values for Eval, MayMatch's dictionaries and the
// like patterns.
type strMatcher struct {
	fold bool
	like bool
	sep  byte // 0, ';' (any element) or '|' (whole value or any part, parts split at ';' or '|')
	vals []string
	set  map[string]struct{}
	// likes are the compiled patterns of vals (like only).
	likes []*likeMatcher
}

// exact reports plain exact comparison: no folding, elements or patterns.
func (m *strMatcher) exact() bool { return !m.fold && !m.like && m.sep == 0 && m.set == nil }

func newStrMatcher(c *compiled) *strMatcher {
	m := &strMatcher{fold: c.fold, like: c.op == TypeLike, vals: c.strs}
	switch c.spec.kind {
	case vMulti:
		m.sep = ';'
	case vPiped:
		m.sep = '|'
	}
	if m.like {
		m.likes = make([]*likeMatcher, len(m.vals))
		for i, v := range m.vals {
			m.likes[i] = compileLike(v)
		}
	}
	if !m.like && len(m.vals) > 8 {
		m.set = make(map[string]struct{}, len(m.vals))
		for _, v := range m.vals {
			m.set[v] = struct{}{}
		}
	}
	return m
}

// match reports whether stored value s matches; buf is scratch space.
func (m *strMatcher) match(s string, buf *[]byte) bool {
	if m.fold {
		s = foldInto(s, buf)
	}
	if m.sep == 0 {
		return m.matchOne(s)
	}
	if m.sep == '|' && m.matchOne(s) {
		return true
	}
	for {
		i := strings.IndexByte(s, m.sep)
		if m.sep == '|' {
			i = strings.IndexAny(s, "|;")
		}
		part := s
		if i >= 0 {
			part = s[:i]
		}
		if m.matchOne(strings.TrimSpace(part)) {
			return true
		}
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
}

func (m *strMatcher) matchOne(s string) bool {
	if m.like {
		for _, p := range m.likes {
			if p.match(s) {
				return true
			}
		}
		return false
	}
	if m.set != nil {
		_, ok := m.set[s]
		return ok
	}
	for _, v := range m.vals {
		if v == s {
			return true
		}
	}
	return false
}

// foldInto lower-cases s like foldString, without allocating for ASCII.
func foldInto(s string, buf *[]byte) string {
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return foldString(s)
		}
		if c >= 'A' && c <= 'Z' {
			upper = true
		}
	}
	if !upper {
		return s
	}
	b := append((*buf)[:0], s...)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	*buf = b
	return unsafe.String(unsafe.SliceData(b), len(b))
}
