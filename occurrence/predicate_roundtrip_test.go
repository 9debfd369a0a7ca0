package occurrence_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// roundTripPredicates cover what MarshalJSON must carry over: matchCase true
// and false, like, every range bound, polygons with holes and multipolygons,
// geoDistance in several units, isNull/isNotNull, not, nested and/or, and
// EVENT_DATE values and ranges, on every kind of key (text, code, multi-value,
// people, integer, float, boolean, event date, timestamp).
var roundTripPredicates = []string{
	// matchCase: the localities, names and collectors are capitalized on their
	// first letter only, so "*River*" case-sensitively is fewer records than
	// case-insensitively.
	`{"type":"like","key":"LOCALITY","value":"*River*","matchCase":true}`,
	`{"type":"like","key":"LOCALITY","value":"*River*","matchCase":false}`,
	`{"type":"like","key":"SCIENTIFIC_NAME","value":"*Ra*","matchCase":true}`,
	`{"type":"like","key":"RECORDED_BY","value":"*Ra*","matchCase":true}`,
	`{"type":"in","key":"CATALOG_NUMBER","values":["C-0000001","c-0000002","C-0000003"],"matchCase":true}`,
	`{"type":"in","key":"CATALOG_NUMBER","values":["C-0000001","c-0000002","C-0000003"],"matchCase":false}`,
	`{"type":"not","predicate":{"type":"like","key":"STATE_PROVINCE","value":"*A*","matchCase":true}}`,
	// like
	`{"type":"like","key":"CATALOG_NUMBER","value":"C-00000?7"}`,
	`{"type":"like","key":"STATE_PROVINCE","value":"?a*"}`,
	`{"type":"like","key":"OCCURRENCE_ID","value":"urn:catalog:*:1?"}`,
	// comparisons and equals/in ranges
	`{"type":"lessThanOrEquals","key":"YEAR","value":"1990"}`,
	`{"type":"greaterThan","key":"YEAR","value":"2000"}`,
	`{"type":"greaterThanOrEquals","key":"MONTH","value":"11"}`,
	`{"type":"lessThan","key":"DECIMAL_LONGITUDE","value":"-0.5"}`,
	`{"type":"greaterThan","key":"INDIVIDUAL_COUNT","value":15}`,
	`{"type":"equals","key":"YEAR","value":"1990,2000"}`,
	`{"type":"equals","key":"ELEVATION","value":"*,500"}`,
	`{"type":"in","key":"YEAR","values":["1990","2000,2005","*,1850"]}`,
	// range with each bound
	`{"type":"range","key":"YEAR","value":{"gt":"1990","lt":"2000"}}`,
	`{"type":"range","key":"YEAR","value":{"gte":"1990","lt":"2000"}}`,
	`{"type":"range","key":"YEAR","value":{"gt":"1990","lte":"2000"}}`,
	`{"type":"range","key":"YEAR","value":{"gte":"1990","lte":"2000"}}`,
	`{"type":"range","key":"DECIMAL_LATITUDE","value":{"gt":"-10.5","lte":"45.25"}}`,
	`{"type":"range","key":"ELEVATION","value":{"gte":"100","lt":"1000"}}`,
	`{"type":"range","key":"MONTH","value":{"gt":"3","lt":"9"}}`,
	`{"type":"range","key":"INDIVIDUAL_COUNT","value":{"gte":5,"lte":10}}`,
	// EVENT_DATE
	`{"type":"range","key":"EVENT_DATE","value":{"gte":"2000-01-01","lt":"2001"}}`,
	`{"type":"range","key":"EVENT_DATE","value":{"gt":"1999-12","lte":"2005-06-30"}}`,
	`{"type":"range","key":"EVENT_DATE","value":{"gte":"1980","lte":"1985-03"}}`,
	`{"type":"range","key":"EVENT_DATE","value":{"gt":"2010-06-15","lt":"2020-01"}}`,
	`{"type":"equals","key":"EVENT_DATE","value":"2000-05"}`,
	`{"type":"equals","key":"EVENT_DATE","value":"2005,*"}`,
	`{"type":"equals","key":"EVENT_DATE","value":"*,1900"}`,
	`{"type":"in","key":"EVENT_DATE","values":["2001","2003-02","1995-07-14"]}`,
	`{"type":"lessThan","key":"EVENT_DATE","value":"1980-06-15"}`,
	`{"type":"greaterThanOrEquals","key":"EVENT_DATE","value":"2010-02"}`,
	// codes, multi-value vocabularies, booleans, timestamps
	`{"type":"in","key":"BASIS_OF_RECORD","values":["HUMAN_OBSERVATION","MATERIAL_SAMPLE"]}`,
	`{"type":"in","key":"LICENSE","values":["CC0_1_0","CC_BY_4_0"]}`,
	`{"type":"equals","key":"ISSUE","value":"COORDINATE_ROUNDED"}`,
	`{"type":"equals","key":"HAS_COORDINATE","value":"true"}`,
	`{"type":"or","predicates":[{"type":"greaterThan","key":"LAST_INTERPRETED","value":"2025-06-01"},{"type":"equals","key":"COUNTRY","value":"DK"}]}`,
	`{"type":"and","predicates":[{"type":"lessThanOrEquals","key":"LAST_INTERPRETED","value":"2025-06-01"},{"type":"equals","key":"COUNTRY","value":"SE"}]}`,
	// within: holes, several polygons, the anti-meridian
	`{"type":"within","geometry":"POLYGON((-10 35,30 35,30 70,-10 70,-10 35),(0 45,0 55,15 55,15 45,0 45))"}`,
	`{"type":"within","geometry":"POLYGON((-130 20,-60 20,-60 60,-130 60,-130 20),(-110 30,-110 40,-90 40,-90 30,-110 30),(-100 45,-100 55,-80 55,-80 45,-100 45))"}`,
	`{"type":"within","geometry":"MULTIPOLYGON(((-10 35,30 35,30 70,-10 70,-10 35),(0 45,0 55,15 55,15 45,0 45)),((110 -45,155 -45,155 -10,110 -10,110 -45)))"}`,
	`{"type":"within","geometry":"MULTIPOLYGON(((-80 -20,-40 -20,-40 10,-80 10,-80 -20)),((15 -35,35 -35,35 -20,15 -20,15 -35)),((70 5,90 5,90 30,70 30,70 5)))"}`,
	`{"type":"within","geometry":"POLYGON((170 -50,190 -50,190 -30,170 -30,170 -50))"}`,
	// geoDistance in several units
	`{"type":"geoDistance","latitude":"-25.3","longitude":"133.8","distance":"500km"}`,
	`{"type":"geoDistance","latitude":"39.5","longitude":"-98.35","distance":"200mi"}`,
	`{"type":"geoDistance","latitude":"56","longitude":"9.5","distance":"150000m"}`,
	`{"type":"geoDistance","latitude":"60.5","longitude":"8.5","distance":"100nmi"}`,
	`{"type":"geoDistance","latitude":52.1,"longitude":5.3,"distance":"50km"}`,
	// isNull, isNotNull
	`{"type":"isNull","parameter":"DAY"}`,
	`{"type":"isNotNull","parameter":"MEDIA_TYPE"}`,
	`{"type":"isNotNull","parameter":"ISSUE"}`,
	`{"type":"isNotNull","parameter":"DECIMAL_LATITUDE"}`,
	`{"type":"isNull","parameter":"COORDINATE_UNCERTAINTY_IN_METERS"}`,
	// not
	`{"type":"not","predicate":{"type":"within","geometry":"POLYGON((-10 35,30 35,30 70,-10 70,-10 35))"}}`,
	`{"type":"not","predicate":{"type":"range","key":"YEAR","value":{"gte":"1950","lt":"2000"}}}`,
	`{"type":"not","predicate":{"type":"not","predicate":{"type":"equals","key":"COUNTRY","value":"SE"}}}`,
	`{"type":"not","predicate":{"type":"and","predicates":[{"type":"equals","key":"HAS_COORDINATE","value":"true"},{"type":"greaterThan","key":"YEAR","value":"1980"}]}}`,
	`{"type":"not","predicate":{"type":"geoDistance","latitude":"46.6","longitude":"2.2","distance":"300km"}}`,
	`{"type":"not","predicate":{"type":"isNull","parameter":"ELEVATION"}}`,
	// nested and/or
	`{"type":"or","predicates":[{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"FR"},{"type":"lessThan","key":"YEAR","value":"1990"}]},{"type":"and","predicates":[{"type":"in","key":"COUNTRY","values":["SE","NO"]},{"type":"not","predicate":{"type":"isNull","parameter":"ELEVATION"}}]},{"type":"geoDistance","latitude":"-30.6","longitude":"22.9","distance":"300km"}]}`,
	`{"type":"and","predicates":[{"type":"or","predicates":[{"type":"equals","key":"KINGDOM_KEY","value":"1"},{"type":"equals","key":"KINGDOM_KEY","value":"2"}]},{"type":"or","predicates":[{"type":"within","geometry":"POLYGON((-130 20,-60 20,-60 60,-130 60,-130 20))"},{"type":"equals","key":"HAS_COORDINATE","value":"false"}]},{"type":"not","predicate":{"type":"equals","key":"MEDIA_TYPE","value":"StillImage"}}]}`,
	`{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"DK"}]}`,
	`{"type":"or","predicates":[{"type":"and","predicates":[{"type":"or","predicates":[{"type":"like","key":"LOCALITY","value":"North*"},{"type":"like","key":"LOCALITY","value":"*lake*"}]},{"type":"range","key":"EVENT_DATE","value":{"gte":"1990","lt":"2010-07"}}]},{"type":"isNotNull","parameter":"INDIVIDUAL_COUNT"}]}`,
}

