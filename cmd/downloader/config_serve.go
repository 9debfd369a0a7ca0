package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/biodiversity-downloads/downloader/internal/logctx"
)

// serveEnv returns env with the logger the configuration asks for (log.format
// text or json, log.level), writing to env.Stderr; lines logged with a job's
// context carry its download key.
func (f *serveFlags) serveEnv(env *Env) *Env {
	level := slog.LevelInfo
	_ = level.UnmarshalText([]byte(f.conf.Log.Level))
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(env.Stderr, opts)
	if f.conf.Log.Format == "json" {
		h = slog.NewJSONHandler(env.Stderr, opts)
	}
	e := *env
	e.Logger = slog.New(logctx.Handler(h))
	f.reportPending(e.Logger)
	return &e
}

// reportPending says which settings have no effect as configured, so that
// nobody believes them done (an erasure warning or a digest without SMTP
// is refused instead: validateWarning, validateDigests).
func (f *serveFlags) reportPending(logger *slog.Logger) {
	for _, s := range f.conf.Schedules {
		if s.Kind == scheduleRollover && strings.HasPrefix(f.table, "hbase://") && f.exports.table == "" {
			logger.Warn("a rollover schedule of an HBase table writes its snapshot into --export-table, and none is given: its runs fail",
				"schedule", s.Name)
		}
	}
}

// databaseURL is --db with database.password put in (PostgreSQL only).
func (f *serveFlags) databaseURL() (string, error) {
	pw := f.conf.Database.Password.Reveal()
	if pw == "" {
		return f.dsn, nil
	}
	if !strings.HasPrefix(f.dsn, "postgres://") && !strings.HasPrefix(f.dsn, "postgresql://") {
		return "", errors.New("database.password: only a postgres:// database takes a password")
	}
	u, err := url.Parse(f.dsn)
	if err != nil {
		return "", fmt.Errorf("database.url: %s: %w", redactURL(f.dsn), err)
	}
	if _, has := u.User.Password(); has {
		return "", errors.New("database.password: the database URL has a password already")
	}
	u.User = url.UserPassword(u.User.Username(), pw)
	return u.String(), nil
}

// newMetricsRegistry is the registry /metrics serves: the service's metrics
// and the Go runtime's and the process's.
func newMetricsRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// startOps serves h (health, readiness, metrics) on addr; nil without an
// address.
func startOps(addr string, h http.Handler, errc chan<- error, env *Env) (*http.Server, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--ops-listen: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(env.Stdout, "ops endpoints (/healthz, /readyz, /metrics) on http://%s\n", ln.Addr())
	return srv, nil
}
