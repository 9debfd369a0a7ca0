package web_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
)

var keyRE = regexp.MustCompile(`^[0-9]{7,}-[0-9]{15}$`)

const familyPredicate = `{"type":"equals","key":"STATE_PROVINCE","value":"Nigde"}`

// unauthorized checks GBIF's 401 with a Basic challenge.
func unauthorized(t testing.TB, r response) response {
	t.Helper()
	expect(t, r, http.StatusUnauthorized)
	if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Basic realm=") {
		t.Fatalf("401 without a Basic challenge: %v", r.header)
	}
	return r
}

// submit POSTs a download request and returns its key.
func (s *server) submit(user, body string) string {
	s.t.Helper()
	r := expect(s.t, s.do("POST", "/v1/occurrence/download/request", user, body), http.StatusCreated)
	key := string(r.body)
	if !keyRE.MatchString(key) {
		s.t.Fatalf("key %q is not GBIF-shaped", key)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		s.t.Fatalf("key content type %q", ct)
	}
	return key
}

// status reads a download's status as user ("" = anonymous).
func (s *server) status(key, user string) jobs.Download {
	s.t.Helper()
	r := expect(s.t, s.do("GET", "/v1/occurrence/download/"+key, user, nil), http.StatusOK)
	var d jobs.Download
	if err := json.Unmarshal(r.body, &d); err != nil {
		s.t.Fatalf("status %s: %v", r.body, err)
	}
	return d
}