// roundTripRecords is how many generated records the predicates are
// evaluated on: enough for the rare values (a holotype, a catalog number
// shared by the datasets) to occur.
const roundTripRecords = 12000

// roundTripData is a few thousand generated records in Arrow batches and
// values picked from them for the predicates that name real records.
type roundTripData struct {
	batches  []arrow.RecordBatch
	rows     int
	datasets []occurrencetest.Dataset
	ids      []int64  // gbifIDs of every 37th record
	taxa     []int64  // species keys of every 97th record
	people   []string // recordedBy of a few records
}

func newRoundTripData(t testing.TB, records, datasets int) *roundTripData {
	t.Helper()
	g := occurrencetest.NewGenerator(42, 2000)
	d := &roundTripData{datasets: g.Datasets(records, datasets)}
	b := occurrence.NewBuilder()
	defer b.Release()
	rec := occurrence.NewRecord()
	flush := func() {
		if b.Len() > 0 {
			d.batches = append(d.batches, b.NewBatch())
		}
	}
	for i := range d.datasets {
		for j := 0; j < d.datasets[i].Records; j++ {
			g.Fill(rec, &d.datasets[i], j)
			b.Append(rec)
			switch {
			case d.rows%37 == 0:
				d.ids = append(d.ids, rec.Get(occurrence.ColumnIndex(occurrence.ColGBIFID)).I)
			case d.rows%97 == 0:
				d.taxa = append(d.taxa, rec.Get(occurrence.ColumnIndex(occurrence.ColSpeciesKey)).I)
			case d.rows%1009 == 0:
				d.people = append(d.people, rec.Get(occurrence.ColumnIndex(occurrence.ColRecordedBy)).S)
			}
			d.rows++
			if b.Len() == 4096 {
				flush()
			}
		}
	}
	flush()
	t.Cleanup(func() {
		for _, b := range d.batches {
			b.Release()
		}
	})
	return d
}

