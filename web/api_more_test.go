package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
	"github.com/biodiversity-downloads/downloader/jobs"
)

func TestCountAndQueryShortcuts(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{})
	all := s.count(`null`)
	fam := s.count(familyPredicate)
	if all.Count != 1534+19 || fam.Count <= 0 || fam.Count >= all.Count {
		t.Fatalf("counts: all %+v family %+v", all, fam)
	}
	// The query-string form counts the same records.
	r := expect(t, s.do("GET", "/v1/occurrence/search/count?stateProvince=Nigde&format=SIMPLE_CSV", "", nil), http.StatusOK)
	var e jobs.Estimate
	if err := json.Unmarshal(r.body, &e); err != nil || e.Count != fam.Count || e.Format != "SIMPLE_CSV" {
		t.Fatalf("GET count %s (%v), want %d", r.body, err, fam.Count)
	}
	wrapped := s.count(`{"predicate":` + familyPredicate + `,"format":"SPECIES_LIST"}`)
	if wrapped.Count != fam.Count || wrapped.Format != "SPECIES_LIST" || wrapped.EstimatedCompressedSize >= fam.EstimatedCompressedSize {
		t.Fatalf("wrapped count %+v vs %+v", wrapped, fam)
	}
	// A FASTA archive's estimate counts the records that may have a
	// sequence: none of the samples has one.
	if fasta := s.count(`{"predicate":` + familyPredicate + `,"format":"FASTA_ARCHIVE"}`); fasta.Count != 0 || fasta.Format != "FASTA_ARCHIVE" {
		t.Fatalf("FASTA_ARCHIVE count %+v, want 0", fasta)
	}
	if fasta := s.count(`{"predicate":null,"format":"FASTA_ARCHIVE"}`); fasta.Count != 0 {
		t.Fatalf("FASTA_ARCHIVE count of everything %+v, want 0", fasta)
	}
	// A bare not predicate has a "predicate" field too: it is a predicate,
	// not a {"predicate": ...} wrapper.
	if not := s.count(`{"type":"not","predicate":` + familyPredicate + `}`); not.Count != all.Count-fam.Count {
		t.Fatalf("not count %+v, want %d", not, all.Count-fam.Count)
	}
	r = expect(t, s.do("GET", "/v1/occurrence/search/count?colour=red", "", nil), http.StatusBadRequest)
	if !strings.Contains(string(r.body), "colour") {
		t.Fatalf("message %q does not name the parameter", r.body)
	}
	// q is the search's: no estimate of a download of it, and words that
	// say why (not an unknown predicate type).
	if r = expect(t, s.do("GET", "/v1/occurrence/search/count?q=Bunium&format=SIMPLE_CSV", "", nil), http.StatusBadRequest); !strings.Contains(string(r.body), "full-text search") {
		t.Fatalf("estimate of q=Bunium: %s", r.body)
	}
	expect(t, s.do("POST", "/v1/occurrence/search/predicate", "", `{"predicate":null,"limit":3}`), http.StatusBadRequest)
	expect(t, s.do("GET", "/v1/occurrence/search/count?format=XLS", "", nil), http.StatusBadRequest)

	// Conversion only: nothing is queued.
	r = expect(t, s.do("GET", "/v1/occurrence/download/request/predicate?stateProvince=Nigde&format=simple_csv", "", nil), http.StatusOK)
	var req jobs.Request
	if err := json.Unmarshal(r.body, &req); err != nil || req.Format != "SIMPLE_CSV" || !strings.Contains(string(req.Predicate), "Nigde") {
		t.Fatalf("converted %s (%v)", r.body, err)
	}
	// GET and HEAD on /request never create a download (a HEAD did): 405
	// with Allow: POST and a message saying what to do, whoever asks.
	shortcut := "/v1/occurrence/download/request?stateProvince=Nigde&format=SIMPLE_CSV&notification_address=alice@example.org"
	for _, method := range []string{"GET", "HEAD"} {
		for _, user := range []string{"", "alice"} {
			r = expect(t, s.do(method, shortcut, user, nil), http.StatusMethodNotAllowed)
			if r.header.Get("Allow") != "POST" || (method == "GET" && !strings.Contains(string(r.body), "POST the request")) {
				t.Fatalf("%s %s as %q: %v %s", method, shortcut, user, r.header, r.body)
			}
		}
	}
	var n int
	if err := s.db.SQL.QueryRow("SELECT count(*) FROM downloads").Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d downloads after GET and HEAD of /request (%v), want none", n, err)
	}
	// The converted request is what a client POSTs.
	b, _ := json.Marshal(req)
	key := s.submit("alice", string(b))
	d := s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
	if d.TotalRecords != fam.Count || d.Request.Format != "SIMPLE_CSV" {
		t.Fatalf("converted request's download %+v", d)
	}
}