// waitStatus polls until the download reaches one of want.
func (s *server) waitStatus(key string, timeout time.Duration, want ...jobs.Status) jobs.Download {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		d := s.status(key, "alice")
		for _, w := range want {
			if d.Status == w {
				return d
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("download %s is %s after %s, want %v (error %q)", key, d.Status, timeout, want, d.Error)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// count asks the API how many records a predicate matches.
func (s *server) count(pred string) jobs.Estimate {
	s.t.Helper()
	r := expect(s.t, s.do("POST", "/v1/occurrence/search/predicate", "", pred), http.StatusOK)
	var e jobs.Estimate
	if err := json.Unmarshal(r.body, &e); err != nil {
		s.t.Fatal(err)
	}
	return e
}

// readArchive opens a zip and counts the data lines of its occurrence.txt.
func readArchive(t *testing.T, b []byte) (entries []string, occurrenceRows int) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("archive: %v", err)
	}
	for _, f := range zr.File {
		entries = append(entries, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		if f.Name != "occurrence.txt" {
			if _, err := io.Copy(io.Discard, rc); err != nil { // checks the CRC
				t.Fatalf("%s: %v", f.Name, err)
			}
			rc.Close()
			continue
		}
		sc := bufio.NewScanner(rc)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		header := true
		for sc.Scan() {
			if header {
				if !strings.HasPrefix(sc.Text(), "gbifID\t") {
					t.Fatalf("occurrence.txt header %q", sc.Text())
				}
				header = false
				continue
			}
			occurrenceRows++
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		rc.Close()
	}
	return entries, occurrenceRows
}

func TestDownloadLifecycle(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		s := startServer(t, dsn, options{})
		want := s.count(familyPredicate)
		if want.Count == 0 || want.EstimatedCompressedSize <= 0 || want.EstimatedUncompressedSize < want.EstimatedCompressedSize {
			t.Fatalf("estimate %+v", want)
		}
		// GBIF's aliases: notification_address and send_notification.
		key := s.submit("alice", `{"creator":"alice","notification_address":["alice@example.org"],
			"send_notification":true,"format":"DWCA","predicate":`+familyPredicate+`,"description":"lifecycle",
			"machineDescription":{"portal":"test"},"verbatimExtensions":["MEASUREMENT_OR_FACT"]}`)
		d := s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
		if d.TotalRecords != want.Count || d.NumberDatasets != 1 || d.Size <= 0 || d.SHA256 == "" || d.TableSnapshot == "" {
			t.Fatalf("finished download %+v, want %d records from 1 dataset", d, want.Count)
		}
		if d.Request.Creator != "alice" || len(d.Request.NotificationAddresses) != 1 || !d.Request.SendNotification ||
			d.Request.Format != "DWCA" || d.Request.Description != "lifecycle" ||
			!slices.Equal(d.Request.VerbatimExtensions, []string{"http://rs.tdwg.org/dwc/terms/MeasurementOrFact"}) {
			t.Fatalf("request as stored %+v", d.Request)
		}
		if d.License == "" || d.Progress == nil || d.Progress.RecordsWritten != want.Count || d.Progress.RecordsScanned < want.Count {
			t.Fatalf("licence %q progress %+v", d.License, d.Progress)
		}
		if !strings.HasSuffix(d.DownloadLink, "/v1/occurrence/download/request/"+key+".zip") {
			t.Fatalf("download link %q", d.DownloadLink)
		}
		eraseIn := time.Until(d.EraseAfter.Time)
		if eraseIn < 180*24*time.Hour || eraseIn > 184*24*time.Hour {
			t.Fatalf("eraseAfter %s is not six months out", d.EraseAfter)
		}

		// The archive: whole, then a range of it.
		zr := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusOK)
		sum := sha256.Sum256(zr.body)
		if int64(len(zr.body)) != d.Size || hex.EncodeToString(sum[:]) != d.SHA256 {
			t.Fatalf("archive %d bytes sha %x, status says %d %s", len(zr.body), sum, d.Size, d.SHA256)
		}
		entries, rows := readArchive(t, zr.body)
		if int64(rows) != want.Count || !slices.Contains(entries, "verbatim/measurementorfact.txt") {
			t.Fatalf("occurrence.txt has %d rows, count says %d (entries %v, want verbatim/measurementorfact.txt)", rows, want.Count, entries)
		}
		part := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil, "Range", "bytes=10-109"), http.StatusPartialContent)
		if !bytes.Equal(part.body, zr.body[10:110]) {
			t.Fatalf("range answer differs from bytes 10-109")
		}

		// Datasets and citation.
		ds := expect(t, s.do("GET", "/v1/occurrence/download/"+key+"/datasets", "", nil), http.StatusOK)
		var page jobs.Page[jobs.DatasetUsage]
		if err := json.Unmarshal(ds.body, &page); err != nil {
			t.Fatal(err)
		}
		if page.Count != 1 || len(page.Results) != 1 || page.Results[0].NumberRecords != want.Count || !page.EndOfRecords {
			t.Fatalf("datasets %s", ds.body)
		}
		// The dataset's citation is the one citations.txt gives (GBIF's
		// generated form, with the access).
		if c := page.Results[0].Citation; !strings.HasSuffix(c, "accessed via downloads.test on "+d.Created.UTC().Format("2006-01-02")+".") ||
			!strings.Contains(zipText(t, zr.body, "citations.txt"), "\n"+c+"\n") {
			t.Fatalf("datasetCitation %q; citations.txt:\n%s", c, zipText(t, zr.body, "citations.txt"))
		}
		// The dataset's activity (rgbif's occ_download_dataset_activity):
		// this download, with its details redacted for anonymous callers.
		var act jobs.Page[jobs.DatasetActivity]
		dsKey := page.Results[0].DatasetKey
		if err := json.Unmarshal(expect(t, s.do("GET", "/v1/occurrence/download/dataset/"+dsKey, "", nil), http.StatusOK).body, &act); err != nil {
			t.Fatal(err)
		}
		if act.Count != 1 || len(act.Results) != 1 || act.Results[0].DownloadKey != key || act.Results[0].NumberRecords != want.Count ||
			act.Results[0].Download == nil || act.Results[0].Download.Key != key || act.Results[0].Download.Request.Creator != "" ||
			act.Results[0].Download.DownloadLink == "" {
			t.Fatalf("dataset activity %+v", act)
		}
		var bare jobs.Page[jobs.DatasetActivity]
		if err := json.Unmarshal(expect(t, s.do("GET", "/v1/occurrence/download/dataset/"+dsKey+"?showDownloadDetails=false&limit=500", "alice", nil), http.StatusOK).body, &bare); err != nil {
			t.Fatal(err)
		}
		if bare.Count != 1 || bare.Results[0].Download != nil || bare.Limit != 500 {
			t.Fatalf("dataset activity without details %+v", bare)
		}
		expect(t, s.do("GET", "/v1/occurrence/download/dataset/not-a-uuid", "", nil), http.StatusBadRequest)
		var none jobs.Page[jobs.DatasetActivity]
		if err := json.Unmarshal(expect(t, s.do("GET", "/v1/occurrence/download/dataset/00000000-0000-4000-8000-000000000000", "", nil), http.StatusOK).body, &none); err != nil || none.Count != 0 || none.Results == nil {
			t.Fatalf("an unknown dataset's activity: %+v %v", none, err)
		}
		// GBIF's shape: "GBIF.org (2 January 2023) GBIF Occurrence Download
		// https://doi.org/..." and a newline; here the portal (PublicURL's
		// host, as none is configured), the download's day and its page
		// under PublicURL; the archive's citations.txt cites it the same.
		cit := expect(t, s.do("GET", "/v1/occurrence/download/"+key+"/citation", "", nil), http.StatusOK)
		wantCit := "downloads.test (" + d.Created.UTC().Format("2 January 2006") + ") Occurrence Download http://downloads.test/v1/occurrence/download/" + key + "\n"
		if string(cit.body) != wantCit {
			t.Fatalf("citation %q, want %q", cit.body, wantCit)
		}
		// metadata.xml links the download (GBIF's data description URL) as
		// EML's distribution, between the rights and the contact.
		meta := zipText(t, zr.body, "metadata.xml")
		link := `<url function="download">http://downloads.test/v1/occurrence/download/` + key + `</url>`
		if r, l, c := strings.Index(meta, "</intellectualRights>"), strings.Index(meta, link), strings.Index(meta, "<contact>"); r < 0 || l < r || c < l {
			t.Fatalf("metadata.xml: rights at %d, link at %d, contact at %d:\n%s", r, l, c, meta)
		}
		if lines := strings.Split(zipText(t, zr.body, "citations.txt"), "\n"); len(lines) < 2 || lines[1]+"\n" != wantCit {
			t.Fatalf("citations.txt cites the download as %q, the API as %q", lines, wantCit)
		}

		// Redaction: anonymous and other users do not see creator,
		// addresses, description or source (GBIF's), nor the machine
		// description.
		if d.Source != "Go-http-client/1.1" || string(d.Request.MachineDescription) != `{"portal":"test"}` {
			t.Fatalf("owner sees source %q, machine description %s", d.Source, d.Request.MachineDescription)
		}
		for _, who := range []string{"", "bob"} {
			r := s.status(key, who)
			if r.Request.Creator != "" || r.Request.NotificationAddresses != nil || r.Request.Description != "" ||
				r.Request.MachineDescription != nil || r.Source != "" || r.Status != jobs.StatusSucceeded {
				t.Fatalf("%q sees %+v (source %q)", who, r.Request, r.Source)
			}
		}
		if r := s.status(key, "root"); r.Request.Creator != "alice" {
			t.Fatalf("admin sees creator %q", r.Request.Creator)
		}

		// Postpone: owner only; never earlier.
		later := time.Now().Add(300 * 24 * time.Hour).UTC().Truncate(time.Millisecond)
		body := `{"eraseAfter":"` + later.Format("2006-01-02T15:04:05.000+00:00") + `"}`
		unauthorized(t, s.do("PUT", "/v1/occurrence/download/"+key, "bob", body))
		expect(t, s.do("PUT", "/v1/occurrence/download/"+key, "alice", `{"eraseAfter":"soon"}`), http.StatusBadRequest)
		expect(t, s.do("PUT", "/v1/occurrence/download/"+key, "alice", `{"erase":"x"}`), http.StatusBadRequest)
		p := expect(t, s.do("PUT", "/v1/occurrence/download/"+key, "alice", body), http.StatusOK)
		var pd jobs.Download
		if err := json.Unmarshal(p.body, &pd); err != nil || !pd.EraseAfter.Equal(later) {
			t.Fatalf("postponed to %s (%v), want %s", pd.EraseAfter, err, later)
		}

		// Cancelling a finished download is a no-op success, as GBIF's.
		expect(t, s.do("DELETE", "/v1/occurrence/download/request/"+key, "alice", nil), http.StatusNoContent)
		if st := s.status(key, "alice").Status; st != jobs.StatusSucceeded {
			t.Fatalf("status after cancelling a finished download: %s", st)
		}

		// Erase schedule: nothing before eraseAfter, FILE_ERASED after; 410.
		ctx := context.Background()
		if n, err := s.svc.EraseExpired(ctx, time.Now()); err != nil || n != 0 {
			t.Fatalf("erased %d (%v) before eraseAfter", n, err)
		}
		if n, err := s.svc.EraseExpired(ctx, later.Add(time.Second)); err != nil || n != 1 {
			t.Fatalf("erased %d (%v) after eraseAfter", n, err)
		}
		if st := s.status(key, "alice").Status; st != jobs.StatusFileErased {
			t.Fatalf("status after erase %s", st)
		}
		expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusGone)
		expect(t, s.do("PUT", "/v1/occurrence/download/"+key, "alice", ""), http.StatusGone)
	})
}

