package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/jobs/storage/local"
	"github.com/biodiversity-downloads/downloader/jobs/storage/s3"
	"github.com/biodiversity-downloads/downloader/jobs/tableexport"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
	"github.com/biodiversity-downloads/downloader/search"
	"github.com/biodiversity-downloads/downloader/species"
	"github.com/biodiversity-downloads/downloader/sqlquery"
	"github.com/biodiversity-downloads/downloader/web"
)

func init() {
	register("serve", "run the download API, workers and schedules (--role api|worker|all)", runServe)
}

// serveFlags are the settings of `downloader serve`.
type serveFlags struct {
	role, listen, dsn, table, storage, publicURL string
	shutdown                                     time.Duration
	maxBody                                      int64
	jobs                                         jobs.Config
	web                                          web.Config
	auth                                         jobs.AuthConfig
	mail                                         jobs.MailConfig
	limits                                       occurrence.Limits
	faults                                       faultFlags
	// The configuration file and what only it sets (config*.go).
	configPath, opsListen string
	check                 bool
	// startChecks: configure also makes serve's own checks before it
	// starts (checkStart), for serve and config check.
	startChecks bool
	// stderr takes the configuration's warnings.
	stderr      io.Writer
	conf        fileConfig
	origin      map[string]string
	exports     exportFlags
	search      searchFlags
	taxonomyDir string
	page        pageFlags
}

// exportFlags say what exports read: the table (--export-table, else
// --table) and how long their snapshot pins outlive a dead worker.
type exportFlags struct {
	table     string
	pinTTL    time.Duration
	sqlMemory int64
}

func parseServeFlags(args []string, env *Env) (serveFlags, error) {
	return parseServeArgs(args, env, false)
}

// parseServeArgs is parseServeFlags, with serve's checks before it starts
// (the table, the mail settings) when startChecks.
func parseServeArgs(args []string, env *Env, startChecks bool) (serveFlags, error) {
	f := serveFlags{startChecks: startChecks}
	fs := serveFlagSet(&f, env)
	rest, err := f.parse(fs, args)
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("unexpected arguments %q", rest)
	}
	return f, err
}

// parse parses args with fs (serve's flags, and perhaps a command's own),
// applies the configuration and returns the arguments left.
func (f *serveFlags) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return fs.Args(), f.configure(fs)
}

// configure layers the configuration under the parsed flags of fs and
// fills the job service's settings.
func (f *serveFlags) configure(fs *flag.FlagSet) error {
	d, err := applyServeConfig(fs, f)
	if err != nil {
		return err
	}
	if _, set := f.origin["erase.warn_before"]; !set && f.jobs.Scheduler.WarnBefore >= f.jobs.EraseAfter {
		f.jobs.Scheduler.WarnBefore = f.jobs.EraseAfter / 2
		f.conf.Erase.WarnBefore = duration(f.jobs.Scheduler.WarnBefore)
	}
	d.checkJobs(f.jobs)
	if f.startChecks {
		d.checkStart(f)
	}
	if err := d.err(); err != nil {
		return err
	}
	if f.jobs.Scheduler.Schedules, err = jobSchedules(f.conf.Schedules, f.limits); err != nil {
		return err
	}
	switch jobs.Role(f.role) {
	case jobs.RoleAPI, jobs.RoleWorker, jobs.RoleAll:
		f.jobs.Role = jobs.Role(f.role)
	default:
		return fmt.Errorf("--role %q: want api, worker or all", f.role)
	}
	return nil
}