// TestPollingClient behaves like rgbif: submit, poll the status as the
// server advises until SUCCEEDED, fetch the link, unzip, read occurrence.txt.
func TestPollingClient(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		s := startServer(t, dsn, options{})
		want := s.count(`{"type":"greaterThanOrEquals","key":"YEAR","value":"1990"}`).Count
		key := s.submit("alice", `{"creator":"alice","format":"DWCA","sendNotification":false,
			"predicate":{"type":"greaterThanOrEquals","key":"YEAR","value":"1990"}}`)
		var d jobs.Download
		deadline := time.Now().Add(time.Minute)
		for polls := 0; ; polls++ {
			r := expect(t, s.do("GET", "/v1/occurrence/download/"+key, "alice", nil), http.StatusOK)
			if err := json.Unmarshal(r.body, &d); err != nil {
				t.Fatal(err)
			}
			if d.Status == jobs.StatusSucceeded {
				break
			}
			if d.Status != jobs.StatusPreparing && d.Status != jobs.StatusRunning {
				t.Fatalf("status %s", d.Status)
			}
			wait, err := strconv.Atoi(r.header.Get("Retry-After"))
			if err != nil || wait <= 0 || !strings.Contains(r.header.Get("Cache-Control"), "max-age=") {
				t.Fatalf("no poll hint while %s: %v", d.Status, r.header)
			}
			if time.Now().After(deadline) {
				t.Fatal("download did not finish")
			}
			time.Sleep(100 * time.Millisecond) // the test does not wait the full hint
		}
		// rgbif fetches .../request/{key} without the .zip suffix.
		plain := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key, "", nil), http.StatusOK)
		if int64(len(plain.body)) != d.Size {
			t.Fatalf("request/{key} served %d bytes, want %d", len(plain.body), d.Size)
		}
		resp, err := http.Get(d.DownloadLink)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/zip" {
			t.Fatalf("fetch %s: %d %v", d.DownloadLink, resp.StatusCode, err)
		}
		entries, rows := readArchive(t, body)
		if int64(rows) != want || !contains(entries, "meta.xml") || !contains(entries, "metadata.xml") {
			t.Fatalf("archive %v with %d occurrence rows, want %d", entries, rows, want)
		}
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestSuspendOnShutdownAndResume(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		a := startServer(t, dsn, options{throttle: 3_000})
		key := a.submit("alice", `{"format":"DWCA","predicate":`+familyPredicate+`}`)
		a.waitStatus(key, 30*time.Second, jobs.StatusRunning)
		a.stop() // graceful: the running export is interrupted
		if d := a.status(key, "alice"); d.Status != jobs.StatusSuspended {
			t.Fatalf("after shutdown: %s", d.Status)
		}
		expect(t, a.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusNotFound)
		b := startServer(t, dsn, options{noUsers: true})
		d := b.waitStatus(key, time.Minute, jobs.StatusSucceeded)
		if d.TotalRecords != b.count(familyPredicate).Count {
			t.Fatalf("resumed download has %d records", d.TotalRecords)
		}
		r := expect(t, b.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusOK)
		if sum := sha256.Sum256(r.body); hex.EncodeToString(sum[:]) != d.SHA256 {
			t.Fatal("archive does not match its recorded SHA-256")
		}
	})
}

// flaky is fault injection: a transient storage or scan failure cannot be
// produced on demand by the real table, so the first failures exports are
// made to fail before they write anything.
type flaky struct {
	jobs.Engine
	failures  int64
	permanent bool
	calls     atomic.Int64
}

var errInjected = errors.New("injected transient failure")

