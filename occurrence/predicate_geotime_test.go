package occurrence

import (
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// geoRows are records with a geological time (end, start in Ma), one
// without, and lithostratigraphy and biostratigraphy values.
var geoRows = []row{
	{ColGeologicalEndAge: 145.0, ColGeologicalStartAge: 201.4, "formation": "Morrison Formation", "member": "Brushy Basin Member"}, // 0 Jurassic
	{ColGeologicalEndAge: 5.333, ColGeologicalStartAge: 23.03, "bed": "Bed 7"},                                                     // 1 Miocene
	{ColGeologicalEndAge: 15.98, ColGeologicalStartAge: 20.44, "group": "Morrison Formation"},                                      // 2 Burdigalian
	{ColGeologicalEndAge: 0.0, ColGeologicalStartAge: 2.58},                                                                        // 3 Quaternary
	{ColGeologicalEndAge: 443.8, ColGeologicalStartAge: 485.4, "lowestBiostratigraphicZone": "Dicellograptus complanatus zone"},    // 4 Ordovician
	{"highestBiostratigraphicZone": "Dicellograptus complanatus zone"},                                                             // 5 no time
	{ColGeologicalEndAge: 0.0, ColGeologicalStartAge: 538.8},                                                                       // 6 the Phanerozoic
}

var geoCols = []string{ColGeologicalEndAge, ColGeologicalStartAge, "bed", "formation", "group", "member",
	"lowestBiostratigraphicZone", "highestBiostratigraphicZone"}

// TestGeologicalTimePredicates: GEOLOGICAL_TIME as GBIF's services answer
// it (the spans RequestFieldsTranslatorTest expects: "mesozoic,cenozoic"
// is 0..251.902, "neogene,*" from 2.58 on, "*,neogene" up to 23.03,
// "neogene,cenozoic" an error), LITHOSTRATIGRAPHY and BIOSTRATIGRAPHY;
// Eval, MatchRow and the statistics agree on every split.
func TestGeologicalTimePredicates(t *testing.T) {
	batch := buildBatch(t, geoCols, geoRows)
	defer batch.Release()
	eq := func(key, v string) string { return `{"type":"equals","key":"` + key + `","value":"` + v + `"}` }
	cmp := func(typ, v string) string {
		return `{"type":"` + typ + `","key":"GEOLOGICAL_TIME","value":"` + v + `"}`
	}
	for _, c := range []struct {
		js   string
		want []int
	}{
		{eq("GEOLOGICAL_TIME", "Jurassic"), []int{0}},
		{eq("GEOLOGICAL_TIME", "mesozoic"), []int{0}},
		{eq("GEOLOGICAL_TIME", "Neogene"), []int{1, 2}},
		{eq("GEOLOGICAL_TIME", "Cenozoic"), []int{1, 2, 3}},
		{eq("GEOLOGICAL_TIME", "mesozoic,cenozoic"), []int{0, 1, 2, 3}},
		{eq("GEOLOGICAL_TIME", "cenozoic,mesozoic"), []int{0, 1, 2, 3}},
		{eq("GEOLOGICAL_TIME", "*,neogene"), []int{1, 2, 3}},
		{eq("GEOLOGICAL_TIME", "neogene,*"), []int{0, 1, 2, 4}},
		{eq("GEOLOGICAL_TIME", "Phanerozoic"), []int{0, 1, 2, 3, 4, 6}},
		{eq("GEOLOGICAL_TIME", "0,30"), []int{1, 2, 3}},
		{eq("GEOLOGICAL_TIME", "2.58,0"), []int{3}}, // numbers in either order, one span inside none
		{eq("GEOLOGICAL_TIME", "23.03,23.03"), nil},
		{`{"type":"in","key":"GEOLOGICAL_TIME","values":["Jurassic","Ordovician"]}`, []int{0, 4}},
		// enough values for the interval index
		{`{"type":"in","key":"GEOLOGICAL_TIME","values":["Jurassic","Ordovician","Cambrian","Silurian","Devonian","Permian","Triassic","Cretaceous","Paleogene","Quaternary","Hadean"]}`,
			[]int{0, 3, 4}},
		{`{"type":"or","predicates":[` + eq("GEOLOGICAL_TIME", "Jurassic") + `,` + eq("GEOLOGICAL_TIME", "Quaternary") + `]}`, []int{0, 3}},
		{cmp("greaterThanOrEquals", "Miocene"), []int{0, 1, 2, 4}},
		{cmp("greaterThan", "Miocene"), []int{0, 4, 6}},
		{cmp("lessThanOrEquals", "Miocene"), []int{1, 2, 3}},
		{cmp("lessThan", "Miocene"), []int{3, 6}},
		{`{"type":"range","key":"GEOLOGICAL_TIME","value":{"gte":"Neogene","lte":"Cenozoic"}}`, []int{1, 2}},
		{`{"type":"isNotNull","parameter":"GEOLOGICAL_TIME"}`, []int{0, 1, 2, 3, 4, 6}},
		{`{"type":"not","predicate":` + eq("GEOLOGICAL_TIME", "Cenozoic") + `}`, []int{0, 4, 5, 6}},
		{eq("LITHOSTRATIGRAPHY", "morrison formation"), []int{0, 2}},
		{eq("LITHOSTRATIGRAPHY", "Brushy Basin Member"), []int{0}},
		{`{"type":"like","key":"LITHOSTRATIGRAPHY","value":"bed*"}`, []int{1}},
		{eq("BIOSTRATIGRAPHY", "Dicellograptus complanatus zone"), []int{4, 5}},
	} {
		p := mustParse(t, c.js)
		if got := matchingRows(t, p, batch); !slices.Equal(got, c.want) {
			t.Errorf("%s: rows %v, want %v", c.js, got, c.want)
		}
		// Statistics of any run of rows never rule out a match, and rule
		// out the runs without one when they can.
		for i := range geoRows {
			for j := i + 1; j <= len(geoRows); j++ {
				split := buildBatch(t, geoCols, geoRows[i:j])
				n := len(matchingRows(t, p, split))
				split.Release()
				if n > 0 && !p.MayMatch(statsOf(geoCols, geoRows[i:j], false)) {
					t.Errorf("%s: rows %d..%d hold %d matches, the statistics said none", c.js, i, j-1, n)
				}
			}
		}
	}
	// The Ordovician record alone cannot hold a Cenozoic one.
	if mustParse(t, eq("GEOLOGICAL_TIME", "Cenozoic")).MayMatch(statsOf(geoCols, geoRows[4:5], false)) {
		t.Error("statistics of an Ordovician record did not rule out the Cenozoic")
	}
}

// TestGeologicalTimeErrors: values naming no concept, a concept inside the
// other of a span, and spans where one value is asked for are refused with
// the key and the reason.
func TestGeologicalTimeErrors(t *testing.T) {
	for js, want := range map[string]string{
		`{"type":"equals","key":"GEOLOGICAL_TIME","value":"Carboniferous-ish"}`:           "GeoTime vocabulary",
		`{"type":"equals","key":"GEOLOGICAL_TIME","value":"neogene,cenozoic"}`:            "lies within the other",
		`{"type":"equals","key":"GEOLOGICAL_TIME","value":"jurassic,cretaceous,miocene"}`: "several values",
		`{"type":"greaterThan","key":"GEOLOGICAL_TIME","value":"jurassic,cretaceous"}`:    "only allowed in equals and in",
		`{"type":"equals","key":"GEOLOGICAL_TIME","value":"-3"}`:                          "millions of years",
		`{"type":"like","key":"GEOLOGICAL_TIME","value":"Jur*"}`:                          "like only applies to text",
	} {
		_, err := ParsePredicateJSON([]byte(js), DefaultLimits())
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "GEOLOGICAL_TIME") {
			t.Errorf("%s: %v, want an error about GEOLOGICAL_TIME saying %q", js, err, want)
		}
	}
}

