package web_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// TestPygbifSearch drives the occurrence search API with GBIF's Python
// client, pygbif 0.7.0, with its defaults and only its base URL changed:
// occ.search with facets and paging, occ.get, occ.get_verbatim,
// occ.get_fragment and occ.count, each answer checked against the table's own counts and scans.
func TestPygbifSearch(t *testing.T) {
	requirePygbif(t)
	s := startSearchServer(t)
	const country = "TR"
	q := s.rankedQuery()
	out := runPygbif(t, 2*time.Minute, nil, "testdata/pygbif_search.py", s.URL, country, q)
	var got struct {
		Search struct {
			Count        int64
			EndOfRecords bool
			Limit        int
			Keys         []int64
			Countries    []string
			Facets       []struct {
				Field  string
				Counts []struct {
					Name  string
					Count int64
				}
			}
		}
		Page2 []int64
		All   struct {
			Count   int64
			Results int
			Facets  []struct {
				Field  string
				Counts []struct {
					Name  string
					Count int64
				}
			}
		}
		Get struct {
			Key         int64
			GbifID      string
			CountryCode string
			DatasetKey  string
			Issues      []string
		}
		FullText struct {
			Q     string
			Count int64
			Keys  []int64 // the first page
			Last  []int64 // the last page
		}
		Verbatim struct {
			Key     int64
			Terms   []string
			Country string
		}
		Fragment struct {
			Country string
			Terms   int
		}
		Count       int64
		CountGeoref int64 `json:"count_georef"`
		// The inventories, value -> records.
		CountsBOR        map[string]int64 `json:"counts_bor"`
		CountsYear       map[string]int64 `json:"counts_year"`
		CountsDatasets   map[string]int64 `json:"counts_datasets"`
		CountsPublishing map[string]int64 `json:"counts_publishing"`
		CountSchema      int              `json:"count_schema"`
		Missing          any
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("pygbif output %s: %v", out, err)
	}
	want := s.tableCount("country=" + country)
	order := s.orderedKeys("country="+country, 10)
	total := func(m map[string]int64) (n int64) {
		for _, c := range m {
			n += c
		}
		return n
	}
	for _, c := range []struct {
		name   string
		counts map[string]int64
		query  string
		empty  bool // the fixture's records have no publishing country
	}{
		{"count_basisofrecord", got.CountsBOR, "", false},
		{"count_year(1990,2000)", got.CountsYear, "year=1990,2000", false},
		{"count_datasets(country)", got.CountsDatasets, "country=" + country, false},
		{"count_publishingcountries(country)", got.CountsPublishing, "country=" + country + "&publishingCountry=*", true},
	} {
		t.Logf("%s: %d records in %d values", c.name, total(c.counts), len(c.counts))
		if n := total(c.counts); n != s.tableCount(c.query) || n == 0 != c.empty {
			t.Errorf("%s: %d records in %d values, table %d", c.name, n, len(c.counts), s.tableCount(c.query))
		}
	}
	if got.CountSchema != 42 {
		t.Errorf("count_schema: %d rollups, want GBIF's 42", got.CountSchema)
	}
	sr := got.Search
	if sr.Count != want || want == 0 || sr.Limit != 5 || sr.EndOfRecords || !slices.Equal(sr.Keys, order[:5]) || !slices.Equal(got.Page2, order[5:10]) {
		t.Fatalf("occ.search: count %d (table %d), keys %v then %v, table order %v", sr.Count, want, sr.Keys, got.Page2, order)
	}
	for _, c := range sr.Countries {
		if c != country {
			t.Fatalf("occ.search(country=%s) returned a record of %s", country, c)
		}
	}
	if len(sr.Facets) != 2 || sr.Facets[0].Field != "COUNTRY" || len(sr.Facets[0].Counts) != 1 ||
		sr.Facets[0].Counts[0].Name != country || sr.Facets[0].Counts[0].Count != want || sr.Facets[1].Field != "YEAR" {
		t.Fatalf("occ.search facets %+v", sr.Facets)
	}
	for _, y := range sr.Facets[1].Counts {
		if n := s.tableCount("country=" + country + "&year=" + y.Name); y.Count != n {
			t.Fatalf("year facet %s: %d, table %d", y.Name, y.Count, n)
		}
	}
	if all := s.tableCount(""); got.All.Count != all || got.All.Results != 0 || len(got.All.Facets) != 1 || len(got.All.Facets[0].Counts) != 1 ||
		got.All.Facets[0].Counts[0].Count != s.tableCount("basisOfRecord="+got.All.Facets[0].Counts[0].Name) {
		t.Fatalf("occ.search(limit=0, facet=basisOfRecord): %+v, table %d", got.All, all)
	}
	if g := got.Get; g.Key != order[0] || g.GbifID != strconv.FormatInt(order[0], 10) || g.CountryCode != country || g.DatasetKey == "" || g.Issues == nil {
		t.Fatalf("occ.get: %+v", g)
	}
	t.Logf("occ.search(q=%q): %d records, first %v", got.FullText.Q, got.FullText.Count, got.FullText.Keys[:min(5, len(got.FullText.Keys))])
	if ft, want := got.FullText, s.fullTextOrder(q); ft.Q != q || ft.Count != int64(len(want)) || len(want) == 0 ||
		!slices.Equal(ft.Keys, want[:min(20, len(want))]) ||
		!slices.Equal(ft.Last, want[max(len(want)-20, 0):]) {
		t.Fatalf("occ.search(q=%q): count %d, pages %v and %v, want %d records, %v first and %v last", ft.Q, ft.Count, ft.Keys, ft.Last,
			len(want), want[:min(20, len(want))], want[max(len(want)-20, 0):])
	}
	if v := got.Verbatim; v.Key != order[0] || !slices.Contains(v.Terms, occurrence.NSGBIF+"gbifID") || !slices.Contains(v.Terms, occurrence.NSDwC+"country") {
		t.Fatalf("occ.get_verbatim: %+v", v)
	}
	if f := got.Fragment; f.Country == "" || f.Country != got.Verbatim.Country || f.Terms < len(got.Verbatim.Terms)/2 {
		t.Fatalf("occ.get_fragment: %+v, verbatim %+v", f, got.Verbatim)
	}
	if got.Count != want || got.CountGeoref != s.tableCount("country="+country+"&hasCoordinate=true") {
		t.Fatalf("occ.count: %d and %d georeferenced, table %d", got.Count, got.CountGeoref, want)
	}
	if got.Missing != float64(404) {
		t.Fatalf("occ.get of an unknown key: %v", got.Missing)
	}
}

