package web

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Option configures a Server beyond its Config.
type Option func(*Server)

// WithMetrics serves reg at /metrics and counts the API's requests on it:
// downloader_http_requests_total by route pattern, method and status code,
// and downloader_http_request_duration_seconds by route pattern and method.
// Routes are labelled by their pattern, never by the raw path, so the
// number of series stays bounded.
func WithMetrics(reg *prometheus.Registry) Option {
	return func(s *Server) {
		s.gatherer = reg
		s.httpMetrics = newHTTPMetrics()
		reg.MustRegister(s.httpMetrics.requests, s.httpMetrics.duration)
	}
}

type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newHTTPMetrics() *httpMetrics {
	return &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "downloader_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "downloader_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests (archives: the whole transfer), by route pattern and method.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 120, 600},
		}, []string{"route", "method"}),
	}
}

// unmatchedRoute labels requests no route matched (404, 405).
const unmatchedRoute = "unmatched"

// observe serves r through next and counts it under the pattern the mux
// matched.
func (m *httpMetrics) observe(w http.ResponseWriter, r *http.Request, next http.Handler) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w}
	next.ServeHTTP(rec, r)
	route := unmatchedRoute
	if _, path, ok := strings.Cut(r.Pattern, " "); ok {
		route = path
	}
	method := metricMethod(r.Method)
	m.requests.WithLabelValues(route, method, strconv.Itoa(rec.status())).Inc()
	m.duration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
}

// metricMethod keeps the method label bounded: unknown methods are "other".
func metricMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions, http.MethodPatch:
		return m
	}
	return "other"
}

// statusRecorder remembers the status code written through it. It keeps
// the writer's fast paths: ReadFrom (sendfile for archives), Flush and
// Hijack, and Unwrap for http.ResponseController.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.code == 0 && code >= 200 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(p []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}

func (s *statusRecorder) ReadFrom(r io.Reader) (int64, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	if rf, ok := s.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(s.ResponseWriter, r)
}

func (s *statusRecorder) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := s.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("hijacking not supported")
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusRecorder) status() int {
	if s.code == 0 {
		return http.StatusOK
	}
	return s.code
}

// healthz: GET /healthz answers 200 while the process serves.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	writeText(w, http.StatusOK, "ok\n")
	return nil
}

// readinessTimeout bounds the checks of one /readyz request.
const readinessTimeout = 5 * time.Second

// readyz: GET /readyz checks the job database, the occurrence table and the
// storage: 200 when all answer, else 503 naming the ones that failed (their
// errors are logged, not shown: they may name internal hosts).
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), readinessTimeout)
	defer cancel()
	out := struct {
		Status string            `json:"status"`
		Failed []string          `json:"failed,omitempty"`
		Checks map[string]string `json:"checks"`
	}{Status: "ok", Checks: map[string]string{}}
	for _, c := range s.svc.Ready(ctx) {
		if c.Err == nil {
			out.Checks[c.Name] = "ok"
			continue
		}
		s.logger.WarnContext(r.Context(), "not ready", "check", c.Name, "err", c.Err)
		out.Checks[c.Name] = "failed"
		out.Failed = append(out.Failed, c.Name)
	}
	code := http.StatusOK
	if len(out.Failed) > 0 {
		out.Status, code = "unavailable", http.StatusServiceUnavailable
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, code, out)
	return nil
}

// metricsHandler: GET /metrics in Prometheus's text format (404 when the
// server was built without WithMetrics).
func (s *Server) metricsHandler(w http.ResponseWriter, r *http.Request) error {
	if s.gatherer == nil {
		writeText(w, http.StatusNotFound, "metrics are not enabled\n")
		return nil
	}
	promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{}).ServeHTTP(w, r)
	return nil
}

// OpsHandler serves only /healthz, /readyz and /metrics: what a worker
// process, which has no API, offers its orchestrator and Prometheus.
func (s *Server) OpsHandler() http.Handler {
	mux := http.NewServeMux()
	for _, r := range s.opsRoutes() {
		mux.HandleFunc(r.method+" "+r.pattern, s.handle(r.handler))
	}
	return s.instrument(mux)
}

// opsRoutes are the operator's routes, outside the API's /v1.
func (s *Server) opsRoutes() []route {
	return []route{
		{"GET", "/healthz", nil, s.healthz},
		{"GET", "/readyz", nil, s.readyz},
		{"GET", "/metrics", nil, s.metricsHandler},
	}
}

// instrument counts the requests h serves when metrics are enabled.
func (s *Server) instrument(h http.Handler) http.Handler {
	if s.httpMetrics == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.httpMetrics.observe(w, r, h) })
}
