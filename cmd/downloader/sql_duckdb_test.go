package main

import (
	"archive/zip"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/internal/readers"
	"github.com/biodiversity-downloads/downloader/internal/testenv"
)

// sqlAgreement holds queries both dialects read alike (duck, when set,
// is DuckDB's spelling of the same query). ordered marks a query whose
// ORDER BY is total, so the rows' order is compared too.
var sqlAgreement = []struct {
	sql     string
	ordered bool
	duck    string
}{
	{`SELECT countryCode, basisOfRecord, COUNT(*) AS n, COUNT(DISTINCT speciesKey) AS species, MIN("year"), MAX("year"), SUM(individualCount), AVG(decimalLatitude)
		FROM occurrence GROUP BY countryCode, basisOfRecord`, false, ""},
	{`SELECT gbifID, scientificName, "year" FROM occurrence WHERE "year" BETWEEN 1990 AND 2010 AND scientificName LIKE 'Cornell%' ORDER BY gbifID`, true, ""},
	{`SELECT gbifID FROM occurrence WHERE countryCode IS NULL OR NOT (basisOfRecord IN ('PRESERVED_SPECIMEN', 'FOSSIL_SPECIMEN')) ORDER BY gbifID DESC LIMIT 25`, true, ""},
	{`SELECT FLOOR("year" / 10) * 10 AS decade, COUNT(*) AS n FROM occurrence GROUP BY FLOOR("year" / 10) * 10 HAVING COUNT(*) > 2`, false, ""},
	{`SELECT DISTINCT kingdom, phylum FROM occurrence`, false, ""},
	{`SELECT LOWER(genus) AS g, UPPER(countryCode), LENGTH(scientificName), SUBSTRING(scientificName, 2, 5), COALESCE(stateProvince, 'none')
		FROM occurrence WHERE gbifID % 7 = 0`, false, ""},
	{`SELECT ROUND(decimalLatitude, 1) AS lat, ROUND(decimalLongitude, 1) AS lon, COUNT(*) FROM occurrence WHERE hasCoordinate GROUP BY 1, 2`, false, ""},
	{`SELECT CASE WHEN "year" < 2000 THEN 'old' WHEN "year" >= 2000 THEN 'new' ELSE 'undated' END AS age, COUNT(*) FROM occurrence GROUP BY 1`, false, ""},
	{`SELECT COUNT(*), COUNT("month"), COUNT(DISTINCT datasetKey), MIN(scientificName), MAX(eventDate) FROM occurrence`, false, ""},
	{`SELECT gbifID, decimalLatitude * 2 + 1, "month" / 4, "year" - "month", typeStatus FROM occurrence WHERE scientificName < 'M' AND "month" <> 6`, false, ""},
	{`SELECT datasetKey, license, COUNT(*) FROM occurrence WHERE locality LIKE '%a%' GROUP BY datasetKey, license ORDER BY 3 DESC, 1`, true, ""},
	{`SELECT gbifID, hasCoordinate, hasGeospatialIssues FROM occurrence WHERE NOT hasCoordinate OR gbifID < 20`, false, ""},
	{`SELECT family, COUNT(*) AS n FROM occurrence WHERE family IS NOT NULL GROUP BY family ORDER BY n DESC, family LIMIT 5 OFFSET 1`, true, ""},
	{`SELECT countryCode || '-' || basisOfRecord AS k, COUNT(*) FROM occurrence GROUP BY countryCode || '-' || basisOfRecord`, false, ""},
	// Window functions (GBIF's SQL downloads take OVER and PARTITION BY).
	{`SELECT family, COUNT(*) AS n, RANK() OVER (ORDER BY COUNT(*) DESC) AS r, DENSE_RANK() OVER (ORDER BY COUNT(*) DESC) AS d,
		SUM(COUNT(*)) OVER () AS total, COUNT(*) * 100.0 / SUM(COUNT(*)) OVER () AS pct FROM occurrence WHERE family IS NOT NULL GROUP BY family`, false, ""},
	{`SELECT gbifID, countryCode, ROW_NUMBER() OVER (PARTITION BY countryCode ORDER BY gbifID) AS rn,
		LAG(gbifID) OVER (PARTITION BY countryCode ORDER BY gbifID), LEAD(gbifID, 2, 0) OVER (PARTITION BY countryCode ORDER BY gbifID) FROM occurrence`, false, ""},
	{`SELECT "year", COUNT(*) AS n, SUM(COUNT(*)) OVER (ORDER BY "year") AS running, AVG(COUNT(*)) OVER (PARTITION BY FLOOR("year" / 10)) AS decade_mean
		FROM occurrence WHERE "year" IS NOT NULL GROUP BY "year" ORDER BY "year"`, true, ""},
	{`SELECT gbifID, MAX(decimalLatitude) OVER (PARTITION BY basisOfRecord) - decimalLatitude, COUNT(speciesKey) OVER (PARTITION BY countryCode)
		FROM occurrence WHERE gbifID % 5 = 0`, false, ""},
	// GBIF's verbatim columns read the record's verbatim object.
	{`SELECT v_scientificname, v_country, COUNT(*) FROM occurrence WHERE v_locality IS NOT NULL GROUP BY v_scientificname, v_country`, false,
		`SELECT json_extract_string(verbatim, '$.scientificName'), json_extract_string(verbatim, '$.country'), COUNT(*) FROM occurrence
		WHERE json_extract_string(verbatim, '$.locality') IS NOT NULL GROUP BY 1, 2`},
	// GBIF's cube spellings: PRINTF (Java's, here C's in DuckDB: the same
	// for %04d), a vocabulary struct's concept, CONCAT_WS over a list.
	{`SELECT PRINTF('%04d-%02d', "year", "month") AS ym, COALESCE(occurrence.sex.concept, 'NOT_SUPPLIED') AS sex, CONCAT_WS(' | ', issue) AS issues, COUNT(*)
		FROM occurrence WHERE "year" IS NOT NULL AND "month" IS NOT NULL GROUP BY ym, sex, issues`, false,
		`SELECT printf('%04d-%02d', "year", "month") AS ym, COALESCE(sex, 'NOT_SUPPLIED') AS sex, COALESCE(replace(issue, ';', ' | '), '') AS issues, COUNT(*)
		FROM occurrence WHERE "year" IS NOT NULL AND "month" IS NOT NULL GROUP BY 1, 2, 3`},
}

