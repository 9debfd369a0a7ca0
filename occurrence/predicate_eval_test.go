package occurrence

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// semanticRows are hand-made records whose expected matches are written out
// in TestPredicateSemantics.
func semanticRows() []row {
	return []row{
		0: {ColCountryCode: "DK", ColYear: int64(2000), ColTaxonKey: int64(5), ColKingdomKey: int64(1),
			ColDecimalLatitude: 55.7, ColDecimalLongitude: 12.6, ColRecordedBy: "Smith, J. | Doe, A.",
			ColIssue: "ZERO_COORDINATE;RECORDED_DATE_INVALID", ColScientificName: "Puma concolor",
			ColEventDateStart: day("2000-05-11"), ColEventDateEnd: day("2000-05-11").Add(24*time.Hour - time.Millisecond),
			ColLicense: LicenseCCBY, ColBasisOfRecord: BasisPreservedSpecimen, ColHasCoordinate: true,
			"level0Gid": "DNK", "level1Gid": "DNK.1_1"},
		1: {ColCountryCode: "SE", ColYear: int64(1810), ColTaxonKey: int64(7), ColAcceptedTaxonKey: int64(5),
			ColDecimalLatitude: -17.8, ColDecimalLongitude: 178.1, ColRecordedBy: "doe, a.",
			ColTypeStatus: "PARATYPE; HOLOTYPE", ColScientificName: "PUMA CONCOLOR",
			ColEventDateStart: day("2000-04-30"), ColEventDateEnd: day("2000-05-02"),
			ColLicense: LicenseCC0, ColHasCoordinate: true, "level0Gid": "SWE", "level1Gid": "SWE.2_1", "level2Gid": "SWE.2.3_1"},
		2: {ColYear: int64(2010), ColGenusKey: int64(5), ColScientificName: "Pumas", "sex": "Female", ColEstablishmentMeans: "introduced",
			ColEventDateStart: day("2000-05-01"), ColLicense: LicenseUnspecified, ColHasCoordinate: false},
		3: {ColCountryCode: "FJ", ColDecimalLatitude: -17.8, ColDecimalLongitude: -179.5, "sex": "Male", ColEstablishmentMeans: "introducedAssistedColonisation",
			ColEventDateStart: day("1999-01-01"), ColEventDateEnd: day("2001-12-31"), ColMediaType: "Sound;StillImage"},
	}
}

