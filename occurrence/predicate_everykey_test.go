package occurrence

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// keyPool is how the every-key test fills a search parameter's columns and
// what values its leaves ask for.
type keyPool struct {
	spec *keySpec
	// fill sets the spec's columns of one row.
	fill func(rng *rand.Rand, r row)
	// values are leaf values; holds(r, v) says that row r holds v exactly
	// (so equals v must match it), nil when equality is not that simple.
	values []string
	holds  func(r row, v string) bool
	// extra are further leaves of the key (ranges, comparisons, like).
	extra []string
}

// everyKeyCandidates are text values offered to the normalizers of the keys
// that have one: each key keeps those it accepts.
var everyKeyCandidates = []string{
	"DK", "se", "US", "0c3f1c4e-2a0e-4e4b-9c1e-6f3c7a1d2b3c", "B1047888-AE52-4179-9DD5-5448EA342A24",
	"CC_BY_4_0", "CC0_1_0", "CC_BY_NC_4_0", "true", "false", "ACGTACGTTAGC", "ggccaattaacc", "TTAACCGG",
	"EUROPE", "north america",
}

// poolFor builds a spec's pool; claimed keeps another spec's columns from
// being filled twice (TAXON_KEY's columns are the ranks' keys).
func poolFor(s *keySpec, claimed map[string]bool) keyPool {
	p := keyPool{spec: s}
	owned := func() bool {
		for _, c := range s.cols {
			if claimed[c] {
				return false
			}
		}
		for _, c := range s.cols {
			claimed[c] = true
		}
		return true
	}
	own := owned()
	leaf := func(typ, v string) string {
		return fmt.Sprintf(`{"type":%q,"key":%q,"value":%q}`, typ, s.name, v)
	}
	maybe := func(rng *rand.Rand) bool { return rng.IntN(6) != 0 }
	switch {
	case s.geoTime:
		p.fill = func(rng *rand.Rand, r row) {
			if maybe(rng) {
				end := float64(rng.IntN(300))
				r[s.cols[0]], r[s.cols[1]] = end, end+float64(rng.IntN(60))
			}
		}
		p.values = []string{"Mesozoic", "0,100", "Jurassic,Paleogene"}
		p.extra = []string{leaf("greaterThan", "150"), leaf("lessThanOrEquals", "Cretaceous")}
	case s.figures:
		p.fill = func(rng *rand.Rand, r row) {
			if n := rng.IntN(4); n > 0 {
				l := make([]string, n)
				for j := range l {
					l[j] = strconv.Itoa(rng.IntN(8))
				}
				r[s.cols[0]] = strings.Join(l, ";")
			}
		}
		p.values = []string{"0", "3", "5"}
		p.holds = func(r row, v string) bool {
			l, _ := r[s.cols[0]].(string)
			return slices.Contains(strings.Split(l, ";"), v)
		}
		p.extra = []string{leaf("greaterThan", "4"), leaf("equals", "2,5")}
	case s.kind == vDate:
		p.fill = func(rng *rand.Rand, r row) {
			if maybe(rng) {
				start := day("1998-01-01").AddDate(0, 0, rng.IntN(365*4))
				r[ColEventDateStart], r[ColEventDateEnd] = start, start.AddDate(0, 0, rng.IntN(40))
			}
		}
		p.values = []string{"1999", "2000-05", "1998-03-01,1999-06-30"}
		p.extra = []string{leaf("greaterThan", "2000-06"), leaf("lessThan", "1999")}
	case s.kind == vTime:
		p.fill = func(rng *rand.Rand, r row) {
			if maybe(rng) {
				r[s.cols[0]] = day("2020-01-01").AddDate(0, 0, rng.IntN(6))
			}
		}
		p.values = []string{"2020-01-02", "2020-01-04"}
		p.holds = func(r row, v string) bool { tm, ok := r[s.cols[0]].(time.Time); return ok && tm.Equal(day(v)) }
		p.extra = []string{leaf("greaterThan", "2020-01-03"), leaf("equals", "2020-01-02,2020-01-04")}
	case s.kind == vInt || s.kind == vFloat:
		lo := 0.0
		if s.min < s.max {
			lo = s.min
		}
		p.fill = func(rng *rand.Rand, r row) {
			for _, c := range s.cols {
				if !maybe(rng) {
					continue
				}
				v := lo + float64(rng.IntN(6))
				if s.kind == vInt {
					r[c] = int64(v)
				} else {
					r[c] = v
				}
			}
		}
		num := func(k float64) string { return strconv.FormatFloat(lo+k, 'f', -1, 64) }
		p.values = []string{num(0), num(2), num(5)}
		p.holds = func(r row, v string) bool {
			want, _ := strconv.ParseFloat(v, 64)
			for _, c := range s.cols {
				switch x := r[c].(type) {
				case int64:
					if float64(x) == want {
						return true
					}
				case float64:
					if x == want {
						return true
					}
				}
			}
			return false
		}
		p.extra = []string{leaf("greaterThan", num(3)), leaf("equals", num(1)+","+num(3)),
			fmt.Sprintf(`{"type":"in","key":%q,"values":[%q,%q,%q,%q,%q,%q,%q,%q,%q,%q]}`, s.name,
				num(0), num(1), num(2), num(3), num(4), num(5), num(0)+","+num(1), num(2)+","+num(4), num(3), num(5))}
	case s.kind == vBool:
		p.fill = func(rng *rand.Rand, r row) {
			if maybe(rng) {
				r[s.cols[0]] = rng.IntN(2) == 0
			}
		}
		p.values = []string{"true", "false"}
		p.holds = func(r row, v string) bool { b, ok := r[s.cols[0]].(bool); return ok && strconv.FormatBool(b) == v }
	default: // text, codes, vocabularies, lists
		var stored []string // what the columns hold, one per value
		if s.norm == nil {
			p.values = []string{"Alpha", "alpha beta", "Gamma", "Ærø fjord"}
			stored = p.values
		} else {
			cands := slices.Clone(everyKeyCandidates)
			if s.concepts != nil {
				cands = append(cands, s.concepts.concepts[:min(4, len(s.concepts.concepts))]...)
			}
			cands = append(cands, basisOfRecordValues[:2]...)
			cands = append(cands, occurrenceStatusValues...)
			cands = append(cands, mediaTypeValues[:2]...)
			cands = append(cands, issueValues[:2]...)
			seen := map[string]bool{}
			for _, c := range cands {
				n, err := s.norm(c)
				if err != nil || seen[n] || len(p.values) == 4 {
					continue
				}
				seen[n] = true
				p.values = append(p.values, n)
				if s.matchValue != nil {
					n = s.matchValue(n)
				}
				stored = append(stored, n)
			}
		}
		multi := s.kind == vMulti || s.kind == vPiped
		p.fill = func(rng *rand.Rand, r row) {
			for _, c := range s.cols {
				if !maybe(rng) {
					continue
				}
				v := stored[rng.IntN(len(stored))]
				if multi && rng.IntN(2) == 0 {
					v += ";" + stored[rng.IntN(len(stored))]
				}
				r[c] = v
			}
		}
		p.holds = func(r row, v string) bool {
			want := v
			if s.matchValue != nil {
				want = s.matchValue(v)
			}
			for _, c := range s.cols {
				got, _ := r[c].(string)
				if got == want || (multi && slices.Contains(strings.Split(got, ";"), want)) {
					return true
				}
			}
			return false
		}
		if len(p.values) > 1 {
			p.extra = append(p.extra, fmt.Sprintf(`{"type":"in","key":%q,"values":[%q,%q]}`, s.name, p.values[0], p.values[1]))
		}
		if s.matchValue == nil {
			p.extra = append(p.extra, leaf("like", strings.ToLower(p.values[0][:1])+"*"))
		}
	}
	if !own {
		p.fill = nil // another key fills these columns; leaves still run
	}
	return p
}

