package occurrence

import (
	"errors"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// fuzzSeedsJSON are predicates in the shapes GBIF download requests use
// (rgbif occ_download, pygbif, the GBIF portal) plus every leaf type here.
var fuzzSeedsJSON = []string{
	`{"type":"and","predicates":[{"type":"equals","key":"GEOLOGICAL_TIME","value":"mesozoic,cenozoic"},{"type":"greaterThan","key":"GEOLOGICAL_TIME","value":"Miocene"},{"type":"range","key":"GEOLOGICAL_TIME","value":{"gte":"Neogene","lte":"12.5"}},{"type":"like","key":"LITHOSTRATIGRAPHY","value":"Morrison*"}]}`,
	`{"type":"or","predicates":[{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE","value":"acgtn"},{"type":"in","key":"MEASUREMENT_TYPE","values":["Length","mass"]},{"type":"equals","key":"DWCA_EXTENSION","value":"http://rs.tdwg.org/dwc/terms/MeasurementOrFact"}]}`,
	`{"type":"and","predicates":[{"type":"equals","key":"TAXON_KEY","value":"2435099"},{"type":"equals","key":"HAS_COORDINATE","value":"true"},{"type":"equals","key":"HAS_GEOSPATIAL_ISSUE","value":"false"},{"type":"in","key":"COUNTRY","values":["DK","SE","NO"]}]}`,
	`{"type":"and","predicates":[{"type":"in","key":"BASIS_OF_RECORD","values":["PRESERVED_SPECIMEN","FOSSIL_SPECIMEN"]},{"type":"greaterThanOrEquals","key":"YEAR","value":"1900"},{"type":"not","predicate":{"type":"in","key":"ISSUE","values":["ZERO_COORDINATE","COORDINATE_INVALID"]}}]}`,
	`{"type":"within","geometry":"POLYGON((-14.3 44.6, 35.1 44.6, 35.1 71.2, -14.3 71.2, -14.3 44.6))"}`,
	`{"type":"within","geometry":"POINT(12.6 55.7)"}`,
	`{"type":"within","geometry":"LINESTRING(179 -17, -179 -19, -170 -19)"}`,
	`{"type":"or","predicates":[{"type":"like","key":"CATALOG_NUMBER","value":"PAPS5-560*"},{"type":"equals","key":"RECORDED_BY","value":"Smith, J.","matchCase":true}]}`,
	`{"type":"range","key":"EVENT_DATE","value":{"gte":"2000-01-01","lt":"2001"}}`,
	`{"type":"geoDistance","latitude":"55.68","longitude":"12.57","distance":"10km"}`,
	`{"type":"isNull","parameter":"YEAR"}`,
	`null`,
	"{\"type\":\"equals\",\"key\":\"RECORDED_BY\",\"value\":\"Sm\xffth\"}",
}

// fuzzSeedsQuery are portal search query strings.
var fuzzSeedsQuery = []string{
	"geologicalTime=*,neogene&geologicalTime=Jurassic&biostratigraphy=Dicellograptus%20zone",
	"nucleotideSequenceSequence=ACGT&measurementTypeId=http://vocab/P01&lithostratigraphy=*",
	"country=DK&country=SE&year=2000,2010",
	"taxonKey=212&hasCoordinate=true&hasGeospatialIssue=false",
	"year=*,1810&basisOfRecord=PRESERVED_SPECIMEN&format=SIMPLE_CSV",
	"geometry=POLYGON((-10 30,40 30,40 70,-10 70,-10 30))&geometry=POLYGON((170 -30,190 -30,190 0,170 0,170 -30))",
	"geometry=POINT(12.6 55.7)&geometry=LINESTRING(0 40, 12.6 55.7, 20 56)",
	"eventDate=2000-01-01,2000-06-30&recordedBy=Smith&license=CC_BY_4_0",
	"geoDistance=55.7,12.5,10km&issue=ZERO_COORDINATE&mediaType=StillImage",
	"year=*&month=1,6&elevation=-10,*",
}

// fuzzLimits are tight enough for the fuzzer to reach every rule.
var fuzzLimits = Limits{MaxValues: 1000, MaxPolygonPoints: 200, MaxDepth: 8, MaxNodes: 40, MaxLikes: 4,
	MaxPatternLength: 30, MaxPatternWildcards: 6, MaxCost: 400}

// FuzzParsePredicateJSON: no input panics; an accepted predicate round-trips
// through MarshalJSON and its two evaluators agree on a small batch; the
// limits hold for what is accepted, and what they reject names a rule
// with the limit and what broke it.
func FuzzParsePredicateJSON(f *testing.F) {
	for _, s := range append(fuzzSeedsJSON, leafPredicates...) {
		f.Add(s)
	}
	batch := buildBatch(f, allColumns(), randomRows(rand.New(rand.NewPCG(7, 8)), 64))
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePredicateJSON([]byte(s), fuzzLimits)
		if err != nil {
			checkRejected(t, err)
			return
		}
		checkWithinLimits(t, p, fuzzLimits)
		checkAccepted(t, p, batch)
	})
}

func checkRejected(t *testing.T, err error) {
	t.Helper()
	pe, ok := err.(*PredicateError)
	if !ok {
		t.Fatalf("error %T is not a *PredicateError", err)
	}
	if errors.Is(err, ErrPredicateTooComplex) && (pe.Rule == "" || pe.Got <= pe.Limit || !strings.Contains(err.Error(), pe.Rule)) {
		t.Fatalf("too complex without a rule, or not over it: %+v", pe)
	}
}

func checkWithinLimits(t *testing.T, p *Predicate, lim Limits) {
	t.Helper()
	c := p.Cost()
	if c.Values > lim.MaxValues || c.Points > lim.MaxPolygonPoints || c.Depth > lim.MaxDepth || c.Nodes > lim.MaxNodes ||
		c.Likes > lim.MaxLikes || c.Work > lim.MaxCost {
		t.Fatalf("accepted %s costing %+v over %+v", p, c, lim)
	}
}

// FuzzParseQuery: no query string panics; accepted ones round-trip and
// evaluate consistently.
func FuzzParseQuery(f *testing.F) {
	for _, s := range fuzzSeedsQuery {
		f.Add(s)
	}
	batch := buildBatch(f, allColumns(), randomRows(rand.New(rand.NewPCG(9, 10)), 64))
	f.Fuzz(func(t *testing.T, s string) {
		q, err := url.ParseQuery(s)
		if err != nil {
			return
		}
		p, err := ParseQuery(q, fuzzLimits)
		if err != nil {
			checkRejected(t, err)
			return
		}
		checkWithinLimits(t, p, fuzzLimits)
		checkAccepted(t, p, batch)
	})
}

func checkAccepted(t *testing.T, p *Predicate, batch arrow.RecordBatch) {
	t.Helper()
	b1, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	q, err := ParsePredicateJSON(b1, fuzzLimits)
	if err != nil {
		t.Fatalf("re-parse of %s: %v", b1, err)
	}
	if b2, _ := q.MarshalJSON(); string(b2) != string(b1) {
		t.Fatalf("round trip changed %s into %s", b1, b2)
	}
	matchingRows(t, p, batch)
	if p.Describe() == "" {
		t.Fatal("empty description")
	}
	if !p.MayMatch(mapStats{}) {
		t.Fatal("MayMatch without statistics must be true")
	}
}
