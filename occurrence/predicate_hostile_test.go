package occurrence_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// generatedBatch is n generated records in one batch of the full schema.
func generatedBatch(t testing.TB, n int) arrow.RecordBatch {
	t.Helper()
	g := occurrencetest.NewGenerator(42, 2000)
	plan := g.Datasets(n, 1)
	b := occurrence.NewBuilder()
	defer b.Release()
	rec := occurrence.NewRecord()
	for i := range n {
		g.Fill(rec, &plan[0], i)
		b.Append(rec)
	}
	batch := b.NewBatch()
	t.Cleanup(batch.Release)
	return batch
}

// TestHostilePredicates: every adversarial predicate of the hostile suite
// gets its bounded outcome before anything scans: rejected by its rule,
// with the limit and what broke it, or accepted with a bounded work per
// record, and then evaluated the same by Eval and the reference MatchRow.
func TestHostilePredicates(t *testing.T) {
	batch := generatedBatch(t, 512)
	for _, h := range occurrencetest.HostilePredicates() {
		t.Run(h.Name, func(t *testing.T) {
			p, err := occurrence.ParsePredicateJSON([]byte(h.JSON), occurrence.DefaultLimits())
			if h.Rule != "" {
				var pe *occurrence.PredicateError
				if !errors.As(err, &pe) || !errors.Is(err, occurrence.ErrPredicateTooComplex) {
					t.Fatalf("accepted or wrong error, want rule %s: %v", h.Rule, err)
				}
				if pe.Rule != h.Rule || pe.Got <= pe.Limit || !strings.Contains(err.Error(), h.Rule) {
					t.Fatalf("rule %q (got %d, limit %d): %v; want rule %s", pe.Rule, pe.Got, pe.Limit, err, h.Rule)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w := p.Cost().Work; w > h.MaxWork {
				t.Fatalf("work %d per record, want at most %d", w, h.MaxWork)
			}
			sel := make([]bool, batch.NumRows())
			p.Eval(batch, sel)
			for i, s := range sel {
				if m := p.MatchRow(batch, i); m != s {
					t.Fatalf("row %d: Eval %v, MatchRow %v", i, s, m)
				}
			}
		})
	}
}

// TestHostileQueryParameters: the query-string route gets the same limits
// (a portal URL with 1,000 polygons is rejected by the work estimate,
// naming the parameter) and a list where a range goes says what to do.
func TestHostileQueryParameters(t *testing.T) {
	q := map[string][]string{"year": {"2000"}}
	for i := range 1000 {
		q["geometry"] = append(q["geometry"], occurrencetest.PolygonWKT(i, 4))
	}
	_, err := occurrence.ParseQuery(q, occurrence.DefaultLimits())
	var pe *occurrence.PredicateError
	if !errors.As(err, &pe) || pe.Rule != occurrence.RuleCost || !strings.Contains(err.Error(), "query parameter geometry costs") {
		t.Fatalf("1,000 polygons: %v, want %s naming the geometry parameter", err, occurrence.RuleCost)
	}
	delete(q, "year") // the parameter is the whole predicate
	if _, err := occurrence.ParseQuery(q, occurrence.DefaultLimits()); err == nil || !strings.Contains(err.Error(), "query parameter geometry costs") {
		t.Fatalf("1,000 polygons alone: %v, want the geometry parameter named", err)
	}
	_, err = occurrence.ParseQuery(map[string][]string{"taxonKey": {"1,2,3"}}, occurrence.DefaultLimits())
	if !errors.Is(err, occurrence.ErrInvalidPredicate) || !strings.Contains(err.Error(), "taxonKey=1&taxonKey=2&taxonKey=3") {
		t.Fatalf("taxonKey=1,2,3: %v, want the advice to repeat the parameter", err)
	}
}

// BenchmarkHostile evaluates the accepted hostile predicates, and the
// rejected ones with every limit lifted, on generated records: ns/row
// beside the work estimate (work/row) shows what the limits keep out.
func BenchmarkHostile(b *testing.B) {
	batch := generatedBatch(b, occurrence.DefaultBatchSize)
	lifted := occurrence.Limits{MaxValues: 1 << 30, MaxPolygonPoints: 1 << 30, MaxDepth: 1 << 30, MaxNodes: 1 << 30,
		MaxLikes: 1 << 30, MaxPatternLength: 1 << 30, MaxPatternWildcards: 1 << 30, MaxCost: 1 << 30}
	sel := make([]bool, batch.NumRows())
	for _, h := range occurrencetest.HostilePredicates() {
		p, err := occurrence.ParsePredicateJSON([]byte(h.JSON), lifted)
		if err != nil {
			b.Logf("%s: %v", h.Name, err)
			continue
		}
		b.Run(strings.ReplaceAll(h.Name, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				p.Eval(batch, sel)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(batch.NumRows()), "ns/row")
			b.ReportMetric(float64(p.Cost().Work), "work/row")
		})
	}
}
