package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/biodiversity-downloads/downloader/internal/mailpit"
	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
)

// testClock is the service's clock in schedule tests: it stays where the
// test puts it.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Now().UTC().Truncate(time.Millisecond)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// daily fires every day at midnight UTC (the tests run their schedules by
// hand, at the test clock's times).
type daily struct{}

func (daily) Next(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour) }

const day = 24 * time.Hour

// runSchedule runs schedule name at the clock's time, as its cron fire.
func (s *server) runSchedule(clock *testClock, name string) jobs.ScheduleRun {
	s.t.Helper()
	run, err := s.svc.RunSchedule(context.Background(), name, clock.Now(), jobs.TriggerCron)
	if err != nil {
		s.t.Fatalf("run %s at %s: %v", name, clock.Now(), err)
	}
	return run
}

// expectRun fails unless run ended as want with result.
func expectRun(t *testing.T, run jobs.ScheduleRun, want jobs.RunStatus, result string) {
	t.Helper()
	if run.Status != want || run.Result != result {
		t.Fatalf("run of %s at %s: %s %q, want %s %q", run.Schedule, run.Fire, run.Status, run.Result, want, result)
	}
}

// archiveFiles lists the archive objects of key in the local storage.
func (s *server) archiveFiles(key string) []string {
	s.t.Helper()
	es, err := os.ReadDir(s.archive)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		if strings.HasPrefix(e.Name(), key+"-") {
			out = append(out, e.Name())
		}
	}
	return out
}