func (f *flaky) Export(ctx context.Context, req jobs.ExportRequest, w io.Writer, p func(jobs.Progress)) (jobs.ExportResult, error) {
	if f.calls.Add(1) <= f.failures {
		if f.permanent {
			return jobs.ExportResult{}, &jobs.PermanentError{Err: errors.New("injected permanent failure")}
		}
		return jobs.ExportResult{}, errInjected
	}
	return f.Engine.Export(ctx, req, w, p)
}

func TestRetryAndFailure(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		var f *flaky
		s := startServer(t, dsn, options{maxAttempt: 3, engine: func(e jobs.Engine) jobs.Engine {
			f = &flaky{Engine: e, failures: 1}
			return f
		}})
		// One transient failure: retried with backoff (River's first retry
		// comes after about a second) and then succeeds.
		key := s.submit("alice", `{"predicate":`+familyPredicate+`}`)
		d := s.waitStatus(key, 90*time.Second, jobs.StatusSucceeded)
		if f.calls.Load() != 2 || d.Error != "" {
			t.Fatalf("%d export calls, error %q", f.calls.Load(), d.Error)
		}
		var attempts int
		if err := s.db.SQL.QueryRow("SELECT attempts FROM downloads WHERE key = '" + key + "'").Scan(&attempts); err != nil || attempts != 2 {
			t.Fatalf("attempts %d (%v)", attempts, err)
		}
		// A permanent failure fails at once, the error visible to the owner only.
		f.calls.Store(0)
		f.failures, f.permanent = 1, true
		key = s.submit("alice", `{"format":"SIMPLE_CSV","predicate":`+familyPredicate+`}`)
		d = s.waitStatus(key, 30*time.Second, jobs.StatusFailed)
		if !strings.Contains(d.Error, "injected permanent failure") || f.calls.Load() != 1 {
			t.Fatalf("failed download %+v after %d calls", d, f.calls.Load())
		}
		if r := s.status(key, "bob"); r.Error != "" {
			t.Fatalf("error shown to another user: %q", r.Error)
		}
		expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusNotFound)
		// A failed download is not returned by dedupe.
		if k := s.submit("alice", `{"format":"SIMPLE_CSV","predicate":`+familyPredicate+`}`); k == key {
			t.Fatal("failed download returned as a duplicate")
		}
	})
}

func TestNotificationMail(t *testing.T) {
	cfg := testenv.Need(t, "DOWNLOADER_TEST_MAILPIT", "scripts/ci/mailpit.sh")
	smtpAddr, api, ok := strings.Cut(cfg, ",")
	if !ok {
		t.Fatalf("DOWNLOADER_TEST_MAILPIT=%q: want SMTPADDR,HTTPURL", cfg)
	}
	mailer, err := jobs.NewMailer(jobs.MailConfig{Addr: smtpAddr, From: "downloads@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, sqliteDSN(t), options{mailer: mailer})
	to := "carol+" + strconv.FormatInt(time.Now().UnixNano(), 36) + "@example.org"
	key := s.submit("alice", `{"sendNotification":true,"notificationAddresses":["`+to+`"],"predicate":`+familyPredicate+`}`)
	s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
	// Without addresses the user's own address is used.
	key2 := s.submit("alice", `{"sendNotification":true,"format":"SPECIES_LIST","predicate":`+familyPredicate+`}`)
	s.waitStatus(key2, time.Minute, jobs.StatusSucceeded)
	for _, c := range []struct{ to, key string }{{to, key}, {"alice@example.org", key2}} {
		text := waitMail(t, api, c.to, c.key)
		link := "http://downloads.test/v1/occurrence/download/request/" + c.key + ".zip"
		if !strings.Contains(text, link) {
			t.Fatalf("mail to %s lacks the link %s:\n%s", c.to, link, text)
		}
	}
}

// waitMail polls mailpit's HTTP API for the message about key sent to addr.
func waitMail(t *testing.T, api, addr, key string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var found struct {
			Messages []struct {
				ID      string
				Subject string
			} `json:"messages"`
		}
		getJSON(t, api+"/api/v1/search?query="+url.QueryEscape(`to:"`+addr+`" subject:"`+key+`"`), &found)
		for _, m := range found.Messages {
			if strings.Contains(m.Subject, key) {
				var msg struct{ Text string }
				getJSON(t, api+"/api/v1/message/"+m.ID, &msg)
				return msg.Text
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no mail about %s to %s", key, addr)
	return ""
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
