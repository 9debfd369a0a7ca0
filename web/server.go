// Package web serves the GBIF-compatible download REST API under /v1 and its
// OpenAPI document. Handlers translate HTTP to calls of the jobs service and
// its errors back to HTTP statuses; the rules themselves live in jobs.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// Config holds the API's settings.
type Config struct {
	// MaxBodyBytes caps request bodies (1 MiB by default).
	MaxBodyBytes int64
	// PublicURL is the base URL clients use; empty means the request's own
	// scheme and host.
	PublicURL string
	// Search answers the occurrence search and record routes
	// (/v1/occurrence/search, /count, /{gbifID}); nil answers them 503.
	Search Searcher
	// Page is the portal page served at / (NewPage); nil serves none.
	Page *Page
}

// Server is the REST API.
type Server struct {
	svc    *jobs.Service
	auth   *jobs.Authenticator
	cfg    Config
	logger *slog.Logger
	mux    *http.ServeMux

	handler     http.Handler // mux, instrumented when metrics are enabled
	gatherer    prometheus.Gatherer
	httpMetrics *httpMetrics
}

// route is one registered pattern and the OpenAPI operations it serves.
type route struct {
	method, pattern string
	// docs are the OpenAPI paths (under the same method) this pattern serves.
	docs    []string
	handler func(http.ResponseWriter, *http.Request) error
}

// New returns the API server; a nil logger discards.
func New(svc *jobs.Service, auth *jobs.Authenticator, cfg Config, logger *slog.Logger, opts ...Option) *Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	s := &Server{svc: svc, auth: auth, cfg: cfg, logger: logger, mux: http.NewServeMux()}
	for _, o := range opts {
		o(s)
	}
	for _, r := range s.routes() {
		s.mux.HandleFunc(r.method+" "+r.pattern, s.handle(r.handler))
	}
	s.handler = s.instrument(s.mux)
	return s
}

// handle adapts a handler that returns its error: an error is answered by
// fail (nothing may have been written before it is returned).
func (s *Server) handle(h func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.fail(w, r, err)
		}
	}
}

func (s *Server) routes() []route {
	const dl = "/v1/occurrence/download"
	const stats = dl + "/statistics"
	return append([]route{
		{"POST", dl + "/request", nil, s.postRequest},
		{"GET", dl + "/request", nil, s.getRequest},
		{"GET", dl + "/request/predicate", nil, s.getPredicate},
		{"POST", dl + "/request/validate", nil, s.validateRequest},
		{"GET", dl + "/request/{file}", []string{dl + "/request/{key}.zip", dl + "/request/{key}",
			dl + "/request/{key}.zip.sha256"}, s.getFile},
		{"DELETE", dl + "/request/{key}", nil, s.cancel},
		{"GET", dl + "/describe/{format}", []string{dl + "/describe/dwca", dl + "/describe/simpleCsv",
			dl + "/describe/speciesList", dl + "/describe/simpleParquet"}, s.describe},
		{"GET", stats, nil, s.statistics},
		{"GET", stats + "/export", nil, s.statisticsExport},
		{"GET", stats + "/downloadsByUserCountry", nil, s.downloadsByUserCountry},
		{"GET", stats + "/downloadsBySource", nil, s.downloadsBySource},
		{"GET", stats + "/downloadedRecordsByDataset", nil, s.downloadedRecordsByDataset},
		{"GET", stats + "/downloadsByDataset", nil, s.downloadsByDataset},
		{"GET", dl + "/user/{user}", nil, s.listUser},
		{"GET", dl + "/user/{user}/count", nil, s.countUser},
		{"GET", dl + "/{key}", nil, s.getStatus},
		{"PUT", dl + "/{key}", nil, s.postpone},
		// One pattern for the sub-resources: a separate {key}/datasets would
		// overlap request/{file} in Go's ServeMux.
		{"GET", dl + "/{key}/{sub}", []string{dl + "/{key}/datasets", dl + "/{key}/citation",
			dl + "/{key}/organizations", dl + "/{key}/countries"}, s.getSub},
		{"GET", dl + "/{key}/datasets/export", nil, s.datasetsExport},
		{"GET", "/v1/occurrence/search/count", nil, s.count},
		{"POST", "/v1/occurrence/search/predicate", nil, s.countPredicate},
		{"GET", "/v1/openapi.json", nil, s.openAPI},
	}, slices.Concat(s.opsRoutes(), s.searchRoutes(), s.pageRoutes())...)
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	s.handler.ServeHTTP(w, r)
}

