package sqlquery

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// ms is a UTC date and time as the table's timestamps hold it.
func ms(s string) int {
	t, err := time.Parse("2006-01-02T15:04:05.000", s)
	if err != nil {
		panic(err)
	}
	return int(t.UnixMilli())
}

// The constructs of the cube queries GBIF documents and ships as example
// jobs (gbif/occurrence, occurrence-download/example-jobs: the technical
// documentation's Poland cube and the query of all SQL functions), in a
// query of our own: PRINTF for year-month, the vocabulary structs'
// concept, concepts and lineage fields, CONCAT_WS over a list, ISNULL,
// an aggregate of an aggregate over a window, eventDateLte in seconds for
// GBIF_SecondsToLocalISO8601, and the ISEA3H grid.
func TestGBIFCubeQuery(t *testing.T) {
	rows := testRows{
		{"gbifID": 1, "year": 2021, "month": 3, "familyKey": 5, "sex": "Female", "lifeStage": "Adult", "typeStatus": "Holotype;Paratype",
			"decimalLatitude": 52.0, "decimalLongitude": 10.0, "eventDateStart": ms("2021-03-01T00:00:00.000"), "eventDateEnd": ms("2021-03-31T23:59:59.999")},
		{"gbifID": 2, "year": 2021, "month": 3, "familyKey": 5, "sex": "Female", "lifeStage": nil, "typeStatus": nil,
			"decimalLatitude": 52.0, "decimalLongitude": 10.0, "eventDateStart": ms("2021-03-04T00:00:00.000"), "eventDateEnd": ms("2021-03-04T23:59:59.999")},
		{"gbifID": 3, "year": 2020, "month": 11, "familyKey": nil, "sex": nil, "lifeStage": "Juvenile", "typeStatus": nil,
			"decimalLatitude": -58.282526, "decimalLongitude": -168.75, "eventDateStart": ms("2020-11-07T10:11:12.000"), "eventDateEnd": ms("2020-11-07T10:11:12.000")},
	}
	head, got := run(t, `SELECT
		PRINTF('%04d-%02d', "year", "month") AS yearMonth,
		GBIF_ISEA3HCode(2, decimalLatitude, decimalLongitude, 0) AS isea3h,
		COALESCE(occurrence.sex.concept, 'NOT_SUPPLIED') AS sex,
		COALESCE(lifestage.concept, 'NOT_SUPPLIED') AS lifestage,
		CONCAT_WS(' | ', occurrence.typestatus.concepts) AS typeStatuses,
		CONCAT_WS(' | ', typestatus.lineage) AS typeStatusLineages,
		COUNT(*) AS occurrences,
		GBIF_SecondsToLocalISO8601(MAX(eventDateLte)) AS latestDate,
		MIN(eventDateGte) AS earliest,
		IF(ISNULL(familyKey), NULL, SUM(COUNT(*)) OVER (PARTITION BY familyKey)) AS familyCount
	FROM occurrence
	GROUP BY yearMonth, isea3h, sex, lifestage, typeStatuses, typeStatusLineages, familyKey
	ORDER BY yearMonth DESC, typeStatuses`, rows)
	if strings.Join(head, ",") != "yearmonth,isea3h,sex,lifestage,typestatuses,typestatuslineages,occurrences,latestdate,earliest,familycount" {
		t.Errorf("header %v", head)
	}
	want := []string{
		`2021-03|-258282526011250000|Female|NOT_SUPPLIED|||1|2021-03-04T23:59:59|1614816000|2`,
		`2021-03|-258282526011250000|Female|Adult|Holotype | Paratype|Type | Holotype | Type | Paratype|1|2021-03-31T23:59:59|1614556800|2`,
		`2020-11|-6858282526168750000|NOT_SUPPLIED|Juvenile|||1|2020-11-07T10:11:12|1604743872|\N`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("cube:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// GBIF's vocabulary columns are structs there: a field that is not theirs
// says what is, a constant PRINTF format Java rejects is a 400, and the
// registry columns GBIF's table has say why they are missing.
func TestGBIFColumnErrors(t *testing.T) {
	for sql, want := range map[string]string{
		`SELECT sex.concepts FROM occurrence`:                        "sex is a struct of concept and lineage in GBIF's table: sex.concept",
		`SELECT typestatus.concept FROM occurrence`:                  "typeStatus is a struct of concepts and lineage in GBIF's table: typestatus.concepts",
		`SELECT PRINTF('%04q', "year") FROM occurrence`:              "PRINTF: %04q: unknown conversion",
		`SELECT installationKey FROM occurrence`:                     "installationKey is a column of GBIF's table this service cannot fill",
		`SELECT nosuch.concept FROM occurrence`:                      "unknown table nosuch",
		`SELECT sex.concept, COUNT(*) FROM occurrence GROUP BY year`: "neither grouped",
	} {
		if _, err := Parse(sql, Options{}); !errors.Is(err, ErrInvalidSQL) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", sql, err, want)
		}
	}
	// PRINTF of a value its conversion does not take is NULL (GBIF's Spark
	// fails the download there); a NULL value is Java's "null".
	_, got := run(t, `SELECT PRINTF('%d', decimalLatitude), PRINTF('%s-%5.2f', "month", decimalLatitude), FORMAT_STRING('%x', gbifID) FROM occurrence`,
		testRows{{"gbifID": 255, "decimalLatitude": 52.125}})
	if len(got) != 1 || got[0] != `\N|null-52.13|ff` {
		t.Errorf("PRINTF: %q", got)
	}
}

// ARRAYS_OVERLAP, the one function of GBIF's SqlDownloadFunction list
// that was missing, over two list columns (an ARRAY[...] literal, which
// Calcite reads, is a syntax error for TiDB's parser).
func TestArraysOverlap(t *testing.T) {
	rows := testRows{
		{"gbifID": 1, "issue": "ZERO_COORDINATE;COUNTRY_INVALID", "mediaType": "StillImage"},
		{"gbifID": 2, "issue": "RECORDED_DATE_INVALID", "mediaType": nil},
		{"gbifID": 3, "issue": nil, "mediaType": "Sound"},
		{"gbifID": 4, "issue": "COUNTRY_INVALID", "typeStatus": "Holotype"},
	}
	_, got := run(t, `SELECT gbifID, ARRAYS_OVERLAP(issue, mediaType), ARRAYS_OVERLAP(issue, issue), ARRAYS_OVERLAP(typestatus.concepts, typeStatus)
		FROM occurrence ORDER BY gbifID`, rows)
	want := `1|false|true|\N 2|\N|true|\N 3|\N|\N|\N 4|\N|true|true`
	if strings.Join(got, " ") != want {
		t.Errorf("ARRAYS_OVERLAP: %q, want %q", strings.Join(got, " "), want)
	}
}

// A double cast to text is Java's Double.toString, as Spark casts it and
// as the result cells print it: 52.0 stays 52.0, 1e7 is 1.0E7.
func TestDoubleAsText(t *testing.T) {
	_, got := run(t, `SELECT CONCAT(decimalLatitude, '|', decimalLongitude), LENGTH(decimalLatitude) FROM occurrence`,
		testRows{{"gbifID": 1, "decimalLatitude": 52.0, "decimalLongitude": 1e7}})
	if len(got) != 1 || got[0] != `52.0|1.0E7|4` {
		t.Errorf("doubles as text: %q", got)
	}
}
