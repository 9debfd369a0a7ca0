package occurrence

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// mapStats is a Stats computed by statsOf.
type mapStats map[string]ColumnStats

func (m mapStats) ColumnStats(c string) (ColumnStats, bool) {
	s, ok := m[c]
	return s, ok
}

// statsOf computes exact statistics of rows like a Parquet writer would:
// min/max in the column's stats type, null counts, and the dictionary of
// string columns when withValues.
func statsOf(cols []string, rows []row, withValues bool) mapStats {
	out := mapStats{}
	for _, name := range cols {
		col, _, _ := ColumnByName(name)
		cs := ColumnStats{Rows: int64(len(rows))}
		seen := map[string]bool{}
		for _, r := range rows {
			v, ok := r[name]
			if !ok || v == nil {
				cs.NullCount++
				continue
			}
			if tm, ok := v.(time.Time); ok {
				v = tm.UnixMilli()
			}
			if s, ok := v.(string); ok {
				seen[s] = true
			}
			if !cs.HasMinMax {
				cs.Min, cs.Max, cs.HasMinMax = v, v, true
				continue
			}
			if statLess(v, cs.Min) {
				cs.Min = v
			}
			if statLess(cs.Max, v) {
				cs.Max = v
			}
		}
		if (col.Kind == KindString || col.Kind == KindMulti) && withValues {
			cs.Values = []string{}
			for s := range seen {
				cs.Values = append(cs.Values, s)
			}
			sort.Strings(cs.Values)
		}
		out[name] = cs
	}
	return out
}

func statLess(a, b any) bool {
	switch x := a.(type) {
	case string:
		return x < b.(string)
	case int64:
		return x < b.(int64)
	case float64:
		return x < b.(float64)
	case bool:
		return !x && b.(bool)
	}
	panic("stat type")
}

// TestMayMatchSound: whenever a row of a split matches, MayMatch on the
// split's statistics must be true.
func TestMayMatchSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cols := allColumns()
	pruned := 0
	checked := 0
	for round := 0; round < 200; round++ {
		// small, skewed splits so statistics can prune
		n := 1 + rng.IntN(12)
		rows := randomRows(rng, n)
		if rng.IntN(3) == 0 {
			for _, r := range rows { // concentrate a column
				r[ColCountryCode] = "DK"
			}
		}
		batch := buildBatch(t, cols, rows)
		withValues := rng.IntN(2) == 0
		st := statsOf(cols, rows, withValues)
		preds := make([]string, 0, len(leafPredicates)+20)
		preds = append(preds, leafPredicates...)
		for k := 0; k < 20; k++ {
			preds = append(preds, randomPredicate(t, rng, 3))
		}
		for _, js := range preds {
			p := mustParse(t, js)
			matches := len(matchingRows(t, p, batch))
			may := p.MayMatch(st)
			checked++
			if matches > 0 && !may {
				t.Fatalf("MayMatch false but %d rows match: %s\nstats: %+v", matches, js, st)
			}
			if !may {
				pruned++
			}
		}
		batch.Release()
	}
	if pruned < checked/20 {
		t.Fatalf("pruning too weak: %d of %d", pruned, checked)
	}
	t.Logf("pruned %d of %d predicate/split pairs", pruned, checked)
}

func TestMayMatchPrunes(t *testing.T) {
	st := mapStats{
		ColCountryCode:      {HasMinMax: true, Min: "DK", Max: "SE", Rows: 10, Values: []string{"DK", "SE"}},
		ColYear:             {HasMinMax: true, Min: int64(1990), Max: int64(2000), Rows: 10, NullCount: 2},
		ColDecimalLatitude:  {HasMinMax: true, Min: 50.0, Max: 60.0, Rows: 10},
		ColDecimalLongitude: {HasMinMax: true, Min: 5.0, Max: 15.0, Rows: 10},
		ColLocality:         {Rows: 10, NullCount: 10},
		ColEventDateStart:   {HasMinMax: true, Min: day("2000-01-01").UnixMilli(), Max: day("2000-12-01").UnixMilli(), Rows: 10},
		ColEventDateEnd:     {HasMinMax: true, Min: day("2000-01-02").UnixMilli(), Max: day("2000-12-31").UnixMilli(), Rows: 10},
	}
	cases := []struct {
		js  string
		may bool
	}{
		{`{"type":"equals","key":"COUNTRY","value":"DK"}`, true},
		{`{"type":"equals","key":"COUNTRY","value":"NO"}`, false},
		{`{"type":"in","key":"COUNTRY","values":["US","FJ"]}`, false},
		{`{"type":"like","key":"COUNTRY","value":"s*"}`, true},
		{`{"type":"like","key":"COUNTRY","value":"N*"}`, false},
		{`{"type":"equals","key":"YEAR","value":"2001,2010"}`, false},
		{`{"type":"greaterThan","key":"YEAR","value":"2000"}`, false},
		{`{"type":"greaterThanOrEquals","key":"YEAR","value":"2000"}`, true},
		{`{"type":"lessThan","key":"YEAR","value":"1990"}`, false},
		{`{"type":"isNull","parameter":"YEAR"}`, true},
		{`{"type":"isNull","parameter":"COUNTRY"}`, false},
		{`{"type":"isNotNull","parameter":"LOCALITY"}`, false},
		{`{"type":"equals","key":"LOCALITY","value":"x"}`, false},
		{`{"type":"equals","key":"DEPTH","value":"5"}`, true}, // no statistics
		{`{"type":"within","geometry":"POLYGON((20 50, 30 50, 30 60, 20 60, 20 50))"}`, false},
		{`{"type":"within","geometry":"POLYGON((10 55, 30 55, 30 70, 10 70, 10 55))"}`, true},
		{`{"type":"within","geometry":"POLYGON((10 -10, 30 -10, 30 0, 10 0, 10 -10))"}`, false},
		{`{"type":"geoDistance","latitude":0,"longitude":10,"distance":"100km"}`, false},
		{`{"type":"geoDistance","latitude":49.5,"longitude":10,"distance":"100km"}`, true},
		{`{"type":"equals","key":"EVENT_DATE","value":"1999"}`, false},
		{`{"type":"equals","key":"EVENT_DATE","value":"2000"}`, true},
		{`{"type":"equals","key":"EVENT_DATE","value":"2000-01-01"}`, false}, // every end is later
		{`{"type":"not","predicate":{"type":"isNull","parameter":"LOCALITY"}}`, false},
		{`{"type":"not","predicate":{"type":"in","key":"COUNTRY","values":["DK","SE"]}}`, false},
		{`{"type":"not","predicate":{"type":"equals","key":"COUNTRY","value":"DK"}}`, true},
		{`{"type":"not","predicate":{"type":"equals","key":"YEAR","value":"1980,2020"}}`, true}, // nulls match
		{`{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"DK"},{"type":"equals","key":"YEAR","value":"1800"}]}`, false},
		{`{"type":"or","predicates":[{"type":"equals","key":"COUNTRY","value":"NO"},{"type":"equals","key":"YEAR","value":"1995"}]}`, true},
	}
	for _, c := range cases {
		if got := mustParse(t, c.js).MayMatch(st); got != c.may {
			t.Errorf("MayMatch(%s) = %v, want %v", c.js, got, c.may)
		}
	}
	if !mustParse(t, `{"type":"equals","key":"COUNTRY","value":"NO"}`).MayMatch(nil) {
		t.Error("nil stats must not prune")
	}
}