// serveFlagSet defines the flags of serve on f (each has a key in the
// configuration file: fileConfig's flag tags).
func serveFlagSet(f *serveFlags, env *Env) *flag.FlagSet {
	fs := newFlagSet("serve", env)
	f.stderr = env.Stderr
	fs.StringVar(&f.role, "role", "all", "api (HTTP only), worker (exports only) or all")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8080", "HTTP address (roles api and all)")
	fs.StringVar(&f.dsn, "db", "sqlite:downloads.db", dbFlagHelp)
	fs.StringVar(&f.table, "table", "", "occurrence table: a directory or hbase://host:port/name")
	fs.StringVar(&f.exports.table, "export-table", "", "embedded table exports read instead of --table (counts still read --table): "+
		"the snapshot `downloader rollover --table hbase://... --snapshot-dir DIR` writes")
	fs.DurationVar(&f.exports.pinTTL, "pin-ttl", 2*time.Minute, "how long a dead worker's pin keeps an export's snapshot from being retired")
	fs.Int64Var(&f.exports.sqlMemory, "sql-memory", sqlquery.DefaultMemory, "bytes a SQL download's groups or sorted rows may hold")
	fs.StringVar(&f.storage, "storage", "archives", "archive storage: a directory or s3://bucket/prefix?endpoint=URL&region=R "+
		"(credentials from $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY)")
	registerMailFlags(fs, &f.mail)
	fs.StringVar(&f.jobs.OverridesDir, "overrides", "", "operator's overrides directory: mail/messages/*.json and mail/templates/* replace the embedded notice strings and templates")
	fs.StringVar(&f.configPath, "config", "", "configuration file (YAML, docs/configuration.md; default $"+configEnv+"); flags and DOWNLOADER_* variables override it")
	fs.BoolVar(&f.check, "check", false, "validate the configuration, print it with secrets redacted, and exit")
	fs.StringVar(&f.opsListen, "ops-listen", "", "address serving only /healthz, /readyz and /metrics (a worker's; roles api and all also serve them on --listen)")
	fs.StringVar(&f.publicURL, "public-url", "", "base URL clients use (default http://LISTEN)")
	fs.DurationVar(&f.shutdown, "shutdown-timeout", 30*time.Second, "how long a graceful stop may take")
	fs.Int64Var(&f.maxBody, "max-body", 1<<20, "largest request body in bytes")
	f.faults.register(fs)
	f.search.register(fs)
	fs.StringVar(&f.taxonomyDir, "taxonomy-dir", "", "taxonomy directory the species API reads (default: TABLE/taxonomy of a table directory; required for the species API of an HBase table)")
	f.page.register(fs)
	c, def := &f.jobs, jobs.Config{}.WithDefaults()
	fs.IntVar(&c.MaxRunningPerUser, "max-running", def.MaxRunningPerUser, "running downloads per user")
	fs.StringVar(&c.Portal.Name, "portal-name", "", "publisher in citations and metadata, where GBIF's say GBIF.org (default: the host of --public-url)")
	fs.StringVar(&c.Portal.Short, "portal-short", "", "prefix of a download's title, where GBIF's says GBIF (\"GBIF Occurrence Download\")")
	fs.DurationVar(&c.RetryAfter, "retry-after", def.RetryAfter, "Retry-After of the 420 answer to a user at --max-running")
	fs.IntVar(&c.Workers, "workers", def.Workers, "exports run at once by this process")
	fs.IntVar(&c.MaxAttempts, "max-attempts", def.MaxAttempts, "tries of an export before it fails")
	fs.DurationVar(&c.EraseAfter, "erase-after", def.EraseAfter, "how long archives are kept")
	fs.DurationVar(&c.Lease, "lease", def.Lease, "a worker's claim on a download, renewed every --heartbeat")
	fs.DurationVar(&c.RescueAfter, "rescue-after", def.RescueAfter, "when a job whose worker vanished runs again")
	fs.DurationVar(&c.Heartbeat, "heartbeat", def.Heartbeat, "progress/cancel check and lease renewal interval of an export (at most half of --lease)")
	fs.DurationVar(&c.MaintenanceInterval, "maintenance", def.MaintenanceInterval, "sweep/reconcile interval (and erasure, unless an erase schedule erases)")
	fs.DurationVar(&c.Scheduler.WarnBefore, "erase-warn-before", 14*24*time.Hour, "mail a download's creator this long before its archive is erased, with the postpone link (0: no warning; set, it needs --smtp)")
	fs.StringVar(&c.Scheduler.Creator, "schedule-creator", def.Scheduler.Creator, "user that scheduled exports belong to (created without a password: nobody signs in as it)")
	fs.StringVar((*string)(&c.Scheduler.Unfiltered), "answer-unfiltered", string(def.Scheduler.Unfiltered),
		"answer a request for every record with a scheduled export of every record in its format: age (one of the table's current snapshot, or not older than --answer-max-age), snapshot (of the current snapshot only) or off")
	fs.DurationVar(&c.Scheduler.UnfilteredMaxAge, "answer-max-age", def.Scheduler.UnfilteredMaxAge, "the oldest scheduled export that answers unfiltered requests under --answer-unfiltered age")
	fs.DurationVar(&c.FetchPollInterval, "poll", def.FetchPollInterval, "how often idle workers look for jobs")
	fs.IntVar(&c.AnonymousCounts.Concurrent, "count-concurrency-anonymous", def.AnonymousCounts.Concurrent, "counts of anonymous callers run at once (more: 429)")
	fs.DurationVar(&c.AnonymousCounts.Timeout, "count-timeout-anonymous", def.AnonymousCounts.Timeout, "how long an anonymous caller's count may run (then: 504)")
	fs.IntVar(&c.UserCounts.Concurrent, "count-concurrency", def.UserCounts.Concurrent, "counts of signed-in users run at once (more: 429)")
	fs.DurationVar(&c.UserCounts.Timeout, "count-timeout", def.UserCounts.Timeout, "how long a signed-in user's count may run (then: 504)")
	fs.DurationVar(&c.CountRetryAfter, "count-retry-after", def.CountRetryAfter, "Retry-After of the 429 answer to a count over its class's slots")
	fs.DurationVar(&c.CountWait, "count-wait", def.CountWait, "how long a count or search waits for a slot of its class before the 429 (negative: refuse at once)")
	limitFlags(fs, &f.limits)
	httpFlags(fs, &f.web, &f.auth)
	return fs
}