func TestPredicateSemantics(t *testing.T) {
	rows := semanticRows()
	batch := buildBatch(t, allColumns(), rows)
	defer batch.Release()
	cases := []struct {
		name, js string
		want     []int
	}{
		{"equals country upper-cases", `{"type":"equals","key":"country","value":"dk"}`, []int{0}},
		{"in", `{"type":"in","key":"COUNTRY","values":["DK","FJ"]}`, []int{0, 3}},
		{"not includes nulls", `{"type":"not","predicate":{"type":"equals","key":"COUNTRY","value":"DK"}}`, []int{1, 2, 3}},
		{"taxon key any rank", `{"type":"equals","key":"TAXON_KEY","value":"5"}`, []int{0, 1, 2}},
		{"kingdom key only", `{"type":"equals","key":"KINGDOM_KEY","value":"1"}`, []int{0}},
		{"year range", `{"type":"equals","key":"YEAR","value":"1900,2005"}`, []int{0}},
		{"year open start", `{"type":"equals","key":"YEAR","value":"*,1810"}`, []int{1}},
		{"year range predicate", `{"type":"range","key":"YEAR","value":{"gt":"1810","lte":"2010"}}`, []int{0, 2}},
		{"year lessThan", `{"type":"lessThan","key":"YEAR","value":"2000"}`, []int{1}},
		{"year gte", `{"type":"greaterThanOrEquals","key":"YEAR","value":"2000"}`, []int{0, 2}},
		{"isNull year", `{"type":"isNull","parameter":"YEAR"}`, []int{3}},
		{"isNotNull country", `{"type":"isNotNull","parameter":"COUNTRY"}`, []int{0, 1, 3}},
		{"event date month within", `{"type":"equals","key":"EVENT_DATE","value":"2000-05"}`, []int{0, 2}},
		{"event date year", `{"type":"equals","key":"EVENT_DATE","value":"2000"}`, []int{0, 1, 2}},
		{"event date range", `{"type":"equals","key":"EVENT_DATE","value":"1999,2001"}`, []int{0, 1, 2, 3}},
		{"event date lessThan end", `{"type":"lessThan","key":"EVENT_DATE","value":"2000-05-02"}`, []int{2}},
		{"event date gt start", `{"type":"greaterThan","key":"EVENT_DATE","value":"2000-04"}`, []int{0, 2}},
		{"recordedBy part", `{"type":"equals","key":"RECORDED_BY","value":"DOE, A."}`, []int{0, 1}},
		{"recordedBy whole", `{"type":"equals","key":"RECORDED_BY","value":"smith, j. | doe, a."}`, []int{0}},
		{"recordedBy matchCase", `{"type":"equals","key":"RECORDED_BY","value":"doe, a.","matchCase":true}`, []int{1}},
		{"issue element", `{"type":"equals","key":"ISSUE","value":"recorded_date_invalid"}`, []int{0}},
		{"type status element", `{"type":"equals","key":"TYPE_STATUS","value":"Holotype"}`, []int{1}},
		{"type status by a hidden label", `{"type":"equals","key":"TYPE_STATUS","value":"Paratypus"}`, []int{1}},
		{"sex by a Spanish label", `{"type":"equals","key":"SEX","value":"hembra"}`, []int{2}},
		{"sex in", `{"type":"in","key":"SEX","values":["FEMALE","male"]}`, []int{2, 3}},
		// GBIF searches a concept's lineage: a concept finds those under it.
		{"establishment means by a hidden label, and narrower", `{"type":"equals","key":"ESTABLISHMENT_MEANS","value":"naturalised"}`, []int{2, 3}},
		{"establishment means, the narrower only", `{"type":"equals","key":"ESTABLISHMENT_MEANS","value":"Introduced (Assisted colonisation)"}`, []int{3}},
		{"type status, narrower", `{"type":"equals","key":"TYPE_STATUS","value":"type"}`, []int{1}},
		{"type status like is not widened", `{"type":"like","key":"TYPE_STATUS","value":"Typ*"}`, nil},
		{"media type", `{"type":"equals","key":"MEDIA_TYPE","value":"STILL_IMAGE"}`, []int{3}},
		{"name case-insensitive", `{"type":"equals","key":"SCIENTIFIC_NAME","value":"puma concolor"}`, []int{0, 1}},
		{"name like", `{"type":"like","key":"SCIENTIFIC_NAME","value":"puma*"}`, []int{0, 1, 2}},
		{"name like ?", `{"type":"like","key":"SCIENTIFIC_NAME","value":"Pum?s","matchCase":true}`, []int{2}},
		{"licence enum", `{"type":"equals","key":"LICENSE","value":"CC_BY_4_0"}`, []int{0}},
		{"licence unspecified", `{"type":"equals","key":"LICENSE","value":"UNSPECIFIED"}`, []int{2}},
		{"basis", `{"type":"equals","key":"BASIS_OF_RECORD","value":"preserved_specimen"}`, []int{0}},
		{"hasCoordinate false", `{"type":"equals","key":"HAS_COORDINATE","value":"false"}`, []int{2}},
		{"polygon", `{"type":"within","geometry":"POLYGON((10 50, 20 50, 20 60, 10 60, 10 50))"}`, []int{0}},
		{"polygon hole", `{"type":"within","geometry":"POLYGON((10 50, 20 50, 20 60, 10 60, 10 50), (12 55, 12 56, 13 56, 13 55, 12 55))"}`, nil},
		{"anti-meridian polygon", `{"type":"within","geometry":"POLYGON((175 -20, -178 -20, -178 -15, 175 -15, 175 -20))"}`, []int{1, 3}},
		{"point", `{"type":"within","geometry":"POINT(12.6 55.7)"}`, []int{0}},
		{"point nearby", `{"type":"within","geometry":"POINT(12.6 55.70001)"}`, nil},
		{"line through a record", `{"type":"within","geometry":"LINESTRING(0 40, 12.6 55.7, 20 56)"}`, []int{0}},
		{"anti-meridian line", `{"type":"within","geometry":"LINESTRING(178.1 -17.8, -179.5 -17.8)"}`, []int{1, 3}},
		{"geoDistance", `{"type":"geoDistance","latitude":"55.68","longitude":"12.57","distance":"10km"}`, []int{0}},
		{"geoDistance across 180", `{"type":"geoDistance","latitude":-17.8,"longitude":180,"distance":"250km"}`, []int{1, 3}},
		{"gadm area at any level", `{"type":"equals","key":"GADM_GID","value":"DNK"}`, []int{0}},
		{"gadm area level 1", `{"type":"in","key":"GADM_GID","values":["DNK.1_1","SWE.2.3_1"]}`, []int{0, 1}},
		{"and/or", `{"type":"and","predicates":[{"type":"or","predicates":[{"type":"equals","key":"COUNTRY","value":"SE"},{"type":"isNull","parameter":"COUNTRY"}]},{"type":"equals","key":"TAXON_KEY","value":"5"}]}`, []int{1, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustParse(t, c.js)
			got := matchingRows(t, p, batch)
			if !slices.Equal(got, c.want) {
				t.Errorf("%s matched rows %v, want %v", c.js, got, c.want)
			}
		})
	}
}

