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

// Config holds the API's settings; zero fields take the defaults of
// WithDefaults.
type Config struct {
	// MaxBodyBytes caps request bodies (1 MiB by default).
	MaxBodyBytes int64
	// PublicURL is the base URL clients use; empty means the request's own
	// scheme and host.
	PublicURL string

	// ReadHeaderTimeout bounds reading a request's headers (10 s), and
	// ReadTimeout the whole request with its body (1 min): a client that
	// sends slowly is disconnected.
	ReadHeaderTimeout, ReadTimeout time.Duration
	// WriteTimeout bounds handling a request and writing its answer
	// (2 min). Archive transfers are exempt; ArchiveStallTimeout bounds
	// them instead.
	WriteTimeout time.Duration
	// IdleTimeout is how long a keep-alive connection may wait for its next
	// request (1 min).
	IdleTimeout time.Duration
	// ArchiveStallTimeout is how long an archive transfer may wait for the
	// client to take the next 32 KiB (1 min): a client that stops reading is
	// dropped, one that reads at any rate above 32 KiB per timeout never is.
	ArchiveStallTimeout time.Duration
	// ClientIPHeader names the header that carries the client's address
	// when the API runs behind a reverse proxy ("X-Forwarded-For": its last
	// address, the one the proxy added; "X-Real-IP": its value). Empty: the
	// connection's address. Failed logins are counted by this address, so
	// behind a proxy it must be set, and without one it must not (clients
	// would choose their own address).
	ClientIPHeader string
	// ShutdownGrace is how long requests in flight, archive transfers
	// included, may go on once the server stops (5 s); then their
	// connections are closed. Idle connections are closed at once.
	ShutdownGrace time.Duration
	// Search answers the occurrence search and record routes
	// (/v1/occurrence/search, /count, /{gbifID}); nil answers them 503.
	Search Searcher
	// Species answers GBIF's species routes (/v1/species/match, suggest,
	// {key}, children, synonyms, parents; /v2/species/match); nil answers
	// them 503.
	Species Species
	// Page is the portal page served at / (NewPage); nil serves none.
	Page *Page
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = 1 << 20
	}
	def(&c.ReadHeaderTimeout, 10*time.Second)
	def(&c.ReadTimeout, time.Minute)
	def(&c.WriteTimeout, 2*time.Minute)
	def(&c.IdleTimeout, time.Minute)
	def(&c.ArchiveStallTimeout, time.Minute)
	def(&c.ShutdownGrace, 5*time.Second)
	return c
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
	cfg = cfg.WithDefaults()
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
			dl + "/request/{key}.zip.sha256", dl + "/request/{key}.avro", dl + "/request/{key}.avro.sha256"}, s.getFile},
		{"DELETE", dl + "/request/{key}", nil, s.cancel},
		{"GET", dl + "/describe/{format}", []string{dl + "/describe/dwca", dl + "/describe/simpleCsv",
			dl + "/describe/speciesList", dl + "/describe/simpleAvro", dl + "/describe/simpleWithVerbatimAvro", dl + "/describe/simpleParquet", dl + "/describe/fastaArchive", dl + "/describe/mapOfLife", dl + "/describe/bionomia",
			dl + "/describe/sql"}, s.describe},
		{"GET", stats, nil, s.statistics},
		{"GET", stats + "/export", nil, s.statisticsExport},
		{"GET", stats + "/downloadsByUserCountry", nil, s.downloadsByUserCountry},
		{"GET", stats + "/downloadsBySource", nil, s.downloadsBySource},
		{"GET", stats + "/downloadedRecordsByDataset", nil, s.downloadedRecordsByDataset},
		{"GET", stats + "/downloadsByDataset", nil, s.downloadsByDataset},
		{"GET", dl + "/dataset/{datasetKey}", nil, s.datasetActivity},
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
	}, slices.Concat(s.opsRoutes(), s.searchRoutes(), s.speciesRoutes(), s.pageRoutes())...)
}