func TestListPagingAndStatusFilter(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		s := startServer(t, dsn, options{maxRunning: 10})
		var keys []string
		for i, f := range []string{"DWCA", "SIMPLE_CSV", "SPECIES_LIST"} {
			pred := fmt.Sprintf(`{"type":"greaterThanOrEquals","key":"YEAR","value":"%d"}`, 1900+i)
			keys = append(keys, s.submit("alice", `{"format":"`+f+`","predicate":`+pred+`}`))
		}
		for _, k := range keys {
			s.waitStatus(k, time.Minute, jobs.StatusSucceeded)
		}
		expect(t, s.do("DELETE", "/v1/occurrence/download/request/"+keys[0], "alice", nil), http.StatusNoContent)
		list := func(user, q string) jobs.Page[jobs.Download] {
			r := expect(t, s.do("GET", "/v1/occurrence/download/user/alice"+q, user, nil), http.StatusOK)
			var p jobs.Page[jobs.Download]
			if err := json.Unmarshal(r.body, &p); err != nil {
				t.Fatal(err)
			}
			return p
		}
		p := list("alice", "?limit=2&offset=0")
		if p.Count != 3 || len(p.Results) != 2 || p.EndOfRecords || p.Limit != 2 || p.Results[0].Key != keys[2] {
			t.Fatalf("first page %+v", p)
		}
		p = list("alice", "?limit=2&offset=2")
		if len(p.Results) != 1 || !p.EndOfRecords || p.Results[0].Key != keys[0] {
			t.Fatalf("second page %+v", p)
		}
		if p := list("root", "?status=SUCCEEDED,RUNNING"); p.Count != 3 {
			t.Fatalf("admin list %+v", p)
		}
		if p := list("alice", "?status=FAILED"); p.Count != 0 || len(p.Results) != 0 || !p.EndOfRecords {
			t.Fatalf("failed list %+v", p)
		}
		expect(t, s.do("GET", "/v1/occurrence/download/user/alice?status=DONE", "alice", nil), http.StatusBadRequest)
		// Paging as GBIF's PageableProvider: a bad limit or offset is the
		// default, limit=0 the count alone.
		if p := list("alice", "?limit=x&offset=-3"); p.Limit != 20 || p.Offset != 0 || len(p.Results) != 3 {
			t.Fatalf("bad limit and offset %+v", p)
		}
		if p := list("alice", "?limit=0"); p.Count != 3 || p.Limit != 0 || p.Results == nil || len(p.Results) != 0 || p.EndOfRecords {
			t.Fatalf("limit=0 %+v", p)
		}
		if p := list("alice", "?limit=0&offset=3"); p.Count != 3 || !p.EndOfRecords {
			t.Fatalf("limit=0 at the end %+v", p)
		}
		unauthorized(t, s.do("GET", "/v1/occurrence/download/user/alice", "bob", nil))
		unauthorized(t, s.do("GET", "/v1/occurrence/download/user/alice/count", "bob", nil))
		expect(t, s.do("GET", "/v1/occurrence/download/user/alice", "", nil), http.StatusUnauthorized)
	})
}

