package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/jobs/storage/local"
	"github.com/biodiversity-downloads/downloader/jobs/storage/s3"
	"github.com/biodiversity-downloads/downloader/jobs/tableexport"
	"github.com/biodiversity-downloads/downloader/web"
)

func init() {
	register("serve", "run the download API, workers and schedules (--role api|worker|all)", runServe)
}

// serveFlags are the settings of `downloader serve`.
type serveFlags struct {
	role, listen, dsn, table, storage, smtp, smtpFrom, smtpUser, publicURL string
	shutdown                                                               time.Duration
	maxBody                                                                int64
	jobs                                                                   jobs.Config
	web                                                                    web.Config
	auth                                                                   jobs.AuthConfig
	faults                                                                 faultFlags
}

func parseServeFlags(args []string, env *Env) (serveFlags, error) {
	var f serveFlags
	fs := newFlagSet("serve", env)
	fs.StringVar(&f.role, "role", "all", "api (HTTP only), worker (exports only) or all")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8080", "HTTP address (roles api and all)")
	fs.StringVar(&f.dsn, "db", "sqlite:downloads.db", dbFlagHelp)
	fs.StringVar(&f.table, "table", "", "occurrence table: a directory or hbase://host:port/name")
	fs.StringVar(&f.storage, "storage", "archives", "archive storage: a directory or s3://bucket/prefix?endpoint=URL&region=R "+
		"(credentials from $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY)")
	fs.StringVar(&f.smtp, "smtp", "", "SMTP server host:port for notifications (none if empty)")
	fs.StringVar(&f.smtpFrom, "smtp-from", "downloads@localhost", "sender of notifications")
	fs.StringVar(&f.smtpUser, "smtp-user", "", "SMTP user (password in $DOWNLOADER_SMTP_PASSWORD)")
	fs.StringVar(&f.publicURL, "public-url", "", "base URL clients use (default http://LISTEN)")
	fs.DurationVar(&f.shutdown, "shutdown-timeout", 30*time.Second, "how long a graceful stop may take")
	fs.Int64Var(&f.maxBody, "max-body", 1<<20, "largest request body in bytes")
	f.faults.register(fs)
	w, wdef := &f.web, web.Config{}.WithDefaults()
	fs.DurationVar(&w.ReadHeaderTimeout, "read-header-timeout", wdef.ReadHeaderTimeout, "longest wait for a request's headers")
	fs.DurationVar(&w.ReadTimeout, "read-timeout", wdef.ReadTimeout, "longest wait for a whole request, body included")
	fs.DurationVar(&w.WriteTimeout, "write-timeout", wdef.WriteTimeout, "longest time to answer a request (archive transfers are exempt)")
	fs.DurationVar(&w.IdleTimeout, "idle-timeout", wdef.IdleTimeout, "how long an idle keep-alive connection stays open")
	fs.DurationVar(&w.ArchiveStallTimeout, "archive-stall-timeout", wdef.ArchiveStallTimeout,
		"an archive transfer whose client takes no 32 KiB in this time is dropped")
	fs.DurationVar(&w.ShutdownGrace, "shutdown-grace", wdef.ShutdownGrace,
		"on stop, how long requests in flight and archive transfers may go on before their connections are closed")
	fs.StringVar(&w.ClientIPHeader, "client-ip-header", "", "header with the client's address behind a reverse proxy "+
		"(X-Forwarded-For: its last address; X-Real-IP); failed logins are counted per address")
	a, adef := &f.auth, jobs.AuthConfig{}.WithDefaults()
	fs.IntVar(&a.AddressFree, "login-free-failures", adef.AddressFree, "failed logins from one address before back-off")
	fs.IntVar(&a.UserFree, "login-free-user-failures", adef.UserFree, "failed logins for one user name before back-off")
	fs.DurationVar(&a.AddressMaxDelay, "login-max-backoff", adef.AddressMaxDelay, "longest back-off of an address")
	fs.DurationVar(&a.UserMaxDelay, "login-max-user-backoff", adef.UserMaxDelay,
		"longest back-off of a user name (addresses the user logged in from are exempt)")
	fs.IntVar(&a.MaxHashers, "login-hashers", adef.MaxHashers, "password checks run at once")
	c, def := &f.jobs, jobs.Config{}.WithDefaults()
	fs.IntVar(&c.MaxRunningPerUser, "max-running", def.MaxRunningPerUser, "running downloads per user")
	fs.StringVar(&c.Portal.Name, "portal-name", "", "publisher in citations and metadata, where GBIF's say GBIF.org (default: the host of --public-url)")
	fs.StringVar(&c.Portal.Short, "portal-short", "", "prefix of a download's title, where GBIF's says GBIF (\"GBIF Occurrence Download\")")
	fs.DurationVar(&c.RetryAfter, "retry-after", def.RetryAfter, "Retry-After of the 420 answer to a user at --max-running")
	fs.IntVar(&c.Workers, "workers", def.Workers, "exports run at once by this process")
	fs.IntVar(&c.MaxAttempts, "max-attempts", def.MaxAttempts, "tries of an export before it fails")
	fs.DurationVar(&c.EraseAfter, "erase-after", def.EraseAfter, "how long archives are kept")
	fs.DurationVar(&c.Lease, "lease", def.Lease, "a worker's claim on a download without heartbeat")
	fs.DurationVar(&c.RescueAfter, "rescue-after", def.RescueAfter, "when a job whose worker vanished runs again")
	fs.DurationVar(&c.Heartbeat, "heartbeat", def.Heartbeat, "progress/cancel check interval of an export")
	fs.DurationVar(&c.MaintenanceInterval, "maintenance", def.MaintenanceInterval, "erase/sweep/reconcile interval")
	fs.DurationVar(&c.FetchPollInterval, "poll", def.FetchPollInterval, "how often idle workers look for jobs")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch jobs.Role(f.role) {
	case jobs.RoleAPI, jobs.RoleWorker, jobs.RoleAll:
		c.Role = jobs.Role(f.role)
	default:
		return f, fmt.Errorf("--role %q: want api, worker or all", f.role)
	}
	return f, nil
}

