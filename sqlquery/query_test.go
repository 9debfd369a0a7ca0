package sqlquery

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

var sample = testRows{
	{"gbifID": 1, "countryCode": "DK", "year": 2001, "speciesKey": 10, "decimalLatitude": 55.5, "decimalLongitude": 12.1, "issue": "ZERO_COORDINATE;RECORDED_DATE_INVALID", "basisOfRecord": "HUMAN_OBSERVATION", "hasCoordinate": true, "month": 5, "day": 3},
	{"gbifID": 2, "countryCode": "DK", "year": 2001, "speciesKey": 11, "decimalLatitude": 56.0, "decimalLongitude": 10.0, "basisOfRecord": "PRESERVED_SPECIMEN", "hasCoordinate": true, "month": 2, "day": 9},
	{"gbifID": 3, "countryCode": "SE", "year": 1999, "speciesKey": 10, "basisOfRecord": "HUMAN_OBSERVATION", "hasCoordinate": false, "month": 12, "day": 1},
	{"gbifID": 4, "countryCode": "DK", "year": nil, "speciesKey": nil, "decimalLatitude": 54.9, "decimalLongitude": 11.9, "basisOfRecord": "HUMAN_OBSERVATION", "hasCoordinate": true},
	{"gbifID": 5, "countryCode": nil, "year": 2010, "speciesKey": 12, "basisOfRecord": "MATERIAL_SAMPLE", "hasCoordinate": false, "month": 7, "day": 7},
	{"gbifID": 6, "countryCode": "SE", "year": 2001, "speciesKey": 11, "decimalLatitude": 59.3, "decimalLongitude": 18.0, "basisOfRecord": "HUMAN_OBSERVATION", "hasCoordinate": true, "issue": "COUNTRY_DERIVED_FROM_COORDINATES", "month": 1, "day": 30},
}

