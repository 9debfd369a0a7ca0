package occurrence

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// row is a test record: column name -> value (string, int64, float64, bool,
// time.Time); absent means null.
type row map[string]any

// buildBatch builds an Arrow batch of the named columns from rows.
func buildBatch(t testing.TB, cols []string, rows []row) arrow.RecordBatch {
	t.Helper()
	schema := SchemaOf(cols)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	for ci, name := range cols {
		fb := b.Field(ci)
		for _, r := range rows {
			v, ok := r[name]
			if !ok || v == nil {
				fb.AppendNull()
				continue
			}
			switch x := fb.(type) {
			case *array.StringBuilder:
				x.Append(v.(string))
			case *array.Int32Builder:
				x.Append(int32(v.(int64)))
			case *array.Int64Builder:
				x.Append(v.(int64))
			case *array.Float64Builder:
				x.Append(v.(float64))
			case *array.BooleanBuilder:
				x.Append(v.(bool))
			case *array.TimestampBuilder:
				x.Append(arrow.Timestamp(v.(time.Time).UnixMilli()))
			default:
				t.Fatalf("no builder for %s", name)
			}
		}
	}
	return b.NewRecordBatch()
}

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func mustParse(t testing.TB, js string) *Predicate {
	t.Helper()
	p, err := ParsePredicateJSON([]byte(js), DefaultLimits())
	if err != nil {
		t.Fatalf("parse %s: %v", js, err)
	}
	return p
}