func gbifTime(t *testing.T, at time.Time) string {
	t.Helper()
	b, err := json.Marshal(jobs.Time{Time: at})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Warning then erasure, on a clock the test moves: the warning is mailed
// erase.warn_before ahead with the postpone link, once per date; a PUT
// moves the erasure (and asking again changes nothing); a new warning
// comes before the new date; then the archive is deleted and the API
// answers 410.
func TestErasureWarningPostponeAndErase(t *testing.T) {
	pit := mailpit.Shared(t)
	forEachDB(t, func(t *testing.T, dsn string) {
		mailer, err := jobs.NewMailer(jobs.MailConfig{Addr: pit.SMTP, From: "downloads@example.org",
			RetryMin: 200 * time.Millisecond, RetryMax: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		clock := newTestClock()
		reg := prometheus.NewRegistry()
		s := startServer(t, dsn, options{mailer: mailer, metrics: reg, svcOpts: []jobs.Option{jobs.WithClock(clock.Now)},
			config: func(c *jobs.Config) {
				c.EraseAfter = 10 * day
				c.Scheduler.WarnBefore = 3 * day
				c.Scheduler.Schedules = []jobs.Schedule{{Name: "erase", Spec: "@daily", When: daily{}, Kind: jobs.ScheduleErase}}
			}})
		to := mailpit.Address("erasure")
		t0 := clock.Now()
		key := s.submit("alice", fmt.Sprintf(`{"sendNotification":false,"notificationAddresses":["%s"],"format":"SIMPLE_CSV",`+
			`"predicate":{"type":"and","predicates":[%s,{"type":"greaterThanOrEquals","key":"YEAR","value":"1700"}]}}`, to, familyPredicate))
		d := s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
		if !d.EraseAfter.Equal(t0.Add(10*day)) || !d.ErasureNotification.IsZero() {
			t.Fatalf("eraseAfter %s (want %s), erasureNotification %s", d.EraseAfter, t0.Add(10*day), d.ErasureNotification)
		}
		files := s.archiveFiles(key)
		if len(files) != 1 {
			t.Fatalf("archive objects %v", files)
		}

		clock.Set(t0.Add(5 * day))
		expectRun(t, s.runSchedule(clock, "erase"), jobs.RunSucceeded, "warned 0, erased 0")

		// Three days ahead: the warning, with the link that postpones.
		clock.Set(t0.Add(7 * day))
		expectRun(t, s.runSchedule(clock, "erase"), jobs.RunSucceeded, "warned 1, erased 0")
		m := pit.Wait(t, to, 1, 30*time.Second)[0]
		checkMailHTML(t, pit, m)
		date := t0.Add(10 * day).Format("2 January 2006")
		if m.Subject != "Your download "+key+" will be erased on "+date {
			t.Errorf("subject %q", m.Subject)
		}
		for _, part := range []string{"-X PUT http://downloads.test/v1/occurrence/download/" + key, "in 3 days"} {
			if !strings.Contains(m.Text, part) {
				t.Errorf("the warning lacks %q:\n%s", part, m.Text)
			}
		}
		for deadline := time.Now().Add(20 * time.Second); s.status(key, "alice").ErasureNotification.IsZero(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("erasureNotification not recorded after the warning was sent")
			}
		}
		if d := s.status(key, "alice"); !d.ErasureNotification.Equal(clock.Now()) || !d.EraseAfter.Equal(t0.Add(10*day)) {
			t.Fatalf("after the warning: erasureNotification %s, eraseAfter %s", d.ErasureNotification, d.EraseAfter)
		}
		clock.Set(t0.Add(8 * day))
		expectRun(t, s.runSchedule(clock, "erase"), jobs.RunSucceeded, "warned 0, erased 0")

		// Postponed, twice with the same date: the same answer.
		later := t0.Add(40 * day)
		body := `{"eraseAfter":` + gbifTime(t, later) + `}`
		for range 2 {
			r := expect(t, s.do("PUT", "/v1/occurrence/download/"+key, "alice", body), http.StatusOK)
			var got jobs.Download
			if err := json.Unmarshal(r.body, &got); err != nil || !got.EraseAfter.Equal(later) {
				t.Fatalf("PUT: %s %v", r.body, err)
			}
		}
		clock.Set(t0.Add(11 * day))
		expectRun(t, s.runSchedule(clock, "erase"), jobs.RunSucceeded, "warned 0, erased 0")
		expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusOK)

		// A new warning before the new date, then the erasure.
		clock.Set(t0.Add(37 * day))
		expectRun(t, s.runSchedule(clock, "erase"), jobs.RunSucceeded, "warned 1, erased 0")
		ms := pit.Wait(t, to, 2, 30*time.Second)
		if !strings.Contains(ms[0].Subject+ms[1].Subject, later.Format("2 January 2006")) {
			t.Errorf("second warning: %q, %q", ms[0].Subject, ms[1].Subject)
		}
		clock.Set(t0.Add(40*day + time.Minute))
		expectRun(t, s.runSchedule(clock, "erase"), jobs.RunSucceeded, "warned 0, erased 1")
		if d := s.status(key, "alice"); d.Status != jobs.StatusFileErased {
			t.Fatalf("status %s after erasure", d.Status)
		}
		expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusGone)
		if files := s.archiveFiles(key); len(files) != 0 {
			t.Fatalf("archive objects left: %v", files)
		}
		runs, err := s.svc.ScheduleRuns(context.Background(), "erase", 10)
		if err != nil || len(runs) != 6 || runs[0].Result != "warned 0, erased 1" {
			t.Fatalf("%d runs recorded (%v): %+v", len(runs), err, runs)
		}
		fams := s.scrape()
		if v, _ := metricValue(fams, "downloader_schedule_runs_total", map[string]string{"schedule": "erase", "status": "succeeded"}); v != 6 {
			t.Errorf("downloader_schedule_runs_total{erase,succeeded} = %v, want 6", v)
		}
		if v, ok := metricValue(fams, "downloader_schedule_last_success_timestamp_seconds", map[string]string{"schedule": "erase"}); !ok ||
			int64(v*1000) != clock.Now().UnixMilli() {
			t.Errorf("last success %v (%v), want %d", v, ok, clock.Now().Unix())
		}
		if v, ok := metricValue(fams, "downloader_schedule_interval_seconds", map[string]string{"schedule": "erase"}); !ok || v != 86400 {
			t.Errorf("downloader_schedule_interval_seconds{erase} = %v (%v), want 86400 (daily)", v, ok)
		}
	})
}