func TestGroupCount(t *testing.T) {
	h, rows := run(t, `SELECT countryCode, "year", COUNT(*) AS n, COUNT(DISTINCT speciesKey), MIN(gbifid), MAX(decimalLatitude), SUM(gbifid), AVG(gbifid)
		FROM occurrence GROUP BY countrycode, "year" ORDER BY countrycode, "year" DESC`, sample)
	if want := []string{"countrycode", "year", "n", "COUNT(DISTINCT specieskey)", "MIN(gbifid)", "MAX(decimallatitude)", "SUM(gbifid)", "AVG(gbifid)"}; !slices.Equal(h, want) {
		t.Errorf("header %q, want %q", h, want)
	}
	want := []string{
		`\N|2010|1|1|5|\N|5|5`,
		`DK|2001|2|2|1|56|3|1.5`,
		`DK|\N|1|0|4|54.9|4|4`,
		`SE|2001|1|1|6|59.3|6|6`,
		`SE|1999|1|1|3|\N|3|3`,
	}
	if !slices.Equal(rows, want) {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}

// The header names follow GBIF's HiveSqlQueryTest.testAllowedSql (Java
// package org.gbif.occurrence.query.sql, which names the columns of a SQL
// download's header): a quoted alias keeps its case, an unquoted one is
// lower case, a column is its lower-case name, an expression its SQL text.
func TestHeaderAsGBIF(t *testing.T) {
	q, err := Parse(`SELECT "year", GBIF_EQDGCode(1, decimallatitude, decimallongitude, 0) AS eqdgCellCode, occurrence.speciesKey,
		COUNT(*), MIN(COALESCE(coordinateUncertaintyInMeters, 1000)) AS "minCoordinateUncertaintyInMeters"
		FROM occurrence WHERE occurrenceStatus = 'PRESENT' GROUP BY "year", eqdgCellCode, speciesKey`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"year", "eqdgcellcode", "specieskey", "COUNT(*)", "minCoordinateUncertaintyInMeters"}
	if !slices.Equal(q.Header(), want) {
		t.Errorf("header %q, want %q", q.Header(), want)
	}
	q, err = Parse(`SELECT datasetkey, gbifid > 10000, -gbifid, 5, countrycode IS NULL, gbifid * 2, round(decimallatitude, 1) FROM occurrence`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"datasetkey", "gbifid > 10000", "-gbifid", "5", "countrycode IS NULL", "gbifid * 2", "ROUND(decimallatitude, 1)"}
	if !slices.Equal(q.Header(), want) {
		t.Errorf("header %q, want %q", q.Header(), want)
	}
}

func TestWhereThreeValued(t *testing.T) {
	cases := map[string][]string{
		`SELECT gbifid FROM occurrence WHERE countrycode = 'DK'`:                                                                          {"1", "2", "4"},
		`SELECT gbifid FROM occurrence WHERE NOT countrycode = 'DK'`:                                                                      {"3", "6"},
		`SELECT gbifid FROM occurrence WHERE countrycode <> 'DK' OR countrycode IS NULL`:                                                  {"3", "5", "6"},
		`SELECT gbifid FROM occurrence WHERE "year" BETWEEN 2000 AND 2005 AND hascoordinate`:                                              {"1", "2", "6"},
		`SELECT gbifid FROM occurrence WHERE "year" NOT IN (2001, NULL)`:                                                                  nil,
		`SELECT gbifid FROM occurrence WHERE "year" IN (1999, 2010)`:                                                                      {"3", "5"},
		`SELECT gbifid FROM occurrence WHERE basisofrecord LIKE 'HUMAN\_%' AND "month" > "day"`:                                           {"1", "3"},
		`SELECT gbifid FROM occurrence WHERE array_contains(issue, 'ZERO_COORDINATE')`:                                                    {"1"},
		`SELECT gbifid FROM occurrence WHERE NOT array_contains(issue, 'ZERO_COORDINATE')`:                                                {"6"},
		`SELECT gbifid FROM occurrence WHERE GBIF_StringArrayLike(issue, 'country%', FALSE)`:                                              {"6"},
		`SELECT gbifid FROM occurrence WHERE LOWER(basisofrecord) = 'material_sample' OR gbifid = 1`:                                      {"1", "5"},
		`SELECT gbifid FROM occurrence WHERE GBIF_Within('POLYGON((9 54, 13 54, 13 57, 9 57, 9 54))', decimallatitude, decimallongitude)`: {"1", "2", "4"},
		`SELECT gbifid FROM occurrence WHERE GBIF_GeoDistance(59.3, 18.0, '10km', decimalLatitude, decimalLongitude)`:                     {"6"},
		`SELECT gbifid FROM occurrence WHERE CASE WHEN "year" > 2005 THEN TRUE ELSE FALSE END`:                                            {"5"},
		`SELECT gbifid FROM occurrence WHERE gbifid % 2 = 0 AND gbifid / 4 >= 1`:                                                          {"4", "6"},
	}
	for sql, want := range cases {
		_, rows := run(t, sql, sample)
		if !slices.Equal(rows, want) {
			t.Errorf("%s\n got %q\nwant %q", sql, rows, want)
		}
	}
}

func TestOrderLimitDistinctHaving(t *testing.T) {
	cases := map[string][]string{
		`SELECT gbifid, "year" FROM occurrence ORDER BY "year" DESC, gbifid LIMIT 3`:                         {"5|2010", "1|2001", "2|2001"},
		`SELECT gbifid, "year" FROM occurrence ORDER BY 2, 1 LIMIT 2 OFFSET 1`:                               {"3|1999", "1|2001"},
		`SELECT gbifid FROM occurrence LIMIT 2 OFFSET 3`:                                                     {"4", "5"},
		`SELECT DISTINCT countrycode FROM occurrence ORDER BY countrycode`:                                   {`\N`, "DK", "SE"},
		`SELECT countrycode, COUNT(*) AS n FROM occurrence GROUP BY 1 HAVING n > 1 ORDER BY n DESC`:          {"DK|3", "SE|2"},
		`SELECT countrycode, COUNT(*) FROM occurrence GROUP BY countrycode HAVING COUNT(*) = 1`:              {`\N|1`},
		`SELECT COUNT(*), COUNT("year"), SUM(speciesKey) FROM occurrence WHERE gbifid > 100`:                 {`0|0|\N`},
		`SELECT basisofrecord, COUNT(*) FROM occurrence GROUP BY basisofrecord ORDER BY COUNT(*) DESC, 1`:    {"HUMAN_OBSERVATION|4", "MATERIAL_SAMPLE|1", "PRESERVED_SPECIMEN|1"},
		`SELECT FLOOR("year" / 10) * 10 AS decade, COUNT(*) FROM occurrence GROUP BY decade ORDER BY decade`: {`\N|1`, "1990|1", "2000|3", "2010|1"},
	}
	for sql, want := range cases {
		_, rows := run(t, sql, sample)
		if !slices.Equal(rows, want) {
			t.Errorf("%s\n got %q\nwant %q", sql, rows, want)
		}
	}
}

func TestInvalidSQL(t *testing.T) {
	cases := map[string]string{
		`SELECT * FROM occurrence`:                                                                                   `SELECT * is not supported`,
		`SELECT gbifid FROM occurrence WHERE`:                                                                        `at line 1 column 35`,
		`SELECT gbifid FROM verbatim`:                                                                                `unknown table verbatim`,
		`SELECT gbifid FROM occurrence a JOIN occurrence b ON a.gbifid = b.gbifid`:                                   `joins are not supported`,
		`SELECT nosuch FROM occurrence`:                                                                              `unknown column nosuch`,
		`SELECT countrycode, COUNT(*) FROM occurrence`:                                                               `column countrycode is neither grouped`,
		`SELECT gbifid FROM occurrence WHERE COUNT(*) > 1`:                                                           `aggregate functions are not allowed in WHERE`,
		`SELECT nosuch(gbifid) FROM occurrence`:                                                                      `unknown function nosuch`,
		`SELECT LOWER(gbifid, 2) FROM occurrence`:                                                                    `LOWER takes 1 arguments, not 2`,
		`SELECT gbifid FROM occurrence; SELECT 1 FROM occurrence`:                                                    `2 statements`,
		`DELETE FROM occurrence`:                                                                                     `only SELECT queries`,
		`SELECT gbifid FROM (SELECT gbifid FROM occurrence) x`:                                                       `sub-queries are not supported`,
		`SELECT gbifid FROM occurrence WHERE gbifid IN (SELECT 1)`:                                                   `sub-queries are not supported`,
		`SELECT gbifid FROM occurrence LIMIT -1`:                                                                     `syntax error`,
		`SELECT gbifid FROM occurrence ORDER BY 3`:                                                                   `ORDER BY position 3`,
		`SELECT GBIF_Within('POLYGON((0 0, 1 0, 1 1, 0 0))', 1, 2) FROM occurrence`:                                  `takes the record's decimalLatitude`,
		`SELECT gbifid, NTILE(4) OVER (ORDER BY gbifid) FROM occurrence`:                                             `window function NTILE is not supported`,
		`SELECT gbifid, SUM(gbifid) OVER (ORDER BY gbifid ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM occurrence`: `window frames`,
		`SELECT gbifid FROM occurrence WHERE ROW_NUMBER() OVER (ORDER BY gbifid) = 1`:                                `window functions are taken in the select list`,
		`SELECT gbifid, RANK() OVER (PARTITION BY countrycode) FROM occurrence`:                                      `RANK needs an ORDER BY`,
		``: `the query is empty`,
		"SELECT gbifid\nFROM occurrence WHERE countrycode LIKE '\xa3'":          `at line 2 column 41: byte 0xa3 is not UTF-8`,
		`SELECT ` + strings.Repeat("gbifid + ", MaxNodes) + `1 FROM occurrence`: `more than 5000 expressions`,
	}
	for sql, want := range cases {
		_, err := Parse(sql, Options{})
		if !errors.Is(err, ErrInvalidSQL) || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an ErrInvalidSQL saying %q", sql, err, want)
		}
	}
	if _, err := Parse("SELECT gbifid FROM occurrence WHERE countrycode = 'DK'", Options{MaxBytes: 20}); err == nil || !strings.Contains(err.Error(), "more than the 20 accepted") {
		t.Errorf("a long query: %v", err)
	}
}