// orderedKeys is the first n gbifIDs a plain ordered scan of the table
// returns for a query.
// rankedQuery is a q whose ranked order is not the table order: a genus
// and "subsp.", the genus taken from the latest record in table order for
// which the two orders differ.
func (s *searchServer) rankedQuery() string {
	s.t.Helper()
	names := s.scanStrings(occurrence.ColScientificName)
	for i := len(names) - 1; i >= 0; i-- {
		genus, _, _ := strings.Cut(names[i], " ")
		q := genus + " subsp."
		if len(occurrence.FullTextWords(q)) != 2 {
			continue
		}
		p, err := occurrence.FullText(occurrence.FullTextWords(q), 1)
		if err != nil {
			s.t.Fatal(err)
		}
		if !slices.Equal(s.fullTextOrder(q), s.scanPredicate(p)) {
			return q
		}
	}
	s.t.Fatal("no genus of the table ranks otherwise than the table's order")
	return ""
}

// fullTextOrder is the independent answer of a search for q: the records
// holding all of q's words in table order, then those holding one fewer,
// and so on, each group by a scan of its own.
func (s *searchServer) fullTextOrder(q string) []int64 {
	s.t.Helper()
	words := occurrence.FullTextWords(q)
	atLeast := func(k int) *occurrence.Predicate {
		p, err := occurrence.FullText(words, k)
		if err != nil {
			s.t.Fatal(err)
		}
		return p
	}
	var out []int64
	for k := len(words); k >= 1; k-- {
		p := atLeast(k)
		if k < len(words) {
			p = &occurrence.Predicate{Type: occurrence.TypeAnd, Predicates: []*occurrence.Predicate{p,
				{Type: occurrence.TypeNot, Predicate: atLeast(k + 1)}}}
		}
		out = append(out, s.scanPredicate(p)...)
	}
	return out
}

func (s *searchServer) orderedKeys(query string, n int) []int64 {
	s.t.Helper()
	var out []int64
	for _, id := range s.scanIDs(query) {
		if len(out) == n {
			break
		}
		out = append(out, id)
	}
	return out
}