// httpFlags defines the HTTP server's timeouts and the login limits.
func httpFlags(fs *flag.FlagSet, w *web.Config, a *jobs.AuthConfig) {
	wdef := web.Config{}.WithDefaults()
	fs.DurationVar(&w.ReadHeaderTimeout, "read-header-timeout", wdef.ReadHeaderTimeout, "longest wait for a request's headers")
	fs.DurationVar(&w.ReadTimeout, "read-timeout", wdef.ReadTimeout, "longest wait for a whole request, body included (then: 408)")
	fs.DurationVar(&w.WriteTimeout, "write-timeout", wdef.WriteTimeout, "longest time to answer a request (archive transfers are exempt)")
	fs.DurationVar(&w.IdleTimeout, "idle-timeout", wdef.IdleTimeout, "how long an idle keep-alive connection stays open")
	fs.DurationVar(&w.ArchiveStallTimeout, "archive-stall-timeout", wdef.ArchiveStallTimeout,
		"an archive transfer whose client takes no 32 KiB in this time is dropped")
	fs.DurationVar(&w.ShutdownGrace, "shutdown-grace", wdef.ShutdownGrace,
		"on stop, how long requests in flight and archive transfers may go on before their connections are closed")
	fs.StringVar(&w.ClientIPHeader, "client-ip-header", "", "header with the client's address behind a reverse proxy "+
		"(X-Forwarded-For: its last address; X-Real-IP); failed logins are counted per address")
	adef := jobs.AuthConfig{}.WithDefaults()
	fs.IntVar(&a.AddressFree, "login-free-failures", adef.AddressFree, "failed logins from one address before back-off")
	fs.IntVar(&a.UserFree, "login-free-user-failures", adef.UserFree, "failed logins for one user name before back-off")
	fs.DurationVar(&a.AddressMaxDelay, "login-max-backoff", adef.AddressMaxDelay, "longest back-off of an address")
	fs.DurationVar(&a.UserMaxDelay, "login-max-user-backoff", adef.UserMaxDelay,
		"longest back-off of a user name (addresses the user logged in from are exempt)")
	fs.IntVar(&a.MaxHashers, "login-hashers", adef.MaxHashers, "password checks run at once")
}

