package occurrence

import (
	"slices"
	"strings"
	"testing"
)

// geoCase is one record's chronostratigraphy terms and what GBIF's
// GeologicalContextInterpreter makes of them: the interpreted columns
// (absent: empty), the issues, and the geological time (start, end).
type geoCase struct {
	name   string
	terms  []string // term, value pairs
	want   map[string]string
	issues []string
	start  float64
	end    float64
	noTime bool
}

// TestGeologyAsGBIF runs the cases of GBIF's
// GeologicalContextInterpreterTest (gbif/pipelines sdks/core at 5add677)
// against GBIF's GeoTime vocabulary, and a few more.
func TestGeologyAsGBIF(t *testing.T) {
	for _, c := range []geoCase{
		{name: "interpretChronostratigraphyTest",
			terms: []string{"earliestPeriodOrLowestSystem", "neogene"},
			want:  map[string]string{"earliestPeriodOrLowestSystem": "Neogene"},
			start: 23.03, end: 2.58},
		{name: "InferredAndRankMismatch",
			terms:  []string{"earliestPeriodOrLowestSystem", "miocene", "earliestEraOrLowestErathem", "miocene", "latestPeriodOrHighestSystem", "cenozoic"},
			want:   map[string]string{"earliestPeriodOrLowestSystem": "Neogene", "earliestEraOrLowestErathem": "Cenozoic"},
			issues: []string{IssueEraInferredFromParentRank, IssuePeriodInferredFromParentRank, IssuePeriodRankMismatch},
			start:  23.03, end: 2.58},
		{name: "InvalidRange",
			terms:  []string{"earliestPeriodOrLowestSystem", "quaternary", "latestPeriodOrHighestSystem", "neogene"},
			want:   map[string]string{},
			issues: []string{IssuePeriodInvalidRange}, noTime: true},
		{name: "ParentMismatch",
			terms: []string{"earliestEraOrLowestErathem", "paleozoic", "latestEraOrHighestErathem", "paleozoic",
				"earliestPeriodOrLowestSystem", "neogene", "latestPeriodOrHighestSystem", "quaternary"},
			want: map[string]string{"earliestEraOrLowestErathem": "Paleozoic", "latestEraOrHighestErathem": "Paleozoic",
				"earliestPeriodOrLowestSystem": "Neogene", "latestPeriodOrHighestSystem": "Quaternary"},
			issues: []string{IssueEraPeriodMismatch}, start: 23.03, end: 0},
		{name: "IncompleteFields",
			terms: []string{"earliestEraOrLowestErathem", "paleozoic", "earliestPeriodOrLowestSystem", "neogene",
				"latestPeriodOrHighestSystem", "quaternary", "earliestAgeOrLowestStage", "burdigalian"},
			want: map[string]string{"earliestEraOrLowestErathem": "Paleozoic", "earliestPeriodOrLowestSystem": "Neogene",
				"latestPeriodOrHighestSystem": "Quaternary", "earliestAgeOrLowestStage": "Burdigalian"},
			issues: []string{IssueEraPeriodMismatch}, start: 20.44, end: 15.98},
		{name: "WiderRange",
			terms: []string{"earliestEraOrLowestErathem", "paleozoic", "latestEraOrHighestErathem", "cenozoic",
				"earliestPeriodOrLowestSystem", "neogene", "latestPeriodOrHighestSystem", "quaternary",
				"latestEpochOrHighestSeries", "miocene", "latestAgeOrHighestStage", "zanclean"},
			want: map[string]string{"earliestEraOrLowestErathem": "Paleozoic", "latestEraOrHighestErathem": "Cenozoic",
				"earliestPeriodOrLowestSystem": "Neogene", "latestPeriodOrHighestSystem": "Quaternary",
				"latestEpochOrHighestSeries": "Miocene", "latestAgeOrHighestStage": "Zanclean"},
			issues: []string{IssueEpochAgeMismatch}, start: 5.333, end: 3.6},
		// Beyond GBIF's tests: labels in other languages and hidden
		// labels name concepts; an eon has no parent rank to infer;
		// unknown values and "null" are no value.
		{name: "Labels",
			terms: []string{"earliestEpochOrLowestSeries", "Éocène", "latestEonOrHighestEonothem", "Phanerozoic"},
			want:  map[string]string{"earliestEpochOrLowestSeries": "Eocene", "latestEonOrHighestEonothem": "Phanerozoic"},
			start: 56.0, end: 33.9},
		{name: "EonFromLowerRank",
			terms:  []string{"earliestEonOrLowestEonothem", "Jurassic"},
			want:   map[string]string{"earliestEonOrLowestEonothem": "Phanerozoic"},
			issues: nil, start: 538.8, end: 0},
		{name: "Unknown",
			terms: []string{"earliestPeriodOrLowestSystem", "Carboniferous-ish", "latestPeriodOrHighestSystem", "NULL"},
			want:  map[string]string{}, noTime: true},
		{name: "SuperEraIsNoEon",
			terms:  []string{"earliestEonOrLowestEonothem", "Precambrian"},
			want:   map[string]string{},
			issues: []string{IssueEonRankMismatch}, noTime: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var kv []string
			for i := 0; i < len(c.terms); i += 2 {
				kv = append(kv, c.terms[i], c.terms[i+1])
			}
			r := interpret(t, dwcTerms(append([]string{"occurrenceID", "g"}, kv...)...), nil)
			for _, p := range geoPairs {
				for _, col := range []int{p.iEarliest, p.iLatest} {
					name := columns[col].Name
					if got := r.Get(col).S; got != c.want[name] {
						t.Errorf("%s = %q, want %q", name, got, c.want[name])
					}
				}
			}
			var got []string
			for _, is := range issueValues {
				if hasIssue(r, is) && slices.Contains(geologyIssueNames(), is) {
					got = append(got, is)
				}
			}
			want := slices.Clone(c.issues)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("issues %v, want %v", got, want)
			}
			s, e := get(r, ColGeologicalStartAge), get(r, ColGeologicalEndAge)
			if c.noTime {
				if s.Valid || e.Valid {
					t.Errorf("geological time %v..%v, want none", s, e)
				}
				return
			}
			if !s.Valid || !e.Valid || s.F != c.start || e.F != c.end {
				t.Errorf("geological time %v..%v, want %v..%v", s, e, c.start, c.end)
			}
		})
	}
}

