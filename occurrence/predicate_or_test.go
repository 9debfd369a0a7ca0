package occurrence

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// An or of equals, in and like predicates on the same keys evaluates as
// merged leaves, matching exactly the rows the tree as written matches
// (MatchRow reads the tree), and costs what the merged leaves cost.
func TestOrMergesLeavesOfOneKey(t *testing.T) {
	var taxa []string
	for i := range 5000 {
		taxa = append(taxa, fmt.Sprintf(`{"type":"equals","key":"TAXON_KEY","value":"%d"}`, i*3+3))
	}
	cases := []struct {
		name, js string
		maxWork  int
	}{
		{"5000 taxon equals", `{"type":"or","predicates":[` + strings.Join(taxa, ",") + `]}`, 40},
		{"equals and in on year", `{"type":"or","predicates":[{"type":"equals","key":"YEAR","value":"1990"},{"type":"in","key":"YEAR","values":["1995","2000,2002"]},{"type":"equals","key":"YEAR","value":"*,1987"}]}`, 20},
		{"likes and equals, case rules apart", `{"type":"or","predicates":[{"type":"like","key":"SCIENTIFIC_NAME","value":"puma*"},{"type":"like","key":"SCIENTIFIC_NAME","value":"*ALBA*","matchCase":true},{"type":"like","key":"SCIENTIFIC_NAME","value":"?rø*"},{"type":"equals","key":"SCIENTIFIC_NAME","value":"quercus robur"},{"type":"equals","key":"COUNTRY","value":"DK"},{"type":"in","key":"COUNTRY","values":["SE","FJ"]},{"type":"isNull","parameter":"COUNTRY"}]}`, 200},
		{"codes and booleans", `{"type":"or","predicates":[{"type":"equals","key":"HAS_COORDINATE","value":"true"},{"type":"equals","key":"HAS_COORDINATE","value":"false"},{"type":"equals","key":"BASIS_OF_RECORD","value":"PRESERVED_SPECIMEN"},{"type":"equals","key":"BASIS_OF_RECORD","value":"HUMAN_OBSERVATION"}]}`, 30},
		{"event dates", `{"type":"or","predicates":[{"type":"equals","key":"EVENT_DATE","value":"1998"},{"type":"equals","key":"EVENT_DATE","value":"2001-02"},{"type":"in","key":"EVENT_DATE","values":["1996-01-01,1996-06-30","2003"]}]}`, 20},
	}
	rng := rand.New(rand.NewPCG(21, 22))
	batch := buildBatch(t, allColumns(), randomRows(rng, 2000))
	defer batch.Release()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustParse(t, c.js)
			if p.plan.Load() == nil {
				t.Fatal("no merged plan")
			}
			n := len(matchingRows(t, p, batch))
			if n == 0 || n == 2000 {
				t.Fatalf("%d of 2000 rows match: the case tells nothing", n)
			}
			if w := p.Cost().Work; w > c.maxWork {
				t.Fatalf("work %d, want at most %d", w, c.maxWork)
			}
			// Under a not and an and, and with dictionary-encoded strings.
			q := mustParse(t, `{"type":"and","predicates":[{"type":"not","predicate":`+c.js+`},{"type":"isNotNull","parameter":"YEAR"}]}`)
			matchingRows(t, q, batch)
		})
	}
}

// BenchmarkOrMerged evaluates an or of equals as scripts write species
// lists (5,000 taxon keys, and 200 like patterns on one key) merged into
// one leaf, beside the same tree evaluated branch by branch (plan
// removed); ns/row.
func BenchmarkOrMerged(b *testing.B) {
	var taxa, likes []string
	for i := range 5000 {
		taxa = append(taxa, fmt.Sprintf(`{"type":"equals","key":"TAXON_KEY","value":"%d"}`, 1000+i*37))
	}
	for i := range 200 {
		likes = append(likes, fmt.Sprintf(`{"type":"like","key":"SCIENTIFIC_NAME","value":"genus%d *"}`, 100+i*7))
	}
	rows := benchRows(DefaultBatchSize)
	for _, c := range []struct{ name, js string }{
		{"taxon_equals_5000", `{"type":"or","predicates":[` + strings.Join(taxa, ",") + `]}`},
		{"name_likes_200", `{"type":"or","predicates":[` + strings.Join(likes, ",") + `]}`},
	} {
		p := mustParse(b, c.js)
		batch := buildBatch(b, p.Columns(), rows)
		sel := make([]bool, batch.NumRows())
		b.Run(c.name+"/merged", func(b *testing.B) {
			for b.Loop() {
				p.Eval(batch, sel)
			}
			reportPerRow(b, batch)
		})
		q := mustParse(b, c.js)
		q.plan.Store(nil)
		b.Run(c.name+"/as_written", func(b *testing.B) {
			for b.Loop() {
				q.Eval(batch, sel)
			}
			reportPerRow(b, batch)
		})
		batch.Release()
	}
}