// runServe: downloader serve.
func runServe(ctx context.Context, args []string, env *Env) error {
	f, err := parseServeFlags(args, env)
	if err != nil {
		return err
	}
	db, err := openJobDB(ctx, f.dsn, env)
	if err != nil {
		return err
	}
	defer db.Close()
	engine, closeTable, err := openEngine(ctx, f.table, env)
	if err != nil {
		return err
	}
	defer closeTable()
	store, err := openStorage(ctx, f.storage)
	if err != nil {
		return err
	}
	mailer, err := openMailer(f)
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
	f.jobs.PublicURL = f.publicURL
	engine = f.faults.wrap(engine)
	svc, err := jobs.New(db, engine, store, mailer, f.jobs, env.Logger)
	if err != nil {
		return err
	}
	return serve(ctx, f, svc, db, ln, env)
}

// serve runs until ctx ends, then stops gracefully: HTTP first, then the
// workers (running exports become SUSPENDED and resume at the next start).
func serve(ctx context.Context, f serveFlags, svc *jobs.Service, db *jobs.DB, ln net.Listener, env *Env) error {
	if err := svc.Start(ctx); err != nil {
		return err
	}
	errc := make(chan error, 1)
	var (
		srv *http.Server
		api *web.Server
	)
	if ln != nil {
		wcfg := f.web
		wcfg.MaxBodyBytes, wcfg.PublicURL = f.maxBody, f.publicURL
		api = web.New(svc, jobs.NewAuthenticator(db, f.auth), wcfg, env.Logger)
		srv = api.HTTPServer()
		go func() { errc <- srv.Serve(ln) }()
		fmt.Fprintf(env.Stdout, "serving %s on %s\n", f.role, f.publicURL)
	} else {
		fmt.Fprintf(env.Stdout, "serving %s\n", f.role)
	}
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
	}
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.shutdown)
	defer cancel()
	if srv != nil {
		// Bounded by --shutdown-grace: a slow client does not eat the time
		// the workers need to suspend their exports.
		_ = api.Shutdown(stopCtx, srv)
	}
	if err := svc.Stop(stopCtx); err != nil {
		runErr = errors.Join(runErr, err)
	}
	if errors.Is(runErr, http.ErrServerClosed) {
		runErr = nil
	}
	return runErr
}

// openEngine opens the occurrence table behind the counts and exports.
func openEngine(ctx context.Context, spec string, env *Env) (jobs.Engine, func(), error) {
	if spec == "" {
		return nil, func() {}, errors.New("no table: give --table DIR")
	}
	t, err := openTable(ctx, spec, env.Logger)
	if err != nil {
		return nil, nil, err
	}
	return tableexport.New(t, tableexport.Config{}, env.Logger), func() { _ = t.Close() }, nil
}

// openStorage opens a directory or an s3:// bucket.
func openStorage(ctx context.Context, spec string) (jobs.Storage, error) {
	if !strings.HasPrefix(spec, "s3://") {
		return local.New(spec)
	}
	u, err := url.Parse(spec)
	if err != nil {
		return nil, fmt.Errorf("--storage %q: %w", spec, err)
	}
	q := u.Query()
	cfg := s3.Config{Bucket: u.Host, Prefix: strings.TrimPrefix(u.Path, "/"), Endpoint: q.Get("endpoint"),
		Region: q.Get("region"), AccessKey: os.Getenv("AWS_ACCESS_KEY_ID"), SecretKey: os.Getenv("AWS_SECRET_ACCESS_KEY"),
		PathStyle: q.Get("endpoint") != ""}
	if v := q.Get("path-style"); v != "" {
		if cfg.PathStyle, err = strconv.ParseBool(v); err != nil {
			return nil, fmt.Errorf("--storage: path-style=%q: %w", v, err)
		}
	}
	return s3.New(ctx, cfg)
}

func openMailer(f serveFlags) (*jobs.Mailer, error) {
	if f.smtp == "" {
		return nil, nil
	}
	return jobs.NewMailer(jobs.MailConfig{Addr: f.smtp, From: f.smtpFrom, Username: f.smtpUser,
		Password: os.Getenv("DOWNLOADER_SMTP_PASSWORD")})
}
