package occurrence

import (
	"fmt"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// Limits bound what a predicate may cost before anything runs. Zero fields
// take DefaultLimits' values; a very large value lifts a rule. The parsers
// check them in two passes: the tree's shape (depth, nodes, values, polygon
// points, like patterns) before any leaf is compiled, then the estimated
// work per record of the compiled predicate (MaxCost).
type Limits struct {
	// MaxValues caps the expanded values: each value of an in, and one for
	// every other leaf (GBIF's "predicate items", 101,000).
	MaxValues int
	// MaxPolygonPoints caps the points of all within geometries (GBIF's
	// 5,000).
	MaxPolygonPoints int
	// MaxDepth caps the nesting of and, or and not.
	MaxDepth int
	// MaxNodes caps the predicates of the tree: and, or, not and leaves.
	MaxNodes int
	// MaxLikes caps the like predicates.
	MaxLikes int
	// MaxPatternLength caps the characters of one like pattern.
	MaxPatternLength int
	// MaxPatternWildcards caps the wildcards of one like pattern: each
	// '?' and each run of '*' (which matches as one).
	MaxPatternWildcards int
	// MaxCost caps the estimated work of evaluating the predicate on one
	// record, in units of about one value comparison (Predicate.Cost).
	MaxCost int
}

// The limit rules, named as the Limits fields (and the command line's
// flags) that set them.
const (
	RuleValues           = "maxValues"
	RulePolygonPoints    = "maxPolygonPoints"
	RuleDepth            = "maxDepth"
	RuleNodes            = "maxNodes"
	RuleLikes            = "maxLikes"
	RulePatternLength    = "maxPatternLength"
	RulePatternWildcards = "maxPatternWildcards"
	RuleCost             = "maxCost"
)

// DefaultLimits returns GBIF's limits (101,000 values, 5,000 polygon
// points) and this service's own: nesting 64 deep, 101,000 nodes, 1,000
// like predicates of at most 1,000 characters and 100 wildcards each, and
// a work estimate of 10,000 units per record (a predicate a portal builds
// costs well under 500; an or of 1,000 like predicates about 38,000).
func DefaultLimits() Limits {
	return Limits{MaxValues: 101000, MaxPolygonPoints: 5000, MaxDepth: 64, MaxNodes: 101000,
		MaxLikes: 1000, MaxPatternLength: 1000, MaxPatternWildcards: 100, MaxCost: 10000}
}

// WithDefaults returns l with every zero (or negative) field set to its
// default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	for _, f := range []struct{ v, d *int }{{&l.MaxValues, &d.MaxValues}, {&l.MaxPolygonPoints, &d.MaxPolygonPoints},
		{&l.MaxDepth, &d.MaxDepth}, {&l.MaxNodes, &d.MaxNodes}, {&l.MaxLikes, &d.MaxLikes},
		{&l.MaxPatternLength, &d.MaxPatternLength}, {&l.MaxPatternWildcards, &d.MaxPatternWildcards},
		{&l.MaxCost, &d.MaxCost}} {
		if *f.v <= 0 {
			*f.v = *f.d
		}
	}
	return l
}

func (l Limits) withDefaults() Limits { return l.WithDefaults() }

// Cost is what a predicate costs: the size of its tree and the estimated
// work of evaluating it on one record.
type Cost struct {
	Depth, Nodes, Values, Points, Likes int
	// Work is the estimated work per record, in units of about one value
	// comparison (about 2 ns on one core of a 2020s machine; BENCHMARKS.md
	// compares the estimate with measured times): a number compared with a
	// value or a set is 2 per column read, a text value 4-16, a like
	// pattern 12 and 6 more for each of its segments between stars, a
	// polygon 20 and more with its points, and each further branch of an
	// or 6 (its masks).
	Work int
}

// Cost returns the predicate's cost; nil costs nothing. A predicate built
// in code must be validated first.
func (p *Predicate) Cost() Cost {
	if p == nil {
		return Cost{}
	}
	w := &shapeWalker{lim: Limits{MaxDepth: 1 << 30, MaxPatternLength: 1 << 30, MaxPatternWildcards: 1 << 30}}
	w.walk(p, "", 1)
	c := w.cost
	c.Work = p.work(nil)
	return c
}

// shapeWalker checks the shape rules over a tree that is not compiled yet:
// the rules of one leaf at once, the totals after the whole tree (so that
// an error says the total), each with the path where the total went over.
type shapeWalker struct {
	lim  Limits
	cost Cost
	// fixed, when set, is the path reported for every node (a query
	// parameter).
	fixed string
	err   *PredicateError
	over  map[string]string // rule -> path where its total went over
}

