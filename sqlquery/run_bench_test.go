package sqlquery

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// benchRows are 64k rows of a species cube's columns: 5,000 species, 40
// countries, 60 years, a fifth without coordinates.
func benchBatch(b *testing.B, cols []string) arrow.RecordBatch {
	rows := make(testRows, 1<<16)
	for i := range rows {
		rows[i] = map[string]any{"speciesKey": (i * 7919) % 5000, "countryCode": fmt.Sprintf("C%02d", (i*31)%40),
			"year": 1960 + (i*13)%60, "hasCoordinate": i%5 != 0, "decimalLatitude": float64((i*17)%180) - 90 + 0.25,
			"decimalLongitude": float64((i*29)%360) - 180 + 0.5}
	}
	return batchOf(b, cols, rows)
}

// BenchmarkRun runs typical SQL download queries over 64k-row batches:
// ns/op is per batch (divide by 65,536 for a row).
func BenchmarkRun(b *testing.B) {
	for name, sql := range map[string]string{
		"cube":   `SELECT speciesKey, countryCode, "year", COUNT(*) FROM occurrence WHERE hasCoordinate AND speciesKey IS NOT NULL GROUP BY speciesKey, countryCode, "year"`,
		"grid":   `SELECT FLOOR(decimalLatitude), FLOOR(decimalLongitude), COUNT(DISTINCT speciesKey), COUNT(*) FROM occurrence WHERE hasCoordinate GROUP BY FLOOR(decimalLatitude), FLOOR(decimalLongitude)`,
		"select": `SELECT speciesKey, countryCode, decimalLatitude FROM occurrence WHERE "year" >= 2000`,
	} {
		b.Run(name, func(b *testing.B) {
			q, err := Parse(sql, Options{})
			if err != nil {
				b.Fatal(err)
			}
			rec := benchBatch(b, q.Columns())
			defer rec.Release()
			emit := func([]Value) error { return nil }
			r := q.NewRun(0)
			b.ResetTimer()
			for b.Loop() {
				if _, err := r.Add(rec, emit); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if err := r.Finish(emit); err != nil {
				b.Fatal(err)
			}
		})
	}
}
