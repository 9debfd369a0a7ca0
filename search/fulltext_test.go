package search

import (
	"context"
	"net/url"
	"slices"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// TestFullTextSearch: q finds the records holding any of its words (the
// count), and its pages list those holding all the words first, then
// those with one fewer, each group in table order: the independent answer
// is one ordered scan per group, with predicates built here. Pages that
// cross from one group to the next, and the last page, are the slices of
// that list. Facets count over the same records, with facetMultiselect
// too (the words stay when the faceted parameter is dropped).
func TestFullTextSearch(t *testing.T) {
	tbl := table(t)
	s := New(tbl, Config{}, nil)
	for _, c := range []struct{ query, rest string }{
		{"q=Coniferous+FOREST", ""},
		{"q=forest+woodland+meadow&basisOfRecord=PRESERVED_SPECIMEN", "basisOfRecord=PRESERVED_SPECIMEN"},
		{"q=grassland", ""},
		{"q=zzzzqx", ""},
	} {
		r := mustRequest(t, s, c.query)
		base := mustRequest(t, s, c.rest).Predicate
		want, groups := rankedIDs(t, tbl, r.Words, base)
		anyWord := orderedIDs(t, tbl, and(fullText(t, r.Words, 1), base))
		slices.Sort(anyWord)
		if sorted := slices.Sorted(slices.Values(want)); !slices.Equal(sorted, anyWord) {
			t.Fatalf("%s: the groups hold %d records, any word %d", c.query, len(want), len(anyWord))
		}
		if len(r.Words) > 1 && groups < 2 || c.query == "q=grassland" && len(want) == 0 {
			t.Fatalf("%s: %d records in %d groups: the test data does not exercise it", c.query, len(want), groups)
		}
		n := len(want)
		for _, pg := range [][2]int{{0, 20}, {0, 300}, {max(n/3-2, 0), 10}, {max(n-3, 0), 20}, {n + 5, 5}, {2, 0}} {
			if res := searchPage(t, s, r, pg, want); res.EndOfRecords != (pg[0]+pg[1] >= n) {
				t.Fatalf("%s %v: endOfRecords %v of %d", c.query, pg, res.EndOfRecords, n)
			}
		}
	}
	plain := facetCounts(t, s, "q=forest&facet=basisOfRecord")
	multi := facetCounts(t, s, "q=forest&basisOfRecord=FOSSIL_SPECIMEN&facet=basisOfRecord&facetMultiselect=true")
	all := facetCounts(t, s, "facet=basisOfRecord")
	if !slices.Equal(plain, multi) || slices.Equal(plain, all) || len(plain) < 2 {
		t.Fatalf("basisOfRecord facets: with q %v, multiselect %v, without q %v", plain, multi, all)
	}
}

// rankedIDs is the independent answer of a full-text search of words
// with the other parameters' predicate base: the records holding all the
// words in table order, then those holding one fewer, and so on, one
// ordered scan each; groups counts the non-empty ones.
func rankedIDs(t *testing.T, tbl occurrence.Table, words []string, base *occurrence.Predicate) (ids []int64, groups int) {
	t.Helper()
	for k := len(words); k >= 1; k-- {
		tier := fullText(t, words, k)
		if k < len(words) {
			tier = and(tier, &occurrence.Predicate{Type: occurrence.TypeNot, Predicate: fullText(t, words, k+1)})
		}
		got := orderedIDs(t, tbl, and(tier, base))
		if len(got) > 0 {
			groups++
		}
		ids = append(ids, got...)
	}
	return ids, groups
}

// searchPage runs r's page pg (offset, limit) and checks its keys and
// count against want, the ordered answer.
func searchPage(t *testing.T, s *Service, r Request, pg [2]int, want []int64) *Response {
	t.Helper()
	r.Offset, r.Limit = pg[0], pg[1]
	res, err := s.Search(context.Background(), r)
	if err != nil {
		t.Fatalf("%s %v: %v", r.Predicate, pg, err)
	}
	exp := want[min(r.Offset, len(want)):]
	exp = exp[:min(r.Limit, len(exp))]
	if got := keys(t, res.Results); !slices.Equal(got, exp) || res.Count != int64(len(want)) {
		t.Fatalf("%s %v: %v (count %d), want %v (%d)", r.Predicate, pg, head(got), res.Count, head(exp), len(want))
	}
	return res
}

func and(ps ...*occurrence.Predicate) *occurrence.Predicate {
	var out *occurrence.Predicate
	for _, p := range ps {
		out = both(out, p)
	}
	return out
}

func fullText(t *testing.T, words []string, k int) *occurrence.Predicate {
	t.Helper()
	p, err := occurrence.FullText(words, k)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func facetCounts(t *testing.T, s *Service, query string) []FacetCount {
	t.Helper()
	r := mustRequest(t, s, query)
	r.Limit = 0
	res, err := s.Search(context.Background(), r)
	if err != nil || len(res.Facets) != 1 {
		t.Fatalf("%s: %v, facets %v", query, err, res)
	}
	return res.Facets[0].Counts
}

// TestFullTextWordsCapped: q is cut into distinct words; more than
// occurrence.MaxFullTextWords is a bad request, a blank q none.
func TestFullTextWordsCapped(t *testing.T) {
	s := New(nil, Config{}, nil)
	r := mustRequest(t, s, "q=Puma+concolor&Q=puma")
	if !slices.Equal(r.Words, []string{"puma", "concolor"}) {
		t.Fatalf("words %q", r.Words)
	}
	q, _ := url.ParseQuery("q=a+b+c+d+e+f+g+h+i+j+k")
	if _, err := s.ParseRequest(context.Background(), q); err == nil {
		t.Fatal("11 words accepted")
	}
	if r := mustRequest(t, s, "q=+"); r.Predicate != nil || r.Words != nil {
		t.Fatalf("blank q: %+v", r)
	}
}
