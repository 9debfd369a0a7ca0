package occurrence

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// memberStats are statistics that know no min/max but every integer value
// of each column exactly (a bloom filter without false positives), so
// that Trim leaves out columns through IntMembership alone.
type memberStats map[string]map[int64]bool

func (m memberStats) ColumnStats(string) (ColumnStats, bool) { return ColumnStats{}, false }

func (m memberStats) MayContainInt(column string, v int64) bool { return m[column][v] }

func membersOf(rows []row) memberStats {
	m := memberStats{}
	for _, r := range rows {
		for c, v := range r {
			if i, ok := v.(int64); ok {
				if m[c] == nil {
					m[c] = map[int64]bool{}
				}
				m[c][i] = true
			}
		}
	}
	return m
}

// TestTrimByMembershipAgrees checks Trim with IntMembership: over only the
// columns Trim keeps, EvalCached gives Eval's result over every column for
// equals, in, not, ors merged into an in, and two taxon key leaves of
// which each needs a column the other does not; Trimmed counts the
// predicate's columns left out, each once.
func TestTrimByMembershipAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	rows := randomRows(rng, 400)
	for i, r := range rows {
		for k, c := range taxonKeyColumns {
			if _, ok := r[c]; ok {
				r[c] = int64(k*1000 + i%7)
			}
		}
	}
	stats := membersOf(rows)
	full := buildBatch(t, allColumns(), rows)
	defer full.Release()
	trimmed := 0
	for _, js := range []string{
		`{"type":"equals","key":"TAXON_KEY","value":"2003"}`,
		`{"type":"equals","key":"TAXON_KEY","value":"999999"}`,
		`{"type":"in","key":"TAXON_KEY","values":["3","4005","999999"]}`,
		`{"type":"not","predicate":{"type":"equals","key":"TAXON_KEY","value":"5001"}}`,
		`{"type":"or","predicates":[{"type":"equals","key":"TAXON_KEY","value":"2003"},{"type":"equals","key":"TAXON_KEY","value":"4005"},{"type":"equals","key":"COUNTRY","value":"DK"}]}`,
		`{"type":"and","predicates":[{"type":"equals","key":"TAXON_KEY","value":"2003"},{"type":"not","predicate":{"type":"equals","key":"TAXON_KEY","value":"4001"}}]}`,
		`{"type":"greaterThan","key":"TAXON_KEY","value":"13000"}`,
	} {
		p := mustParse(t, js)
		want := make([]bool, full.NumRows())
		p.Eval(full, want)
		cache := NewEvalCache()
		cols := cache.Trim(p, stats)
		all := p.Columns()
		if n := cache.Trimmed(); n != len(all)-len(cols) {
			t.Errorf("%s: Trimmed() = %d, but %d of the predicate's %d columns are left out", js, n, len(all)-len(cols), len(all))
		}
		if len(cols) < len(all) {
			trimmed++
		}
		read := cols
		if len(read) == 0 {
			read = []string{ColYear} // a scan reads some column for the rows
		}
		part := buildBatch(t, read, rows)
		got := make([]bool, part.NumRows())
		p.EvalCached(part, got, cache)
		part.Release()
		cache.Release()
		if !slices.Equal(want, got) {
			t.Fatalf("%s: evaluation over %v disagrees", js, cols)
		}
	}
	if trimmed < 5 {
		t.Fatalf("only %d predicates had columns trimmed", trimmed)
	}
}
