package occurrence

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
)

func TestParsePredicateJSONNormalizes(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"type":"equals","key":"country","value":"dk"}`, `{"type":"equals","key":"COUNTRY","value":"DK"}`},
		{`{"type":"EQUALS","key":"taxonKey","value":212}`, `{"type":"equals","key":"TAXON_KEY","value":"212"}`},
		{`{"type":"in","key":"basis_of_record","values":["Preserved specimen","humanObservation"]}`, `{"type":"in","key":"BASIS_OF_RECORD","values":["PRESERVED_SPECIMEN","HUMAN_OBSERVATION"]}`},
		{`{"type":"equals","key":"LICENSE","value":"cc_by_nc_4_0"}`, `{"type":"equals","key":"LICENSE","value":"` + LicenseCCBYNC + `"}`},
		{`{"type":"equals","key":"LICENSE","value":"http://creativecommons.org/publicdomain/zero/1.0/legalcode"}`, `{"type":"equals","key":"LICENSE","value":"` + LicenseCC0 + `"}`},
		{`{"type":"equals","key":"MEDIA_TYPE","value":"still_image"}`, `{"type":"equals","key":"MEDIA_TYPE","value":"StillImage"}`},
		{`{"type":"equals","key":"HAS_COORDINATE","value":true}`, `{"type":"equals","key":"HAS_COORDINATE","value":"true"}`},
		{`{"type":"isNotNull","parameter":"year"}`, `{"type":"isNotNull","parameter":"YEAR"}`},
		{`{"type":"equals","key":"DATASET_KEY","value":"B1047888-AE52-4179-9DD5-5448EA342A24"}`, `{"type":"equals","key":"DATASET_KEY","value":"b1047888-ae52-4179-9dd5-5448ea342a24"}`},
		{`{"type":"range","key":"YEAR","value":{"gte":1990,"lt":"2000"}}`, `{"type":"range","key":"YEAR","value":{"gte":"1990","lt":"2000"}}`},
		{`{"type":"geoDistance","latitude":"90","longitude":100,"distance":"5km"}`, `{"type":"geoDistance","latitude":"90","longitude":"100","distance":"5km"}`},
		{`{"type":"like","key":"CATALOG_NUMBER","value":"PAPS5-560*","matchCase":true}`, `{"type":"like","key":"CATALOG_NUMBER","value":"PAPS5-560*","matchCase":true}`},
		{`{"type":"not","predicate":{"type":"within","geometry":"POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))"}}`, `{"type":"not","predicate":{"type":"within","geometry":"POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))"}}`},
		{`null`, `null`},
		// as GBIF stores them: matchCase on every simple predicate
		{`{"type":"equals","key":"TAXON_KEY","value":"212","matchCase":false,"checklistKey":null}`, `{"type":"equals","key":"TAXON_KEY","value":"212","matchCase":false}`},
		// as pygbif 0.7 sends them: numeric taxon keys, a checklistKey on
		// each taxon predicate (kept; the table has one taxonomy)
		{`{"type":"equals","key":"TAXON_KEY","value":3119195,"checklistKey":"d7dddbf4-2cf0-4f39-9b2a-bb099caae36c"}`, `{"type":"equals","key":"TAXON_KEY","value":"3119195","checklistKey":"d7dddbf4-2cf0-4f39-9b2a-bb099caae36c"}`},
		{`{"type":"in","key":"SPECIES_KEY","values":[1,2],"checklistKey":" 7ddf754f-d193-4cc9-b351-99906754a03b "}`, `{"type":"in","key":"SPECIES_KEY","values":["1","2"],"checklistKey":"7ddf754f-d193-4cc9-b351-99906754a03b"}`},
		{`{"type":"isNull","parameter":"TAXON_KEY","checklistKey":"7ddf754f-d193-4cc9-b351-99906754a03b"}`, `{"type":"isNull","parameter":"TAXON_KEY","checklistKey":"7ddf754f-d193-4cc9-b351-99906754a03b"}`},
	}
	for _, c := range cases {
		p, err := ParsePredicateJSON([]byte(c.in), Limits{})
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := p.String(); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// TestPredicateJSONRoundTrip: every accepted predicate marshals to JSON that
// parses to the same predicate.
func TestPredicateJSONRoundTrip(t *testing.T) {
	for _, js := range leafPredicates {
		roundTrip(t, js)
	}
	for _, js := range []string{
		`{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"DK"},{"type":"or","predicates":[{"type":"isNull","parameter":"YEAR"},{"type":"not","predicate":{"type":"equals","key":"YEAR","value":"2000"}}]}]}`,
		`{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"TR"},{"type":"in","key":"TAXON_KEY","values":[5,6],"checklistKey":"d7dddbf4-2cf0-4f39-9b2a-bb099caae36c"}]}`,
	} {
		roundTrip(t, js)
	}
}

func roundTrip(t testing.TB, js string) {
	t.Helper()
	p := mustParse(t, js)
	b1, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	q, err := ParsePredicateJSON(b1, DefaultLimits())
	if err != nil {
		t.Fatalf("re-parse of %s: %v", b1, err)
	}
	if b2, _ := q.MarshalJSON(); string(b1) != string(b2) {
		t.Fatalf("round trip changed %s into %s", b1, b2)
	}
}

func TestParsePredicateJSONRejects(t *testing.T) {
	big := make([]string, 101001)
	for i := range big {
		big[i] = fmt.Sprintf("%q", fmt.Sprint(i))
	}
	var pts []string
	for i := 0; i < 5001; i++ {
		a := float64(i) / 5001 * 6.28
		pts = append(pts, fmt.Sprintf("%.6f %.6f", 10*cos(a), 10*sin(a)))
	}
	pts = append(pts, pts[0])
	hugePoly := fmt.Sprintf(`{"type":"within","geometry":"POLYGON((%s))"}`, strings.Join(pts, ", "))
	cases := []struct {
		in      string
		tooBig  bool
		wantAll []string // substrings of the message
	}{
		{`{"type":"equals","key":"COUNTRY","value":"DNK"}`, false, []string{"COUNTRY", `"DNK"`, "ISO 3166-1"}},
		{`{"type":"equals","key":"FOO","value":"1"}`, false, []string{"FOO", "unknown search parameter", "key"}},
		{`{"type":"and","predicates":[{"type":"equals","key":"YEAR","value":"2000"},{"type":"equals","key":"YEAR","value":"20x0"}]}`, false, []string{"predicates[1].value", "YEAR", `"20x0"`, "integer"}},
		{`{"type":"in","key":"COUNTRY","values":["DK","XXX"]}`, false, []string{"values[1]", "XXX"}},
		{`{"type":"equals","key":"MONTH","value":"13"}`, false, []string{"MONTH", "13", "range"}},
		{`{"type":"equals","key":"BASIS_OF_RECORD","value":"SPECIMEN"}`, false, []string{"BASIS_OF_RECORD", "SPECIMEN", "basis of record"}},
		{`{"type":"equals","key":"LICENSE","value":"GPL"}`, false, []string{"LICENSE", "GPL", "CC_BY_4_0"}},
		{`{"type":"equals","key":"ISSUE","value":"NOT_AN_ISSUE"}`, false, []string{"ISSUE", "NOT_AN_ISSUE"}},
		{`{"type":"equals","key":"DATASET_KEY","value":"abc"}`, false, []string{"DATASET_KEY", "UUID"}},
		{`{"type":"equals","key":"EVENT_DATE","value":"2000-13"}`, false, []string{"EVENT_DATE", "2000-13", "ISO 8601"}},
		{`{"type":"equals","key":"YEAR","value":"2010,2000"}`, false, []string{"YEAR", "start is after"}},
		{`{"type":"lessThan","key":"YEAR","value":"1990,2000"}`, false, []string{"YEAR", "range is only allowed"}},
		{`{"type":"lessThan","key":"COUNTRY","value":"DK"}`, false, []string{"COUNTRY", "lessThan only applies"}},
		{`{"type":"like","key":"YEAR","value":"19*"}`, false, []string{"YEAR", "like only applies"}},
		{`{"type":"equals","key":"TAXON_KEY","value":"212","checklistKey":7}`, false, []string{"checklistKey", "must be a string"}},
		{`{"type":"equals","key":"HAS_COORDINATE","value":"yes"}`, false, []string{"HAS_COORDINATE", "yes", "true or false"}},
		{`{"type":"equals","key":"COUNTRY","value":""}`, false, []string{"COUNTRY", "empty"}},
		{`{"type":"equals","key":"COUNTRY"}`, false, []string{"value", "missing"}},
		{`{"type":"equals","key":"COUNTRY","values":["DK"]}`, false, []string{"values", "not part of a equals"}},
		{`{"type":"in","key":"COUNTRY","values":[]}`, false, []string{"COUNTRY", "at least one"}},
		{`{"type":"in","key":"COUNTRY","values":[{"a":1}]}`, false, []string{"values[0]"}},
		{`{"type":"range","key":"YEAR","value":{"gte":"1990"}}`, false, []string{"YEAR", "lte, lt"}},
		{`{"type":"range","key":"YEAR","value":{"gte":"1990","gt":"1991","lte":"2000"}}`, false, []string{"exactly one of gte, gt"}},
		{`{"type":"range","key":"YEAR","value":{"from":"1990"}}`, false, []string{"value.from"}},
		{`{"type":"foo","key":"YEAR","value":"1"}`, false, []string{"type", "foo", "unknown predicate type"}},
		{`{"key":"YEAR","value":"1"}`, false, []string{"missing \"type\""}},
		{`{"creator":"x","predicate":{"type":"equals","key":"YEAR","value":"1"}}`, false, []string{"not the whole download request"}},
		{`{"type":"and","predicates":[]}`, false, []string{"predicates", "at least one"}},
		{`{"type":"and","predicates":{}}`, false, []string{"array"}},
		{`{"type":"not"}`, false, []string{"predicate", "not needs"}},
		{`{"type":"isNull","parameter":"NOPE"}`, false, []string{"parameter", "NOPE"}},
		{`{"type":"equals","key":"GEOMETRY","value":"POLYGON((0 0,1 0,1 1,0 0))"}`, false, []string{"within"}},
		{`{"type":"within","geometry":"POLYGON((0 0, 0 1, 1 1, 1 0, 0 0))"}`, false, []string{"clockwise", "did you mean"}},
		{`{"type":"within","geometry":"POLYGON((0 0, 1 0, 1 1, 0 1))"}`, false, []string{"not closed"}},
		{`{"type":"within","geometry":"POLYGON((0 0, 2 0, 0 2, 2 2, 0 0))"}`, false, []string{"intersects itself"}},
		{`{"type":"within","geometry":"POLYGON((0 0, 1 0, 2 0, 0 0))"}`, false, []string{"intersects itself"}},
		{`{"type":"within","geometry":"POLYGON((0 0, 1 0, 1 1))"}`, false, []string{"at least 4 points"}},
		{`{"type":"within","geometry":"MULTIPOINT((1 2), (3 4))"}`, false, []string{"MULTIPOINT", "POLYGON, MULTIPOLYGON, POINT or LINESTRING"}},
		{`{"type":"within","geometry":"POINT(1 2, 3 4)"}`, false, []string{"POINT has one coordinate"}},
		{`{"type":"within","geometry":"POINT EMPTY"}`, false, []string{"EMPTY"}},
		{`{"type":"within","geometry":"POINT(1 95)"}`, false, []string{"out of range"}},
		{`{"type":"within","geometry":"LINESTRING(1 2)"}`, false, []string{"2 distinct points"}},
		{`{"type":"within","geometry":"LINESTRING(1 2, 1 2)"}`, false, []string{"2 distinct points"}},
		{`{"type":"within","geometry":"POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (20 20, 20 21, 21 21, 21 20, 20 20))"}`, false, []string{"outside the exterior"}},
		{`{"type":"within","geometry":"POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 4 2, 4 4, 2 4, 2 2))"}`, false, []string{"hole 1 is counter-clockwise"}},
		{`{"type":"within","geometry":"MULTIPOLYGON(((0 0, 10 0, 10 10, 0 10, 0 0)), ((5 5, 15 5, 15 15, 5 15, 5 5)))"}`, false, []string{"intersect"}},
		{`{"type":"within","geometry":"POLYGON((0 0, 1 0, 1 95, 0 0))"}`, false, []string{"out of range"}},
		{`{"type":"within","geometry":"POLYGON((0 0, 1 0, 1 1, 0 0)) x"}`, false, []string{"after the geometry"}},
		{`{"type":"geoDistance","latitude":"91","longitude":"0","distance":"1km"}`, false, []string{"latitude"}},
		{`{"type":"geoDistance","latitude":"1","longitude":"0","distance":"far"}`, false, []string{"far", "distance"}},
		{`{"type":"geoDistance","latitude":"1","longitude":"0","distance":"-1km"}`, false, []string{"distance"}},
		{`{"type":"equals","key":"YEAR","value":"1"} {}`, false, []string{"trailing"}},
		{`[1]`, false, []string{"JSON object"}},
		{`{`, false, []string{"not valid JSON"}},
		{`{"type":"in","key":"YEAR","values":[` + strings.Join(big, ",") + `]}`, true, []string{"101001 predicate items", "maxValues", "101000"}},
		{hugePoly, true, []string{"5002 polygon points", "5000"}},
		{strings.Repeat(`{"type":"not","predicate":`, 70) + `{"type":"isNull","parameter":"YEAR"}` + strings.Repeat("}", 70), true, []string{"nested deeper"}},
	}
	for _, c := range cases {
		name := c.in
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			p, err := ParsePredicateJSON([]byte(c.in), DefaultLimits())
			if err == nil {
				t.Fatalf("accepted: %s", p)
			}
			var pe *PredicateError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *PredicateError: %v", err, err)
			}
			kind := ErrInvalidPredicate
			if c.tooBig {
				kind = ErrPredicateTooComplex
			}
			if !errors.Is(err, kind) {
				t.Fatalf("error %v is not %v", err, kind)
			}
			for _, w := range c.wantAll {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestLimitsConfigurable(t *testing.T) {
	js := `{"type":"in","key":"YEAR","values":["1","2","3"]}`
	if _, err := ParsePredicateJSON([]byte(js), Limits{MaxValues: 2}); !errors.Is(err, ErrPredicateTooComplex) {
		t.Fatalf("3 values over a limit of 2: %v", err)
	}
	if _, err := ParsePredicateJSON([]byte(js), Limits{MaxValues: 3}); err != nil {
		t.Fatal(err)
	}
	poly := `{"type":"within","geometry":"POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))"}`
	if _, err := ParsePredicateJSON([]byte(poly), Limits{MaxPolygonPoints: 4}); !errors.Is(err, ErrPredicateTooComplex) {
		t.Fatalf("5 points over a limit of 4: %v", err)
	}
	p := mustParse(t, `{"type":"and","predicates":[`+js+`,`+poly+`]}`)
	if c := p.Cost(); c.Values != 4 || c.Points != 5 || c.Nodes != 3 || c.Depth != 2 || c.Work <= 0 {
		t.Fatalf("Cost = %+v", c)
	}
}

func TestParseQuery(t *testing.T) {
	cases := []struct{ q, want string }{
		{"country=DK", `{"type":"equals","key":"COUNTRY","value":"DK"}`},
		{"country=DK&country=se", `{"type":"in","key":"COUNTRY","values":["DK","SE"]}`},
		{"year=2000,2010", `{"type":"range","key":"YEAR","value":{"gte":"2000","lte":"2010"}}`},
		{"year=*,1810", `{"type":"lessThanOrEquals","key":"YEAR","value":"1810"}`},
		{"year=1990,*", `{"type":"greaterThanOrEquals","key":"YEAR","value":"1990"}`},
		{"year=*", `{"type":"isNotNull","parameter":"YEAR"}`},
		{"year=1800&year=1990,2000", `{"type":"or","predicates":[{"type":"range","key":"YEAR","value":{"gte":"1990","lte":"2000"}},{"type":"equals","key":"YEAR","value":"1800"}]}`},
		{"eventDate=2000-01-01,2000-06-30", `{"type":"range","key":"EVENT_DATE","value":{"gte":"2000-01-01","lte":"2000-06-30"}}`},
		{"hasCoordinate=true&taxon_key=212", `{"type":"and","predicates":[{"type":"equals","key":"HAS_COORDINATE","value":"true"},{"type":"equals","key":"TAXON_KEY","value":"212"}]}`},
		{"geometry=POLYGON((0 0,1 0,1 1,0 1,0 0))", `{"type":"within","geometry":"POLYGON((0 0,1 0,1 1,0 1,0 0))"}`},
		{"geometry=POLYGON((0 0,1 0,1 1,0 1,0 0))&geometry=POLYGON((5 5,6 5,6 6,5 6,5 5))", `{"type":"or","predicates":[{"type":"within","geometry":"POLYGON((0 0,1 0,1 1,0 1,0 0))"},{"type":"within","geometry":"POLYGON((5 5,6 5,6 6,5 6,5 5))"}]}`},
		{"geoDistance=55.7,12.5,10km", `{"type":"geoDistance","latitude":"55.7","longitude":"12.5","distance":"10km"}`},
		{"locality=Paris, France", `{"type":"equals","key":"LOCALITY","value":"Paris, France"}`},
		{"eventDateGte=2000-06", `{"type":"greaterThanOrEquals","key":"EVENT_DATE","value":"2000-06"}`},
		{"gadmGid=TUR.1_1", `{"type":"equals","key":"GADM_GID","value":"TUR.1_1"}`},
		{"format=DWCA&limit=10&offset=5", `null`},
		{"", `null`},
	}
	for _, c := range cases {
		q, err := url.ParseQuery(c.q)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ParseQuery(q, DefaultLimits())
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if got := p.String(); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.q, got, c.want)
		}
		if p != nil {
			roundTrip(t, p.String())
		}
	}
}

func TestParseQueryRejects(t *testing.T) {
	cases := []struct {
		q       string
		tooBig  bool
		wantAll []string
	}{
		{"colour=red", false, []string{"colour", "unknown query parameter"}},
		{"q=puma", false, []string{"q (full-text search) is the occurrence search's"}},
		{"networkKey=99a0c3e2-7b8f-4e8b-9b7a-1d2c3e4f5a6b", false, []string{"networkKey", "GBIF's search parameter NETWORK_KEY is not supported here"}},
		{"eventDateGte=2000,2010", false, []string{"eventDateGte", "lower bound"}},
		{"country=DK&year=abc", false, []string{"year", "abc", "integer"}},
		{"taxonKey=4QHKG", false, []string{"taxonKey", "4QHKG", "not Catalogue of Life keys"}},
		{"familyKey=5T6", false, []string{"familyKey", "not Catalogue of Life keys"}},
		{"country=", false, []string{"country", "empty"}},
		{"geometry=POLYGON((0 0,0 1,1 1,1 0,0 0))", false, []string{"geometry", "clockwise"}},
		{"geoDistance=1,2", false, []string{"latitude,longitude,distance"}},
		{"year=2010,2000", false, []string{"year", "start is after"}},
		{"hasCoordinate=maybe", false, []string{"hasCoordinate", "true or false"}},
		{"basisOfRecord=FOO", false, []string{"basisOfRecord", "FOO"}},
	}
	for _, c := range cases {
		q, _ := url.ParseQuery(c.q)
		_, err := ParseQuery(q, Limits{})
		if err == nil {
			t.Errorf("%s accepted", c.q)
			continue
		}
		if !errors.Is(err, ErrInvalidPredicate) {
			t.Errorf("%s: %v is not ErrInvalidPredicate", c.q, err)
		}
		for _, w := range c.wantAll {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", c.q, err, w)
			}
		}
	}
	q := url.Values{"taxonKey": make([]string, 0, 3)}
	for i := 0; i < 3; i++ {
		q.Add("taxonKey", fmt.Sprint(i+1))
	}
	if _, err := ParseQuery(q, Limits{MaxValues: 2}); !errors.Is(err, ErrPredicateTooComplex) {
		t.Errorf("3 taxon keys over a limit of 2: %v", err)
	}
}

func TestDescribe(t *testing.T) {
	q, _ := url.ParseQuery("country=DK&country=SE&year=2000,2010&license=CC_BY_4_0")
	p, err := ParseQuery(q, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Country is one of DK, SE AND Licence is CC_BY_4_0 AND Year 2000-2010"
	if got := p.Describe(); got != want {
		t.Fatalf("Describe = %q, want %q", got, want)
	}
	p = mustParse(t, `{"type":"or","predicates":[{"type":"isNull","parameter":"YEAR"},{"type":"and","predicates":[{"type":"equals","key":"YEAR","value":"*,1810"},{"type":"not","predicate":{"type":"equals","key":"TAXON_KEY","value":"212"}}]}]}`)
	want = "Year is empty OR (Year up to 1810 AND NOT Taxon key is 212)"
	if got := p.Describe(); got != want {
		t.Fatalf("Describe = %q, want %q", got, want)
	}
}

func cos(a float64) float64 { return math.Cos(a) }
func sin(a float64) float64 { return math.Sin(a) }

// Invalid UTF-8 is rejected with where it is, never read as U+FFFD (which
// would match, or fail to match, something the user did not write).
func TestParsePredicateJSONRejectsInvalidUTF8(t *testing.T) {
	cases := []struct{ js, path, byteAt string }{
		{"{\"type\":\"or\",\"predicates\":[{\"type\":\"equals\",\"key\":\"COUNTRY\",\"value\":\"DK\"},{\"type\":\"equals\",\"key\":\"RECORDED_BY\",\"value\":\"Sm\xffth\"}]}",
			"at predicates[1].value:", "byte 122 "},
		{"{\"type\":\"in\",\"key\":\"COUNTRY\",\"values\":[\"DK\",\"SE\",\"\xfe\"]}", "at values[2]:", "byte 50 "},
		{"{\"type\":\"like\",\"key\":\"LOCALITY\",\"value\":\"*\xc3(*\"}", "at value:", "byte 42 "},
	}
	for _, c := range cases {
		_, err := ParsePredicateJSON([]byte(c.js), DefaultLimits())
		if !errors.Is(err, ErrInvalidPredicate) || !strings.Contains(err.Error(), c.path) ||
			!strings.Contains(err.Error(), c.byteAt) || !strings.Contains(err.Error(), "UTF-8") {
			t.Errorf("%q: %v, want invalid UTF-8 %s %s", c.js, err, c.path, c.byteAt)
		}
	}
}