func TestNilPredicateMatchesAll(t *testing.T) {
	batch := buildBatch(t, allColumns(), semanticRows())
	defer batch.Release()
	var p *Predicate
	if got := matchingRows(t, p, batch); len(got) != 4 {
		t.Fatalf("nil predicate matched %v", got)
	}
	if !p.MayMatch(mapStats{}) || p.Columns() != nil || p.Describe() != "All records" {
		t.Fatal("nil predicate must match everything")
	}
	if b, _ := p.MarshalJSON(); string(b) != "null" {
		t.Fatalf("nil marshals to %s", b)
	}
}

// TestEvalAgreesWithMatchRow compares the vectorized and scalar evaluators
// on random batches and random predicates.
func TestEvalAgreesWithMatchRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cols := allColumns()
	matchedSome, missedSome := 0, 0
	for round := 0; round < 20; round++ {
		batch := buildBatch(t, cols, randomRows(rng, 300))
		for k := 0; k < 40; k++ {
			p := mustParse(t, randomPredicate(t, rng, 3))
			n := len(matchingRows(t, p, batch))
			if n > 0 {
				matchedSome++
			}
			if n < 300 {
				missedSome++
			}
		}
		for _, js := range leafPredicates {
			matchingRows(t, mustParse(t, js), batch)
		}
		batch.Release()
	}
	if matchedSome < 100 || missedSome < 100 {
		t.Fatalf("random predicates are degenerate: %d matched some, %d missed some", matchedSome, missedSome)
	}
}

// TestEvalSlicedAndDictionary checks offsets of sliced arrays and dictionary
// encoded strings.
func TestEvalSlicedAndDictionary(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	batch := buildBatch(t, allColumns(), randomRows(rng, 500))
	defer batch.Release()
	sliced := batch.NewSlice(37, 412)
	defer sliced.Release()
	for _, js := range leafPredicates {
		p := mustParse(t, js)
		full := make([]bool, batch.NumRows())
		p.Eval(batch, full)
		part := make([]bool, sliced.NumRows())
		p.Eval(sliced, part)
		if !slices.Equal(full[37:412], part) {
			t.Fatalf("%s: sliced batch disagrees", js)
		}
		matchingRows(t, p, sliced)
	}

	// Dictionary-encode countryCode and compare.
	db2 := dictEncoded(t, batch, ColCountryCode)
	defer db2.Release()
	for _, js := range []string{`{"type":"in","key":"COUNTRY","values":["DK","SE"]}`, `{"type":"like","key":"COUNTRY","value":"?k"}`, `{"type":"isNull","parameter":"COUNTRY"}`} {
		p := mustParse(t, js)
		a, b := make([]bool, batch.NumRows()), make([]bool, batch.NumRows())
		p.Eval(batch, a)
		p.Eval(db2, b)
		if !slices.Equal(a, b) {
			t.Fatalf("%s: dictionary column disagrees", js)
		}
		matchingRows(t, p, db2)
	}
}

