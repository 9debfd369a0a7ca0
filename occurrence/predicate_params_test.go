package occurrence

import (
	"testing"
	"time"
)

// Every GBIF search parameter whose term is a column is accepted, in GBIF's
// spelling and camelCase; the others are the ones GBIF keeps internal
// fields for.
func TestSearchParametersAccepted(t *testing.T) {
	byTerm := map[string]bool{}
	for _, c := range columns {
		byTerm[c.Term] = c.Term != ""
	}
	accepted := 0
	for _, p := range searchParameters {
		_, ok := lookupKey(p.name)
		if byTerm[p.term] && !ok {
			t.Errorf("parameter %s maps to column term %s but is not accepted", p.name, p.term)
		}
		if ok {
			accepted++
		}
	}
	if accepted < 100 {
		t.Errorf("%d of %d GBIF search parameters accepted", accepted, len(searchParameters))
	}
	for _, name := range []string{"continent", "samplingProtocol", "waterBody", "startDayOfYear", "SEX", "modified"} {
		if _, ok := lookupKey(name); !ok {
			t.Errorf("%s not accepted", name)
		}
	}
}

// The new keys match interpreted records as their column kinds say.
func TestSearchParametersMatch(t *testing.T) {
	rec := NewRecord()
	Interpret(RawRecord{Core: Terms{
		NSDwC + "occurrenceID": "o1", NSDwC + "continent": "Europe", NSDwC + "samplingProtocol": "pitfall trap | light trap",
		NSDwC + "sex": "Female", NSDwC + "eventDate": "2020-02-03", NSDC + "modified": "2021-05-06T07:08:09Z",
		NSDwC + "waterBody": "Baltic Sea", NSDwC + "organismQuantity": "12.5",
	}}, DatasetContext{Key: "d", Now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}, rec)
	b := NewBuilder()
	defer b.Release()
	b.Append(rec)
	batch := b.NewBatch()
	defer batch.Release()
	for js, want := range map[string]bool{
		`{"type":"equals","key":"CONTINENT","value":"europe"}`:                                                                true,
		`{"type":"equals","key":"CONTINENT","value":"ASIA"}`:                                                                  false,
		`{"type":"equals","key":"SAMPLING_PROTOCOL","value":"light trap"}`:                                                    true,
		`{"type":"equals","key":"SAMPLING_PROTOCOL","value":"light"}`:                                                         false,
		`{"type":"equals","key":"SEX","value":"female"}`:                                                                      true,
		`{"type":"equals","key":"START_DAY_OF_YEAR","value":"34"}`:                                                            true,
		`{"type":"greaterThan","key":"ORGANISM_QUANTITY","value":"12"}`:                                                       true,
		`{"type":"like","key":"WATER_BODY","value":"baltic*"}`:                                                                true,
		`{"type":"equals","key":"MODIFIED","value":"2021-05-06"}`:                                                             true,
		`{"type":"greaterThan","key":"MODIFIED","value":"2022-01-01"}`:                                                        false,
		`{"type":"isNotNull","parameter":"CONTINENT"}`:                                                                        true,
		`{"type":"and","predicates":[{"type":"isNull","parameter":"ISLAND"},{"type":"equals","key":"SEX","value":"FEMALE"}]}`: true,
	} {
		p, err := ParsePredicateJSON([]byte(js), DefaultLimits())
		if err != nil {
			t.Errorf("%s: %v", js, err)
			continue
		}
		if got := p.MatchRow(batch, 0); got != want {
			t.Errorf("%s matches %v, want %v", js, got, want)
		}
		sel := make([]bool, 1)
		p.Eval(batch, sel)
		if sel[0] != want {
			t.Errorf("%s: Eval %v, want %v", js, sel[0], want)
		}
	}
}
