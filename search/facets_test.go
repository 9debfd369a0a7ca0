package search

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// countOf is the independent answer for a facet value: the count of the
// search's parameters plus the facet's parameter equal to the value.
func countOf(t *testing.T, s *Service, query, param, value string) int64 {
	t.Helper()
	q, _ := url.ParseQuery(query)
	base, err := s.parsePredicate(q)
	if err != nil {
		t.Fatal(err)
	}
	extra, err := s.parsePredicate(url.Values{param: {value}})
	if err != nil {
		t.Fatalf("%s=%s: %v", param, value, err)
	}
	p := extra
	if base != nil {
		js := `{"type":"and","predicates":[` + base.String() + `,` + extra.String() + `]}`
		if p, err = occurrence.ParsePredicateJSON([]byte(js), occurrence.DefaultLimits()); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.Count(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFacetsCountWhatTheParametersMatch: each facet value's count equals
// the count of the search with that value as one more parameter; values
// come most frequent first; facetLimit, facetOffset (also per facet) and
// facetMincount page and filter them.
func TestFacetsCountWhatTheParametersMatch(t *testing.T) {
	s := New(table(t), Config{Cache: -1}, nil)
	ctx := context.Background()
	for _, c := range []struct {
		query, facet, param string
		single              bool // one value per record: the counts add up to the records with a value
	}{
		{"", "country", "country", true},
		{"year=1950,2020", "year", "year", true},
		{"country=NL", "basisOfRecord", "basisOfRecord", true},
		{"", "taxonKey", "taxonKey", false},
		{"hasCoordinate=true", "issue", "issue", false},
		{"", "license", "license", true},
		{"", "hasCoordinate", "hasCoordinate", true},
		{"", "typeStatus", "typeStatus", false},
		{"country=DK", "datasetKey", "datasetKey", true},
	} {
		r := mustRequest(t, s, c.query+"&limit=0&facetLimit=1000&facet="+c.facet)
		res, err := s.Search(ctx, r)
		if err != nil {
			t.Fatalf("%s facet %s: %v", c.query, c.facet, err)
		}
		if len(res.Facets) != 1 || len(res.Facets[0].Counts) == 0 || len(res.Results) != 0 {
			t.Fatalf("%s facet %s: %+v", c.query, c.facet, res)
		}
		f := res.Facets[0]
		var sum int64
		for i, fc := range f.Counts {
			if i > 0 && (fc.Count > f.Counts[i-1].Count || fc.Count == f.Counts[i-1].Count && fc.Name < f.Counts[i-1].Name) {
				t.Fatalf("facet %s out of order at %d: %v", c.facet, i, f.Counts[:i+1])
			}
			sum += fc.Count
			// Check the first values and a sample of the rest.
			if i < 4 || i%17 == 0 {
				if want := countOf(t, s, c.query, c.param, fc.Name); fc.Count != want {
					t.Fatalf("%s facet %s value %s: %d, the search with %s=%s counts %d", c.query, f.Field, fc.Name, fc.Count, c.param, fc.Name, want)
				}
			}
		}
		if c.single {
			if want := countOf(t, s, c.query, c.param, "*"); sum != want {
				t.Fatalf("%s facet %s: counts add up to %d, %d records have a value", c.query, c.facet, sum, want)
			}
		}
		t.Logf("%s facet %s: %d values, first %v", c.query, f.Field, len(f.Counts), f.Counts[0])

		// Paging: offset 1, limit 2 is the second and third value.
		if len(f.Counts) >= 3 {
			paged, err := s.Search(ctx, mustRequest(t, s, c.query+"&limit=0&facet="+c.facet+"&"+c.facet+".facetOffset=1&"+c.facet+".facetLimit=2"))
			if err != nil {
				t.Fatal(err)
			}
			if got := paged.Facets[0].Counts; len(got) != 2 || got[0] != f.Counts[1] || got[1] != f.Counts[2] {
				t.Fatalf("facet %s offset 1 limit 2: %v, want %v", c.facet, got, f.Counts[1:3])
			}
			min := f.Counts[1].Count
			filtered, err := s.Search(ctx, mustRequest(t, s, c.query+"&limit=0&facetLimit=1000&facet="+c.facet+"&facetMincount="+strconv.FormatInt(min, 10)))
			if err != nil {
				t.Fatal(err)
			}
			for _, fc := range filtered.Facets[0].Counts {
				if fc.Count < min {
					t.Fatalf("facetMincount %d kept %v", min, fc)
				}
			}
		}
	}
}

// TestFacetMultiselect: with facetMultiselect a facet whose parameter is
// a filter counts every value as if that filter were absent (other filters
// stay); without it only the filtered values appear.
func TestFacetMultiselect(t *testing.T) {
	s := New(table(t), Config{}, nil)
	ctx := context.Background()
	plain, err := s.Search(ctx, mustRequest(t, s, "country=NL&hasCoordinate=true&limit=0&facet=country&facet=year&facetLimit=500"))
	if err != nil {
		t.Fatal(err)
	}
	if c := plain.Facets[0].Counts; len(c) != 1 || c[0].Name != "NL" || c[0].Count != plain.Count {
		t.Fatalf("country facet without multiselect: %v (count %d)", c, plain.Count)
	}
	multi, err := s.Search(ctx, mustRequest(t, s, "country=NL&hasCoordinate=true&limit=0&facet=country&facet=year&facetLimit=500&facetMultiselect=true"))
	if err != nil {
		t.Fatal(err)
	}
	if multi.Count != plain.Count {
		t.Fatalf("multiselect changed the count: %d, %d", multi.Count, plain.Count)
	}
	countries := multi.Facets[0].Counts
	if len(countries) < 3 {
		t.Fatalf("multiselect country facet: %v", countries)
	}
	for _, fc := range countries[:3] {
		if want := countOf(t, s, "hasCoordinate=true", "country", fc.Name); fc.Count != want {
			t.Fatalf("multiselect country %s: %d, want %d", fc.Name, fc.Count, want)
		}
	}
	// The year facet's parameter is no filter: it counts within country=NL.
	if got, want := multi.Facets[1], plain.Facets[1]; len(got.Counts) != len(want.Counts) || got.Counts[0] != want.Counts[0] {
		t.Fatalf("multiselect year facet %v, plain %v", got.Counts[:1], want.Counts[:1])
	}
}

// TestFacetDeadline: facet scans past the deadline are ErrTooExpensive.
func TestFacetDeadline(t *testing.T) {
	s := New(table(t), Config{FacetTimeout: 1}, nil)
	_, err := s.Search(context.Background(), mustRequest(t, s, "facet=country&facet=year&limit=0"))
	if err == nil || !strings.Contains(err.Error(), "took longer than") {
		t.Fatalf("facets past a 1ns deadline: %v", err)
	}
}

// TestFacetsCachedAndBounded: a facet asked again on the same snapshot and
// predicate is served from the cache (no scan); a facet with more distinct
// values than MaxFacetValues stops with ErrTooExpensive.
func TestFacetsCachedAndBounded(t *testing.T) {
	tbl := &countingTable{Table: table(t)}
	s := New(tbl, Config{MaxFacetValues: 500}, nil)
	ctx := context.Background()
	first, err := s.Search(ctx, mustRequest(t, s, "limit=0&facet=country&facet=year&year=1900,2000"))
	if err != nil {
		t.Fatal(err)
	}
	scans := tbl.scans.Load()
	again, err := s.Search(ctx, mustRequest(t, s, "limit=0&facet=year&facet=country&year=1900,2000&facetLimit=3"))
	if err != nil {
		t.Fatal(err)
	}
	if tbl.scans.Load() != scans {
		t.Fatalf("the same facets again scanned %d splits", tbl.scans.Load()-scans)
	}
	if again.Facets[0].Field != "YEAR" || again.Facets[0].Counts[0] != first.Facets[1].Counts[0] || len(again.Facets[1].Counts) != 3 {
		t.Fatalf("cached facets %+v, first %+v", again.Facets, first.Facets)
	}
	_, err = s.Search(ctx, mustRequest(t, s, "limit=0&facet=catalogNumber&facetLimit=5"))
	if !errors.Is(err, ErrTooExpensive) || !strings.Contains(err.Error(), "CATALOG_NUMBER has more than 500 values") {
		t.Fatalf("a facet of thousands of values: %v", err)
	}
}