func TestPushdown(t *testing.T) {
	cases := map[string]string{
		`SELECT gbifid FROM occurrence WHERE countrycode = 'DK' AND "year" > 2000 AND LOWER(locality) = 'x'`: `{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"DK"},{"type":"greaterThan","key":"YEAR","value":"2000"}]}`,
		`SELECT gbifid FROM occurrence WHERE 2000 <= "year" AND speciesKey IN (1, 2)`:                        `{"type":"and","predicates":[{"type":"greaterThanOrEquals","key":"YEAR","value":"2000"},{"type":"in","key":"SPECIES_KEY","values":["1","2"]}]}`,
		`SELECT gbifid FROM occurrence WHERE countrycode = 'DK' OR "year" > 2000`:                            ``,
		`SELECT gbifid FROM occurrence WHERE countrycode < 'M'`:                                              ``,
		`SELECT gbifid FROM occurrence WHERE hascoordinate AND specieskey IS NOT NULL`:                       `{"type":"and","predicates":[{"type":"equals","key":"HAS_COORDINATE","value":"true"},{"type":"isNotNull","parameter":"SPECIES_KEY"}]}`,
		`SELECT gbifid FROM occurrence`:                                                                      ``,
	}
	for sql, want := range cases {
		q, err := Parse(sql, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if p := q.Predicate(); p != nil {
			b, _ := p.MarshalJSON()
			got = string(b)
		}
		if got != want {
			t.Errorf("%s\n got %s\nwant %s", sql, got, want)
		}
	}
}

func TestMemoryBudget(t *testing.T) {
	q, err := Parse(`SELECT gbifid, COUNT(*) FROM occurrence GROUP BY gbifid`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runQuery(t, q, sample, 600); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "groups (") {
		t.Errorf("grouping over the budget: %v", err)
	}
	if _, err := runQuery(t, q, sample, 1<<20); err != nil {
		t.Errorf("within the budget: %v", err)
	}
}

// GBIF's grid functions, with values from gbif/occurrence-cube's tests
// (internal/gridcode reproduces them), no randomization (uncertainty 0):
// 52N 10E is the EEA grid's false origin and the south-west (C) quarter of
// its degree cell, and in the ISEA3H cell 452583359004665569 at resolution
// 4; March 2021 lasts 31 days.
func TestGridFunctions(t *testing.T) {
	rows := testRows{{"gbifID": 1, "decimalLatitude": 52.0, "decimalLongitude": 10.0, "eventDate": "2021-03"}}
	_, got := run(t, `SELECT GBIF_EEARGCode(10000, decimalLatitude, decimalLongitude, 0), GBIF_EQDGCode(1, decimalLatitude, decimalLongitude, 0),
		GBIF_TemporalUncertainty(eventDate), GBIF_EEARGCode(10000, decimalLatitude, decimalLongitude, NULL),
		GBIF_ISEA3HCode(4, decimalLatitude, decimalLongitude, 0) FROM occurrence`, rows)
	if len(got) != 1 || got[0] != `10kmE432N321|E010N52C|2678400|\N|452583359004665569` {
		t.Errorf("grid codes %q", got)
	}
	for sql, want := range map[string]string{
		`SELECT GBIF_DMSGCode(7, decimalLatitude, decimalLongitude, 0) FROM occurrence`:    "GBIF_DMSGCode",
		`SELECT GBIF_EEARGCode(0, decimalLatitude, decimalLongitude, 0) FROM occurrence`:   "GBIF_EEARGCode: grid size 0",
		`SELECT GBIF_EQDGCode('x', decimalLatitude, decimalLongitude, 0) FROM occurrence`:  "whole number",
		`SELECT GBIF_ISEA3HCode(23, decimalLatitude, decimalLongitude, 0) FROM occurrence`: "GBIF_ISEA3HCode: resolution 23 is not between 1 and 22",
	} {
		if _, err := Parse(sql, Options{}); !errors.Is(err, ErrInvalidSQL) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", sql, err, want)
		}
	}
}