func TestColumns(t *testing.T) {
	p := mustParse(t, `{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"DK"},{"type":"equals","key":"EVENT_DATE","value":"2000"},{"type":"within","geometry":"POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))"},{"type":"equals","key":"COUNTRY","value":"SE"}]}`)
	want := []string{ColCountryCode, ColDecimalLatitude, ColDecimalLongitude, ColEventDateEnd, ColEventDateStart}
	if got := p.Columns(); !slices.Equal(got, want) {
		t.Fatalf("Columns = %v, want %v", got, want)
	}
	tk := mustParse(t, `{"type":"equals","key":"TAXON_KEY","value":"1"}`).Columns()
	if len(tk) != len(taxonKeyColumns) {
		t.Fatalf("TAXON_KEY columns %v", tk)
	}
	// isNull/isNotNull read only the key's first column.
	for js, want := range map[string][]string{
		`{"type":"isNull","parameter":"TAXON_KEY"}`:     {ColTaxonKey},
		`{"type":"isNotNull","parameter":"EVENT_DATE"}`: {ColEventDateStart},
	} {
		if got := mustParse(t, js).Columns(); !slices.Equal(got, want) {
			t.Errorf("%s: Columns = %v, want %v", js, got, want)
		}
	}
}

// TestEvalConcurrent shares one predicate between goroutines, parsed and
// built by hand (compiled on first use); run with -race.
func TestEvalConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	batch := buildBatch(t, allColumns(), randomRows(rng, 256))
	defer batch.Release()
	parsed := mustParse(t, randomPredicate(t, rng, 4))
	hand := &Predicate{Type: TypeAnd, Predicates: []*Predicate{
		{Type: TypeIn, Key: "country", Values: []string{"dk", "se"}},
		{Type: TypeNot, Predicate: &Predicate{Type: TypeEquals, Key: "YEAR", Value: "1990,2000"}},
	}}
	for _, p := range []*Predicate{parsed, hand} {
		want := make([]bool, batch.NumRows())
		done := make(chan []bool)
		for g := 0; g < 4; g++ {
			go func() {
				sel := make([]bool, batch.NumRows())
				p.Eval(batch, sel)
				done <- sel
			}()
		}
		for g := 0; g < 4; g++ {
			got := <-done
			if g == 0 {
				copy(want, got)
			} else if !slices.Equal(got, want) {
				t.Fatalf("%s: concurrent Eval results differ", p)
			}
		}
		if len(matchingRows(t, p, batch)) == 0 && p == hand {
			t.Fatal("hand-built predicate matched nothing")
		}
	}
	if hand.Predicates[0].Key != "country" {
		t.Fatal("lazy compilation must not rewrite a hand-built predicate")
	}
	if err := hand.Validate(Limits{}); err != nil || hand.Predicates[0].Key != "COUNTRY" {
		t.Fatalf("Validate: %v, key %q", err, hand.Predicates[0].Key)
	}
	bad := &Predicate{Type: TypeEquals, Key: "NOPE", Value: "1"}
	if err := bad.Validate(Limits{}); !errors.Is(err, ErrInvalidPredicate) {
		t.Fatalf("Validate of an unknown key: %v", err)
	}
}

