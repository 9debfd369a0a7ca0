package sqlquery

import (
	"errors"
	"testing"
)

// FuzzParse reads any text as a query: it is refused with an *Error, or
// it runs over the sample rows without a panic, emitting rows as wide as
// its header, within LIMIT.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`SELECT countryCode, COUNT(*) FROM occurrence GROUP BY countryCode ORDER BY 2 DESC LIMIT 3`,
		`SELECT gbifid, "year" % 7, LOWER(basisofrecord) FROM occurrence WHERE "year" BETWEEN 1 AND 3000 OR countrycode LIKE 'D%'`,
		`SELECT DISTINCT issue FROM occurrence WHERE array_contains(issue, 'ZERO_COORDINATE')`,
		`SELECT GBIF_EEARGCode(1000, decimallatitude, decimallongitude, 0) AS c, COUNT(DISTINCT specieskey) FROM occurrence GROUP BY c HAVING COUNT(*) > 0`,
		`SELECT CASE WHEN hascoordinate THEN 'y' ELSE 'n' END, SUBSTRING(countrycode, -1, 2) FROM occurrence LIMIT 2 OFFSET 1`,
		`SELECT gbifid FROM occurrence WHERE GBIF_Within('POLYGON((9 54, 13 54, 13 57, 9 57, 9 54))', decimallatitude, decimallongitude)`,
		`SELECT 1/0, -gbifid, CAST(gbifid AS CHAR), ROUND(1.5), gbifid DIV 0 FROM occurrence`,
		`SELECT countrycode, COUNT(*) * 100.0 / SUM(COUNT(*)) OVER () AS pct, RANK() OVER (ORDER BY COUNT(*) DESC) FROM occurrence GROUP BY countrycode`,
		`SELECT gbifid, LAG(gbifid, 2, -1) OVER (PARTITION BY countrycode ORDER BY "year" DESC) FROM occurrence ORDER BY 2 LIMIT 4`,
		`SELECT PRINTF('%04d-%02d|%2$s|%<x', "year", "month"), COALESCE(occurrence.sex.concept, 'x') AS s, CONCAT_WS(' | ', typestatus.lineage, issue) FROM occurrence GROUP BY 1, s, 3`,
		`SELECT GBIF_ISEA3HCode(6, decimallatitude, decimallongitude, 0), GBIF_SecondsToLocalISO8601(MAX(eventDateLte)), ISNULL(lifestage.lineage) FROM occurrence GROUP BY 1, 3`,
		`SELECT * FROM occurrence`, `SELECT`, `'`, `SELECT "`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		q, err := Parse(sql, Options{MaxBytes: 4096})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q): %T %v, want an *Error", sql, err, err)
			}
			return
		}
		var rows int64
		r := q.NewRun(1 << 20)
		emit := func(vs []Value) error {
			if len(vs) != len(q.Header()) {
				t.Fatalf("%q: a row of %d cells under %d names", sql, len(vs), len(q.Header()))
			}
			rows++
			return nil
		}
		b := batchOf(t, q.Columns(), sample)
		defer b.Release()
		if _, err := r.Add(b, emit); err != nil && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%q: %v", sql, err)
		}
		if err := r.Finish(emit); err != nil && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%q: %v", sql, err)
		}
		if q.limit >= 0 && rows > q.limit {
			t.Fatalf("%q: %d rows past LIMIT %d", sql, rows, q.limit)
		}
	})
}