func TestAuthRules(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		s := startServer(t, dsn, options{throttle: 20_000})
		body := `{"creator":"alice","format":"SIMPLE_CSV","predicate":` + familyPredicate + `}`
		r := expect(t, s.do("POST", "/v1/occurrence/download/request", "", body), http.StatusUnauthorized)
		if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Basic") {
			t.Fatalf("no Basic challenge: %v", r.header)
		}
		wrong := s.do("POST", "/v1/occurrence/download/request", "", body, "Authorization", "Basic YWxpY2U6bm9wZQ==")
		expect(t, wrong, http.StatusUnauthorized)
		expect(t, s.do("POST", "/v1/occurrence/download/request", "", body, "Authorization", "Bearer x"), http.StatusUnauthorized)
		r = unauthorized(t, s.do("POST", "/v1/occurrence/download/request", "bob", body))
		if !strings.Contains(string(r.body), "bob not allowed to create download with creator alice") {
			t.Fatalf("message %q", r.body)
		}
		// Bad credentials on a public endpoint are still refused.
		expect(t, s.do("GET", "/v1/occurrence/download/0000001-000000000000000", "", nil, "Authorization", "Basic Ym9iOng="), http.StatusUnauthorized)

		key := s.submit("root", body) // an admin may submit for alice
		// ... but not for someone who is not a user: 400 naming the
		// creator (it was a 500, the foreign key failing), on submission
		// and on validation.
		ghost := strings.Replace(body, `"alice"`, `"ghost"`, 1)
		for _, path := range []string{"/v1/occurrence/download/request", "/v1/occurrence/download/request/validate"} {
			r = expect(t, s.do("POST", path, "root", ghost), http.StatusBadRequest)
			if !strings.Contains(string(r.body), `creator \"ghost\" is not a user`) && !strings.Contains(string(r.body), `creator "ghost" is not a user`) {
				t.Fatalf("POST %s for creator ghost: %s", path, r)
			}
		}
		if d := s.status(key, "alice"); d.Request.Creator != "alice" {
			t.Fatalf("creator %q", d.Request.Creator)
		}
		unauthorized(t, s.do("DELETE", "/v1/occurrence/download/request/"+key, "bob", nil))
		expect(t, s.do("DELETE", "/v1/occurrence/download/request/"+key, "", nil), http.StatusUnauthorized)
		expect(t, s.do("DELETE", "/v1/occurrence/download/request/"+key, "root", nil), http.StatusNoContent)
		if d := s.status(key, "alice"); d.Status != jobs.StatusCancelled {
			t.Fatalf("after admin cancel: %s", d.Status)
		}
		expect(t, s.do("DELETE", "/v1/occurrence/download/request/0000999-000000000000000", "alice", nil), http.StatusNotFound)
		expect(t, s.do("GET", "/v1/occurrence/download/0000999-000000000000000", "", nil), http.StatusNotFound)
	})
}