// TestPolygonIndexAgrees compares Eval's banded point-in-polygon test with
// the full even-odd scan on random points, vertices and edge midpoints.
func TestPolygonIndexAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, js := range []string{circlePolygon(500),
		`{"type":"within","geometry":"POLYGON((-10 30, 40 30, 40 70, -10 70, -10 30), (0 40, 0 60, 20 60, 20 40, 0 40))"}`,
		`{"type":"within","geometry":"MULTIPOLYGON(((170 -30, 190 -30, 190 0, 170 0, 170 -30)), ((-100 20, -80 20, -80 50, -100 50, -100 20)))"}`,
		`{"type":"within","geometry":"POLYGON((0 0, 10 0, 10 10, 5 3, 0 10, 0 0))"}`} {
		g := mustParse(t, js).comp().geom
		parity := make([]bool, g.maxRings())
		var pts [][2]float64
		for i := 0; i < 20000; i++ {
			pts = append(pts, [2]float64{g.minY - 1 + rng.Float64()*(g.maxY-g.minY+2), g.minX - 1 + rng.Float64()*(g.maxX-g.minX+2)})
		}
		for _, p := range g.polys {
			for i := 0; i+1 < len(p.shell.xs); i++ {
				pts = append(pts, [2]float64{p.shell.ys[i], p.shell.xs[i]},
					[2]float64{(p.shell.ys[i] + p.shell.ys[i+1]) / 2, (p.shell.xs[i] + p.shell.xs[i+1]) / 2})
			}
		}
		in := 0
		for _, p := range pts {
			lon := p[1]
			if lon > 180 {
				lon -= 360
			}
			a, b := g.containsFast(p[0], lon, parity), g.containsSimple(p[0], lon)
			if a != b {
				t.Fatalf("%s: point %v: banded %v, full scan %v", js, p, a, b)
			}
			if a {
				in++
			}
		}
		if in == 0 || in == len(pts) {
			t.Fatalf("%s: degenerate test, %d of %d inside", js, in, len(pts))
		}
	}
}

// TestPolygonBoundaryMatches: a point on a shell edge, a vertex or a hole's
// edge intersects the polygon and matches (GBIF's test is intersects); a
// point inside the hole or just outside does not. Eval and MatchRow agree.
func TestPolygonBoundaryMatches(t *testing.T) {
	p := mustParse(t, `{"type":"within","geometry":"POLYGON((0 45, 15 45, 15 60, 0 60, 0 45), (5 50, 5 55, 10 55, 10 50, 5 50))"}`)
	pts := []struct {
		lat, lon float64
		want     bool
	}{
		{45, 7, true}, {60, 7, true}, {50, 0, true}, {50, 15, true}, // shell edges
		{45, 0, true}, {60, 15, true}, // vertices
		{50, 7, true}, {52, 10, true}, // hole edges
		{52, 7, false},                                // inside the hole
		{44.999999, 7, false}, {50, 15.000001, false}, // just outside
		{47, 3, true}, // inside
	}
	var rows []row
	for _, pt := range pts {
		rows = append(rows, row{ColDecimalLatitude: pt.lat, ColDecimalLongitude: pt.lon, ColHasCoordinate: true})
	}
	batch := buildBatch(t, []string{ColDecimalLatitude, ColDecimalLongitude, ColHasCoordinate}, rows)
	defer batch.Release()
	got := map[int]bool{}
	for _, i := range matchingRows(t, p, batch) {
		got[i] = true
	}
	for i, pt := range pts {
		if got[i] != pt.want {
			t.Errorf("point %v,%v: match %v, want %v", pt.lat, pt.lon, got[i], pt.want)
		}
	}
}

