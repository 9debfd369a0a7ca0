package hbase

import (
	"slices"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

func mustPred(t *testing.T, js string) *occurrence.Predicate {
	t.Helper()
	p, err := occurrence.ParsePredicateJSON([]byte(js), occurrence.DefaultLimits())
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return p
}

func TestPushdownTranslation(t *testing.T) {
	cases := []struct {
		js          string
		ok, exact   bool
		countries   []string
		countriesOK bool
	}{
		{`{"type":"equals","key":"COUNTRY","value":"dk"}`, true, false, []string{"DK"}, true},
		{`{"type":"in","key":"COUNTRY","values":["SE","DK"]}`, true, false, []string{"DK", "SE"}, true},
		{`{"type":"equals","key":"YEAR","value":"1990,2000"}`, true, true, nil, false},
		{`{"type":"lessThan","key":"YEAR","value":"1900"}`, true, true, nil, false},
		{`{"type":"equals","key":"HAS_COORDINATE","value":"true"}`, true, true, nil, false},
		{`{"type":"equals","key":"TAXON_KEY","value":"212"}`, true, true, nil, false},
		{`{"type":"greaterThan","key":"DECIMAL_LATITUDE","value":"10.5"}`, true, false, nil, false},
		{`{"type":"like","key":"LOCALITY","value":"*river*"}`, false, false, nil, false},
		{`{"type":"not","predicate":{"type":"equals","key":"COUNTRY","value":"DK"}}`, false, false, nil, false},
		// and keeps what it can push (a superset), so it is no longer exact
		{`{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"US"},{"type":"like","key":"LOCALITY","value":"*a*"}]}`, true, false, []string{"US"}, true},
		{`{"type":"and","predicates":[{"type":"equals","key":"YEAR","value":"2000"},{"type":"equals","key":"MONTH","value":"5"}]}`, true, true, nil, false},
		// or needs every branch
		{`{"type":"or","predicates":[{"type":"equals","key":"YEAR","value":"2000"},{"type":"like","key":"LOCALITY","value":"*a*"}]}`, false, false, nil, false},
		{`{"type":"or","predicates":[{"type":"equals","key":"COUNTRY","value":"US"},{"type":"in","key":"COUNTRY","values":["FR","US"]}]}`, true, false, []string{"FR", "US"}, true},
		{`{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"US"},{"type":"equals","key":"COUNTRY","value":"FR"}]}`, true, false, []string{}, true},
	}
	for _, c := range cases {
		p := mustPred(t, c.js)
		pd, ok := pushdown(p)
		if ok != c.ok || (ok && pd.exact != c.exact) {
			t.Errorf("%s: pushed=%v exact=%v, want %v %v", c.js, ok, pd.exact, c.ok, c.exact)
		}
		ccs, ok := countrySet(p)
		if ok != c.countriesOK || (ok && !slices.Equal(ccs, c.countries)) {
			t.Errorf("%s: countries %v %v, want %v %v", c.js, ccs, ok, c.countries, c.countriesOK)
		}
	}
}

func TestHeaderOrdering(t *testing.T) {
	f := headerFields[occurrence.ColYear]
	enc := func(v int64) string {
		return string(appendHeaderValue(nil, hInt32, occurrence.Value{I: v, Valid: true}))
	}
	vals := []int64{-5000, -1, 0, 1, 1899, 1900, 2024}
	for i := 1; i < len(vals); i++ {
		if enc(vals[i-1]) >= enc(vals[i]) {
			t.Fatalf("year %d does not sort before %d", vals[i-1], vals[i])
		}
	}
	if null := string(make([]byte, f.kind.width())); null >= enc(-5000) {
		t.Fatal("null does not sort before every value")
	}
	fl := func(x float64) string {
		return string(appendHeaderValue(nil, hFloat, occurrence.Value{F: x, Valid: true}))
	}
	fs := []float64{-180, -0.5, 0, 0.25, 89.9}
	for i := 1; i < len(fs); i++ {
		if fl(fs[i-1]) >= fl(fs[i]) {
			t.Fatalf("%v does not sort before %v", fs[i-1], fs[i])
		}
	}
}
