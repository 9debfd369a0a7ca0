package occurrencetest

import (
	"fmt"
	"math"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Hostile is an adversarial predicate, generated (never stored), and the
// bounded outcome it must get under occurrence.DefaultLimits: rejection by
// Rule before anything runs, or acceptance with an estimated work per
// record of at most MaxWork.
type Hostile struct {
	Name string
	JSON string
	// Rule is the limit rule (occurrence.RuleCost...) that rejects it;
	// "" means it is accepted.
	Rule    string
	MaxWork int
}

// HostilePredicates returns the slow-predicate part of the hostile-input
// suite: what made counts run for minutes before predicates had a cost
// model (or of 1,000 and 20,000 like predicates, a like of 100,000 stars),
// deep nesting, lists at GBIF's limit, many polygons. Each fits in a 1 MiB
// request body.
func HostilePredicates() []Hostile {
	lim := occurrence.DefaultLimits()
	return []Hostile{
		{"or of 1,000 likes", orOf(1000, func(i int) string { return like("LOCALITY", fmt.Sprintf("*place %d*", i)) }),
			occurrence.RuleCost, 0},
		{"or of 20,000 likes", orOf(20000, func(i int) string { return like("LOCALITY", fmt.Sprintf("*%d*", i)) }),
			occurrence.RuleLikes, 0},
		{"like of 100,000 stars", like("LOCALITY", strings.Repeat("*", 100000)+"x"), occurrence.RulePatternLength, 0},
		{"like of 300 wildcards", like("LOCALITY", strings.Repeat("?*", 150)), occurrence.RulePatternWildcards, 0},
		{"nested 100 deep", nest(100), occurrence.RuleDepth, 0},
		{"nested 5,000 deep", nest(5000), occurrence.RuleDepth, 0},
		{"in of 101,000 taxon keys", inOf("TAXON_KEY", lim.MaxValues, func(i int) string { return fmt.Sprint(1 + i*7) }), "", 40},
		{"in of 101,000 year ranges", inOf("YEAR", lim.MaxValues, func(i int) string { return fmt.Sprintf("%d,%d", i%97, i%97+i%3) }), "", 40},
		{"in of 101,001 values", inOf("GBIF_ID", lim.MaxValues+1, func(i int) string { return fmt.Sprint(i) }), occurrence.RuleValues, 0},
		{"or of 20,000 equals on one key", orOf(20000, func(i int) string {
			return fmt.Sprintf(`{"type":"equals","key":"GBIF_ID","value":"%d"}`, i*3)
		}), "", 40},
		{"or of 5,000 ands", orOf(5000, func(i int) string {
			return fmt.Sprintf(`{"type":"and","predicates":[{"type":"equals","key":"YEAR","value":"%d"},{"type":"equals","key":"MONTH","value":"%d"}]}`, 1800+i%200, 1+i%12)
		}), occurrence.RuleCost, 0},
		{"or of 1,000 polygons", orOf(1000, func(i int) string { return within(polygon(i, 4)) }), occurrence.RuleCost, 0},
		{"polygon of 5,001 points", within(polygon(0, 5000)), occurrence.RulePolygonPoints, 0},
		{"or of 200 polygons of 25 points", orOf(200, func(i int) string { return within(polygon(i, 24)) }), "", lim.MaxCost},
	}
}

func like(key, pattern string) string {
	return fmt.Sprintf(`{"type":"like","key":%q,"value":%q}`, key, pattern)
}

func within(wkt string) string { return fmt.Sprintf(`{"type":"within","geometry":%q}`, wkt) }

func orOf(n int, leaf func(i int) string) string {
	var b strings.Builder
	b.WriteString(`{"type":"or","predicates":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(leaf(i))
	}
	b.WriteString(`]}`)
	return b.String()
}

func inOf(key string, n int, value func(i int) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"in","key":%q,"values":[`, key)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", value(i))
	}
	b.WriteString(`]}`)
	return b.String()
}

// nest wraps an equals in depth-1 nots.
func nest(depth int) string {
	return strings.Repeat(`{"type":"not","predicate":`, depth-1) + `{"type":"equals","key":"YEAR","value":"2000"}` +
		strings.Repeat(`}`, depth-1)
}

// PolygonWKT is the i-th of the suite's small polygons: a counter-clockwise
// n-gon, as the query string's geometry parameter takes it.
func PolygonWKT(i, n int) string { return polygon(i, n) }

// polygon is a counter-clockwise n-gon (n+1 points, closed) of radius 0.4
// degrees around a centre that moves with i, so that polygons differ.
func polygon(i, n int) string {
	cx, cy := -170+float64(i%300), -50+float64(i/300)*10
	var b strings.Builder
	b.WriteString("POLYGON((")
	for k := 0; k <= n; k++ {
		a := 2 * math.Pi * float64(k%n) / float64(n)
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%.5f %.5f", cx+0.4*math.Cos(a), cy+0.4*math.Sin(a))
	}
	b.WriteString("))")
	return b.String()
}
