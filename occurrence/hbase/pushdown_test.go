package hbase

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

func mustPred(t *testing.T, js string) *occurrence.Predicate {
	t.Helper()
	p, err := occurrence.ParsePredicateJSON([]byte(js), occurrence.DefaultLimits())
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return p
}

// A server-side filter stays bounded: an or of 1,000 taxon keys (9,000
// comparisons) is evaluated client-side only, and an and keeps what fits.
func TestPushdownBounded(t *testing.T) {
	var taxa []string
	for i := range 1000 {
		taxa = append(taxa, fmt.Sprintf(`{"type":"equals","key":"TAXON_KEY","value":"%d"}`, i+1))
	}
	or := `{"type":"or","predicates":[` + strings.Join(taxa, ",") + `]}`
	if _, ok := pushdown(mustPred(t, or), headerVersion); ok {
		t.Fatal("an or of 9,000 comparisons was pushed")
	}
	pd, ok := pushdown(mustPred(t, `{"type":"and","predicates":[{"type":"equals","key":"YEAR","value":"2000"},`+or+`]}`), headerVersion)
	if !ok || pd.exact || filterSize(pd.filter) != 1 {
		t.Fatalf("and: pushed=%v exact=%v size %d, want the year alone, inexact", ok, pd.exact, filterSize(pd.filter))
	}
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
		// gbifID: a row filter on the key's last 8 bytes
		{`{"type":"equals","key":"GBIF_ID","value":"42"}`, true, true, nil, false},
		{`{"type":"in","key":"GBIF_ID","values":["42","43"]}`, true, true, nil, false},
		{`{"type":"equals","key":"GBIF_ID","value":"1,5"}`, false, false, nil, false},
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
		pd, ok := pushdown(p, headerVersion)
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

// passes evaluates a pushed filter on a header cell value the way the region
// server does: value OP operand on the component at the comparator's offset.
func passes(t *testing.T, f hrpc.Filter, header []byte) bool {
	t.Helper()
	switch f := f.(type) {
	case hrpc.FilterList:
		for _, sub := range f.Filters {
			if passes(t, sub, header) == f.Or {
				return f.Or
			}
		}
		return !f.Or
	case hrpc.SingleColumnValueFilter:
		c, ok := f.Comparator.(hrpc.BinaryComponentComparator)
		if !ok || !bytes.Equal(f.Family, famHeader) {
			t.Fatalf("unexpected pushed filter %#v", f)
		}
		cmp := bytes.Compare(header[c.Offset:int(c.Offset)+len(c.Value)], c.Value)
		switch f.Op {
		case hrpc.Less:
			return cmp < 0
		case hrpc.LessOrEqual:
			return cmp <= 0
		case hrpc.Equal:
			return cmp == 0
		case hrpc.GreaterOrEqual:
			return cmp >= 0
		case hrpc.Greater:
			return cmp > 0
		}
	}
	t.Fatalf("unexpected pushed filter %#v", f)
	return false
}

// TestPushdownFilterAgreesWithPredicate: on generated records the pushed
// filter keeps every row the predicate matches, and exactly those when it
// says it is exact.
func TestPushdownFilterAgreesWithPredicate(t *testing.T) {
	g := occurrencetest.NewGenerator(3, 60)
	plan := g.Datasets(3000, 6)
	rec := occurrence.NewRecord()
	b := occurrence.NewBuilder()
	defer b.Release()
	var headers [][]byte
	var famKey, year int64
	var dsKey, basis string
	for i := range plan {
		for j := 0; j < plan[i].Records; j++ {
			g.Fill(rec, &plan[i], j)
			if len(headers) == 0 {
				famKey = rec.Get(occurrence.ColumnIndex(occurrence.ColFamilyKey)).I
				year = rec.Get(occurrence.ColumnIndex(occurrence.ColYear)).I
				dsKey = rec.Get(occurrence.ColumnIndex(occurrence.ColDatasetKey)).S
				basis = rec.Get(occurrence.ColumnIndex(occurrence.ColBasisOfRecord)).S
			}
			b.Append(rec)
			headers = append(headers, encodeHeader(nil, rec))
		}
	}
	batch := b.NewBatch()
	defer batch.Release()
	preds := []string{
		`{"type":"equals","key":"COUNTRY","value":"SE"}`,
		`{"type":"in","key":"COUNTRY","values":["DK","US"]}`,
		fmt.Sprintf(`{"type":"equals","key":"TAXON_KEY","value":"%d"}`, famKey),
		fmt.Sprintf(`{"type":"equals","key":"FAMILY_KEY","value":"%d"}`, famKey),
		fmt.Sprintf(`{"type":"equals","key":"YEAR","value":"%d"}`, year),
		fmt.Sprintf(`{"type":"equals","key":"YEAR","value":"*,%d"}`, year),
		fmt.Sprintf(`{"type":"lessThan","key":"YEAR","value":"%d"}`, year),
		fmt.Sprintf(`{"type":"greaterThanOrEquals","key":"YEAR","value":"%d"}`, year),
		fmt.Sprintf(`{"type":"range","key":"YEAR","value":{"gt":"%d","lte":"2024"}}`, year-5),
		`{"type":"in","key":"MONTH","values":["1","2","12"]}`,
		fmt.Sprintf(`{"type":"equals","key":"DATASET_KEY","value":"%s"}`, dsKey),
		fmt.Sprintf(`{"type":"equals","key":"BASIS_OF_RECORD","value":"%s"}`, basis),
		`{"type":"in","key":"LICENSE","values":["CC0_1_0","CC_BY_NC_4_0"]}`,
		`{"type":"greaterThanOrEquals","key":"DECIMAL_LATITUDE","value":"50.5"}`,
		`{"type":"lessThanOrEquals","key":"DECIMAL_LONGITUDE","value":"0"}`,
		`{"type":"equals","key":"HAS_COORDINATE","value":"false"}`,
		`{"type":"equals","key":"HAS_COORDINATE","value":"true"}`,
		`{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"US"},{"type":"like","key":"LOCALITY","value":"*river*"}]}`,
		`{"type":"or","predicates":[{"type":"equals","key":"COUNTRY","value":"FR"},{"type":"equals","key":"MONTH","value":"3"}]}`,
	}
	sel := make([]bool, batch.NumRows())
	for _, js := range preds {
		p := mustPred(t, js)
		pd, ok := pushdown(p, headerVersion)
		if !ok {
			t.Fatalf("%s: not pushed", js)
		}
		p.Eval(batch, sel)
		matched, passed := 0, 0
		for i, h := range headers {
			pass := passes(t, pd.filter, h)
			if sel[i] && !pass {
				t.Fatalf("%s: the filter drops matching row %d", js, i)
			}
			if pd.exact && pass && !sel[i] {
				t.Fatalf("%s: the exact filter keeps row %d, which does not match", js, i)
			}
			if sel[i] {
				matched++
			}
			if pass {
				passed++
			}
		}
		if matched == 0 || passed == len(headers) {
			t.Fatalf("%s: %d of %d rows match, %d pass the filter: the case tests nothing", js, matched, len(headers), passed)
		}
	}
}

// TestPushdownNegativeZero: -0 equals 0, so a filter on 0 must keep a
// coordinate stored as -0.
func TestPushdownNegativeZero(t *testing.T) {
	rec := occurrence.NewRecord()
	rec.SetFloat(occurrence.ColumnIndex(occurrence.ColDecimalLatitude), math.Copysign(0, -1))
	h := encodeHeader(nil, rec)
	b := occurrence.NewBuilder()
	defer b.Release()
	b.Append(rec)
	batch := b.NewBatch()
	defer batch.Release()
	sel := make([]bool, 1)
	for _, js := range []string{
		`{"type":"equals","key":"DECIMAL_LATITUDE","value":"0"}`,
		`{"type":"greaterThanOrEquals","key":"DECIMAL_LATITUDE","value":"0"}`,
		`{"type":"lessThanOrEquals","key":"DECIMAL_LATITUDE","value":"-0"}`,
		`{"type":"equals","key":"DECIMAL_LATITUDE","value":"0,10"}`,
	} {
		p := mustPred(t, js)
		if p.Eval(batch, sel); !sel[0] {
			t.Fatalf("%s: the predicate does not match latitude -0", js)
		}
		pd, ok := pushdown(p, headerVersion)
		if !ok {
			t.Fatalf("%s: not pushed", js)
		}
		if !passes(t, pd.filter, h) {
			t.Errorf("%s: the filter drops latitude -0", js)
		}
	}
}

// TestPushdownOldHeaders: a snapshot with a dataset written with version 2
// headers (before the intermediate ranks' keys were added) does not push
// a predicate on those keys, TAXON_KEY included, since its rows' headers
// end before them; the columns every version holds are still pushed.
func TestPushdownOldHeaders(t *testing.T) {
	for _, c := range []struct {
		pred   string
		v2, v3 bool
	}{
		{`{"type":"equals","key":"TAXON_KEY","value":"212"}`, false, true},
		{`{"type":"equals","key":"FAMILY_KEY","value":"9703"}`, true, true},
		{`{"type":"equals","key":"COUNTRY","value":"DK"}`, true, true},
		{`{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"DK"},{"type":"equals","key":"TAXON_KEY","value":"212"}]}`, true, true},
	} {
		p := mustPred(t, c.pred)
		if _, ok := pushdown(p, 2); ok != c.v2 {
			t.Errorf("%s on version 2 headers: pushed=%v, want %v", c.pred, ok, c.v2)
		}
		if _, ok := pushdown(p, headerVersion); ok != c.v3 {
			t.Errorf("%s on version %d headers: pushed=%v, want %v", c.pred, headerVersion, ok, c.v3)
		}
	}
	if pd, _ := pushdown(mustPred(t, `{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"DK"},{"type":"equals","key":"TAXON_KEY","value":"212"}]}`), 2); pd.exact {
		t.Error("an and with an unpushed TAXON_KEY is said exact on version 2 headers")
	}
	if got := (&datasetState{}).header(); got != 2 {
		t.Errorf("a state without a header version reads as version %d, want 2", got)
	}
	if headerFields["subgenusKey"].offset <= headerFields[occurrence.ColSpeciesKey].offset {
		t.Error("the version 3 fields do not follow the version 2 ones")
	}
	if n := len(headerVersions) + 1; n != headerVersion {
		t.Errorf("headerVersions lists versions 2..%d, headerVersion is %d", n, headerVersion)
	}
}