func TestILikeAndOperators(t *testing.T) {
	cases := map[string][]string{
		`SELECT gbifid FROM occurrence WHERE basisofrecord ILIKE 'human%' AND gbifid <= 3`:             {"1", "3"},
		`SELECT gbifid FROM occurrence WHERE countrycode != 'DK' AND countrycode <=> 'SE'`:             {"3", "6"},
		`SELECT gbifid FROM occurrence WHERE GBIF_StringArrayLike(issue, 'ZERO%', TRUE) OR gbifid = 2`: {"1", "2"},
		`SELECT gbifid FROM occurrence WHERE GBIF_StringArrayLike(issue, 'zero%', TRUE)`:               nil,
		`SELECT gbifid FROM occurrence WHERE countrycode <=> NULL`:                                     {"5"},
	}
	for sql, want := range cases {
		_, rows := run(t, sql, sample)
		if !slices.Equal(rows, want) {
			t.Errorf("%s\n got %q\nwant %q", sql, rows, want)
		}
	}
}

// LIKE reads its pattern by characters: an escaped or single-character
// wildcard non-ASCII character is one character (an escaped é was cut
// into a byte, whose regexp failed to compile and panicked).
func TestLikeCharacters(t *testing.T) {
	cases := map[string][]string{
		`SELECT gbifid FROM occurrence WHERE CONCAT(countrycode, 'é') LIKE '%!é' ESCAPE '!'`:                     {"1", "2", "3", "4", "6"},
		`SELECT gbifid FROM occurrence WHERE CONCAT('é', countrycode) LIKE '_DK'`:                                {"1", "2", "4"},
		`SELECT gbifid FROM occurrence WHERE CONCAT('é', countrycode) LIKE CONCAT('!é', countrycode) ESCAPE '!'`: {"1", "2", "3", "4", "6"},
		`SELECT gbifid FROM occurrence WHERE CONCAT('é', countrycode) ILIKE 'É%'`:                                {"1", "2", "3", "4", "6"},
		`SELECT gbifid FROM occurrence WHERE GBIF_StringArrayLike(issue, 'ZERO\_%', TRUE)`:                       {"1"},
	}
	for sql, want := range cases {
		_, rows := run(t, sql, sample)
		if !slices.Equal(rows, want) {
			t.Errorf("%s\n got %q\nwant %q", sql, rows, want)
		}
	}
	// A pattern of bytes that are not UTF-8 compiles (U+FFFD for each).
	if re := likeRegexp("a\xa3%", '\\', false); !re.MatchString("a\xa3bc") || re.MatchString("ab") {
		t.Errorf("pattern with an invalid byte: %s", re)
	}
}