// predicates returns predicates built from the generated records: in with
// hundreds of values, dataset keys, collectors in another case.
func (d *roundTripData) predicates() []string {
	quoted := func(vals []string) string {
		q := make([]string, len(vals))
		for i, v := range vals {
			q[i] = strconv.Quote(v)
		}
		return strings.Join(q, ",")
	}
	ints := func(vals []int64) []string {
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = strconv.FormatInt(v, 10)
		}
		return out
	}
	var catalog, mixed, years []string
	for i := 0; i < 800; i += 2 {
		catalog = append(catalog, fmt.Sprintf("C-%07d", i))
		if i%4 == 0 {
			mixed = append(mixed, fmt.Sprintf("c-%07d", i))
		} else {
			mixed = append(mixed, fmt.Sprintf("C-%07d", i))
		}
	}
	for y := 1800; y <= 2024; y += 3 {
		years = append(years, strconv.Itoa(y))
	}
	person := d.people[1]
	return []string{
		`{"type":"in","key":"GBIF_ID","values":[` + quoted(ints(d.ids)) + `]}`,
		`{"type":"in","key":"TAXON_KEY","values":[` + quoted(ints(d.taxa)) + `]}`,
		`{"type":"in","key":"CATALOG_NUMBER","values":[` + quoted(catalog) + `]}`,
		`{"type":"in","key":"CATALOG_NUMBER","values":[` + quoted(mixed) + `],"matchCase":true}`,
		`{"type":"in","key":"CATALOG_NUMBER","values":[` + quoted(mixed) + `],"matchCase":false}`,
		`{"type":"in","key":"YEAR","values":[` + quoted(years) + `]}`,
		`{"type":"equals","key":"DATASET_KEY","value":"` + strings.ToUpper(d.datasets[2].Info.Key) + `"}`,
		`{"type":"in","key":"DATASET_KEY","values":["` + d.datasets[1].Info.Key + `","` + d.datasets[3].Info.Key + `"]}`,
		`{"type":"equals","key":"RECORDED_BY","value":` + strconv.Quote(strings.ToLower(person)) + `,"matchCase":false}`,
		`{"type":"equals","key":"RECORDED_BY","value":` + strconv.Quote(person) + `,"matchCase":true}`,
		`{"type":"in","key":"RECORDED_BY","values":[` + quoted(d.people) + `]}`,
	}
}

