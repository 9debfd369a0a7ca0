package search

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
)

// TestParseRequestPaging reads limit and offset as GBIF does.
func TestParseRequestPaging(t *testing.T) {
	s := New(nil, Config{}, nil)
	for _, c := range []struct {
		query         string
		offset, limit int
		err           string
	}{
		{"", 0, 20, ""},
		{"limit=5&offset=10", 10, 5, ""},
		{"limit=1000", 0, 300, ""},        // capped, as GBIF caps
		{"limit=-3&offset=-1", 0, 20, ""}, // negative: the defaults
		{"limit=abc&offset=x", 0, 20, ""}, // unparsable: the defaults
		{"limit=0", 0, 0, ""},
		{"offset=99980&limit=20", 99980, 20, ""},
		{"offset=99990&limit=20", 0, 0, "Max offset of 100000 exceeded: 99990 + 20"},
		{"offset=100000&limit=0", 100000, 0, ""},
	} {
		q, _ := url.ParseQuery(c.query)
		r, err := s.ParseRequest(context.Background(), q)
		if c.err != "" {
			if err == nil || !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("%q: %v, want %q", c.query, err, c.err)
			}
			continue
		}
		if err != nil || r.Offset != c.offset || r.Limit != c.limit {
			t.Fatalf("%q: offset %d limit %d, %v; want %d %d", c.query, r.Offset, r.Limit, err, c.offset, c.limit)
		}
	}
}

// TestParseRequestFacets reads GBIF's facet parameters.
func TestParseRequestFacets(t *testing.T) {
	s := New(nil, Config{}, nil)
	q, _ := url.ParseQuery("facet=country&facet=BASIS_OF_RECORD&facet=taxon_key&facet=country&facetLimit=5&facetOffset=2" +
		"&country.facetLimit=3&FACETMINCOUNT=7&facetMultiselect=true&basisOfRecord.facetOffset=1&year=2000")
	r, err := s.ParseRequest(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Facets) != 3 || r.FacetMincount != 7 || !r.FacetMultiselect || r.Predicate == nil {
		t.Fatalf("%+v", r)
	}
	// A facet's own limit alone pages from 0, its own offset alone takes
	// 10 values (FacetedSearchRequestProvider); taxon_key has neither and
	// takes the global page.
	want := []FacetRequest{{Offset: 0, Limit: 3}, {Offset: 1, Limit: 10}, {Offset: 2, Limit: 5}}
	names := []string{"COUNTRY", "BASIS_OF_RECORD", "TAXON_KEY"}
	for i, f := range r.Facets {
		if f.Key.Name != names[i] || f.Offset != want[i].Offset || f.Limit != want[i].Limit {
			t.Fatalf("facet %d: %s offset %d limit %d", i, f.Key.Name, f.Offset, f.Limit)
		}
	}
	for query, msg := range map[string]string{
		"facet=geometry":                              `facet "geometry" is not supported`,
		"facet=decimalLatitude":                       `facet "decimalLatitude" is not supported`,
		"facet=nonsense":                              `facet "nonsense" is not supported`,
		"facet=year&facetLimit=x":                     `facetLimit="x" is not a non-negative integer`,
		"facet=year&facetLimit=1200000&facetOffset=1": "Facets paging is only supported up to 1200000 elements",
		"q=a+b+c+d+e+f+g+h+i+j+k":                     "q has 11 distinct words; a search takes at most 10",
		"matchCase=true":                              "matchCase=true is not supported",
		"shuffle=abc":                                 "shuffle is not supported",
		"nonsense=1":                                  "unknown query parameter",
		"year=abc":                                    "year",
	} {
		q, _ := url.ParseQuery(query)
		if _, err := s.ParseRequest(context.Background(), q); err == nil || !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), msg) {
			t.Fatalf("%q: %v, want %q", query, err, msg)
		}
	}
	// What pygbif sends by default, and GBIF parameters that select
	// nothing here, are accepted.
	q, _ = url.ParseQuery("checklistKey=7ddf754f-d193-4cc9-b351-99906754a03b&matchCase=false&q=&limit=300&offset=0&spellCheck=false")
	if r, err := s.ParseRequest(context.Background(), q); err != nil || r.Predicate != nil {
		t.Fatalf("pygbif's defaults: %+v, %v", r, err)
	}
}

// FuzzParseRequest: any query string parses or fails with one of the
// package's errors, never panics, and a parsed request is within the caps.
func FuzzParseRequest(f *testing.F) {
	for _, q := range []string{"", "country=DK&year=2000,2010&limit=20", "facet=country&country.facetLimit=3",
		"offset=99999&limit=1", "geometry=POLYGON((0 0,1 0,1 1,0 0))", "taxonKey=1&taxonKey=2&facetMultiselect=true&facet=taxonKey",
		"facetMincount=-1", "q=Puma+concolor&country=DK", "eventDate=2000-01-01,2000-02-01", "limit=%00"} {
		f.Add(q)
	}
	s := New(nil, Config{}, nil)
	f.Fuzz(func(t *testing.T, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		r, err := s.ParseRequest(context.Background(), q)
		if err != nil {
			if !errors.Is(err, ErrInvalidRequest) && !errors.Is(err, ErrTooComplex) {
				t.Fatalf("%q: error of no known kind: %v", query, err)
			}
			return
		}
		if r.Limit < 0 || r.Limit > DefaultMaxLimit || r.Offset < 0 || r.Offset+r.Limit > DefaultMaxOffset {
			t.Fatalf("%q: offset %d limit %d beyond the caps", query, r.Offset, r.Limit)
		}
		for _, f := range r.Facets {
			if f.Offset < 0 || f.Limit < 0 || f.Offset+f.Limit > DefaultMaxFacetValues || !facetable(f.Key) {
				t.Fatalf("%q: facet %+v", query, f)
			}
		}
	})
}
