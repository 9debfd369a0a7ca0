package occurrence

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
)

// Predicate types, spelled as in GBIF's predicate JSON.
const (
	TypeAnd                 = "and"
	TypeOr                  = "or"
	TypeNot                 = "not"
	TypeEquals              = "equals"
	TypeIn                  = "in"
	TypeLessThan            = "lessThan"
	TypeLessThanOrEquals    = "lessThanOrEquals"
	TypeGreaterThan         = "greaterThan"
	TypeGreaterThanOrEquals = "greaterThanOrEquals"
	TypeLike                = "like"
	TypeIsNull              = "isNull"
	TypeIsNotNull           = "isNotNull"
	TypeWithin              = "within"
	TypeGeoDistance         = "geoDistance"
	TypeRange               = "range"
)

var predicateTypes = []string{
	TypeAnd, TypeOr, TypeNot, TypeEquals, TypeIn, TypeLessThan, TypeLessThanOrEquals,
	TypeGreaterThan, TypeGreaterThanOrEquals, TypeLike, TypeIsNull, TypeIsNotNull,
	TypeWithin, TypeGeoDistance, TypeRange,
}

// Predicate is one node of a GBIF occurrence predicate: a parsed, validated
// tree built by ParsePredicateJSON or ParseQuery. A nil *Predicate matches every
// record.
//
// Semantics (GBIF's, with the choices GBIF leaves open written down):
//   - Keys are GBIF search-parameter names (see SearchKeys); TAXON_KEY matches a
//     record whose taxonKey, acceptedTaxonKey or any of kingdomKey..speciesKey is
//     the value.
//   - Text equals/in/like are case-insensitive unless MatchCase is true
//     (GBIF's default matchCase=false). Codes (COUNTRY, DATASET_KEY, LICENSE,
//     vocabulary keys) are normalized when parsed and compared exactly. like
//     takes "*" (any run) and "?" (one character).
//   - Numeric and date keys take a single value or a range "a,b" ("*" for an
//     open end) in equals/in. A record's eventDate is an interval
//     [eventDateStart, eventDateEnd]; it matches a date or range only when the
//     whole interval lies within it (GBIF's rule since 2023), so "2000-05"
//     matches 2000-05-11 and 2000-05-01/2000-05-31 but not 2000-04-30/2000-05-02.
//     lessThan/lessThanOrEquals compare the interval's end, greaterThan and
//     greaterThanOrEquals its start. A null eventDateEnd means the start.
//   - not is the boolean complement: not(COUNTRY=DK) includes records without a
//     country. A null never equals or compares to anything.
//   - within/geoDistance never match a record without both coordinates.
//   - isNull/isNotNull test the key's first column: taxonKey for TAXON_KEY,
//     eventDateStart for EVENT_DATE.
//   - Concurrency: a parsed predicate is immutable and safe for concurrent
//     Eval, MatchRow and MayMatch.
type Predicate struct {
	Type       string
	Key        string   // canonical search parameter (COUNTRY); simple predicates
	Value      string   // equals, comparisons, like
	Values     []string // in
	MatchCase  *bool    // text comparisons; nil means false
	Predicates []*Predicate
	Predicate  *Predicate // not
	Parameter  string     // isNull, isNotNull
	Geometry   string     // within: WKT POLYGON or MULTIPOLYGON
	Latitude   float64    // geoDistance
	Longitude  float64    // geoDistance
	Distance   string     // geoDistance: "10km", "500m", "1.5mi"
	Range      *RangeValue
	Words      []string // fullText: distinct lower-case words (FullText)
	MinWords   int      // fullText: how many of Words a record holds at least
	MaxWords   int      // fullText: and at most (0: no bound; FullTextExactly)
	// ChecklistKey is the taxonomy a predicate's taxon key belongs to
	// (GBIF's checklistKey, which pygbif 0.7 adds to taxon-key predicates).
	// It is kept with the predicate and not used to match: the table has
	// the one taxonomy its records were ingested with.
	ChecklistKey string

	c atomic.Pointer[compiled]
	// plan is how a validated or evaluates (orPlan).
	plan atomic.Pointer[orPlan]
}

// RangeValue bounds a range predicate: one of Gte/Gt and one of Lte/Lt.
type RangeValue struct {
	Gte, Gt, Lte, Lt string
}