// A warning that goes out later than warn_before ahead (here: warnings
// just enabled, the archive already past its date) moves the erasure to
// warn_before after the warning: the archive is not erased in that run.
func TestLateWarningMovesErasure(t *testing.T) {
	mailer, err := jobs.NewMailer(jobs.MailConfig{Addr: "127.0.0.1:1", From: "downloads@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	clock := newTestClock()
	s := startServer(t, sqliteDSN(t), options{mailer: mailer, svcOpts: []jobs.Option{jobs.WithClock(clock.Now)},
		config: func(c *jobs.Config) {
			c.EraseAfter = 10 * day
			c.Scheduler.WarnBefore = 3 * day
			c.Scheduler.Schedules = []jobs.Schedule{{Name: "erase", When: daily{}, Kind: jobs.ScheduleErase}}
		}})
	t0 := clock.Now()
	key := s.submit("alice", `{"format":"SIMPLE_CSV","predicate":`+familyPredicate+`}`)
	s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
	clock.Set(t0.Add(12 * day))
	expectRun(t, s.runSchedule(clock, "erase"), jobs.RunSucceeded, "warned 1, erased 0")
	if d := s.status(key, "alice"); d.Status != jobs.StatusSucceeded || !d.EraseAfter.Equal(t0.Add(15*day)) {
		t.Fatalf("%s, eraseAfter %s, want %s", d.Status, d.EraseAfter, t0.Add(15*day))
	}
	clock.Set(t0.Add(15*day + time.Second))
	expectRun(t, s.runSchedule(clock, "erase"), jobs.RunSucceeded, "warned 0, erased 1")
}

// exportCounter counts the exports the engine runs: an answer from a
// scheduled export runs none.
type exportCounter struct {
	jobs.Engine
	n atomic.Int64
}

func (e *exportCounter) Unwrap() jobs.Engine { return e.Engine }

func (e *exportCounter) Export(ctx context.Context, req jobs.ExportRequest, w io.Writer, p func(jobs.Progress)) (jobs.ExportResult, error) {
	e.n.Add(1)
	return e.Engine.Export(ctx, req, w, p)
}

// A scheduled export of every record runs like a download, lands in
// storage and is listed; a user's request for every record in its format
// is then answered with it (SUCCEEDED at once, its own key and citation, no
// scan); the shared archive stays until the last download that serves it
// is erased.
func TestScheduledExportAnswersUnfiltered(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		clock := newTestClock()
		reg := prometheus.NewRegistry()
		counter := &exportCounter{}
		s := startServer(t, dsn, options{metrics: reg, svcOpts: []jobs.Option{jobs.WithClock(clock.Now)},
			engine: func(e jobs.Engine) jobs.Engine { counter.Engine = e; return counter },
			config: func(c *jobs.Config) {
				c.EraseAfter = 30 * day
				c.Scheduler.Schedules = []jobs.Schedule{{Name: "monthly", Spec: "0 4 1 * *", When: daily{}, Kind: jobs.ScheduleExport,
					Export: jobs.ScheduledExport{Format: "SIMPLE_CSV", Description: "Every record, monthly"}}}
			}})
		t0 := clock.Now()
		run := s.runSchedule(clock, "monthly")
		if run.Status != jobs.RunRunning || run.DownloadKey == "" || run.Result != "download "+run.DownloadKey+" queued" {
			t.Fatalf("export run %+v", run)
		}
		export := s.waitStatus(run.DownloadKey, time.Minute, jobs.StatusSucceeded)
		for deadline := time.Now().Add(20 * time.Second); run.Status == jobs.RunRunning; time.Sleep(50 * time.Millisecond) {
			var err error
			if run, err = s.svc.ScheduleRun(ctx, "monthly", run.Fire); err != nil {
				t.Fatal(err)
			}
			if time.Now().After(deadline) {
				t.Fatal("the export run did not end with its download")
			}
		}
		want := fmt.Sprintf("download %s: %d records, %d bytes", export.Key, export.TotalRecords, export.Size)
		if run.Status != jobs.RunSucceeded || run.Result != want || export.TotalRecords == 0 {
			t.Fatalf("run %+v, want %q", run, want)
		}
		if len(s.archiveFiles(export.Key)) != 1 || counter.n.Load() != 1 {
			t.Fatalf("objects %v, exports %d", s.archiveFiles(export.Key), counter.n.Load())
		}
		var list jobs.Page[jobs.Download]
		r := expect(t, s.do("GET", "/v1/occurrence/download/user/schedules", "root", nil), http.StatusOK)
		if err := json.Unmarshal(r.body, &list); err != nil || list.Count != 1 || list.Results[0].Key != export.Key ||
			list.Results[0].Request.Description != "Every record, monthly" {
			t.Fatalf("the schedules' downloads: %s", r.body)
		}
		scanned := func() float64 {
			v, _ := metricValue(s.scrape(), "downloader_export_records_scanned_total", map[string]string{"format": "SIMPLE_CSV"})
			return v
		}
		before := scanned()

		// Alice asks for every record an hour later: answered at once.
		clock.Set(t0.Add(time.Hour))
		key := s.submit("alice", `{"format":"SIMPLE_CSV","sendNotification":false}`)
		d := s.status(key, "alice")
		if key == export.Key || d.Status != jobs.StatusSucceeded || d.SHA256 != export.SHA256 || d.Size != export.Size ||
			d.TotalRecords != export.TotalRecords || d.NumberDatasets != export.NumberDatasets || d.Request.Creator != "alice" ||
			!d.EraseAfter.Equal(t0.Add(time.Hour+30*day)) {
			t.Fatalf("answer %+v\nexport %+v", d, export)
		}
		body := expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusOK).body
		if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != export.SHA256 {
			t.Fatal("the answer's archive is not the export's")
		}
		if c := string(expect(t, s.do("GET", "/v1/occurrence/download/"+key+"/citation", "", nil), http.StatusOK).body); !strings.Contains(c, key) {
			t.Errorf("citation %q does not name %s", c, key)
		}
		var ds jobs.Page[jobs.DatasetUsage]
		r = expect(t, s.do("GET", "/v1/occurrence/download/"+key+"/datasets", "", nil), http.StatusOK)
		if err := json.Unmarshal(r.body, &ds); err != nil || ds.Count != export.NumberDatasets || ds.Results[0].DownloadKey != key {
			t.Fatalf("datasets %s", r.body)
		}
		if counter.n.Load() != 1 || scanned() != before {
			t.Fatalf("the answer scanned: %d exports, %v records scanned (was %v)", counter.n.Load(), scanned(), before)
		}
		fams := s.scrape()
		if v, _ := metricValue(fams, "downloader_snapshot_answers_total", map[string]string{"format": "SIMPLE_CSV"}); v != 1 {
			t.Errorf("snapshot answers %v", v)
		}
		if v, _ := metricValue(fams, "downloader_schedule_runs_total", map[string]string{"schedule": "monthly", "status": "succeeded"}); v != 1 {
			t.Errorf("schedule runs %v", v)
		}
		// A filtered request, or another format, is exported as usual.
		other := s.submit("alice", `{"format":"SIMPLE_CSV","sendNotification":false,"predicate":`+familyPredicate+`}`)
		s.waitStatus(other, time.Minute, jobs.StatusSucceeded)
		dwca := s.submit("alice", `{"format":"DWCA","sendNotification":false}`)
		s.waitStatus(dwca, time.Minute, jobs.StatusSucceeded)
		if counter.n.Load() != 3 {
			t.Fatalf("%d exports, want 3", counter.n.Load())
		}

		// The export's erasure keeps the archive its answer serves; the
		// answer's deletes it.
		clock.Set(t0.Add(30*day + time.Minute))
		if n, err := s.svc.EraseExpired(ctx, clock.Now()); err != nil || n != 1 {
			t.Fatalf("erased %d, %v", n, err)
		}
		expect(t, s.do("GET", "/v1/occurrence/download/request/"+export.Key+".zip", "", nil), http.StatusGone)
		expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusOK)
		clock.Set(t0.Add(31 * day))
		if n, err := s.svc.EraseExpired(ctx, clock.Now()); err != nil || n < 1 {
			t.Fatalf("erased %d, %v", n, err)
		}
		expect(t, s.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusGone)
		if files := s.archiveFiles(export.Key); len(files) != 0 {
			t.Fatalf("the shared archive is left: %v", files)
		}
	})
}

