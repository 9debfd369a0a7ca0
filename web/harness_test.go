package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/ingest"
	"github.com/biodiversity-downloads/downloader/internal/pgtest"
	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/jobs/faultinject"
	"github.com/biodiversity-downloads/downloader/jobs/storage/local"
	"github.com/biodiversity-downloads/downloader/jobs/tableexport"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
	"github.com/biodiversity-downloads/downloader/web"
)

// Test users; every password is the name followed by "-secret".
var testUsers = []jobs.User{
	{Name: "alice", Email: "alice@example.org"},
	{Name: "bob", Email: "bob@example.org"},
	{Name: "root", Email: "root@example.org", Admin: true},
}

func password(user string) string { return user + "-secret" }

// fixture is built once per test binary: the downloader binary and an
// occurrence table ingested from the samples in testdata/.
var fixture struct {
	once     sync.Once
	err      error
	dir      string
	bin      string
	table    string
	datasets int
}

// samples are ingested into the test table (see testdata/SOURCES.md).
var samples = []string{"testdata/dwca-io-archive-occ.zip", "testdata/gbif-validator-Archive.zip"}

func buildFixture(t testing.TB) (bin, table string) {
	t.Helper()
	fixture.once.Do(func() {
		dir, err := os.MkdirTemp("", "downloader-webtest-")
		if err != nil {
			fixture.err = err
			return
		}
		fixture.dir = dir
		fixture.bin = filepath.Join(dir, "downloader")
		out, err := exec.Command("go", "build", "-o", fixture.bin, "../cmd/downloader").CombinedOutput()
		if err != nil {
			fixture.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		fixture.table = filepath.Join(dir, "table")
		for i, s := range samples {
			if err := ingestSample(fixture.table, s, fmt.Sprintf("sample-%d", i)); err != nil {
				fixture.err = fmt.Errorf("ingest %s: %w", s, err)
				return
			}
		}
		fixture.datasets = len(samples)
	})
	if fixture.err != nil {
		t.Fatal(fixture.err)
	}
	return fixture.bin, fixture.table
}

// faultFixture is the downloader binary built with the faultinject tag,
// which has the --test-export-throttle flag; built on first use, next to the
// production binary of fixture.
var faultFixture struct {
	once sync.Once
	err  error
	bin  string
}

func buildFaultBinary(t testing.TB) string {
	t.Helper()
	buildFixture(t)
	faultFixture.once.Do(func() {
		bin := filepath.Join(fixture.dir, "downloader-faultinject")
		out, err := exec.Command("go", "build", "-tags", "faultinject", "-o", bin, "../cmd/downloader").CombinedOutput()
		if err != nil {
			faultFixture.err = fmt.Errorf("go build -tags faultinject: %v\n%s", err, out)
			return
		}
		faultFixture.bin = bin
	})
	if faultFixture.err != nil {
		t.Fatal(faultFixture.err)
	}
	return faultFixture.bin
}

// ingestSample loads one DwC-A into the embedded table with the real
// reader and ingest pipeline.
func ingestSample(table, path, fallbackKey string) error {
	ctx := context.Background()
	store, err := parquet.Open(table, parquet.Config{}, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	defer store.Close()
	a, err := dwca.Open(ctx, path)
	if err != nil {
		return err
	}
	defer a.Close()
	recs, err := a.Records(ctx)
	if err != nil {
		return err
	}
	src := &archiveSource{a: a, recs: recs, ds: occurrence.DatasetInfo{Key: fallbackKey}}
	if r, err := a.EML(); err == nil {
		info, ierr := dwca.ReadDatasetInfo(r)
		r.Close()
		if ierr == nil {
			src.ds.Title, src.ds.License, src.ds.Citation = info.Title, info.License, info.Citation
			if info.Key != "" {
				src.ds.Key = info.Key
			}
		}
	}
	_, err = ingest.Load(ctx, store, src, ingest.Options{})
	return err
}

type archiveSource struct {
	a    *dwca.Archive
	recs *dwca.StarReader
	ds   occurrence.DatasetInfo
}

func (s *archiveSource) Dataset() occurrence.DatasetInfo { return s.ds }
func (s *archiveSource) EML() (io.ReadCloser, error)     { return s.a.EML() }
func (s *archiveSource) Broken() (int64, []string)       { return int64(s.recs.Broken().Count), nil }
func (s *archiveSource) Next(ctx context.Context) (occurrence.RawRecord, error) {
	return s.recs.Next()
}
func (s *archiveSource) Close() error { return s.recs.Close() }

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture.dir != "" {
		_ = os.RemoveAll(fixture.dir)
	}
	os.Exit(code)
}

// postgresDSN creates a fresh database for one test and drops it afterwards.
func postgresDSN(t testing.TB) string { return pgtest.Database(t, "dltest") }

func sqliteDSN(t testing.TB) string { return "sqlite:" + filepath.Join(t.TempDir(), "jobs.db") }

// forEachDB runs f on SQLite and on PostgreSQL.
func forEachDB(t *testing.T, f func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { f(t, sqliteDSN(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, postgresDSN(t)) })
}

// options tune one test server.
type options struct {
	role       jobs.Role
	throttle   int64 // archive bytes/s (fault injection), 0 = full speed
	maxRunning int
	mailer     *jobs.Mailer
	storage    jobs.Storage
	engine     func(jobs.Engine) jobs.Engine
	maxAttempt int
	noUsers    bool
	archiveDir string // local storage directory shared with worker processes
	workers    int    // exports at once (jobs.Config.Workers), 0 = the default
	web        web.Config
	auth       jobs.AuthConfig
	tableDir   string // occurrence table directory, "" = the shared fixture
	metrics    *prometheus.Registry
	// table wraps the occurrence table the engine reads; config adjusts
	// the service's settings.
	table  func(tableexport.Table) tableexport.Table
	config func(*jobs.Config)
	// svcOpts are more options of the service (a clock, a rollover).
	svcOpts []jobs.Option
	// apiLog, when set, is the API server's logger (else the test's).
	apiLog *slog.Logger
}

// server is a real API server on loopback with its real service.
type server struct {
	t       testing.TB
	URL     string
	svc     *jobs.Service
	db      *jobs.DB
	dsn     string
	archive string // local storage directory
	stopped bool
	api     *web.Server
	http    *http.Server
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func openService(t testing.TB, dsn string, o options) (*jobs.Service, *jobs.DB, string) {
	t.Helper()
	_, table := buildFixture(t)
	if o.tableDir != "" {
		table = o.tableDir
	}
	ctx := context.Background()
	db, err := jobs.OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(ctx, testLogger(t)); err != nil {
		t.Fatal(err)
	}
	store, err := parquet.Open(table, parquet.Config{}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	var tbl tableexport.Table = store
	if o.table != nil {
		tbl = o.table(tbl)
	}
	var engine jobs.Engine = tableexport.New(tbl, tableexport.Config{}, testLogger(t))
	if o.engine != nil {
		engine = o.engine(engine)
	}
	engine = faultinject.Throttle(engine, o.throttle)
	dir := o.archiveDir
	if dir == "" {
		dir = t.TempDir()
	}
	st := o.storage
	if st == nil {
		if st, err = local.New(dir); err != nil {
			t.Fatal(err)
		}
	}
	cfg := jobs.Config{Role: o.role, MaxRunningPerUser: o.maxRunning, Heartbeat: 100 * time.Millisecond,
		FetchPollInterval: 100 * time.Millisecond, Lease: 2 * time.Second, RescueAfter: 4 * time.Second,
		MaxAttempts: o.maxAttempt, PublicURL: "http://downloads.test", Workers: o.workers}
	if o.config != nil {
		o.config(&cfg)
	}
	var opts []jobs.Option
	if o.metrics != nil {
		opts = append(opts, jobs.WithMetrics(o.metrics))
	}
	opts = append(opts, o.svcOpts...)
	svc, err := jobs.New(db, engine, st, o.mailer, cfg, testLogger(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return svc, db, dir
}

func startServer(t testing.TB, dsn string, o options) *server {
	t.Helper()
	svc, db, dir := openService(t, dsn, o)
	ctx := context.Background()
	if !o.noUsers {
		for _, u := range testUsers {
			if err := db.AddUser(ctx, u, password(u.Name)); err != nil && !strings.Contains(err.Error(), "exists") {
				t.Fatal(err)
			}
		}
	}
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var webOpts []web.Option
	if o.metrics != nil {
		webOpts = append(webOpts, web.WithMetrics(o.metrics))
	}
	apiLog := o.apiLog
	if apiLog == nil {
		apiLog = testLogger(t)
	}
	api := web.New(svc, jobs.NewAuthenticator(db, o.auth), o.web, apiLog, webOpts...)
	hs := httptest.NewUnstartedServer(api)
	hs.Config = api.HTTPServer() // the timeouts serve uses
	hs.Start()
	s := &server{t: t, URL: hs.URL, svc: svc, db: db, dsn: dsn, archive: dir, api: api, http: hs.Config}
	t.Cleanup(func() {
		hs.Close()
		s.stop()
	})
	return s
}

func (s *server) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.svc.Stop(ctx); err != nil {
		s.t.Errorf("stop: %v", err)
	}
}

// response is an HTTP answer with its body read.
type response struct {
	code   int
	header http.Header
	body   []byte
}

func (r response) String() string { return fmt.Sprintf("%d %s", r.code, bytes.TrimSpace(r.body)) }

// do sends a request as user ("" = anonymous) and reads the answer.
func (s *server) do(method, path, user string, body any, hdr ...string) response {
	s.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		s.t.Fatalf("body type %T", body)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" {
		req.SetBasicAuth(user, password(user))
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: b}
}

// expect fails the test unless r has status code.
func expect(t testing.TB, r response, code int) response {
	t.Helper()
	if r.code != code {
		t.Fatalf("got %s, want %d", r, code)
	}
	return r
}