// duckSQL runs queries with DuckDB over the table's Parquet files (a view
// named occurrence) and prints each result as JSON rows.
const duckSQL = `
import sys, json, duckdb
con = duckdb.connect()
con.execute("SET threads=2")
con.execute("CREATE VIEW occurrence AS SELECT * FROM read_parquet('%s', union_by_name=true)" % sys.argv[1].replace("'", "''"))
out = []
for q in json.loads(sys.argv[2]):
    rows = con.execute(q).fetchall()
    out.append([[None if v is None else (str(v).lower() if isinstance(v, bool) else (v if isinstance(v, (int, float)) else str(v))) for v in r] for r in rows])
print(json.dumps(out))
`

// TestSQLAgreesWithDuckDB runs SQL downloads of the bundled samples and
// the same queries in DuckDB over the table's own Parquet files: every
// result must hold the same rows (numbers within 1e-9, text as the TSV
// cleans it), in the same order where the query orders them totally.
func TestSQLAgreesWithDuckDB(t *testing.T) {
	readers.RequirePython(t, "duckdb")
	table := t.TempDir()
	ingestSamples(t, table)
	var queries []string
	for _, q := range sqlAgreement {
		queries = append(queries, cmp.Or(q.duck, q.sql))
	}
	qj, _ := json.Marshal(queries)
	var duck [][][]any
	out := readers.Python(t, 2*time.Minute, duckSQL, filepath.Join(table, "data", "**", "*.parquet"), string(qj))
	if err := json.Unmarshal([]byte(out), &duck); err != nil {
		t.Fatalf("duckdb printed %.300s: %v", out, err)
	}
	for i, q := range sqlAgreement {
		path := filepath.Join(t.TempDir(), "sql.zip")
		runCmd(t, "export", "--table", table, "--sql", q.sql, "-o", path)
		ours := sqlResult(t, path)
		theirs := make([][]string, len(duck[i]))
		for j, row := range duck[i] {
			for _, v := range row {
				theirs[j] = append(theirs[j], duckCell(v))
			}
		}
		if len(ours) == 0 || len(ours)-1 != len(theirs) {
			t.Errorf("query %d: %d rows, DuckDB %d\n%s", i, len(ours)-1, len(theirs), q.sql)
			continue
		}
		if len(theirs) == 0 {
			t.Errorf("query %d returns no rows: it tests nothing\n%s", i, q.sql)
		}
		got, want := ours[1:], theirs
		if !q.ordered {
			sortRows(got)
			sortRows(want)
		}
		for j := range got {
			if !sameRow(got[j], want[j]) {
				t.Errorf("query %d row %d: ours %q, DuckDB %q\n%s", i, j, got[j], want[j], q.sql)
				break
			}
		}
	}
}