// Every search parameter, whatever its kind, gives the same rows through
// the vectorized evaluator, the row matcher and the statistics, alone and
// in and (either side: an and evaluates in place), or and not; and a record
// holding a value is found by equals on it. Keys added later are covered
// without a change here: a key the pools cannot build values for fails.
func TestEveryKeyAgreesAcrossEvaluators(t *testing.T) {
	names := make([]string, 0, len(keySpecs))
	for n := range keySpecs {
		names = append(names, n)
	}
	// Keys with a normalizer or a value transformation fill shared
	// columns first: their values are the constrained ones.
	sort.Slice(names, func(i, j int) bool {
		rank := func(s *keySpec) int {
			switch {
			case s.matchValue != nil:
				return 0
			case s.norm != nil:
				return 1
			case len(s.cols) == 1:
				return 2
			}
			return 3
		}
		a, b := keySpecs[names[i]], keySpecs[names[j]]
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		return a.name < b.name
	})
	claimed := map[string]bool{}
	pools := make([]keyPool, 0, len(names))
	for _, n := range names {
		p := poolFor(keySpecs[n], claimed)
		if len(p.values) == 0 {
			t.Errorf("%s: no value of the candidates is accepted; give the test one", n)
			continue
		}
		pools = append(pools, p)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	rows := make([]row, 240)
	for i := range rows {
		rows[i] = row{ColMonth: int64(1 + rng.IntN(12))}
		for _, p := range pools {
			if p.fill != nil {
				p.fill(rng, rows[i])
			}
		}
	}
	cols := allColumns()
	batch := buildBatch(t, cols, rows)
	defer batch.Release()
	// The same rows as Parquet scans hand them over: every text column
	// dictionary-encoded, read in two batches through one EvalCache.
	var text []string
	for _, f := range batch.Schema().Fields() {
		if f.Type.ID() == arrow.STRING {
			text = append(text, f.Name)
		}
	}
	dict := dictEncoded(t, batch, text...)
	defer dict.Release()
	halves := []arrow.RecordBatch{dict.NewSlice(0, 100), dict.NewSlice(100, int64(len(rows)))}
	defer halves[0].Release()
	defer halves[1].Release()
	// Splits of eight rows, each with its statistics.
	type split struct {
		from  int
		stats mapStats
	}
	var splits []split
	for from := 0; from < len(rows); from += 8 {
		splits = append(splits, split{from, statsOf(cols, rows[from:from+8], from%16 == 0)})
	}
	anchor := `{"type":"lessThanOrEquals","key":"MONTH","value":"6"}`
	leaves := 0
	for _, p := range pools {
		var ls []string
		for _, v := range p.values {
			ls = append(ls, fmt.Sprintf(`{"type":"equals","key":%q,"value":%q}`, p.spec.name, v))
		}
		ls = append(ls, p.extra...)
		ls = append(ls, fmt.Sprintf(`{"type":"isNotNull","parameter":%q}`, p.spec.name))
		for li, l := range ls {
			leaves++
			for _, js := range []string{
				l,
				`{"type":"and","predicates":[` + anchor + `,` + l + `]}`,
				`{"type":"and","predicates":[` + l + `,` + anchor + `]}`,
				`{"type":"or","predicates":[` + anchor + `,` + l + `]}`,
				`{"type":"not","predicate":` + l + `}`,
				`{"type":"and","predicates":[{"type":"not","predicate":` + anchor + `},` + l + `,{"type":"not","predicate":` + l + `}]}`,
			} {
				pred, err := ParsePredicateJSON([]byte(js), DefaultLimits())
				if err != nil {
					t.Errorf("%s: %v", js, err)
					continue
				}
				got := matchingRows(t, pred, batch)
				if d := matchingRows(t, pred, dict); !slices.Equal(d, got) {
					t.Errorf("%s: rows %v with dictionaries, %v without", js, d, got)
				}
				cache := NewEvalCache()
				var cached []int
				for k, h := range halves {
					sel := make([]bool, h.NumRows())
					pred.EvalCached(h, sel, cache)
					for i, ok := range sel {
						if ok {
							cached = append(cached, i+100*k)
						}
					}
				}
				cache.Release()
				if !slices.Equal(cached, got) {
					t.Errorf("%s: rows %v through EvalCached in two batches, %v", js, cached, got)
				}
				for _, sp := range splits {
					n := 0
					for _, i := range got {
						if i >= sp.from && i < sp.from+8 {
							n++
						}
					}
					if n > 0 && !pred.MayMatch(sp.stats) {
						t.Errorf("%s: the statistics of rows %d-%d rule out %d matching rows", js, sp.from, sp.from+7, n)
					}
				}
				if js != l || li >= len(p.values) {
					continue
				}
				// The query string's key=value is the same equals.
				qp, err := ParseQuery(url.Values{p.spec.name: {p.values[li]}}, DefaultLimits())
				if err != nil {
					t.Errorf("%s=%s: %v", p.spec.name, p.values[li], err)
				} else if q := matchingRows(t, qp, batch); !slices.Equal(q, got) {
					t.Errorf("%s=%s: rows %v, the predicate %v", p.spec.name, p.values[li], q, got)
				}
				if p.holds == nil {
					continue
				}
				v, n := p.values[li], 0
				for i, r := range rows {
					if p.holds(r, v) {
						n++
						if !slices.Contains(got, i) {
							t.Errorf("%s: row %d holds %q but does not match", js, i, v)
						}
					}
				}
				if n == 0 && p.fill != nil {
					t.Errorf("%s: no row holds %q; the test's rows are too few", js, v)
				}
			}
		}
	}
	if leaves < 3*len(keySpecs) {
		t.Errorf("%d leaves for %d keys", leaves, len(keySpecs))
	}
}