// TestPointAndLineMatch: a record lies within a POINT on its coordinates
// and within a LINESTRING on a segment, its vertices included, across the
// anti-meridian too; a millionth of a degree off does not match. Eval and
// MatchRow agree (matchingRows), and statistics pruning keeps the batch.
func TestPointAndLineMatch(t *testing.T) {
	cases := []struct {
		wkt  string
		pts  [][2]float64 // lat, lon
		want []bool
	}{
		{"POINT(10 45)", [][2]float64{{45, 10}, {45.000001, 10}, {45, 10.000001}, {10, 45}}, []bool{true, false, false, false}},
		{"LINESTRING(0 45, 10 55, 10 60)", [][2]float64{
			{45, 0}, {50, 5}, {47.5, 2.5}, {55, 10}, {57.5, 10}, {60, 10}, // vertices, on segments
			{50.000001, 5}, {60.000001, 10}, {44, -1}, {65, 10}, {50, 10}, // beside, past an end, off
		}, []bool{true, true, true, true, true, true, false, false, false, false, false}},
		{"LINESTRING(179 -17, -179 -19)", [][2]float64{{-18, 180}, {-18, -180}, {-18.5, -179.5}, {-17.5, 179.5}, {-18, 0}, {-18.5, 179.5}},
			[]bool{true, true, true, true, false, false}},
	}
	for _, c := range cases {
		p := mustParse(t, `{"type":"within","geometry":"`+c.wkt+`"}`)
		var rows []row
		for _, pt := range c.pts {
			rows = append(rows, row{ColDecimalLatitude: pt[0], ColDecimalLongitude: pt[1], ColHasCoordinate: true})
		}
		batch := buildBatch(t, []string{ColDecimalLatitude, ColDecimalLongitude, ColHasCoordinate}, rows)
		got := map[int]bool{}
		for _, i := range matchingRows(t, p, batch) {
			got[i] = true
		}
		batch.Release()
		for i, pt := range c.pts {
			if got[i] != c.want[i] {
				t.Errorf("%s: lat %v lon %v: match %v, want %v", c.wkt, pt[0], pt[1], got[i], c.want[i])
			}
			if c.want[i] && !p.MayMatch(statsOf([]string{ColDecimalLatitude, ColDecimalLongitude}, rows[i:i+1], false)) {
				t.Errorf("%s: statistics of lat %v lon %v alone prune a match", c.wkt, pt[0], pt[1])
			}
		}
	}
}

// TestEvalCachedAcrossBatches runs one cache over batches of changing sizes
// (its scratch slices and dictionary matches carry over) and compares each
// result with a fresh Eval.
func TestEvalCachedAcrossBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	var batches []arrow.RecordBatch
	for _, n := range []int{300, 17, 512, 1} {
		b := buildBatch(t, allColumns(), randomRows(rng, n))
		defer b.Release()
		batches = append(batches, b)
	}
	for k := 0; k < 60; k++ {
		p := mustParse(t, randomPredicate(t, rng, 4))
		cache := NewEvalCache()
		for _, b := range batches {
			want, got := make([]bool, b.NumRows()), make([]bool, b.NumRows())
			p.Eval(b, want)
			p.EvalCached(b, got, cache)
			if !slices.Equal(want, got) {
				t.Fatalf("%s: EvalCached on %d rows disagrees with Eval", p, b.NumRows())
			}
		}
		cache.Release()
	}
}

// dictEncoded returns batch with the string columns cols dictionary-encoded,
// as Parquet scans hand them over.
func dictEncoded(t *testing.T, batch arrow.RecordBatch, cols ...string) arrow.RecordBatch {
	t.Helper()
	fields := slices.Clone(batch.Schema().Fields())
	arrs := slices.Clone(batch.Columns())
	for _, col := range cols {
		idx := batch.Schema().FieldIndices(col)[0]
		db := array.NewDictionaryBuilder(memory.NewGoAllocator(), &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
		src := batch.Column(idx).(*array.String)
		for i := 0; i < src.Len(); i++ {
			if src.IsNull(i) {
				db.AppendNull()
			} else if err := db.AppendString(src.Value(i)); err != nil {
				t.Fatal(err)
			}
		}
		dict := db.NewArray()
		db.Release()
		defer dict.Release()
		fields[idx].Type = dict.DataType()
		arrs[idx] = dict
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, batch.NumRows())
}