// ingestSamples ingests the bundled samples into table (a directory or an
// hbase:// address, with its derived taxonomy in a directory of its own,
// as an HBase table needs one to match names).
func ingestSamples(t *testing.T, table string) {
	t.Helper()
	samples, _ := filepath.Glob("samples/*.zip")
	xml, _ := filepath.Glob("samples/*.xml")
	args := []string{"ingest", "--table", table}
	if strings.HasPrefix(table, "hbase://") {
		args = append(args, "--taxonomy", t.TempDir())
	}
	runCmd(t, append(args, append(samples, xml...)...)...)
}

// TestSQLOnHBase runs the agreement queries as SQL downloads of the same
// samples in an HBase table and in the embedded one: the results are the
// same rows (the backends deliver their records in different orders, so
// unordered results are compared as sets).
func TestSQLOnHBase(t *testing.T) {
	master := testenv.HBaseMaster(t)
	hb := fmt.Sprintf("hbase://%s/sql_%d", master, time.Now().UnixNano()%1e9)
	local := t.TempDir()
	ingestSamples(t, hb)
	ingestSamples(t, local)
	for i, q := range sqlAgreement {
		var results [2][][]string
		for j, table := range []string{local, hb} {
			path := filepath.Join(t.TempDir(), "sql.zip")
			runCmd(t, "export", "--table", table, "--sql", q.sql, "-o", path)
			results[j] = sqlResult(t, path)
			if !q.ordered {
				sortRows(results[j][1:])
			}
		}
		// Sums of doubles may differ in their last digits with the order
		// the rows came in (sameRow's tolerance).
		if len(results[0]) < 2 || !slices.EqualFunc(results[0], results[1], sameRow) {
			t.Errorf("query %d: embedded %d rows, HBase %d, or they differ\n%s\n%q\n%q", i, len(results[0]), len(results[1]), q.sql, results[0][:min(4, len(results[0]))], results[1][:min(4, len(results[1]))])
		}
	}
}

// sqlResult reads the one TSV entry of a SQL download.
func sqlResult(t *testing.T, path string) [][]string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil || len(zr.File) != 1 {
		t.Fatalf("%s: %v", path, err)
	}
	defer zr.Close()
	rc, _ := zr.File[0].Open()
	b, _ := io.ReadAll(rc)
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		rows = append(rows, strings.Split(line, "\t"))
	}
	return rows
}

// duckCell is a DuckDB value as the TSV writes it: NULL empty, text
// cleaned, integers without a fraction.
func duckCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return dwca.CleanValue(x)
	}
	return ""
}

func sameRow(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		x, err1 := strconv.ParseFloat(a[i], 64)
		y, err2 := strconv.ParseFloat(b[i], 64)
		if err1 != nil || err2 != nil || math.Abs(x-y) > 1e-9*math.Max(1, math.Abs(y)) {
			return false
		}
	}
	return true
}

func sortRows(rows [][]string) {
	slices.SortFunc(rows, func(a, b []string) int { return strings.Compare(strings.Join(a, "\t"), strings.Join(b, "\t")) })
}