// runServe: downloader serve.
func runServe(ctx context.Context, args []string, env *Env) error {
	f, err := parseServeArgs(args, env, true)
	if err != nil {
		return err
	}
	if f.check {
		return printConfig(env.Stdout, &f.conf, f.origin)
	}
	env = f.serveEnv(env)
	dsn, err := f.databaseURL()
	if err != nil {
		return err
	}
	db, err := openJobDB(ctx, dsn, env)
	if err != nil {
		return err
	}
	defer db.Close()
	engine, table, closeTable, err := openEngine(ctx, f.table, f.exports.table, tableexport.Config{Limits: f.limits, PinTTL: f.exports.pinTTL,
		SQLMemory: f.exports.sqlMemory}, env)
	if err != nil {
		return err
	}
	defer closeTable()
	store, err := openStorage(ctx, f.storage, f.conf.Storage)
	if err != nil {
		return err
	}
	var ln net.Listener
	if f.jobs.Role != jobs.RoleWorker {
		if ln, err = net.Listen("tcp", f.listen); err != nil {
			return err
		}
		if f.publicURL == "" {
			f.publicURL = "http://" + ln.Addr().String()
		}
	}
	// The notices link to the page's download view: its default needs the
	// public URL, which is the listener's when none is given.
	// checkStart refused a worker with --smtp and no --public-url.
	f.page.defaults(&f)
	mailer, err := openMailer(f)
	if err != nil {
		if ln != nil {
			_ = ln.Close()
		}
		return err
	}
	f.jobs.PublicURL = f.publicURL
	engine = f.faults.wrap(engine)
	reg := newMetricsRegistry()
	svc, err := jobs.New(db, engine, store, mailer, f.jobs, env.Logger, jobs.WithMetrics(reg),
		jobs.WithRollover(f.scheduledRollover(env.Logger)))
	if err != nil {
		return err
	}
	f.faults.service(svc)
	page, err := f.page.open(f, svc, table, env)
	if err != nil {
		return err
	}
	scfg := f.search.cfg
	scfg.Limits = f.limits // searches are bounded as downloads and counts are
	sp, closeSpecies := f.species(env)
	defer closeSpecies()
	var opts []search.Option
	if names, ok := sp.(*species.Service); ok && names != nil {
		opts = append(opts, search.WithNames(names)) // scientificName searches by taxon key, as GBIF's
	}
	return serve(ctx, f, svc, db, ln, reg, search.New(table, scfg, env.Logger, opts...), sp, page, env)
}

// serve runs until ctx ends, then stops gracefully: HTTP first, then the
// workers (running exports become SUSPENDED and resume at the next start).
func serve(ctx context.Context, f serveFlags, svc *jobs.Service, db *jobs.DB, ln net.Listener, reg *prometheus.Registry, searcher web.Searcher, sp web.Species, page *web.Page, env *Env) error {
	if err := svc.Start(ctx); err != nil {
		return err
	}
	errc := make(chan error, 2)
	var srv *http.Server
	wcfg := f.web
	wcfg.MaxBodyBytes, wcfg.PublicURL, wcfg.Search, wcfg.Species, wcfg.Page = f.maxBody, f.publicURL, searcher, sp, page
	api := web.New(svc, jobs.NewAuthenticator(db, f.auth), wcfg, env.Logger, web.WithMetrics(reg))
	// The address on stdout, for people and scripts (a listener on :0
	// gets its port here); the same in the log, whose format may be JSON.
	if ln != nil {
		srv = api.HTTPServer()
		go func() { errc <- srv.Serve(ln) }()
		fmt.Fprintf(env.Stdout, "serving %s on %s\n", f.role, f.publicURL)
		env.Logger.InfoContext(ctx, "serving", "role", f.role, "url", f.publicURL)
	} else {
		fmt.Fprintf(env.Stdout, "serving %s\n", f.role)
		env.Logger.InfoContext(ctx, "serving", "role", f.role)
	}
	ops, err := startOps(f.opsListen, api.OpsHandler(), errc, env)
	if err != nil {
		_ = svc.Stop(ctx)
		return err
	}
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
	}
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.shutdown)
	defer cancel()
	// Bounded by --shutdown-grace: a slow client does not eat the time the
	// workers need to suspend their exports.
	for _, hs := range []*http.Server{srv, ops} {
		if hs != nil {
			_ = api.Shutdown(stopCtx, hs)
		}
	}
	if err := svc.Stop(stopCtx); err != nil {
		runErr = errors.Join(runErr, err)
	}
	if errors.Is(runErr, http.ErrServerClosed) {
		runErr = nil
	}
	return runErr
}