// HTTPServer returns an http.Server for s with the configured timeouts.
// Stop it with Shutdown.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{Handler: s, ReadHeaderTimeout: s.cfg.ReadHeaderTimeout, ReadTimeout: s.cfg.ReadTimeout,
		WriteTimeout: s.cfg.WriteTimeout, IdleTimeout: s.cfg.IdleTimeout,
		ErrorLog: slog.NewLogLogger(s.logger.Handler(), slog.LevelDebug)}
}

// Shutdown stops srv: it accepts nothing more and closes idle connections
// at once, lets requests in flight (archive transfers too) go on for
// ShutdownGrace or until ctx ends, whichever comes first, and then closes
// every connection left, so that a slow client never holds up the stop of
// the workers that follows.
func (s *Server) Shutdown(ctx context.Context, srv *http.Server) error {
	gctx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownGrace)
	defer cancel()
	err := srv.Shutdown(gctx)
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		s.logger.WarnContext(ctx, "closing connections still busy after the shutdown grace", "grace", s.cfg.ShutdownGrace)
		return srv.Close()
	}
	return err
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	// GBIF's APIs match a path with a trailing slash as without
	// (WebMvcConfig setUseTrailingSlashMatch).
	if p := r.URL.Path; len(p) > len("/v1/") && strings.HasPrefix(p, "/v1/") && strings.HasSuffix(p, "/") {
		r.URL.Path = strings.TrimSuffix(p, "/")
		r.URL.RawPath = strings.TrimSuffix(r.URL.RawPath, "/")
	}
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
	u, err := s.checkPassword(r, name, pass)
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// checkPassword checks a user's password with the authenticator (the
// same constant cost, and back-off after failures per client address and
// per user name, for HTTP Basic and the page's sign-in) and logs a refusal
// with the user name and address, never the password: the back-off is
// per process, so the log is where guessing shows.
func (s *Server) checkPassword(r *http.Request, name, password string) (jobs.User, error) {
	addr := s.clientAddr(r)
	u, err := s.auth.Check(r.Context(), name, password, addr)
	if errors.Is(err, jobs.ErrUnauthorized) {
		s.logger.InfoContext(r.Context(), "login refused", "user", name, "addr", addr, "err", err)
	}
	return u, err
}

// clientAddr is the address of the client that sent r (see
// Config.ClientIPHeader).
func (s *Server) clientAddr(r *http.Request) string {
	if s.cfg.ClientIPHeader == "" {
		return r.RemoteAddr
	}
	v := r.Header.Values(s.cfg.ClientIPHeader)
	if len(v) == 0 {
		return r.RemoteAddr
	}
	last := v[len(v)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return strings.TrimSpace(last)
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
		var te *jobs.ThrottleError
		if errors.As(err, &te) { // failed logins
			w.Header().Set("Retry-After", strconv.Itoa(int((te.RetryAfter+time.Second-1)/time.Second)))
		} else { // counts
			w.Header().Set("Retry-After", strconv.Itoa(max(1, int(s.svc.Config().CountRetryAfter/time.Second))))
		}
	case http.StatusServiceUnavailable:
		if errors.Is(err, jobs.ErrAuthBusy) {
			w.Header().Set("Retry-After", "1")
		}
	case http.StatusRequestTimeout:
		// The body's read timeout may have taken the write deadline with
		// it: the answer gets a moment of its own.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(5 * time.Second))
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
	case errors.Is(err, jobs.ErrTooManyAttempts):
		return http.StatusTooManyRequests
	case errors.Is(err, jobs.ErrAuthBusy):
		return http.StatusServiceUnavailable
	case errors.Is(err, errBodyTimeout):
		return http.StatusRequestTimeout
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
	case errors.Is(err, context.Canceled), errors.Is(err, errClientGone):
		return 499
	}
	return http.StatusInternalServerError
}

// errBodyTimeout: the request body did not arrive within the read timeout;
// errClientGone: the connection ended before the body did (the client went,
// or the server closed it at shutdown).
var (
	errBodyTimeout = errors.New("the request body did not arrive in time")
	errClientGone  = errors.New("the connection ended before the request body")
)

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