func TestRequestValidation(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{})
	cases := []struct {
		body string
		code int
		msg  string
	}{
		{`{"predicate":` + familyPredicate + `,"color":"red"}`, 400, "unknown JSON property 'color'"},
		{`{"format":"XLS"}`, 400, "XLS"},
		{`{"predicate":{"type":"equals","key":"NOPE","value":"1"}}`, 400, "NOPE"},
		{`{"predicate":{"type":"equals","key":"YEAR","value":"abc"}}`, 400, "abc"},
		{`{"notificationAddresses":["not an address"]}`, 400, "not an address"},
		{`[1,2]`, 400, "JSON object"},
		{`{"type":"EVENT"}`, 400, "EVENT"},
	}
	for _, c := range cases {
		r := expect(t, s.do("POST", "/v1/occurrence/download/request", "alice", c.body), c.code)
		if !strings.Contains(string(r.body), c.msg) {
			t.Errorf("%s: message %q does not name %q", c.body, r.body, c.msg)
		}
	}
	// Over the complexity limit (GBIF's 101,000 values) -> 413.
	vals := make([]string, 101_001)
	for i := range vals {
		vals[i] = strconv.Itoa(i)
	}
	big, _ := json.Marshal(map[string]any{"predicate": map[string]any{"type": "in", "key": "TAXON_KEY", "values": vals}})
	r := expect(t, s.do("POST", "/v1/occurrence/download/request", "alice", big), http.StatusRequestEntityTooLarge)
	// GBIF's words, and the rule's name.
	if want := "A download limitation is exceeded:\nThe request contains 101001 predicate items.  The maximum is 101000.\nRule: maxValues.\n"; string(r.body) != want {
		t.Fatalf("413 body %q, want %q", r.body, want)
	}
	expect(t, s.do("POST", "/v1/occurrence/search/predicate", "", string(big)), http.StatusRequestEntityTooLarge)
	// Bodies are capped (1 MiB by default).
	huge := `{"description":"` + strings.Repeat("x", 2<<20) + `"}`
	expect(t, s.do("POST", "/v1/occurrence/download/request", "alice", huge), http.StatusRequestEntityTooLarge)
}