func TestWindowFunctions(t *testing.T) {
	cases := map[string][]string{
		`SELECT gbifid, countrycode, ROW_NUMBER() OVER (PARTITION BY countrycode ORDER BY gbifid) FROM occurrence ORDER BY gbifid`: {
			"1|DK|1", "2|DK|2", "3|SE|1", "4|DK|3", `5|\N|1`, "6|SE|2"},
		`SELECT countrycode, COUNT(*) AS n, SUM(COUNT(*)) OVER () AS total, RANK() OVER (ORDER BY COUNT(*) DESC) FROM occurrence GROUP BY countrycode ORDER BY 1`: {
			`\N|1|6|3`, "DK|3|6|1", "SE|2|6|2"},
		// A running sum over "year": rows of the same year are peers and
		// share their sum; NULL sorts first.
		`SELECT gbifid, SUM(gbifid) OVER (ORDER BY "year") FROM occurrence ORDER BY gbifid`: {
			"1|16", "2|16", "3|7", "4|4", "5|21", "6|16"},
		`SELECT gbifid, LAG(gbifid) OVER (ORDER BY gbifid), LEAD(gbifid, 2, 0) OVER (ORDER BY gbifid) FROM occurrence ORDER BY gbifid`: {
			`1|\N|3`, "2|1|4", "3|2|5", "4|3|6", "5|4|0", "6|5|0"},
		`SELECT countrycode, COUNT(*) * 100.0 / SUM(COUNT(*)) OVER () AS pct FROM occurrence GROUP BY countrycode ORDER BY pct DESC`: {
			"DK|50", "SE|33.333333333333336", `\N|16.666666666666668`},
		`SELECT basisofrecord, DENSE_RANK() OVER (ORDER BY basisofrecord) AS d FROM occurrence WHERE gbifid < 6 ORDER BY d, basisofrecord LIMIT 3`: {
			"HUMAN_OBSERVATION|1", "HUMAN_OBSERVATION|1", "HUMAN_OBSERVATION|1"},
		`SELECT countrycode, COUNT(*) FROM occurrence GROUP BY countrycode HAVING COUNT(*) > 1 ORDER BY SUM(COUNT(*)) OVER (PARTITION BY countrycode) DESC`: {
			"DK|3", "SE|2"},
	}
	for sql, want := range cases {
		_, rows := run(t, sql, sample)
		if !slices.Equal(rows, want) {
			t.Errorf("%s\n got %q\nwant %q", sql, rows, want)
		}
	}
}

// A Query holds no state of a run: two runs at once on two goroutines get
// the serial answer (the race detector watches the calls' arguments).
func TestQueryRunsConcurrently(t *testing.T) {
	q, err := Parse(`SELECT LOWER(COALESCE(countrycode, 'none')) AS c, FLOOR(decimallatitude) AS lat, COUNT(*), CONCAT(UPPER(basisofrecord), '-', ROUND(gbifid / 2))
		FROM occurrence GROUP BY 1, 2, 4 ORDER BY 1, 2, 4`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := runQuery(t, q, sample, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := make([][]string, 4)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			for range 50 {
				rows, err := runQuery(t, q, sample, 0)
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = rows
			}
		})
	}
	wg.Wait()
	for i := range got {
		if !slices.Equal(got[i], want) {
			t.Errorf("run %d: %q, want %q", i, got[i], want)
		}
	}
}
