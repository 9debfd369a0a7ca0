package occurrence

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// benchRows makes realistic skewed records: Zipf countries and taxa, years
// around 2010, ~15% without coordinates.
func benchRows(n int) []row {
	rng := rand.New(rand.NewPCG(11, 12))
	countries := []string{"US", "GB", "FR", "SE", "DK", "NL", "DE", "AU", "CA", "NO", "ES", "BR", "MX", "ZA", "IN"}
	zc := rand.NewZipf(rng, 1.3, 1, uint64(len(countries)-1))
	zt := rand.NewZipf(rng, 1.1, 1, 50000)
	rows := make([]row, n)
	for i := range rows {
		tk := int64(zt.Uint64()) + 1000
		r := row{
			ColCountryCode: countries[zc.Uint64()],
			ColTaxonKey:    tk, ColAcceptedTaxonKey: tk, ColKingdomKey: int64(1 + rng.IntN(8)),
			ColPhylumKey: int64(10 + rng.IntN(40)), ColClassKey: int64(100 + rng.IntN(200)),
			ColOrderKey: int64(1000 + rng.IntN(900)), ColFamilyKey: int64(5000 + rng.IntN(5000)),
			ColGenusKey: tk / 7, ColSpeciesKey: tk,
			ColBasisOfRecord:  basisOfRecordValues[rng.IntN(4)],
			ColScientificName: fmt.Sprintf("Genus%d species%d (Author, %d)", tk/7, tk, 1750+rng.IntN(250)),
		}
		if rng.IntN(20) != 0 {
			y := 2024 - int(rng.ExpFloat64()*15)
			if y < 1700 {
				y = 1700
			}
			r[ColYear] = int64(y)
			d := time.Date(y, time.Month(1+rng.IntN(12)), 1+rng.IntN(28), 0, 0, 0, 0, time.UTC)
			r[ColEventDateStart] = d
			r[ColEventDateEnd] = d.Add(24*time.Hour - time.Millisecond)
		}
		if rng.IntN(100) >= 15 {
			r[ColDecimalLatitude] = rng.Float64()*140 - 60
			r[ColDecimalLongitude] = rng.Float64()*360 - 180
		}
		rows[i] = r
	}
	return rows
}

var benchPredicates = []struct{ name, js string }{
	{"country_in", `{"type":"in","key":"COUNTRY","values":["DK","SE","NO"]}`},
	{"year_range", `{"type":"equals","key":"YEAR","value":"2000,2010"}`},
	{"taxon_key", `{"type":"equals","key":"TAXON_KEY","value":"1212"}`},
	{"taxon_keys_1000", taxonKeysJSON(1000)},
	{"event_date", `{"type":"equals","key":"EVENT_DATE","value":"2015-01-01,2015-06-30"}`},
	{"polygon_5", `{"type":"within","geometry":"POLYGON((-10 35, 30 35, 30 70, -10 70, -10 35))"}`},
	{"polygon_500", circlePolygon(500)},
	{"name_like", `{"type":"like","key":"SCIENTIFIC_NAME","value":"genus12*"}`},
	{"combined", `{"type":"and","predicates":[{"type":"in","key":"COUNTRY","values":["DK","SE","NO"]},{"type":"equals","key":"YEAR","value":"2000,2010"},{"type":"equals","key":"HAS_COORDINATE","value":"true"},{"type":"within","geometry":"POLYGON((-10 35, 30 35, 30 70, -10 70, -10 35))"}]}`},
}

func taxonKeysJSON(n int) string {
	s := `{"type":"in","key":"TAXON_KEY","values":[`
	for i := 0; i < n; i++ {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf(`"%d"`, 1000+i*37)
	}
	return s + `]}`
}

// circlePolygon is a counter-clockwise n-gon around Europe.
func circlePolygon(n int) string {
	s := `{"type":"within","geometry":"POLYGON((`
	for i := 0; i <= n; i++ {
		a := 2 * 3.141592653589793 * float64(i%n) / float64(n)
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.6f %.6f", 10+25*cos(a), 50+15*sin(a))
	}
	return s + `))"}`
}

// BenchmarkEval measures the vectorized evaluator on 8192-row batches, with
// the scalar MatchRow side by side as the baseline; ns/row is reported.
func BenchmarkEval(b *testing.B) {
	rows := benchRows(DefaultBatchSize)
	for _, bp := range benchPredicates {
		p := mustParse(b, bp.js)
		batch := buildBatch(b, p.Columns(), rows)
		sel := make([]bool, batch.NumRows())
		b.Run(bp.name+"/Eval", func(b *testing.B) {
			for b.Loop() {
				p.Eval(batch, sel)
			}
			reportPerRow(b, batch)
		})
		b.Run(bp.name+"/MatchRow", func(b *testing.B) {
			for b.Loop() {
				for i := range sel {
					sel[i] = p.MatchRow(batch, i)
				}
			}
			reportPerRow(b, batch)
		})
		batch.Release()
	}
}

func reportPerRow(b *testing.B, batch arrow.RecordBatch) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(batch.NumRows()), "ns/row")
}