func TestRunningLimitAndDedupe(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		// Exports are slowed (fault injection) so that they stay running.
		s := startServer(t, dsn, options{throttle: 5_000})
		var keys []string
		for y := 1990; y < 1993; y++ {
			keys = append(keys, s.submit("alice", fmt.Sprintf(`{"predicate":{"type":"equals","key":"YEAR","value":"%d"}}`, y)))
		}
		// The same request again returns the same key, and is not limited.
		if k := s.submit("alice", `{"predicate":{"type":"equals","key":"YEAR","value":"1990"},"format":"DWCA"}`); k != keys[0] {
			t.Fatalf("duplicate got %s, want %s", k, keys[0])
		}
		// GBIF's 420 and its message; the Retry-After is the service's
		// RetryAfter (a minute by default).
		r := expect(t, s.do("POST", "/v1/occurrence/download/request", "alice", `{"predicate":`+familyPredicate+`}`), 420)
		if ra := r.header.Get("Retry-After"); ra != "60" {
			t.Fatalf("Retry-After %q", ra)
		}
		if want := "A download limitation is exceeded:\nUser alice has too many simultaneous downloads; the limit is 3.\n" +
			"Please wait for some to complete, or cancel any unwanted downloads.\n"; string(r.body) != want {
			t.Fatalf("body %q, want %q", r.body, want)
		}
		// Another user is not limited by alice's downloads; the same
		// predicate by bob is a different download.
		bobKey := s.submit("bob", `{"predicate":{"type":"equals","key":"YEAR","value":"1990"}}`)
		if bobKey == keys[0] {
			t.Fatal("bob got alice's download")
		}
		// Cancel frees a slot; the cancelled request is not deduplicated.
		expect(t, s.do("DELETE", "/v1/occurrence/download/request/"+keys[0], "alice", nil), http.StatusNoContent)
		again := s.submit("alice", `{"predicate":{"type":"equals","key":"YEAR","value":"1990"}}`)
		if again == keys[0] {
			t.Fatal("a cancelled download was returned as a duplicate")
		}
		for _, k := range append(keys[1:], again, bobKey) {
			expect(t, s.do("DELETE", "/v1/occurrence/download/request/"+k, "root", nil), http.StatusNoContent)
		}
	})
}

