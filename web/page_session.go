package web

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// Sign-in for the page: a session cookie (HttpOnly, SameSite=Lax, Secure
// and __Host- prefixed when the public URL is https) whose token the
// database knows only by its hash, and CSRF protection on every request
// that changes something: the browser's own cross-origin signals
// (Sec-Fetch-Site, Origin; net/http's CrossOriginProtection), a JSON body
// (a cross-site form cannot send one without a preflight), and the
// session's CSRF token in the X-CSRF-Token header. The /v1 API keeps HTTP
// Basic for clients and never reads the cookie.

// csrfHeader carries the session's CSRF token.
const csrfHeader = "X-CSRF-Token"

// sessionCookie is the cookie's name: with the __Host- prefix the browser
// keeps it only when it is Secure, for this host and path /.
func (p *Page) sessionCookie() string {
	if p.cfg.Secure {
		return "__Host-session"
	}
	return "session"
}

// pageError is an error of the page's API: its status from statusOf, a
// code the script turns into words, and the message.
type pageError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Codes of pageError besides the HTTP status.
const (
	codeSessionExpired  = "session_expired"
	codeSignInFailed    = "sign_in_failed"
	codeSignInThrottled = "sign_in_throttled"
	codeCrossOrigin     = "cross_origin"
	codeCSRF            = "csrf"
)

// errCSRF refuses a change without the session's CSRF token.
var errCSRF = errors.New("the request is missing the page's CSRF token")

// retryAfterOf is how long a refused sign-in should wait (0: no hint).
func retryAfterOf(err error) time.Duration {
	var te *jobs.ThrottleError
	if errors.As(err, &te) {
		return max(time.Second, te.RetryAfter)
	}
	return 0
}

// pageAPI adapts a page API handler: errors are answered as JSON
// {"code", "message"} with the status of their kind, and requests that
// change something pass the CSRF checks first.
func (s *Server) pageAPI(h func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Cache-Control", "no-store")
		err := s.pageGuard(r)
		if err == nil {
			err = h(w, r)
		}
		if err != nil {
			s.pageFail(w, r, err)
		}
		return nil
	}
}

// pageGuard checks a request that changes something: same origin and a
// JSON body (or none).
func (s *Server) pageGuard(r *http.Request) error {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	if err := s.cfg.Page.origin.Check(r); err != nil {
		return &codedError{code: codeCrossOrigin, status: http.StatusForbidden, err: err}
	}
	if r.ContentLength != 0 {
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mt != "application/json" {
			return &codedError{code: codeCrossOrigin, status: http.StatusUnsupportedMediaType,
				err: fmt.Errorf("the page's API takes JSON bodies, not %q", mt)}
		}
	}
	return nil
}