func limitErr(path, key, rule string, got, limit int, reason string, args ...any) *PredicateError {
	return &PredicateError{Path: path, Key: key, Rule: rule, Got: got, Limit: limit, Err: ErrPredicateTooComplex,
		Reason: fmt.Sprintf(reason, args...)}
}

func (w *shapeWalker) path(p string) string {
	if w.fixed != "" {
		return w.fixed
	}
	return p
}

// count adds n to a total and remembers where it first went over.
func (w *shapeWalker) count(total *int, n, limit int, rule, path string) {
	*total += n
	if *total > limit && w.over[rule] == "" {
		if w.over == nil {
			w.over = map[string]string{}
		}
		w.over[rule] = w.path(path)
		if w.over[rule] == "" {
			w.over[rule] = "the predicate"
		}
	}
}

func (w *shapeWalker) walk(p *Predicate, path string, depth int) {
	if w.err != nil || p == nil {
		return
	}
	if depth > w.cost.Depth {
		w.cost.Depth = depth
	}
	if depth > w.lim.MaxDepth {
		w.err = limitErr(w.path(path), "", RuleDepth, depth, w.lim.MaxDepth, "nested deeper than %d levels (%s)", w.lim.MaxDepth, RuleDepth)
		return
	}
	w.count(&w.cost.Nodes, 1, w.lim.MaxNodes, RuleNodes, path)
	switch p.Type {
	case TypeAnd, TypeOr:
		for i, c := range p.Predicates {
			w.walk(c, fmt.Sprintf("%s[%d]", joinPath(path, "predicates"), i), depth+1)
		}
		return
	case TypeNot:
		w.walk(p.Predicate, joinPath(path, "predicate"), depth+1)
		return
	case TypeIn:
		w.count(&w.cost.Values, len(p.Values), w.lim.MaxValues, RuleValues, path)
	case TypeWithin:
		w.count(&w.cost.Values, 1, w.lim.MaxValues, RuleValues, path)
		w.count(&w.cost.Points, wktPoints(p.Geometry), w.lim.MaxPolygonPoints, RulePolygonPoints, joinPath(path, "geometry"))
	case TypeLike:
		w.count(&w.cost.Values, 1, w.lim.MaxValues, RuleValues, path)
		w.count(&w.cost.Likes, 1, w.lim.MaxLikes, RuleLikes, path)
		w.pattern(p, joinPath(path, "value"))
	default:
		w.count(&w.cost.Values, 1, w.lim.MaxValues, RuleValues, path)
	}
}

// pattern checks one like pattern's length and wildcards.
func (w *shapeWalker) pattern(p *Predicate, path string) {
	if n := utf8.RuneCountInString(p.Value); n > w.lim.MaxPatternLength {
		w.err = limitErr(w.path(path), p.Key, RulePatternLength, n, w.lim.MaxPatternLength,
			"like pattern of %d characters, over the limit of %d (%s)", n, w.lim.MaxPatternLength, RulePatternLength)
		return
	}
	if n := patternWildcards(p.Value); n > w.lim.MaxPatternWildcards {
		w.err = limitErr(w.path(path), p.Key, RulePatternWildcards, n, w.lim.MaxPatternWildcards,
			"like pattern with %d wildcards ('?' and runs of '*'), over the limit of %d (%s)", n, w.lim.MaxPatternWildcards, RulePatternWildcards)
	}
}

// finish returns the first rule the totals broke, GBIF's first.
func (w *shapeWalker) finish() error {
	if w.err != nil {
		return w.err
	}
	for _, r := range []struct {
		rule       string
		got, limit int
		what       string
	}{
		{RuleValues, w.cost.Values, w.lim.MaxValues, "predicate items (values)"},
		{RulePolygonPoints, w.cost.Points, w.lim.MaxPolygonPoints, "polygon points"},
		{RuleNodes, w.cost.Nodes, w.lim.MaxNodes, "predicates (nodes)"},
		{RuleLikes, w.cost.Likes, w.lim.MaxLikes, "like predicates"},
	} {
		if r.got > r.limit {
			if where := w.over[r.rule]; where != "the predicate" {
				return limitErr("", "", r.rule, r.got, r.limit, "%d %s, over the limit of %d (%s; the total went over at %s)",
					r.got, r.what, r.limit, r.rule, where)
			}
			return limitErr("", "", r.rule, r.got, r.limit, "%d %s, over the limit of %d (%s)", r.got, r.what, r.limit, r.rule)
		}
	}
	return nil
}