// allColumns is every column a predicate can read, for test batches.
func allColumns() []string {
	set := map[string]bool{ColDecimalLatitude: true, ColDecimalLongitude: true}
	for _, s := range keySpecs {
		for _, c := range s.cols {
			set[c] = true
		}
	}
	var out []string
	for c := range set {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// matchingRows evaluates with Eval and checks MatchRow agrees on every row.
func matchingRows(t testing.TB, p *Predicate, batch arrow.RecordBatch) []int {
	t.Helper()
	sel := make([]bool, batch.NumRows())
	p.Eval(batch, sel)
	var out []int
	for i, s := range sel {
		if m := p.MatchRow(batch, i); m != s {
			t.Fatalf("%s: row %d: Eval %v, MatchRow %v", p, i, s, m)
		}
		if s {
			out = append(out, i)
		}
	}
	return out
}

// randomRows makes records with skewed small domains so predicates match
// some rows and not others, with nulls everywhere.
func randomRows(rng *rand.Rand, n int) []row {
	pick := func(vs ...string) string { return vs[rng.IntN(len(vs))] }
	rows := make([]row, n)
	for i := range rows {
		r := row{}
		maybe := func(col string, v any) {
			if rng.IntN(8) != 0 {
				r[col] = v
			}
		}
		maybe(ColCountryCode, pick("DK", "SE", "NO", "US", "DE", "FJ"))
		maybe(ColYear, int64(1985+rng.IntN(30)))
		maybe(ColMonth, int64(1+rng.IntN(12)))
		maybe(ColDay, int64(1+rng.IntN(28)))
		maybe(ColGBIFID, int64(rng.IntN(1000)))
		for _, c := range taxonKeyColumns {
			maybe(c, int64(rng.IntN(20)))
		}
		maybe(ColIndividualCount, int64(rng.IntN(5)))
		maybe(ColDecimalLatitude, float64(rng.IntN(1800))/10-90)
		maybe(ColDecimalLongitude, float64(rng.IntN(3600))/10-180)
		maybe(ColElevation, math.Round(rng.NormFloat64()*500))
		maybe(ColDepth, float64(rng.IntN(100)))
		maybe(ColCoordinateUncertaintyInMeters, float64(rng.IntN(4))*250)
		maybe(ColHasCoordinate, rng.IntN(2) == 0)
		maybe(ColHasGeospatialIssue, rng.IntN(2) == 0)
		maybe(ColBasisOfRecord, pick(basisOfRecordValues...))
		maybe(ColOccurrenceStatus, pick(occurrenceStatusValues...))
		maybe(ColLicense, pick(LicenseCC0, LicenseCCBY, LicenseCCBYNC, LicenseUnspecified))
		maybe(ColDatasetKey, pick("0c3f1c4e-2a0e-4e4b-9c1e-6f3c7a1d2b3c", "b1047888-ae52-4179-9dd5-5448ea342a24"))
		maybe(ColPublishingOrgKey, pick("0c3f1c4e-2a0e-4e4b-9c1e-6f3c7a1d2b3c"))
		maybe(ColTypeStatus, pick("HOLOTYPE", "PARATYPE;HOLOTYPE", "ISOTYPE", "SYNTYPE; LECTOTYPE"))
		maybe(ColMediaType, pick("StillImage", "Sound;StillImage", "MovingImage"))
		maybe(ColIssue, pick(IssueCoordinateInvalid, IssueRecordedDateInvalid+";"+IssueZeroCoordinate, IssueCountryDerivedFromName))
		maybe(ColScientificName, pick("Puma concolor", "PUMA CONCOLOR (Linnaeus, 1771)", "Abies alba Mill.", "Quercus robur", "Ærø fjordfisk"))
		maybe(ColVerbatimScientificName, pick("Puma concolor", "abies alba"))
		maybe(ColTaxonRank, pick("SPECIES", "GENUS", "species"))
		maybe(ColDatasetName, pick("Birds of Denmark", "Herbarium"))
		maybe(ColInstitutionCode, pick("NHMD", "nhmd", "K"))
		maybe(ColCollectionCode, pick("ZMUC", "AVES"))
		maybe(ColCatalogNumber, pick("ZMUC 123", "zmuc 123", "K000123"))
		maybe(ColRecordNumber, pick("1", "A-2"))
		maybe(ColOccurrenceID, pick("urn:catalog:NHMD:1", "urn:catalog:nhmd:2"))
		maybe(ColStateProvince, pick("Sjælland", "SJÆLLAND", "Jylland"))
		maybe(ColLocality, pick("Copenhagen, Denmark", "Öland"))
		maybe(ColEstablishmentMeans, pick("native", "Introduced"))
		maybe(ColRecordedBy, pick("Smith, J.", "Smith, J. | Doe, A.", "doe, a.|Brown", "Jensen"))
		maybe(ColIdentifiedBy, pick("Doe, A.", "Jensen | Smith, J."))
		start := day("1995-01-01").AddDate(0, 0, rng.IntN(365*10))
		if rng.IntN(8) != 0 {
			r[ColEventDateStart] = start
			switch rng.IntN(3) {
			case 0: // single day, end = last ms of the day
				r[ColEventDateEnd] = start.Add(24*time.Hour - time.Millisecond)
			case 1:
				r[ColEventDateEnd] = start.AddDate(0, 0, rng.IntN(60))
			}
		}
		maybe(ColLastInterpreted, day("2020-01-01").Add(time.Duration(rng.IntN(1000))*time.Hour))
		if rng.IntN(4) != 0 { // a geological time: a span of millions of years
			end := float64(rng.IntN(300))
			r[ColGeologicalEndAge], r[ColGeologicalStartAge] = end, end+float64(rng.IntN(60))
		}
		if n := rng.IntN(4); n > 0 { // sequences' figures, lists in text
			lengths, invalid := make([]string, n), make([]string, n)
			for j := range lengths {
				lengths[j], invalid[j] = strconv.Itoa(rng.IntN(600)), strconv.FormatBool(rng.IntN(3) == 0)
			}
			r["nucleotideSequenceLength"], r["nucleotideInvalid"] = strings.Join(lengths, ";"), strings.Join(invalid, ";")
		}
		rows[i] = r
	}
	return rows
}

// leafPredicates covers every predicate type and key kind.
var leafPredicates = []string{
	`{"type":"equals","key":"COUNTRY","value":"dk"}`,
	`{"type":"in","key":"COUNTRY","values":["DK","SE","FJ"]}`,
	`{"type":"equals","key":"YEAR","value":"1990,2000"}`,
	`{"type":"equals","key":"YEAR","value":"*,1990"}`,
	`{"type":"in","key":"YEAR","values":["1990","1995","2000,2002","1986","1987","1988","1989","1991","1992","1993"]}`,
	`{"type":"lessThan","key":"YEAR","value":"1995"}`,
	`{"type":"lessThanOrEquals","key":"MONTH","value":"6"}`,
	`{"type":"greaterThan","key":"DAY","value":"15"}`,
	`{"type":"greaterThanOrEquals","key":"ELEVATION","value":"100.5"}`,
	`{"type":"range","key":"DEPTH","value":{"gt":"10","lt":"50"}}`,
	`{"type":"range","key":"YEAR","value":{"gte":"1990","lte":"2000"}}`,
	`{"type":"equals","key":"TAXON_KEY","value":"5"}`,
	`{"type":"in","key":"TAXON_KEY","values":["1","2","3","4","5","6","7","8","9","10","11"]}`,
	`{"type":"equals","key":"GBIF_ID","value":"17"}`,
	`{"type":"lessThan","key":"DECIMAL_LATITUDE","value":"0"}`,
	`{"type":"equals","key":"COORDINATE_UNCERTAINTY_IN_METERS","value":"0,250"}`,
	`{"type":"equals","key":"HAS_COORDINATE","value":"true"}`,
	`{"type":"equals","key":"HAS_GEOSPATIAL_ISSUE","value":"FALSE"}`,
	`{"type":"equals","key":"BASIS_OF_RECORD","value":"Preserved specimen"}`,
	`{"type":"in","key":"LICENSE","values":["CC_BY_4_0","CC0_1_0"]}`,
	`{"type":"equals","key":"OCCURRENCE_STATUS","value":"present"}`,
	`{"type":"equals","key":"DATASET_KEY","value":"B1047888-AE52-4179-9DD5-5448EA342A24"}`,
	`{"type":"equals","key":"TYPE_STATUS","value":"HOLOTYPE"}`,
	`{"type":"equals","key":"MEDIA_TYPE","value":"stillimage"}`,
	`{"type":"in","key":"ISSUE","values":["ZERO_COORDINATE","COUNTRY_DERIVED_FROM_NAME"]}`,
	`{"type":"equals","key":"SCIENTIFIC_NAME","value":"puma concolor"}`,
	`{"type":"equals","key":"SCIENTIFIC_NAME","value":"Puma concolor","matchCase":true}`,
	`{"type":"like","key":"SCIENTIFIC_NAME","value":"puma*"}`,
	`{"type":"like","key":"SCIENTIFIC_NAME","value":"?rø*"}`,
	`{"type":"like","key":"CATALOG_NUMBER","value":"ZMUC*","matchCase":true}`,
	`{"type":"equals","key":"INSTITUTION_CODE","value":"NHMD"}`,
	`{"type":"equals","key":"STATE_PROVINCE","value":"sjælland"}`,
	`{"type":"equals","key":"RECORDED_BY","value":"doe, a."}`,
	`{"type":"equals","key":"RECORDED_BY","value":"Smith, J. | Doe, A."}`,
	`{"type":"like","key":"IDENTIFIED_BY","value":"*smith*"}`,
	`{"type":"equals","key":"EVENT_DATE","value":"2000"}`,
	`{"type":"equals","key":"EVENT_DATE","value":"2000-05"}`,
	`{"type":"equals","key":"EVENT_DATE","value":"1996-01-01,1997-06-30"}`,
	`{"type":"in","key":"EVENT_DATE","values":["1998","2001-02"]}`,
	`{"type":"in","key":"EVENT_DATE","values":["1995-03","1996","1997-01-01,1997-02-15","1998-07","1999-01,1999-03","2000-12","2001","2002-02-02","2003-05","2004-01-01,2004-12-31"]}`,
	`{"type":"in","key":"DECIMAL_LATITUDE","values":["-90,-80","-55.5","0","10,12.5","33.3","45,46","50","60.1,70","80","89.9"]}`,
	`{"type":"lessThan","key":"EVENT_DATE","value":"1997"}`,
	`{"type":"greaterThan","key":"EVENT_DATE","value":"2002-06"}`,
	`{"type":"range","key":"EVENT_DATE","value":{"gte":"1999","lt":"2001"}}`,
	`{"type":"greaterThanOrEquals","key":"LAST_INTERPRETED","value":"2020-01-20"}`,
	`{"type":"isNull","parameter":"YEAR"}`,
	`{"type":"isNotNull","parameter":"COUNTRY"}`,
	`{"type":"isNull","parameter":"EVENT_DATE"}`,
	`{"type":"equals","key":"GEOLOGICAL_TIME","value":"Mesozoic"}`,
	`{"type":"equals","key":"GEOLOGICAL_TIME","value":"0,100"}`,
	`{"type":"greaterThan","key":"GEOLOGICAL_TIME","value":"150"}`,
	`{"type":"in","key":"GEOLOGICAL_TIME","values":["Jurassic","Cretaceous","Paleogene","Neogene","Quaternary","Triassic","Permian","Carboniferous","Devonian","Silurian"]}`,
	`{"type":"greaterThan","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE_LENGTH","value":"300"}`,
	`{"type":"range","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE_LENGTH","value":{"gte":"100","lte":"200"}}`,
	`{"type":"in","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE_LENGTH","values":["1,50","60","70,80","90","100,110","120","130,140","150","160,170","180"]}`,
	`{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_INVALID","value":"true"}`,
	`{"type":"isNotNull","parameter":"NUCLEOTIDE_SEQUENCE_SEQUENCE_LENGTH"}`,
	`{"type":"within","geometry":"POLYGON((-10 30, 40 30, 40 70, -10 70, -10 30))"}`,
	`{"type":"within","geometry":"POLYGON((-10 30, 40 30, 40 70, -10 70, -10 30), (0 40, 0 60, 20 60, 20 40, 0 40))"}`,
	`{"type":"within","geometry":"MULTIPOLYGON(((170 -30, 190 -30, 190 0, 170 0, 170 -30)), ((-100 20, -80 20, -80 50, -100 50, -100 20)))"}`,
	`{"type":"geoDistance","latitude":"55.7","longitude":"12.5","distance":"2000km"}`,
	`{"type":"geoDistance","latitude":-20,"longitude":179,"distance":"500mi"}`,
}

// randomPredicate composes leaves with and/or/not.
func randomPredicate(t testing.TB, rng *rand.Rand, depth int) string {
	if depth <= 0 || rng.IntN(3) == 0 {
		return leafPredicates[rng.IntN(len(leafPredicates))]
	}
	switch rng.IntN(3) {
	case 0:
		return fmt.Sprintf(`{"type":"not","predicate":%s}`, randomPredicate(t, rng, depth-1))
	default:
		n := 1 + rng.IntN(3)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = randomPredicate(t, rng, depth-1)
		}
		typ := "and"
		if rng.IntN(2) == 0 {
			typ = "or"
		}
		return fmt.Sprintf(`{"type":%q,"predicates":[%s]}`, typ, strings.Join(parts, ","))
	}
}