// TestTrimmedEvalAgrees checks EvalCache.Trim: with a split's statistics
// the columns of a taxon key leaf that cannot match are not read, and
// EvalCached over a batch of only the columns Trim returns gives Eval's
// result over every column.
func TestTrimmedEvalAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	rows := randomRows(rng, 400)
	// Disjoint key ranges per rank, as in a real backbone.
	for i, r := range rows {
		for k, c := range taxonKeyColumns {
			if _, ok := r[c]; ok {
				r[c] = int64(k*1000 + i%7)
			}
		}
	}
	stats := statsOf(allColumns(), rows, true)
	full := buildBatch(t, allColumns(), rows)
	defer full.Release()
	preds := append([]string{
		`{"type":"equals","key":"TAXON_KEY","value":"2003"}`,
		`{"type":"in","key":"TAXON_KEY","values":["3","4005","999999"]}`,
		`{"type":"not","predicate":{"type":"equals","key":"TAXON_KEY","value":"5001"}}`,
		`{"type":"or","predicates":[{"type":"equals","key":"TAXON_KEY","value":"999999"},{"type":"equals","key":"COUNTRY","value":"DK"}]}`,
		`{"type":"and","predicates":[{"type":"equals","key":"TAXON_KEY","value":"6002"},{"type":"isNotNull","parameter":"YEAR"}]}`,
		// merged into one in (orPlan): trimmed as the merged leaf reads
		`{"type":"or","predicates":[{"type":"equals","key":"TAXON_KEY","value":"2003"},{"type":"equals","key":"TAXON_KEY","value":"4005"},{"type":"equals","key":"COUNTRY","value":"DK"}]}`,
	}, leafPredicates...)
	trimmed := 0
	for _, js := range preds {
		p := mustParse(t, js)
		want := make([]bool, full.NumRows())
		p.Eval(full, want)
		cache := NewEvalCache()
		cols := cache.Trim(p, stats)
		if len(cols) < len(p.Columns()) {
			trimmed++
		}
		part := buildBatch(t, cols, rows)
		got := make([]bool, part.NumRows())
		p.EvalCached(part, got, cache)
		part.Release()
		cache.Release()
		if !slices.Equal(want, got) {
			t.Fatalf("%s: trimmed evaluation over %v disagrees", js, cols)
		}
	}
	if trimmed < 4 {
		t.Fatalf("only %d predicates had columns trimmed", trimmed)
	}
}

// TestTrimPreparesEachSplit: a cache trimmed for one split and then for
// another (or with no statistics) forgets the columns the first split's
// statistics ruled out.
func TestTrimPreparesEachSplit(t *testing.T) {
	p := mustParse(t, `{"type":"equals","key":"TAXON_KEY","value":"3"}`)
	rows := []row{{ColTaxonKey: int64(3)}, {ColKingdomKey: int64(3)}, {ColKingdomKey: int64(4)}}
	none := statsOf(allColumns(), []row{{ColTaxonKey: int64(9), ColKingdomKey: int64(9)}}, true)
	batch := buildBatch(t, allColumns(), rows)
	defer batch.Release()
	want := []bool{true, true, false}
	for _, second := range []Stats{nil, statsOf(allColumns(), rows, true)} {
		cache := NewEvalCache()
		if cols := cache.Trim(p, none); len(cols) != 0 {
			t.Fatalf("first split: Trim kept %v", cols)
		}
		cols := cache.Trim(p, second)
		if !slices.Contains(cols, ColKingdomKey) {
			t.Fatalf("second split: Trim = %v, want %s kept", cols, ColKingdomKey)
		}
		got := make([]bool, batch.NumRows())
		p.EvalCached(batch, got, cache)
		cache.Release()
		if !slices.Equal(got, want) {
			t.Errorf("second split (stats %v): EvalCached = %v, want %v", second != nil, got, want)
		}
	}
}