// Error kinds of predicate parsing.
var (
	// ErrInvalidPredicate marks a predicate that is malformed or names an unknown
	// key or a value the key cannot take.
	ErrInvalidPredicate = errors.New("invalid predicate")
	// ErrPredicateTooComplex marks a predicate over the configured Limits.
	ErrPredicateTooComplex = errors.New("predicate too complex")
)

// PredicateError says where a predicate is wrong and why. errors.Is(err,
// ErrInvalidPredicate) or ErrPredicateTooComplex tells the kind.
type PredicateError struct {
	Path   string // JSON path (predicates[2].value) or query parameter
	Key    string
	Value  string
	Reason string
	Err    error // ErrInvalidPredicate or ErrPredicateTooComplex
	// Rule names the limit a too-complex predicate broke (RuleCost...),
	// with the limit and what the predicate has.
	Rule       string
	Got, Limit int
}

func (e *PredicateError) Error() string {
	var b strings.Builder
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString(ErrInvalidPredicate.Error())
	}
	if e.Path != "" {
		fmt.Fprintf(&b, " at %s", e.Path)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": key %s", e.Key)
	}
	if e.Value != "" {
		v := e.Value
		if len(v) > 120 {
			v = v[:117] + "..."
		}
		fmt.Fprintf(&b, " value %q", v)
	}
	fmt.Fprintf(&b, ": %s", e.Reason)
	return b.String()
}

func (e *PredicateError) Unwrap() error {
	if e.Err == nil {
		return ErrInvalidPredicate
	}
	return e.Err
}

// Columns returns the columns the predicate reads, sorted and unique.
func (p *Predicate) Columns() []string {
	return p.columns(nil)
}

// columns lists the columns the predicate reads, leaving out those a leaf
// reads that skip reports it can do without. The leaves are the ones Eval
// evaluates (an or's fused leaves in place of their members).
func (p *Predicate) columns(skip func(c *compiled, col string) bool) []string {
	if p == nil {
		return nil
	}
	set := map[string]struct{}{}
	p.leaves(func(c *compiled) {
		if c.spec != nil {
			for _, col := range c.cols() {
				if skip == nil || !skip(c, col) {
					set[col] = struct{}{}
				}
			}
		}
		if c.op == TypeWithin || c.op == TypeGeoDistance {
			set[ColDecimalLatitude] = struct{}{}
			set[ColDecimalLongitude] = struct{}{}
		}
		if c.op == TypeFullText {
			for _, col := range FullTextColumns {
				set[col] = struct{}{}
			}
		}
	})
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// Validate checks a Predicate built in code (not by a parser), normalizes its
// keys and values in place and prepares it for evaluation; call it before
// sharing the predicate. Parsed predicates are already valid. An unvalidated
// predicate is compiled on first use and panics there if it is invalid.
func (p *Predicate) Validate(lim Limits) error {
	if p == nil {
		return nil
	}
	return validateTree(p, lim.withDefaults())
}

// comp returns the compiled form of a leaf, compiling a hand-built predicate
// on first use (panicking if it is invalid: call Validate first).
func (p *Predicate) comp() *compiled {
	if c := p.c.Load(); c != nil {
		return c
	}
	switch p.Type {
	case TypeAnd, TypeOr, TypeNot:
		return nil
	}
	// Compile a copy so that concurrent first uses never write to p.
	cp := &Predicate{Type: p.Type, Key: p.Key, Value: p.Value, Values: append([]string(nil), p.Values...),
		MatchCase: p.MatchCase, Parameter: p.Parameter, Geometry: p.Geometry, Latitude: p.Latitude,
		Longitude: p.Longitude, Distance: p.Distance, Range: p.Range}
	c, err := compileLeaf(cp, "", DefaultLimits())
	if err != nil {
		panic("occurrence: predicate used without Validate: " + err.Error())
	}
	p.c.CompareAndSwap(nil, c)
	return p.c.Load()
}

// cols returns the columns a keyed leaf reads: isNull and isNotNull test
// only the key's first column.
func (c *compiled) cols() []string {
	if c.op == TypeIsNull || c.op == TypeIsNotNull {
		return c.spec.cols[:1]
	}
	return c.spec.cols
}

func (p *Predicate) matchCase() bool { return p.MatchCase != nil && *p.MatchCase }