// caller returns the authenticated user, nil for an anonymous request, or
// an error for bad credentials.
func (s *Server) caller(r *http.Request) (*jobs.User, error) {
	if r.Header.Get("Authorization") == "" {
		return nil, nil
	}
	name, pass, ok := r.BasicAuth()
	if !ok {
		return nil, fmt.Errorf("%w: only HTTP Basic authentication is supported", jobs.ErrUnauthorized)
	}
	u, err := s.auth.Check(r.Context(), name, pass)
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// mustCaller is caller for endpoints that need a user.
func (s *Server) mustCaller(r *http.Request) (jobs.User, error) {
	u, err := s.caller(r)
	if err != nil {
		return jobs.User{}, err
	}
	if u == nil {
		return jobs.User{}, fmt.Errorf("%w: this endpoint needs HTTP Basic authentication", jobs.ErrUnauthorized)
	}
	return *u, nil
}

// statusEnhanceYourCalm is GBIF's answer to a user with too many running
// downloads (Spring's METHOD_FAILURE; GBIF's code says "Keep HTTP 420").
const statusEnhanceYourCalm = 420

// fail writes err as a plain-text message with the status its kind maps to.
// A 401 carries a Basic challenge; a 420 a Retry-After of the service's
// RetryAfter setting (GBIF sends none; clients that honour it wait as long
// as the service asks); a 429 (counts at their concurrency limit) one of
// CountRetryAfter.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := statusOf(err)
	switch code {
	case http.StatusUnauthorized:
		w.Header().Set("WWW-Authenticate", `Basic realm="downloads", charset="UTF-8"`)
	case statusEnhanceYourCalm:
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(s.svc.Config().RetryAfter/time.Second))))
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(s.svc.Config().CountRetryAfter/time.Second))))
	case http.StatusInternalServerError:
		s.logger.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	msg := err.Error()
	if code == http.StatusInternalServerError {
		msg = "internal error"
	}
	writeText(w, code, msg+"\n")
}

func statusOf(err error) int {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig), errors.Is(err, jobs.ErrPredicateTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, jobs.ErrInvalidRequest), errors.Is(err, jobs.ErrUnknownFormat):
		return http.StatusBadRequest
	case errors.Is(err, jobs.ErrUnauthorized):
		return http.StatusUnauthorized
	case errors.Is(err, jobs.ErrForbidden):
		return http.StatusForbidden
	case errors.Is(err, jobs.ErrNotFound), errors.Is(err, jobs.ErrNotReady):
		return http.StatusNotFound
	case errors.Is(err, jobs.ErrErased):
		return http.StatusGone
	case errors.Is(err, jobs.ErrTooManyDownloads):
		return statusEnhanceYourCalm
	case errors.Is(err, jobs.ErrEngineUnavailable):
		return http.StatusServiceUnavailable
	case errors.Is(err, jobs.ErrTooManyCounts):
		return http.StatusTooManyRequests
	case errors.Is(err, jobs.ErrCountTimeout):
		return http.StatusGatewayTimeout
	case errors.Is(err, context.Canceled):
		return 499
	}
	return http.StatusInternalServerError
}

// baseURL is the public base URL for links.
func (s *Server) baseURL(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimRight(s.cfg.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