// openEngine opens the occurrence table behind the counts, exports and
// searches, and the embedded table exports read instead when exportSpec
// names one (searches and counts read the live table).
func openEngine(ctx context.Context, spec, exportSpec string, cfg tableexport.Config, env *Env) (jobs.Engine, occurrence.Backend, func(), error) {
	if spec == "" {
		return nil, nil, func() {}, errors.New("no table: give --table DIR")
	}
	t, err := openTable(ctx, spec, env.Logger)
	if err != nil {
		return nil, nil, nil, err
	}
	if exportSpec == "" {
		return tableexport.New(t, cfg, env.Logger), t, func() { _ = t.Close() }, nil
	}
	x, err := openExportTable(ctx, exportSpec, env)
	if err != nil {
		t.Close()
		return nil, nil, nil, err
	}
	return tableexport.NewWithExportTable(t, x, cfg, env.Logger), t, func() { _ = t.Close(); _ = x.Close() }, nil
}

// openExportTable opens the embedded table --export-table names, which must
// hold a snapshot: exports of an empty table would be empty archives.
func openExportTable(ctx context.Context, dir string, env *Env) (*parquet.Store, error) {
	if err := checkExportTable(dir); err != nil {
		return nil, err
	}
	x, err := parquet.OpenExisting(dir, parquet.Config{}, env.Logger)
	if err != nil {
		return nil, err
	}
	snap, err := x.Snapshot(ctx)
	if err != nil {
		x.Close()
		return nil, err
	}
	env.Logger.Info("exports read an embedded snapshot", "dir", dir, "snapshot", snap.ID)
	return x, nil
}

// checkExportTable refuses an --export-table that is not a directory
// holding a snapshot.
func checkExportTable(dir string) error {
	if strings.HasPrefix(dir, "hbase://") {
		return fmt.Errorf("--export-table %s: give the directory `downloader rollover --snapshot-dir` writes, not an HBase table", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		return fmt.Errorf("--export-table %s holds no snapshot (%w): run `downloader rollover --table hbase://... --snapshot-dir %s` first", dir, err, dir)
	}
	return nil
}

// openStorage opens a directory or an s3:// bucket (credentials and tuning
// from the configuration).
func openStorage(ctx context.Context, spec string, sc storeConfig) (jobs.Storage, error) {
	if !strings.HasPrefix(spec, "s3://") {
		return local.New(spec)
	}
	cfg, err := s3Config(spec, sc)
	if err != nil {
		return nil, err
	}
	return s3.New(ctx, cfg)
}

// s3Config reads an s3://bucket/prefix?endpoint=URL&region=R&path-style=B
// storage and the configuration's credentials and tuning.
func s3Config(spec string, sc storeConfig) (s3.Config, error) {
	u, err := url.Parse(spec)
	if err != nil {
		return s3.Config{}, fmt.Errorf("--storage %q: %w", spec, err)
	}
	if u.Host == "" {
		return s3.Config{}, fmt.Errorf("--storage %q: no bucket (want s3://bucket/prefix)", spec)
	}
	q := u.Query()
	cfg := s3.Config{Bucket: u.Host, Prefix: strings.TrimPrefix(u.Path, "/"), Endpoint: q.Get("endpoint"),
		Region: q.Get("region"), AccessKey: sc.AccessKeyID, SecretKey: sc.SecretAccessKey.Reveal(),
		PathStyle: q.Get("endpoint") != "", PartSize: int(sc.PartSize), LinkExpiry: time.Duration(sc.LinkExpiry)}
	if e := cfg.Endpoint; e != "" && !isHTTPURL(e) {
		return s3.Config{}, fmt.Errorf("--storage: endpoint=%q is not an http(s) URL", e)
	}
	if v := q.Get("path-style"); v != "" {
		if cfg.PathStyle, err = strconv.ParseBool(v); err != nil {
			return s3.Config{}, fmt.Errorf("--storage: path-style=%q: %w", v, err)
		}
	}
	return cfg, nil
}

// openMailer returns the SMTP mailer of --smtp, or nil without one.
func openMailer(f serveFlags) (*jobs.Mailer, error) {
	if f.mail.Addr == "" {
		return nil, nil
	}
	c := f.mail
	c.Password = f.conf.SMTP.Password.Reveal()
	return jobs.NewMailer(c)
}