// codedError is an error with its page code and status.
type codedError struct {
	code   string
	status int
	err    error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// pageFail answers err as the page's JSON error.
func (s *Server) pageFail(w http.ResponseWriter, r *http.Request, err error) {
	var ce *codedError
	code, status := "", statusOf(err)
	if errors.As(err, &ce) {
		code, status = ce.code, ce.status
	} else if errors.Is(err, jobs.ErrSessionExpired) {
		code, status = codeSessionExpired, http.StatusUnauthorized
	}
	msg := err.Error()
	switch status {
	case http.StatusInternalServerError:
		s.logger.ErrorContext(r.Context(), "page request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		msg = "internal error"
	case statusEnhanceYourCalm:
		w.Header().Set("Retry-After", fmt.Sprint(max(1, int(s.svc.Config().RetryAfter/time.Second))))
	case http.StatusTooManyRequests:
		if ra := retryAfterOf(err); ra > 0 {
			w.Header().Set("Retry-After", fmt.Sprint(int(ra/time.Second)))
		}
	}
	if code == "" {
		code = http.StatusText(status)
	}
	writeJSON(w, status, pageError{Code: code, Message: msg})
}

// session returns the request's session or ErrSessionExpired.
func (s *Server) session(r *http.Request) (jobs.Session, error) {
	p := s.cfg.Page
	c, err := r.Cookie(p.sessionCookie())
	if err != nil {
		return jobs.Session{}, jobs.ErrSessionExpired
	}
	return s.svc.Session(r.Context(), c.Value, p.cfg.Sessions)
}

// signedIn returns the session of a request that must have one; one that
// changes something must also carry the session's CSRF token.
func (s *Server) signedIn(r *http.Request) (jobs.Session, error) {
	ses, err := s.session(r)
	if err != nil {
		return ses, err
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	default:
		got := r.Header.Get(csrfHeader)
		if subtle.ConstantTimeCompare([]byte(got), []byte(ses.CSRF)) != 1 {
			return ses, &codedError{code: codeCSRF, status: http.StatusForbidden, err: errCSRF}
		}
	}
	return ses, nil
}

// sessionJSON is what the page learns of its session.
type sessionJSON struct {
	User    string    `json:"user"`
	Email   string    `json:"email"`
	Admin   bool      `json:"admin"`
	CSRF    string    `json:"csrf"`
	Expires time.Time `json:"expires"`
}

func toSessionJSON(ses jobs.Session) sessionJSON {
	return sessionJSON{User: ses.User.Name, Email: ses.User.Email, Admin: ses.User.Admin, CSRF: ses.CSRF, Expires: ses.Expires}
}

// pageSession: GET /ui/api/session, the signed-in user and the CSRF token,
// or 401 session_expired.
func (s *Server) pageSession(w http.ResponseWriter, r *http.Request) error {
	ses, err := s.session(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toSessionJSON(ses))
	return nil
}

// pageSignIn: POST /ui/api/signin {"user", "password"}: checks the password
// as the API's Basic authentication does (the same back-off after
// failures) and starts a session.
func (s *Server) pageSignIn(w http.ResponseWriter, r *http.Request) error {
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	var in struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("%w: sign-in body: %v", jobs.ErrInvalidRequest, err)
	}
	u, err := s.checkPassword(r, in.User, in.Password)
	switch {
	case errors.Is(err, jobs.ErrUnauthorized):
		return &codedError{code: codeSignInFailed, status: http.StatusUnauthorized,
			err: errors.New("unknown user or wrong password")}
	case errors.Is(err, jobs.ErrTooManyAttempts):
		return &codedError{code: codeSignInThrottled, status: http.StatusTooManyRequests, err: err}
	}
	if err != nil {
		return err
	}
	p := s.cfg.Page
	ses, err := s.svc.NewSession(r.Context(), u, p.cfg.Sessions)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: p.sessionCookie(), Value: ses.Token, Path: "/", HttpOnly: true,
		Secure: p.cfg.Secure, SameSite: http.SameSiteLaxMode, MaxAge: int(p.cfg.Sessions.WithDefaults().Max / time.Second)})
	writeJSON(w, http.StatusOK, toSessionJSON(ses))
	return nil
}

// pageSignOut: POST /ui/api/signout ends the session and clears the
// cookie; signing out without a session is no error.
func (s *Server) pageSignOut(w http.ResponseWriter, r *http.Request) error {
	p := s.cfg.Page
	if c, err := r.Cookie(p.sessionCookie()); err == nil {
		if _, err := s.signedIn(r); err != nil && !errors.Is(err, jobs.ErrSessionExpired) {
			return err
		}
		if err := s.svc.EndSession(r.Context(), c.Value); err != nil {
			return err
		}
	}
	http.SetCookie(w, &http.Cookie{Name: p.sessionCookie(), Value: "", Path: "/", HttpOnly: true,
		Secure: p.cfg.Secure, SameSite: http.SameSiteLaxMode, MaxAge: -1})
	w.WriteHeader(http.StatusNoContent)
	return nil
}
