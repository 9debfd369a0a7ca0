package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
	"github.com/biodiversity-downloads/downloader/search"
	"github.com/biodiversity-downloads/downloader/web"
)

// searchServer is the API over the fixture table with its occurrence
// search, and the table itself for independent answers.
type searchServer struct {
	*server
	store *parquet.Store
}

func startSearchServer(t *testing.T) *searchServer {
	t.Helper()
	_, table := buildFixture(t)
	store, err := parquet.Open(table, parquet.Config{}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	api := web.New(nil, nil, web.Config{Search: search.New(store, search.Config{}, testLogger(t))}, testLogger(t))
	hs := httptest.NewServer(api)
	t.Cleanup(hs.Close)
	return &searchServer{server: &server{t: t, URL: hs.URL, stopped: true}, store: store}
}

// tableCount counts a query string's matches with the table's own scan.
func (s *searchServer) tableCount(query string) int64 {
	s.t.Helper()
	q, _ := url.ParseQuery(query)
	p, err := occurrence.ParseQuery(q, occurrence.DefaultLimits())
	if err != nil {
		s.t.Fatal(err)
	}
	snap, err := s.store.Snapshot(context.Background())
	if err != nil {
		s.t.Fatal(err)
	}
	n, _, err := occurrence.Count(context.Background(), s.store, snap, p, occurrence.ScanOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	return n
}

type searchPage struct {
	Offset, Limit int
	EndOfRecords  bool
	Count         int64
	Results       []map[string]any
	Facets        []struct {
		Field  string
		Counts []struct {
			Name  string
			Count int64
		}
	}
}

func (s *searchServer) search(query string) searchPage {
	s.t.Helper()
	r := expect(s.t, s.do("GET", "/v1/occurrence/search?"+query, "", nil), 200)
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		s.t.Fatalf("Content-Type %q (pygbif wants exactly application/json)", ct)
	}
	var p searchPage
	if err := json.Unmarshal(r.body, &p); err != nil {
		s.t.Fatalf("%s: %v", r.body, err)
	}
	return p
}

// TestSearchAPI: GBIF's occurrence search, count and record routes over a
// table of real archives, answered as GBIF answers them and checked
// against the table's own counts.
func TestSearchAPI(t *testing.T) {
	s := startSearchServer(t)
	all := s.search("facet=country&facet=year&facet=basisOfRecord&facetLimit=3")
	if want := s.tableCount(""); all.Count != want || all.Count < 1000 || len(all.Results) != 20 || all.Limit != 20 || all.EndOfRecords {
		t.Fatalf("page 1: count %d (table %d), %d results, limit %d, end %v", all.Count, want, len(all.Results), all.Limit, all.EndOfRecords)
	}
	if len(all.Facets) != 3 || all.Facets[0].Field != "COUNTRY" || all.Facets[1].Field != "YEAR" || len(all.Facets[0].Counts) != 2 {
		t.Fatalf("facets %+v", all.Facets)
	}
	country := all.Facets[0].Counts[0]
	if want := s.tableCount("country=" + country.Name); country.Count != want {
		t.Fatalf("facet country %s: %d, table %d", country.Name, country.Count, want)
	}
	year := all.Facets[1].Counts[0]
	if want := s.tableCount("year=" + year.Name); year.Count != want {
		t.Fatalf("facet year %s: %d, table %d", year.Name, year.Count, want)
	}

	// A filtered search, its last page, and /occurrence/count.
	q := "country=" + country.Name + "&year=" + year.Name
	want := s.tableCount(q)
	p := s.search(q + "&limit=300")
	if p.Count != want || len(p.Results) != int(min(want, 300)) || p.EndOfRecords != (want <= 300) {
		t.Fatalf("%s: count %d, %d results; table %d", q, p.Count, len(p.Results), want)
	}
	for _, rec := range p.Results {
		if rec["countryCode"] != country.Name || rec["year"] != mustFloat(t, year.Name) {
			t.Fatalf("%s returned %v %v", q, rec["countryCode"], rec["year"])
		}
	}
	last := s.search(q + "&offset=" + strconv.FormatInt(want-1, 10))
	if len(last.Results) != 1 || !last.EndOfRecords || last.Results[0]["key"] != p.Results[min(int(want), 300)-1]["key"] && want <= 300 {
		t.Fatalf("last page: %d results, end %v", len(last.Results), last.EndOfRecords)
	}
	c := expect(t, s.do("GET", "/v1/occurrence/count?country="+country.Name+"&year="+year.Name, "", nil), 200)
	if string(c.body) != strconv.FormatInt(want, 10) {
		t.Fatalf("/occurrence/count = %s, want %d", c.body, want)
	}
	c = expect(t, s.do("GET", "/v1/occurrence/count?isGeoreferenced=true", "", nil), 200)
	if string(c.body) != strconv.FormatInt(s.tableCount("hasCoordinate=true"), 10) {
		t.Fatalf("/occurrence/count?isGeoreferenced=true = %s", c.body)
	}

	// A record, its verbatim form and fragment, and each by dataset key and
	// occurrenceID: the first record of the table that has one.
	more := s.search("limit=300").Results
	rec := more[slices.IndexFunc(more, func(r map[string]any) bool { _, ok := r["occurrenceID"].(string); return ok })]
	key := int64(rec["key"].(float64))
	got := expect(t, s.do("GET", "/v1/occurrence/"+strconv.FormatInt(key, 10), "", nil), 200)
	var one map[string]any
	if err := json.Unmarshal(got.body, &one); err != nil || one["key"] != rec["key"] || one["scientificName"] != rec["scientificName"] {
		t.Fatalf("get %d: %v %s", key, err, got.body)
	}
	v := expect(t, s.do("GET", "/v1/occurrence/"+strconv.FormatInt(key, 10)+"/verbatim", "", nil), 200)
	var verb map[string]any
	if err := json.Unmarshal(v.body, &verb); err != nil || verb["key"] != rec["key"] || verb[occurrence.NSGBIF+"gbifID"] != strconv.FormatInt(key, 10) {
		t.Fatalf("verbatim %d: %v %s", key, err, v.body)
	}
	frag := expect(t, s.do("GET", "/v1/occurrence/"+strconv.FormatInt(key, 10)+"/fragment", "", nil), 200)
	var fr map[string]any
	if err := json.Unmarshal(frag.body, &fr); err != nil || fr["occurrenceID"] != verb[occurrence.NSDwC+"occurrenceID"] || fr["id"] != fr["occurrenceID"] {
		t.Fatalf("fragment %d: %v %s", key, err, frag.body)
	}
	oid, ok := rec["occurrenceID"].(string)
	if !ok {
		t.Fatalf("record %d has no occurrenceID: the lookups by it are untested", key)
	}
	byOcc := "/v1/occurrence/" + rec["datasetKey"].(string) + "/" + url.PathEscape(oid)
	if err := json.Unmarshal(expect(t, s.do("GET", byOcc, "", nil), 200).body, &one); err != nil || one["key"] != rec["key"] {
		t.Fatalf("by occurrenceID %s: %v", oid, err)
	}
	if b := expect(t, s.do("GET", byOcc+"/verbatim", "", nil), 200).body; !bytes.Equal(b, v.body) {
		t.Fatalf("verbatim by occurrenceID %s:\n%s\nby key:\n%s", oid, b, v.body)
	}
	if b := expect(t, s.do("GET", byOcc+"/fragment", "", nil), 200).body; !bytes.Equal(b, frag.body) {
		t.Fatalf("fragment by occurrenceID %s:\n%s\nby key:\n%s", oid, b, frag.body)
	}

	// Suggestions: the recordedBy values that start with a collector's
	// first letter, in lower case, hold that collector.
	collector := more[slices.IndexFunc(more, func(r map[string]any) bool { _, ok := r["recordedBy"].(string); return ok })]["recordedBy"].(string)
	var sugg []string
	sr := expect(t, s.do("GET", "/v1/occurrence/search/recordedBy?limit=300&q="+url.QueryEscape(strings.ToLower(collector[:1])), "", nil), 200)
	if err := json.Unmarshal(sr.body, &sugg); err != nil || !slices.Contains(sugg, collector) {
		t.Fatalf("suggestions for %q: %v %s", collector[:1], err, sr.body)
	}

	// Errors as GBIF answers them.
	for path, code := range map[string]int{
		"/v1/occurrence/999999999999":                                  404,
		"/v1/occurrence/999999999999/verbatim":                         404,
		"/v1/occurrence/abc":                                           400,
		"/v1/occurrence/1/nonsense":                                    404,
		"/v1/occurrence/search/recordedBy?q=a":                         400,
		"/v1/occurrence/search/recordedBy?limit=3":                     400,
		"/v1/occurrence/search/recordedBy?q=a&limit=x":                 400,
		"/v1/occurrence/search/country?q=a&limit=3":                    404,
		"/v1/occurrence/search/predicate":                              404, // POST is the estimate; GET suggests nothing there
		"/v1/occurrence/search/catalogNumber?q=&limit=2":               200,
		"/v1/occurrence/" + rec["datasetKey"].(string) + "/x/nonsense": 404,
		"/v1/occurrence/" + rec["datasetKey"].(string) + "/x/fragment": 404,
		"/v1/occurrence/search?offset=99990&limit=20":                  400,
		"/v1/occurrence/search?facet=geometry":                         400,
		"/v1/occurrence/search?nonsense=1":                             400,
		"/v1/occurrence/count?scientificName=x":                        400,
		"/v1/occurrence/search?limit=5000&offset=99700":                200, // limit lowered to 300: 100,000 exactly
		"/v1/occurrence/search?limit=abc&checklistKey=x&q=":            200,
	} {
		r := s.do("GET", path, "", nil)
		if r.code != code {
			t.Errorf("%s: %s, want %d", path, r, code)
		}
	}
	r := s.do("GET", "/v1/occurrence/search?offset=99990&limit=20", "", nil)
	if !strings.Contains(string(r.body), "Max offset of 100000 exceeded: 99990 + 20") {
		t.Fatalf("deep offset: %s", r)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSearchUnconfigured: without a search the routes answer 503.
func TestSearchUnconfigured(t *testing.T) {
	hs := httptest.NewServer(web.New(nil, nil, web.Config{}, nil))
	defer hs.Close()
	s := &server{t: t, URL: hs.URL, stopped: true}
	for _, p := range []string{"/v1/occurrence/search", "/v1/occurrence/count", "/v1/occurrence/1", "/v1/occurrence/1/verbatim"} {
		expect(t, s.do("GET", p, "", nil), 503)
	}
}

// scanIDs returns the gbifIDs of a query's matches in table order, by a
// plain parallel scan.
func (s *searchServer) scanIDs(query string) []int64 {
	s.t.Helper()
	q, _ := url.ParseQuery(query)
	p, err := occurrence.ParseQuery(q, occurrence.DefaultLimits())
	if err != nil {
		s.t.Fatal(err)
	}
	return s.scanPredicate(p)
}

// scanStrings returns a string column of every record in table order.
func (s *searchServer) scanStrings(col string) []string {
	var out []string
	s.scanColumn(nil, col, func(a arrow.Array) {
		c := a.(*array.String)
		for i := 0; i < c.Len(); i++ {
			out = append(out, c.Value(i))
		}
	})
	return out
}

// scanPredicate returns the gbifIDs of p's matches in table order.
func (s *searchServer) scanPredicate(p *occurrence.Predicate) []int64 {
	var ids []int64
	s.scanColumn(p, occurrence.ColGBIFID, func(a arrow.Array) {
		ids = append(ids, a.(*array.Int64).Int64Values()...)
	})
	return ids
}

// scanColumn hands each batch's column col of p's matches to each, in
// table order.
func (s *searchServer) scanColumn(p *occurrence.Predicate, col string, each func(arrow.Array)) {
	s.t.Helper()
	ctx := context.Background()
	snap, err := s.store.Snapshot(ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	req := occurrence.ScanRequest{Predicate: p, Columns: []string{col}}
	_, err = occurrence.Scan(ctx, s.store, snap, req, occurrence.ScanOptions{}, func(b arrow.RecordBatch) error {
		each(b.Column(0))
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

// orderedCounts decodes a JSON object of name -> count keeping its order.
func orderedCounts(t *testing.T, body []byte) ([]string, map[string]int64) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", body)
	}
	var names []string
	counts := map[string]int64{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := dec.Decode(&n); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		names = append(names, tok.(string))
		counts[tok.(string)] = n
	}
	return names, counts
}

// TestOccurrenceInventories: GBIF's /occurrence/counts/* routes, which
// pygbif's count_basisofrecord, count_countries, count_datasets,
// count_publishingcountries and count_year call, answer JSON objects most
// frequent first whose counts are the table's; countries by GBIF's Country
// names; /occurrence/count/schema lists GBIF's rollups.
func TestOccurrenceInventories(t *testing.T) {
	s := startSearchServer(t)
	inventory := func(path string) ([]string, map[string]int64) {
		t.Helper()
		r := expect(t, s.do("GET", "/v1/occurrence/counts/"+path, "", nil), 200)
		names, counts := orderedCounts(t, r.body)
		for i := 1; i < len(names); i++ {
			if counts[names[i]] > counts[names[i-1]] {
				t.Fatalf("%s: %s (%d) after %s (%d): not most frequent first", path, names[i], counts[names[i]], names[i-1], counts[names[i-1]])
			}
		}
		return names, counts
	}
	sum := func(m map[string]int64) (n int64) {
		for _, c := range m {
			n += c
		}
		return n
	}
	bor, counts := inventory("basisOfRecord")
	if len(bor) == 0 || sum(counts) != s.tableCount("") || counts[bor[0]] != s.tableCount("basisOfRecord="+bor[0]) {
		t.Fatalf("basisOfRecord %v, total %d, table %d", counts, sum(counts), s.tableCount(""))
	}
	countries, counts := inventory("countries")
	code, ok := occurrence.CountryCodeOfGBIFName(countries[0])
	if !ok || counts[countries[0]] != s.tableCount("country="+code) {
		t.Fatalf("countries: first %s (%s, %v): %d, table %d", countries[0], code, ok, counts[countries[0]], s.tableCount("country="+code))
	}
	if _, datasets := inventory("datasets?country=" + code); sum(datasets) != s.tableCount("country="+code) {
		t.Fatalf("datasets of %s: %v, table %d", code, datasets, s.tableCount("country="+code))
	}
	if _, byName := inventory("datasets?country=" + countries[0]); sum(byName) != s.tableCount("country="+code) {
		t.Fatalf("datasets of %s by its GBIF name: %v", countries[0], byName)
	}
	years, counts := inventory("year?year=1990,2000")
	for _, y := range years {
		if n, err := strconv.Atoi(y); err != nil || n < 1990 || n > 2000 {
			t.Fatalf("year %s outside 1990,2000", y)
		}
	}
	if sum(counts) != s.tableCount("year=1990,2000") {
		t.Fatalf("years 1990-2000: %d, table %d", sum(counts), s.tableCount("year=1990,2000"))
	}
	expect(t, s.do("GET", "/v1/occurrence/counts/year?year=900", "", nil), 400)
	expect(t, s.do("GET", "/v1/occurrence/counts/countries?colour=red", "", nil), 400)
	expect(t, s.do("GET", "/v1/occurrence/counts/nonsense", "", nil), 404)
	// /occurrence/count reads GBIF's Country names as codes.
	byCode := expect(t, s.do("GET", "/v1/occurrence/count?country="+code, "", nil), 200)
	byName := expect(t, s.do("GET", "/v1/occurrence/count?country="+countries[0], "", nil), 200)
	if string(byCode.body) != string(byName.body) {
		t.Fatalf("count by %s: %s, by %s: %s", code, byCode.body, countries[0], byName.body)
	}
	var schema []struct{ Dimensions []struct{ Key, Type string } }
	if err := json.Unmarshal(expect(t, s.do("GET", "/v1/occurrence/count/schema", "", nil), 200).body, &schema); err != nil || len(schema) != 42 {
		t.Fatalf("count/schema: %d rollups, %v", len(schema), err)
	}
	for _, r := range schema {
		for _, d := range r.Dimensions {
			resp := s.do("GET", "/v1/occurrence/count?"+d.Key+"=1", "", nil)
			if d.Type == "" || strings.Contains(string(resp.body), "Invalid parameter name") {
				t.Fatalf("schema dimension %+v is not a /occurrence/count parameter: %s", d, resp.body)
			}
		}
	}
}
