package web_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/jobs"
)

// A SQL download as rgbif's occ_download_sql makes it: validated, run on
// the table, its TSV fetched, its count the result's rows; the request
// recorded with its query.
func TestSQLDownloadAPI(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{})
	sql := `SELECT countryCode, COUNT(*) AS n, COUNT(DISTINCT speciesKey) AS species FROM occurrence
		WHERE "year" IS NOT NULL GROUP BY countryCode ORDER BY n DESC, countryCode`
	body, _ := json.Marshal(map[string]any{"sendNotification": false, "format": "SQL_TSV_ZIP", "sql": sql})

	// rgbif validates first: the request comes back as it would be kept.
	v := expect(t, s.do("POST", "/v1/occurrence/download/request/validate", "alice", string(body)), http.StatusCreated)
	if !strings.Contains(string(v.body), `"sql":`) || !strings.Contains(string(v.body), `"format":"SQL_TSV_ZIP"`) {
		t.Errorf("validated request %s", v.body)
	}
	bad := expect(t, s.do("POST", "/v1/occurrence/download/request/validate", "alice",
		`{"format":"SQL_TSV_ZIP","sql":"SELECT * FROM occurrence"}`), http.StatusBadRequest)
	if !strings.Contains(string(bad.body), `"status":"INVALID"`) || !strings.Contains(string(bad.body), "SELECT * is not supported") {
		t.Errorf("invalid SQL answered %s", bad.body)
	}
	expect(t, s.do("POST", "/v1/occurrence/download/request", "alice", `{"format":"SQL_TSV_ZIP","sql":"SELECT nosuch FROM occurrence"}`), http.StatusBadRequest)

	key := s.submit("alice", string(body))
	d := s.waitStatus(key, 2*time.Minute, jobs.StatusSucceeded, jobs.StatusFailed)
	if d.Status != jobs.StatusSucceeded {
		t.Fatalf("download %s: %s %s", key, d.Status, d.Error)
	}
	if d.Request.SQL != sql || d.Request.Format != "SQL_TSV_ZIP" {
		t.Errorf("recorded request %+v", d.Request)
	}
	zb := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusOK).body
	zr, err := zip.NewReader(bytes.NewReader(zb), int64(len(zb)))
	if err != nil || len(zr.File) != 1 || zr.File[0].Name != key+".csv" {
		t.Fatalf("archive %v: want one entry %s.csv", err, key)
	}
	rc, _ := zr.File[0].Open()
	text, _ := io.ReadAll(rc)
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	if lines[0] != "countrycode\tn\tspecies" || len(lines) < 2 {
		t.Fatalf("result %q", text)
	}
	// Counts descend, and they add up to the records with a year, which
	// the API counts independently with a predicate.
	total, prev := int64(0), int64(-1)
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || len(f) != 3 || (prev >= 0 && n > prev) {
			t.Fatalf("row %q out of shape or order", l)
		}
		prev, total = n, total+n
	}
	if want := s.count(`{"type":"isNotNull","parameter":"YEAR"}`).Count; total != want || total == 0 {
		t.Errorf("the groups hold %d records, the table %d with a year", total, want)
	}
	if d.TotalRecords != int64(len(lines)-1) {
		t.Errorf("totalRecords %d, want the result's %d rows", d.TotalRecords, len(lines)-1)
	}
	// GET /describe/sql lists the table's columns, as GBIF's: the
	// description the format gives, speciesKey a BIGINT, the v_ ones after.
	r := expect(t, s.do("GET", "/v1/occurrence/download/describe/sql", "", nil), http.StatusOK)
	want, err := download.Describe(download.FormatSQLTSVZip)
	if err != nil {
		t.Fatal(err)
	}
	wb, _ := json.Marshal(want)
	if !bytes.Equal(bytes.TrimSpace(r.body), wb) || !strings.Contains(string(r.body), `{"name":"specieskey","type":"BIGINT"`) ||
		!strings.Contains(string(r.body), `{"name":"v_scientificname","type":"STRING"`) {
		t.Errorf("describe/sql: %.300s", r.body)
	}
}

// A scheduled export of format SQL_TSV_ZIP runs its query (a monthly
// species cube, as docs/downloader.example.yaml has it) like a user's SQL
// download, and a user's SQL request is never answered with it: only
// requests for every record are.
func TestScheduledSQLExport(t *testing.T) {
	clock := newTestClock()
	sql := `SELECT countryCode, COUNT(*) AS n FROM occurrence GROUP BY countryCode`
	s := startServer(t, sqliteDSN(t), options{svcOpts: []jobs.Option{jobs.WithClock(clock.Now)},
		config: func(c *jobs.Config) {
			c.Scheduler.Schedules = []jobs.Schedule{{Name: "cube", Spec: "0 4 1 * *", When: daily{}, Kind: jobs.ScheduleExport,
				Export: jobs.ScheduledExport{Format: "SQL_TSV_ZIP", SQL: sql}}}
		}})
	run := s.runSchedule(clock, "cube")
	d := s.waitStatus(run.DownloadKey, time.Minute, jobs.StatusSucceeded, jobs.StatusFailed)
	if d.Status != jobs.StatusSucceeded || d.Request.SQL != sql || d.TotalRecords == 0 {
		t.Fatalf("scheduled SQL export %+v (%s)", d, d.Error)
	}
	zb := expect(t, s.do("GET", "/v1/occurrence/download/request/"+d.Key+".zip", "", nil), http.StatusOK).body
	zr, err := zip.NewReader(bytes.NewReader(zb), int64(len(zb)))
	if err != nil || len(zr.File) != 1 {
		t.Fatalf("archive: %v", err)
	}
	rc, _ := zr.File[0].Open()
	text, _ := io.ReadAll(rc)
	if lines := strings.Count(string(text), "\n"); !strings.HasPrefix(string(text), "countrycode\tn\n") || int64(lines-1) != d.TotalRecords {
		t.Errorf("result %q for %d records", text, d.TotalRecords)
	}
	body, _ := json.Marshal(map[string]any{"format": "SQL_TSV_ZIP", "sql": sql, "sendNotification": false})
	key := s.submit("alice", string(body))
	s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
	// An answer from the export would share its archive, whose one entry
	// is named after the export's key.
	ub := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusOK).body
	uz, err := zip.NewReader(bytes.NewReader(ub), int64(len(ub)))
	if err != nil || len(uz.File) != 1 || uz.File[0].Name != key+".csv" {
		t.Errorf("the user's SQL download %s holds %v (%v): answered with the scheduled export's archive?", key, uz.File, err)
	}
}