// failOn makes the exports of one predicate fail for good.
type failOn struct {
	jobs.Engine
	predicate string
}

func (e failOn) Unwrap() jobs.Engine { return e.Engine }

func (e failOn) Export(ctx context.Context, req jobs.ExportRequest, w io.Writer, p func(jobs.Progress)) (jobs.ExportResult, error) {
	if strings.Contains(string(req.Predicate), e.predicate) {
		return jobs.ExportResult{}, &jobs.PermanentError{Err: fmt.Errorf("%w: the test refuses this export", jobs.ErrInvalidRequest)}
	}
	return e.Engine.Export(ctx, req, w, p)
}

// The digest schedule mails the operators yesterday's failures.
func TestDigestSchedule(t *testing.T) {
	pit := mailpit.Shared(t)
	ops := mailpit.Address("digest-ops")
	mailer, err := jobs.NewMailer(jobs.MailConfig{Addr: pit.SMTP, From: "downloads@example.org", Operators: []string{ops},
		RetryMin: 200 * time.Millisecond, RetryMax: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	clock := newTestClock()
	s := startServer(t, sqliteDSN(t), options{mailer: mailer, svcOpts: []jobs.Option{jobs.WithClock(clock.Now)},
		engine: func(e jobs.Engine) jobs.Engine { return failOn{Engine: e, predicate: "1666"} },
		config: func(c *jobs.Config) {
			c.Scheduler.Schedules = []jobs.Schedule{{Name: "digest", Spec: "0 6 * * *", When: daily{}, Kind: jobs.ScheduleDigest}}
		}})
	key := s.submit("alice", `{"format":"SIMPLE_CSV","sendNotification":false,"predicate":{"type":"equals","key":"YEAR","value":"1666"}}`)
	s.waitStatus(key, time.Minute, jobs.StatusFailed)
	clock.Set(time.Now().UTC().Add(day))
	run := s.runSchedule(clock, "digest")
	yesterday := time.Now().UTC().Format(time.DateOnly)
	if run.Status != jobs.RunSucceeded || !strings.HasPrefix(run.Result, "digest of "+yesterday+" queued for 1 operators") {
		t.Fatalf("run %+v", run)
	}
	m := pit.Wait(t, ops, 1, 30*time.Second)[0]
	if !strings.Contains(m.Text, key) || !strings.Contains(m.Text, "the test refuses this export") {
		t.Fatalf("digest %q:\n%s", m.Subject, m.Text)
	}
}

// A rollover schedule runs while a slow download exports: the rollover
// publishes a new snapshot and retires every old one it may (no
// retention), but the download, pinned to its snapshot, finishes against
// it with every record; the next download reads the new snapshot; once the
// first is done, the next rollover retires its snapshot.
func TestRolloverScheduleUnderRunningDownload(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := parquet.Config{RowGroupRows: 500, KeepSnapshots: 1, KeepFor: -1}
	loader, err := parquet.Open(dir, cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	occurrencetest.Load(t, loader, 4000, 40)
	_ = loader.Close()
	var reports []parquet.RolloverReport
	roll := func(ctx context.Context) (string, error) {
		s, err := parquet.OpenExisting(dir, cfg, testLogger(t))
		if err != nil {
			return "", err
		}
		defer s.Close()
		rep, err := s.Rollover(ctx, parquet.RolloverOptions{SmallRows: 1 << 40})
		reports = append(reports, rep)
		return fmt.Sprintf("snapshot %s -> %s, %d pinned", rep.Before, rep.After, len(rep.Pins)), err
	}
	s := startServer(t, sqliteDSN(t), options{tableDir: dir, throttle: 256 << 10, svcOpts: []jobs.Option{jobs.WithRollover(roll)},
		config: func(c *jobs.Config) {
			c.Scheduler.Schedules = []jobs.Schedule{{Name: "rollover", Spec: "30 2 * * *", When: daily{}, Kind: jobs.ScheduleRollover}}
		}})
	slow := s.submit("alice", `{"format":"DWCA","sendNotification":false}`)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		d := s.status(slow, "alice")
		if d.Status == jobs.StatusRunning && d.Progress != nil && d.Progress.BytesWritten > 0 {
			break
		}
		if !d.Status.Active() || time.Now().After(deadline) {
			t.Fatalf("the slow download is %s before the rollover", d.Status)
		}
	}
	run, err := s.svc.RunSchedule(ctx, "rollover", time.Now(), jobs.TriggerManual)
	if err != nil || run.Status != jobs.RunSucceeded {
		t.Fatalf("rollover run %+v, %v", run, err)
	}
	rep := reports[0]
	if rep.Before == rep.After || len(rep.Pins) != 1 || rep.Pins[0].Holder != slow {
		t.Fatalf("the rollover: %s -> %s, pins %+v (want the slow download's)", rep.Before, rep.After, rep.Pins)
	}
	if run.Result != fmt.Sprintf("snapshot %s -> %s, 1 pinned", rep.Before, rep.After) {
		t.Errorf("run result %q", run.Result)
	}
	if s.status(slow, "alice").Status != jobs.StatusRunning {
		t.Fatal("the slow download finished before the rollover did: make it slower")
	}
	d := s.waitStatus(slow, 2*time.Minute, jobs.StatusSucceeded)
	if d.TableSnapshot != rep.Before || d.TotalRecords != 4000 {
		t.Fatalf("the download across the rollover read snapshot %s (%d records), want %s (4000)", d.TableSnapshot, d.TotalRecords, rep.Before)
	}
	body := expect(t, s.do("GET", "/v1/occurrence/download/request/"+slow+".zip", "", nil), http.StatusOK).body
	if _, rows := readArchive(t, body); rows != 4000 {
		t.Fatalf("the archive has %d rows", rows)
	}
	next := s.submit("alice", `{"format":"SPECIES_LIST","sendNotification":false}`)
	if d := s.waitStatus(next, 2*time.Minute, jobs.StatusSucceeded); d.TableSnapshot != rep.After || d.TotalRecords != 4000 {
		t.Fatalf("the download after the rollover read snapshot %s (%d records), want %s", d.TableSnapshot, d.TotalRecords, rep.After)
	}
	if _, err := s.svc.RunSchedule(ctx, "rollover", time.Now().Add(time.Second), jobs.TriggerManual); err != nil {
		t.Fatal(err)
	}
	if last := reports[len(reports)-1]; len(last.Pins) != 0 || !slicesContain(last.Retired, rep.Before) {
		t.Fatalf("the rollover after the download: retired %v, pins %+v; want %s retired", last.Retired, last.Pins, rep.Before)
	}
}

func slicesContain(ns []int64, id string) bool {
	for _, n := range ns {
		if fmt.Sprint(n) == id {
			return true
		}
	}
	return false
}