func TestCancelStopsRunningExport(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		s := startServer(t, dsn, options{throttle: 2_000})
		key := s.submit("alice", `{"format":"DWCA"}`)
		d := s.waitStatus(key, 30*time.Second, jobs.StatusRunning)
		if d.Progress == nil {
			t.Fatalf("running without progress: %+v", d)
		}
		expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusNotFound)
		start := time.Now()
		expect(t, s.do("DELETE", "/v1/occurrence/download/request/"+key, "alice", nil), http.StatusNoContent)
		// The worker lets go of the download within a second: its lease is
		// released and no archive is left behind.
		for {
			var owner string
			err := s.db.SQL.QueryRow("SELECT lease_owner FROM downloads WHERE key = '" + key + "'").Scan(&owner)
			if err != nil {
				t.Fatal(err)
			}
			if owner == "" || time.Since(start) > 5*time.Second {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if el := time.Since(start); el > time.Second {
			t.Fatalf("export still held the download %s after cancel", el)
		}
		if st := s.status(key, "alice").Status; st != jobs.StatusCancelled {
			t.Fatalf("status %s", st)
		}
		expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusNotFound)
		expect(t, s.do("GET", "/v1/occurrence/download/"+key+"/citation", "", nil), http.StatusNotFound)
	})
}

// zipText returns one entry of a zip.
func zipText(t *testing.T, b []byte, name string) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	out, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestSubmitAnswersJSONWhenAsked: rgbif's occ_download sends Accept:
// application/json and stops unless the answer's Content-Type is exactly
// application/json; GBIF's startDownload produces both types with the
// bare key as the body. Without Accept (pygbif, curl) it stays text/plain.
func TestSubmitAnswersJSONWhenAsked(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		s := startServer(t, dsn, options{throttle: 20_000})
		body := `{"creator":"alice","format":"SIMPLE_CSV","predicate":` + familyPredicate + `}`
		for _, c := range []struct {
			accept, want string
		}{
			{"application/json", "application/json"},
			{"application/json, text/plain;q=0.5", "application/json"},
			{"text/plain, application/json", "text/plain; charset=utf-8"},
			{"*/*", "text/plain; charset=utf-8"},
			{"", "text/plain; charset=utf-8"},
		} {
			hdr := []string{"Content-Type", "application/json"}
			if c.accept != "" {
				hdr = append(hdr, "Accept", c.accept)
			}
			r := expect(t, s.do("POST", "/v1/occurrence/download/request", "alice", body, hdr...), http.StatusCreated)
			if ct := r.header.Get("Content-Type"); ct != c.want || !keyRE.Match(r.body) {
				t.Errorf("Accept %q: Content-Type %q, body %q; want %q and a bare key", c.accept, ct, r.body, c.want)
			}
			// Cited from its creation on, as GBIF's (pygbif's
			// download_citation reads the body whatever the status).
			if cit := expect(t, s.do("GET", "/v1/occurrence/download/"+string(r.body)+"/citation", "", nil), http.StatusOK); !strings.Contains(string(cit.body), string(r.body)) {
				t.Errorf("citation %q does not name %s", cit.body, r.body)
			}
		}
		// GBIF's from is an ISO local date-time (no offset). The five
		// identical requests are one download (deduplicated).
		for from, want := range map[string]string{"2000-01-01T00:00:00": "1", "2000-01-01T00:00:00.000": "1", "2999-01-01T00:00:00": "0"} {
			if r := expect(t, s.do("GET", "/v1/occurrence/download/user/alice/count?from="+from, "alice", nil), http.StatusOK); strings.TrimSpace(string(r.body)) != want {
				t.Errorf("count from %s: %s, want %s", from, r.body, want)
			}
		}
		expect(t, s.do("GET", "/v1/occurrence/download/user/alice/count?from=yesterday", "alice", nil), http.StatusBadRequest)
		for _, empty := range []string{`{}`, `null`} {
			if r := expect(t, s.do("POST", "/v1/occurrence/download/request", "alice", empty), http.StatusBadRequest); !strings.Contains(string(r.body), "empty") {
				t.Errorf("%s: %s", empty, r.body)
			}
		}
	})
}
