package web_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/jobs"
)

// TestPygbifSQL makes a SQL download with pygbif 0.7.0's download_sql, as
// sent (format SQL_TSV_ZIP, notificationAddresses [null]), and reads it with
// download_meta, download_get and download_describe("sql"): the result is
// the query's, checked against counts the API makes with predicates. The
// query is a cube as GBIF's documentation writes them: PRINTF for the
// year and month, a vocabulary struct's concept.
func TestPygbifSQL(t *testing.T) {
	requirePygbif(t)
	s := startServer(t, sqliteDSN(t), options{})
	sql := `SELECT basisOfRecord, PRINTF('%04d-%02d', "year", "month") AS yearMonth, COALESCE(occurrence.sex.concept, 'NOT_SUPPLIED') AS sex, COUNT(*) AS n
		FROM occurrence WHERE countryCode = 'TR' AND "year" IS NOT NULL AND "month" IS NOT NULL
		GROUP BY basisOfRecord, yearMonth, sex ORDER BY n DESC, yearMonth, basisOfRecord, sex`
	out := runPygbif(t, 3*time.Minute, []string{"GBIF_USER=alice", "GBIF_PWD=" + password("alice")},
		"testdata/pygbif_sql.py", s.URL, t.TempDir(), sql)
	var got struct {
		Key  string
		Meta struct {
			Status       jobs.Status
			TotalRecords int64
			Request      map[string]any
		}
		Entries        []string
		Rows           [][]string
		DescribeFields []string `json:"describe_fields"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output %s: %v", out, err)
	}
	if got.Meta.Status != jobs.StatusSucceeded || got.Meta.Request["format"] != "SQL_TSV_ZIP" || got.Meta.Request["sql"] != sql {
		t.Fatalf("download_meta %+v", got.Meta)
	}
	if !slices.Equal(got.Entries, []string{got.Key + ".csv"}) || len(got.Rows) < 2 ||
		!slices.Equal(got.Rows[0], []string{"basisofrecord", "yearmonth", "sex", "n"}) {
		t.Fatalf("archive %v, rows %q", got.Entries, got.Rows)
	}
	if got.Meta.TotalRecords != int64(len(got.Rows)-1) {
		t.Errorf("totalRecords %d for %d result rows", got.Meta.TotalRecords, len(got.Rows)-1)
	}
	t.Logf("%d groups, the first %q", len(got.Rows)-1, got.Rows[1])
	// Each group's count is what a predicate of the same conditions counts.
	for _, row := range got.Rows[1:] {
		n, err := strconv.ParseInt(row[3], 10, 64)
		y, m, ok := strings.Cut(row[1], "-")
		if err != nil || !ok || len(y) != 4 || len(m) != 2 {
			t.Fatalf("row %q", row)
		}
		sex := `{"type":"isNull","parameter":"SEX"}`
		if row[2] != "NOT_SUPPLIED" {
			sex = `{"type":"equals","key":"SEX","value":"` + row[2] + `"}`
		}
		pred := `{"type":"and","predicates":[{"type":"equals","key":"COUNTRY","value":"TR"},` +
			`{"type":"equals","key":"BASIS_OF_RECORD","value":"` + row[0] + `"},{"type":"equals","key":"YEAR","value":"` + y + `"},` +
			`{"type":"equals","key":"MONTH","value":"` + strings.TrimPrefix(m, "0") + `"},` + sex + `]}`
		if want := s.count(pred).Count; n != want {
			t.Errorf("group %q: %d records, the API counts %d", row, n, want)
		}
	}
	var want []string
	d, err := download.Describe(download.FormatSQLTSVZip)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range d.(download.DescribedTable).Fields {
		want = append(want, f.Name)
	}
	if !slices.Equal(got.DescribeFields, want) {
		t.Errorf("download_describe(\"sql\") lists %d fields, the table %d", len(got.DescribeFields), len(want))
	}
}