// geologyIssueNames are the issues geology may flag.
func geologyIssueNames() []string {
	var out []string
	for _, p := range geoPairs {
		for _, is := range []string{p.inferred, p.mismatch, p.invalid, p.parentIssue} {
			if is != "" {
				out = append(out, is)
			}
		}
	}
	return out
}

// TestGeoTimeVocabulary checks the GeoTime concepts' ranks and ages are
// read: every concept has both ages (geoTimes panics otherwise), the start
// before the end, inside its parent's span, and each rank's concepts
// count as in the export.
func TestGeoTimeVocabulary(t *testing.T) {
	ranks := map[string]int{}
	for name, g := range geoTimes {
		ranks[g.rank]++
		if g.start < g.end { // both present: geoTimes refuses a concept without
			t.Errorf("%s: ages %v..%v", name, g.start, g.end)
		}
		if p, ok := geoTimes[g.parent]; ok && (g.start > p.start || g.end < p.end) {
			t.Errorf("%s (%v..%v) outside its parent %s (%v..%v)", name, g.start, g.end, p.name, p.start, p.end)
		}
	}
	want := map[string]int{"eon": 4, "era": 10, "period": 22, "epoch": 38, "age": 101, "super era": 1}
	for r, n := range want {
		if ranks[r] != n {
			t.Errorf("%d concepts of rank %q, want %d (all: %v)", ranks[r], r, n, ranks)
		}
	}
	if n, s, e, ok := geoTimeSpan("jurassique"); !ok || n != "Jurassic" || s != 201.4 || e != 145 {
		t.Errorf("geoTimeSpan(jurassique) = %q %v %v %v", n, s, e, ok)
	}
}

// TestInterpretedGeologyIssuesAreAccepted: every issue geology flags is a
// value the ISSUE predicate accepts.
func TestInterpretedGeologyIssuesAreAccepted(t *testing.T) {
	for _, is := range geologyIssueNames() {
		if !slices.Contains(issueValues, is) {
			t.Errorf("%s is not in issueValues", is)
		}
	}
}

// FuzzGeology gives the chronostratigraphy terms arbitrary text and checks
// what must hold: no panic; each term empty or a GeoTime concept of its
// pair's rank; a geological time only with a concept given, with both ages
// and its start no younger than its end, the span of a concept given;
// only geology's issues among those flagged for it.
func FuzzGeology(f *testing.F) {
	f.Add("Phanerozoic", "", "jurassic", "", "neogene", "quaternary", "miocène", "", "burdigalian", "zanclean")
	f.Add("", "precambrian", "miocene", "cenozoic", "", "", "Ordovician", "", "", "null")
	f.Add("\xff", "Jurassic\x00", "  ", "66", "Katian", "Katian", "", "Pliocene", "Zanclean", "Burdigalian")
	f.Fuzz(func(t *testing.T, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9 string) {
		vals := []string{a0, a1, a2, a3, a4, a5, a6, a7, a8, a9}
		core := Terms{}
		for i, v := range vals {
			p := geoPairs[i/2]
			term := p.earliest
			if i%2 == 1 {
				term = p.latest
			}
			core[knownTerms[term]] = v
		}
		r := NewRecord()
		Interpret(RawRecord{Core: core}, DatasetContext{Key: "d"}, r)
		given := false
		spans := map[[2]float64]bool{}
		for _, p := range geoPairs {
			for _, col := range []int{p.iEarliest, p.iLatest} {
				v := r.Get(col)
				if !v.Valid {
					continue
				}
				g, ok := geoTimes[v.S]
				if !ok || g.rank != p.rank {
					t.Fatalf("%s = %q: not a GeoTime concept of rank %s", columns[col].Name, v.S, p.rank)
				}
				given = true
				spans[[2]float64{g.start, g.end}] = true
			}
		}
		s, e := get(r, ColGeologicalStartAge), get(r, ColGeologicalEndAge)
		if s.Valid != e.Valid || (s.Valid && (!given || s.F < e.F)) {
			t.Fatalf("geological time %+v..%+v with concepts given %v", s, e, given)
		}
		if s.Valid {
			okS, okE := false, false
			for sp := range spans {
				okS = okS || sp[0] == s.F
				okE = okE || sp[1] == e.F
			}
			if !okS || !okE {
				t.Fatalf("geological time %v..%v is no concept's bound among %v", s.F, e.F, spans)
			}
		}
		names := geologyIssueNames()
		for _, is := range strings.Split(get(r, ColIssue).S, ";") {
			if strings.Contains(is, "_OR_") && !slices.Contains(names, is) {
				t.Fatalf("issue %s is not geology's", is)
			}
		}
	})
}
