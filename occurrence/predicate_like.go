package occurrence

import (
	"strings"
	"unicode/utf8"
)

// likeMatcher is a like pattern compiled once: the pattern split at its
// runs of '*' into segments of literal bytes and '?' (one rune each). The
// first segment is anchored at the start of the value, the last at its
// end, and the ones between are found leftmost-first in order (a segment
// has a fixed number of runes, so the leftmost match always leaves the
// most room for the rest). Matching costs one pass per segment over the
// value, whatever the number of stars: "a****b" is "a*b".
//
// Written by hand: no fetchable Go library matches GBIF's like (the
// standard library's path.Match and filepath.Match treat '[' and '\'
// specially and match '*' within one path element).
type likeMatcher struct {
	// star is false for a pattern without '*': the value must match
	// first exactly.
	star          bool
	first, last   likeSeg
	middle        []likeSeg
	minLen        int // bytes a match needs at least: one per '?', each literal byte
	exact, prefix bool
}

// likeSeg is a segment between stars: literal bytes and '?'.
type likeSeg struct {
	s     string
	wild  bool // holds '?'
	runes int  // runes it matches
}

func newLikeSeg(s string) likeSeg {
	return likeSeg{s: s, wild: strings.IndexByte(s, '?') >= 0, runes: utf8.RuneCountInString(s)}
}

// compileLike compiles a like pattern ('*' any run, '?' one rune).
func compileLike(p string) *likeMatcher {
	m := &likeMatcher{}
	i := strings.IndexByte(p, '*')
	if i < 0 {
		m.first = newLikeSeg(p)
		m.minLen = len(p)
		m.exact = !m.first.wild
		return m
	}
	m.star = true
	j := strings.LastIndexByte(p, '*')
	m.first, m.last = newLikeSeg(p[:i]), newLikeSeg(p[j+1:])
	if i < j {
		for _, s := range strings.Split(p[i+1:j], "*") {
			if s != "" {
				m.middle = append(m.middle, newLikeSeg(s))
			}
		}
	}
	m.minLen = len(p) - strings.Count(p, "*")
	m.prefix = !m.first.wild && m.last.s == "" && len(m.middle) == 0
	return m
}

// segments is the number of segments the matcher tests (its work per
// value, in passes).
func (m *likeMatcher) segments() int {
	n := 1 + len(m.middle)
	if m.star {
		n++
	}
	return n
}

// match reports whether s matches the pattern.
func (m *likeMatcher) match(s string) bool {
	if len(s) < m.minLen {
		return false
	}
	switch {
	case m.exact:
		return s == m.first.s
	case m.prefix:
		return strings.HasPrefix(s, m.first.s)
	case !m.star:
		end, ok := m.first.matchAt(s, 0)
		return ok && end == len(s)
	}
	start, ok := m.first.matchAt(s, 0)
	if !ok {
		return false
	}
	stop, ok := m.last.matchEnd(s, len(s))
	if !ok || stop < start {
		return false
	}
	for _, seg := range m.middle {
		end, ok := seg.find(s[:stop], start)
		if !ok {
			return false
		}
		start = end
	}
	return true
}

// matchAt matches the segment at s[i:], returning where it ends.
func (g *likeSeg) matchAt(s string, i int) (int, bool) {
	if !g.wild {
		if strings.HasPrefix(s[i:], g.s) {
			return i + len(g.s), true
		}
		return 0, false
	}
	for k := 0; k < len(g.s); k++ {
		if i >= len(s) {
			return 0, false
		}
		if g.s[k] == '?' {
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
			continue
		}
		if s[i] != g.s[k] {
			return 0, false
		}
		i++
	}
	return i, true
}

// matchEnd matches the segment ending at s[:j], returning where it starts.
func (g *likeSeg) matchEnd(s string, j int) (int, bool) {
	if !g.wild {
		if strings.HasSuffix(s[:j], g.s) {
			return j - len(g.s), true
		}
		return 0, false
	}
	for k := len(g.s) - 1; k >= 0; k-- {
		if j <= 0 {
			return 0, false
		}
		if g.s[k] == '?' {
			_, n := utf8.DecodeLastRuneInString(s[:j])
			j -= n
			continue
		}
		if s[j-1] != g.s[k] {
			return 0, false
		}
		j--
	}
	return j, true
}

// find returns the end of the leftmost match of the segment in s at or
// after from (rune-aligned starts).
func (g *likeSeg) find(s string, from int) (int, bool) {
	if !g.wild {
		k := strings.Index(s[from:], g.s)
		if k < 0 {
			return 0, false
		}
		return from + k + len(g.s), true
	}
	// Try each rune-aligned start.
	for i := from; i < len(s); {
		if end, ok := g.matchAt(s, i); ok {
			return end, true
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	return 0, false
}