// matches evaluates p on every generated record with the reference
// evaluator.
func (d *roundTripData) matches(p *occurrence.Predicate) []bool {
	out := make([]bool, 0, d.rows)
	for _, b := range d.batches {
		for i := 0; i < int(b.NumRows()); i++ {
			out = append(out, p.MatchRow(b, i))
		}
	}
	return out
}

func count(m []bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

// meantToMatchNothing is the case-sensitive lower-case catalog number of
// occurrencetest.Predicates(): every stored catalog number is upper case.
func meantToMatchNothing(js string) bool {
	return strings.Contains(js, `"c-0000042","matchCase":true`)
}

// TestPredicateJSONRoundTripMatches: the jobs service stores a request's
// predicate as MarshalJSON's output and parses that again at export, so the
// re-parsed predicate must select exactly the records the original selects.
// A MarshalJSON that dropped or changed a field (matchCase, a ring, a range
// bound, a distance unit, a not) gives a different selection for one of
// these predicates; each selects some but not all of the records, so no
// comparison is between two empty (or two full) selections.
func TestPredicateJSONRoundTripMatches(t *testing.T) {
	d := newRoundTripData(t, roundTripRecords, 12)
	preds := slices.Concat(occurrencetest.Predicates(), roundTripPredicates, d.predicates())
	for i, js := range preds {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			p, err := occurrence.ParsePredicateJSON([]byte(js), occurrence.DefaultLimits())
			if err != nil {
				t.Fatalf("%.300s: %v", js, err)
			}
			out, err := p.MarshalJSON()
			if err != nil {
				t.Fatalf("%.300s: MarshalJSON: %v", js, err)
			}
			q, err := occurrence.ParsePredicateJSON(out, occurrence.DefaultLimits())
			if err != nil {
				t.Fatalf("%.300s marshalled to %.300s, which does not parse: %v", js, out, err)
			}
			want, got := d.matches(p), d.matches(q)
			if i := slices.Index(diff(want, got), true); i >= 0 {
				t.Fatalf("%.300s marshalled to %.300s: the original matches %d records, the re-parsed one %d (first difference at record %d)",
					js, out, count(want), count(got), i)
			}
			n := count(want)
			t.Logf("%.200s: %d of %d", js, n, d.rows)
			if meantToMatchNothing(js) {
				if n != 0 {
					t.Fatalf("%.300s matches %d records, want none", js, n)
				}
				// The comparison above is only worth something if a
				// dropped matchCase would match records.
				loose := strings.Replace(js, `"matchCase":true`, `"matchCase":false`, 1)
				lp, err := occurrence.ParsePredicateJSON([]byte(loose), occurrence.DefaultLimits())
				if err != nil {
					t.Fatal(err)
				}
				if count(d.matches(lp)) == 0 {
					t.Fatalf("%.300s matches nothing either: the data does not tell matchCase apart", loose)
				}
				return
			}
			if n == 0 || n == d.rows {
				t.Fatalf("%.300s matches %d of %d records: the comparison does not exercise it", js, n, d.rows)
			}
		})
	}
}