// TestGeologicalTimeQuery: the search parameters geologicalTime (a span
// "A,B" in either order, several values ORed), lithostratigraphy and
// biostratigraphy.
func TestGeologicalTimeQuery(t *testing.T) {
	batch := buildBatch(t, geoCols, geoRows)
	defer batch.Release()
	for q, want := range map[string][]int{
		"geologicalTime=mesozoic,cenozoic":                  {0, 1, 2, 3},
		"geologicalTime=Jurassic&geologicalTime=Ordovician": {0, 4},
		"geologicalTime=*":                                  {0, 1, 2, 3, 4, 6},
		"lithostratigraphy=Bed%207":                         {1},
		"biostratigraphy=dicellograptus%20complanatus%20zone&geologicalTime=Paleozoic": {4},
	} {
		v, err := url.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ParseQuery(v, DefaultLimits())
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := matchingRows(t, p, batch); !slices.Equal(got, want) {
			t.Errorf("%s: rows %v, want %v", q, got, want)
		}
	}
}

// FuzzGeologicalTimeValue gives GEOLOGICAL_TIME's value parser arbitrary
// text: no panic, and a value it takes is a span whose end is no older
// than its start, open only where a side is "*".
func FuzzGeologicalTimeValue(f *testing.F) {
	for _, s := range []string{"Jurassic", "mesozoic,cenozoic", "*,neogene", "neogene,*", "0,30", "neogene,cenozoic", "*", "*,*", "1e400", ",", "NaN,3"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, v string, single bool) {
		e, err := parseGeoTime(strings.TrimSpace(v), single)
		if err != nil {
			return
		}
		if e.lo.f > e.hi.f || math.IsNaN(e.lo.f) || math.IsNaN(e.hi.f) {
			t.Fatalf("%q: span %v..%v", v, e.lo.f, e.hi.f)
		}
		if (math.IsInf(e.lo.f, 0) || math.IsInf(e.hi.f, 0)) && !strings.Contains(v, "*") {
			t.Fatalf("%q: open span %v..%v without *", v, e.lo.f, e.hi.f)
		}
	})
}