// patternWildcards counts a pattern's '?' and runs of '*'.
func patternWildcards(s string) int {
	n := strings.Count(s, "?")
	for i := 0; i < len(s); i++ {
		if s[i] == '*' && (i == 0 || s[i-1] != '*') {
			n++
		}
	}
	return n
}

// wktPoints counts the coordinate pairs of WKT without parsing it: numbers
// over two (parseWKT counts the same for valid 2D WKT).
func wktPoints(s string) int {
	nums, in := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		// an exponent's e continues a number; the E of LINESTRING or EMPTY
		// starts none
		num := c == '-' || c == '+' || c == '.' || (in && (c == 'e' || c == 'E')) || (c >= '0' && c <= '9')
		if num && !in {
			nums++
		}
		in = num
	}
	return nums / 2
}

// checkWork rejects a compiled predicate whose estimated work per record
// is over the limit, naming the part that costs most: the branch holding
// most of the cost, descending while one does; a node in names (a query
// parameter's) is named so and not descended into.
func checkWork(p *Predicate, lim Limits, names map[*Predicate]string) error {
	memo := map[*Predicate]int{}
	total := p.work(memo)
	if total <= lim.MaxCost {
		return nil
	}
	path, n := names[p], p
	for names[n] == "" {
		var best *Predicate
		bestPath := ""
		for i, c := range n.Predicates {
			if best == nil || memo[c] > memo[best] {
				best, bestPath = c, fmt.Sprintf("%s[%d]", joinPath(path, "predicates"), i)
			}
		}
		if n.Predicate != nil {
			best, bestPath = n.Predicate, joinPath(path, "predicate")
		}
		if best == nil || memo[best]*2 < memo[n] {
			break
		}
		n, path = best, bestPath
		if names[n] != "" {
			path = names[n]
		}
	}
	where := "the predicate"
	if path != "" {
		where = path
	}
	return limitErr("", "", RuleCost, total, lim.MaxCost, "estimated work of %d units per record, over the limit of %d (%s); "+
		"%s costs %d: use in for lists of values, fewer like patterns or fewer polygons", total, lim.MaxCost, RuleCost, where, memo[n])
}

// work estimates the work of evaluating p on one record (Cost.Work),
// recording each node's in memo when given.
func (p *Predicate) work(memo map[*Predicate]int) int {
	var w int
	switch p.Type {
	case TypeAnd:
		w = 1
		for _, c := range p.Predicates {
			w += c.work(memo)
		}
	case TypeOr:
		w = 1
		if plan := p.plan.Load(); plan != nil {
			for _, c := range plan.fused {
				w += c.work()
			}
			for _, c := range plan.rest {
				w += c.work(memo)
			}
			w += 6 * (len(plan.fused) + len(plan.rest) - 1)
			if memo != nil {
				for _, c := range p.Predicates {
					c.work(memo)
				}
			}
		} else {
			for _, c := range p.Predicates {
				w += c.work(memo)
			}
			w += 6 * (len(p.Predicates) - 1)
		}
	case TypeNot:
		w = 2 + p.Predicate.work(memo)
	default:
		w = p.comp().work()
	}
	if memo != nil {
		memo[p] = w
	}
	return w
}

// work estimates a compiled leaf's work per record.
func (c *compiled) work() int {
	switch c.op {
	case TypeWithin:
		return 20 + 2*len(c.geom.polys) + c.geom.points/50
	case TypeGeoDistance:
		return 20
	case TypeFullText:
		return 20 * len(FullTextColumns) * len(c.words)
	case TypeIsNull, TypeIsNotNull:
		return 1
	}
	if c.spec.kind == vDate || c.isSpan() {
		return 2 + searchWork(len(c.ivs))
	}
	if c.isFigures() { // each listed number parsed
		return 12 + searchWork(len(c.ivs))
	}
	per := 2
	switch {
	case c.spec.kind == vBool:
	case c.spec.kind.numeric():
		if c.bits == nil && c.iset == nil {
			per = max(2, searchWork(len(c.ivs)))
		}
	case c.sm.like:
		per = 0
		for _, m := range c.sm.likes {
			per += 12 + 6*m.segments() + len(m.first.s)/16
		}
	case c.sm.set != nil:
		per = 12
	default:
		per = 4 + 4*len(c.sm.vals)
	}
	if c.fold {
		per += 8
	}
	return per * len(c.cols())
}

// searchWork is the comparisons of finding a value among n intervals:
// each in turn up to 8, a binary search beyond.
func searchWork(n int) int {
	if n <= 8 {
		return max(n, 1)
	}
	return 2 + bits.Len(uint(n))
}