// diff marks the records where a and b disagree.
func diff(a, b []bool) []bool {
	out := make([]bool, len(a))
	for i := range a {
		out[i] = a[i] != b[i]
	}
	return out
}

// TestRoundTripDataTellsFieldsApart: on the generated records, predicates of
// the kinds above select differently from what a MarshalJSON that lost one
// field (matchCase, a hole, a polygon of a MULTIPOLYGON, gt for gte, the
// distance unit, a not) would leave, so the round-trip test would see the loss.
func TestRoundTripDataTellsFieldsApart(t *testing.T) {
	d := newRoundTripData(t, roundTripRecords, 12)
	const europe = `{"type":"within","geometry":"POLYGON((-10 35,30 35,30 70,-10 70,-10 35))"}`
	const holed = `{"type":"within","geometry":"POLYGON((-10 35,30 35,30 70,-10 70,-10 35),(0 45,0 55,15 55,15 45,0 45))"}`
	pairs := []struct{ what, a, b string }{
		{"matchCase", `{"type":"like","key":"LOCALITY","value":"*River*","matchCase":true}`,
			`{"type":"like","key":"LOCALITY","value":"*River*"}`},
		{"matchCase in", `{"type":"in","key":"CATALOG_NUMBER","values":["C-0000001","c-0000002"],"matchCase":true}`,
			`{"type":"in","key":"CATALOG_NUMBER","values":["C-0000001","c-0000002"]}`},
		{"hole", holed, europe},
		{"second polygon", `{"type":"within","geometry":"MULTIPOLYGON(((-10 35,30 35,30 70,-10 70,-10 35),(0 45,0 55,15 55,15 45,0 45)),((110 -45,155 -45,155 -10,110 -10,110 -45)))"}`, holed},
		{"gt for gte", `{"type":"range","key":"YEAR","value":{"gte":"1990","lt":"2000"}}`,
			`{"type":"range","key":"YEAR","value":{"gt":"1990","lt":"2000"}}`},
		{"lt for lte", `{"type":"range","key":"YEAR","value":{"gt":"1990","lte":"2000"}}`,
			`{"type":"range","key":"YEAR","value":{"gt":"1990","lt":"2000"}}`},
		{"event date bound", `{"type":"range","key":"EVENT_DATE","value":{"gt":"1999-12","lte":"2005-06-30"}}`,
			`{"type":"range","key":"EVENT_DATE","value":{"gte":"1999-12","lte":"2005-06-30"}}`},
		{"unit", `{"type":"geoDistance","latitude":"-25.3","longitude":"133.8","distance":"500km"}`,
			`{"type":"geoDistance","latitude":"-25.3","longitude":"133.8","distance":"500"}`},
		{"not", `{"type":"not","predicate":` + europe + `}`, europe},
	}
	for _, c := range pairs {
		a, err := occurrence.ParsePredicateJSON([]byte(c.a), occurrence.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		b, err := occurrence.ParsePredicateJSON([]byte(c.b), occurrence.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(diff(d.matches(a), d.matches(b)), true) {
			t.Errorf("%s: %s and %s match the same records", c.what, c.a, c.b)
		}
	}
}
