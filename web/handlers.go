package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
)

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeText(w http.ResponseWriter, code int, s string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, s)
}

// readBody reads a capped request body.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return nil, fmt.Errorf("%w (%s)", errBodyTimeout, s.cfg.ReadTimeout)
	case errors.Is(err, net.ErrClosed), errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("%w: %w", errClientGone, err)
	}
	return b, err
}

// submit records req by u and answers with the new (or deduplicated)
// download's key as the bare body, 201 as GBIF answers.
func (s *Server) submit(w http.ResponseWriter, r *http.Request, u jobs.User, req jobs.Request) error {
	req.Source = sourceOf(r)
	// The language of the notices when the user has none set.
	req.Language = truncate(r.Header.Get("Accept-Language"), 200)
	key, err := s.svc.Submit(r.Context(), u, req)
	if err != nil {
		return err
	}
	w.Header().Set("Location", s.baseURL(r)+"/v1/occurrence/download/"+key)
	if prefersJSON(r.Header.Get("Accept")) {
		// GBIF's startDownload produces text/plain and application/json,
		// the bare key either way; rgbif asks for JSON and checks the
		// Content-Type.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, key)
		return nil
	}
	writeText(w, http.StatusCreated, key)
	return nil
}

// prefersJSON reports whether an Accept header ranks application/json
// above text/plain, which a route producing both (text/plain first, as
// GBIF's) answers otherwise: by quality, then by order.
func prefersJSON(accept string) bool {
	qJSON, qText := -1.0, -1.0
	posJSON, posText := 0, 0
	for i, part := range strings.Split(accept, ",") {
		mt, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "application/json":
			if q > qJSON {
				qJSON, posJSON = q, i
			}
		case "text/plain", "text/*", "*/*":
			if q > qText {
				qText, posText = q, i
			}
		}
	}
	return qJSON > 0 && (qJSON > qText || qJSON == qText && posJSON < posText)
}

// sourceOf is GBIF's Download.source of a request: the source parameter,
// else rgbif, pygbif or python when the User-Agent names one (in that
// order), else the whole User-Agent (at most 500 bytes kept).
func sourceOf(r *http.Request) string {
	if v := r.URL.Query().Get("source"); v != "" {
		return truncate(v, 500)
	}
	ua := r.UserAgent()
	lower := strings.ToLower(ua)
	for _, client := range []string{"rgbif", "pygbif", "python"} {
		if strings.Contains(lower, client) {
			return client
		}
	}
	return truncate(ua, 500)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// postRequest: POST /v1/occurrence/download/request with GBIF's JSON body.
func (s *Server) postRequest(w http.ResponseWriter, r *http.Request) error {
	u, err := s.mustCaller(r)
	if err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	req, err := jobs.DecodeRequest(body)
	if err != nil {
		return err
	}
	return s.submit(w, r, u, req)
}

// validateRequest: POST /v1/occurrence/download/request/validate checks a
// request body as a submission would be checked, recording nothing. GBIF
// validates only SQL requests there (a predicate request gets 422 "not
// implemented"); a client can expect the answers of its SQL validation:
// the normalized request as JSON with 201, or 400 with {"status":"INVALID",
// "reason":...}. Bad credentials are 401; anonymous callers may validate.
func (s *Server) validateRequest(w http.ResponseWriter, r *http.Request) error {
	u, err := s.caller(r)
	if err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	req, err := jobs.DecodeRequest(body)
	if err == nil {
		req, err = s.svc.Validate(r.Context(), u, req)
	}
	var tooBig *http.MaxBytesError
	if err != nil && !errors.As(err, &tooBig) {
		if code := statusOf(err); code == http.StatusBadRequest || code == http.StatusRequestEntityTooLarge {
			writeJSON(w, http.StatusBadRequest, struct {
				Status string `json:"status"`
				Reason string `json:"reason"`
			}{"INVALID", err.Error()})
			return nil
		}
	}
	if err != nil {
		return err
	}
	// 201: gbif-common-ws's CreatedResponseFilter turns every 2xx answer
	// to a POST but 204 into 201, the validation's too.
	writeJSON(w, http.StatusCreated, req)
	return nil
}

// Query parameters of the GET download shortcuts that are not search
// parameters.
var (
	addressParams = []string{"notification_address", "notificationAddress", "notificationAddresses",
		"notification_addresses"}
	requestParams = append([]string{"format", "send_notification", "sendNotification", "description",
		"checklistKey", "source", "verbatimExtensions", "interpretedExtensions", "machineDescription"}, addressParams...)
)

// requestFromQuery builds a download request from portal search parameters.
func (s *Server) requestFromQuery(q url.Values) (jobs.Request, error) {
	search := url.Values{}
	for k, v := range q {
		search[k] = v
	}
	for _, p := range requestParams {
		delete(search, p)
	}
	req := jobs.Request{Format: q.Get("format"), Type: "OCCURRENCE", Description: q.Get("description"),
		ChecklistKey: q.Get("checklistKey")}
	for _, p := range addressParams {
		for _, v := range q[p] {
			req.NotificationAddresses = append(req.NotificationAddresses, strings.Split(v, ",")...)
		}
	}
	req.SendNotification = len(req.NotificationAddresses) > 0
	for _, p := range []string{"send_notification", "sendNotification"} {
		if v := q.Get(p); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return jobs.Request{}, fmt.Errorf("%w: %s=%q is not true or false", jobs.ErrInvalidRequest, p, v)
			}
			req.SendNotification = b
		}
	}
	// GBIF's downloadPredicate reads these too: extensions comma-separated
	// (or repeated), the machine description as JSON.
	req.VerbatimExtensions = listParam(q["verbatimExtensions"])
	req.InterpretedExtensions = listParam(q["interpretedExtensions"])
	if v := q.Get("machineDescription"); v != "" {
		if !json.Valid([]byte(v)) {
			return jobs.Request{}, fmt.Errorf("%w: machineDescription is not JSON", jobs.ErrInvalidRequest)
		}
		req.MachineDescription = json.RawMessage(v)
	}
	pred, err := s.svc.PredicateFromQuery(search)
	if err != nil {
		return jobs.Request{}, err
	}
	req.Predicate = pred
	return req, nil
}

// getRequest: GET (and HEAD) /v1/occurrence/download/request never creates
// a download: a GET must not change state, and a HEAD, a prefetching browser
// or a crawler following a link would otherwise queue one. GBIF's portal
// creates downloads with this GET; here it answers 405 with Allow: POST and
// says what to do instead (docs/clients.md).
func (s *Server) getRequest(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Allow", "POST")
	writeText(w, http.StatusMethodNotAllowed, "GET does not create a download: POST the request "+
		"(JSON with format and predicate) to /v1/occurrence/download/request. "+
		"GET /v1/occurrence/download/request/predicate with these search parameters and format "+
		"returns the request to POST.\n")
	return nil
}

// getPredicate: GET /v1/occurrence/download/request/predicate converts
// search parameters to the request a client would POST. format is
// required, as GBIF requires it (its messages).
func (s *Server) getPredicate(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if _, ok := q["format"]; !ok {
		return fmt.Errorf("%w: Required request parameter 'format' for method parameter type String is not present", jobs.ErrInvalidRequest)
	}
	if strings.TrimSpace(q.Get("format")) == "" {
		return fmt.Errorf("%w: Format param is not present", jobs.ErrInvalidRequest)
	}
	req, err := s.requestFromQuery(q)
	if err != nil {
		return err
	}
	u, err := s.caller(r) // GBIF sets the creator of a signed-in caller
	if err != nil {
		return err
	}
	if req, err = s.svc.Validate(r.Context(), u, req); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, req)
	return nil
}

// boolParam reads an optional true/false parameter.
func boolParam(q url.Values, name string, def bool) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%w: %s=%q is not true or false", jobs.ErrInvalidRequest, name, v)
	}
	return b, nil
}

// getStatus: GET /v1/occurrence/download/{key}[?statistics=true].
func (s *Server) getStatus(w http.ResponseWriter, r *http.Request) error {
	u, err := s.caller(r)
	if err != nil {
		return err
	}
	stats, err := boolParam(r.URL.Query(), "statistics", false)
	if err != nil {
		return err
	}
	d, err := s.svc.Get(r.Context(), u, r.PathValue("key"), stats)
	if err != nil {
		return err
	}
	s.present(r, &d)
	if wait := s.svc.PollInterval(d); wait > 0 {
		secs := strconv.Itoa(int(wait / time.Second))
		w.Header().Set("Cache-Control", "private, max-age="+secs)
		w.Header().Set("Retry-After", secs)
	} else {
		w.Header().Set("Cache-Control", "private, max-age=60")
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

// present fills what depends on the HTTP side (the link).
func (s *Server) present(r *http.Request, d *jobs.Download) {
	if d.Status == jobs.StatusSucceeded || d.Status == jobs.StatusFileErased {
		name, _ := jobs.FileName(d.Key, d.Request.Format)
		d.DownloadLink = s.baseURL(r) + "/v1/occurrence/download/request/" + name
	}
}

// listFilter reads GBIF's status (repeated or comma-separated) and from
// (a date or date-time) parameters.
func listFilter(q url.Values) (jobs.ListFilter, error) {
	var f jobs.ListFilter
	for _, v := range q["status"] {
		for _, st := range strings.Split(v, ",") {
			f.Statuses = append(f.Statuses, jobs.Status(strings.ToUpper(strings.TrimSpace(st))))
		}
	}
	if v := q.Get("from"); v != "" {
		var t jobs.Time
		b, _ := json.Marshal(v)
		if err := t.UnmarshalJSON(b); err == nil {
			f.From = t.Time
		} else if lt, lerr := time.Parse("2006-01-02T15:04:05.999999999", v); lerr == nil {
			// GBIF's own form: an ISO local date-time
			// (@DateTimeFormat(iso = DATE_TIME) LocalDateTime), read as UTC.
			f.From = lt
		} else {
			return f, fmt.Errorf("%w: from=%q: %v", jobs.ErrInvalidRequest, v, err)
		}
	}
	return f, nil
}

// listUser: GET /v1/occurrence/download/user/{user}.
func (s *Server) listUser(w http.ResponseWriter, r *http.Request) error {
	u, err := s.mustCaller(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	pp := paging(q)
	f, err := listFilter(q)
	if err != nil {
		return err
	}
	stats, err := boolParam(q, "statistics", true)
	if err != nil {
		return err
	}
	p, err := s.svc.List(r.Context(), u, r.PathValue("user"), f, stats, pp.limit, pp.offset)
	if err != nil {
		return err
	}
	s.writeDownloads(w, r, paged(p, pp))
	return nil
}

// writeDownloads answers a page of downloads, each with its link.
func (s *Server) writeDownloads(w http.ResponseWriter, r *http.Request, p jobs.Page[jobs.Download]) {
	for i := range p.Results {
		s.present(r, &p.Results[i])
	}
	writeJSON(w, http.StatusOK, p)
}

// countUser: GET /v1/occurrence/download/user/{user}/count answers a bare
// number, as GBIF does.
func (s *Server) countUser(w http.ResponseWriter, r *http.Request) error {
	u, err := s.mustCaller(r)
	if err != nil {
		return err
	}
	f, err := listFilter(r.URL.Query())
	if err != nil {
		return err
	}
	n, err := s.svc.CountUser(r.Context(), u, r.PathValue("user"), f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, n)
	return nil
}

// pageParams are a list's paging as GBIF's PageableProvider reads it:
// limit (default 20) and offset (default 0), an unparsable or negative
// value being the default; limit=0 asks for the count alone (countOnly).
type pageParams struct {
	limit, offset int
	countOnly     bool
}

func paging(q url.Values) pageParams {
	p := pageParams{limit: 20}
	if n, err := strconv.Atoi(q.Get("limit")); err == nil && n >= 0 {
		p.limit, p.countOnly = n, n == 0
		if n == 0 {
			p.limit = 1 // the service pages at least one; the answer has none
		}
	}
	if n, err := strconv.Atoi(q.Get("offset")); err == nil && n >= 0 {
		p.offset = n
	}
	return p
}

// paged is page p as asked by pp: with limit=0 the count, no results, and
// endOfRecords as GBIF's PagingResponse computes it (count <= offset).
func paged[T any](p jobs.Page[T], pp pageParams) jobs.Page[T] {
	if pp.countOnly {
		p.Results, p.Limit = []T{}, 0
		p.EndOfRecords = p.Count <= int64(p.Offset)
	}
	return p
}

// cancel: DELETE /v1/occurrence/download/request/{key}: 204, also for a
// download that already finished (nothing changes), as GBIF answers.
func (s *Server) cancel(w http.ResponseWriter, r *http.Request) error {
	u, err := s.mustCaller(r)
	if err != nil {
		return err
	}
	if err := s.svc.Cancel(r.Context(), u, r.PathValue("key")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// postpone: PUT /v1/occurrence/download/{key} with {"eraseAfter": ...}
// (or an empty body for the default period from now).
func (s *Server) postpone(w http.ResponseWriter, r *http.Request) error {
	u, err := s.mustCaller(r)
	if err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	var in struct {
		Key        string    `json:"key"`
		EraseAfter jobs.Time `json:"eraseAfter"`
	}
	if len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return fmt.Errorf("%w: body: %v (want {\"eraseAfter\": \"2030-01-01T00:00:00.000+00:00\"})", jobs.ErrInvalidRequest, err)
		}
	}
	key := r.PathValue("key")
	if in.Key != "" && in.Key != key {
		return fmt.Errorf("%w: body key %q differs from path key %q", jobs.ErrInvalidRequest, in.Key, key)
	}
	d, err := s.svc.Postpone(r.Context(), u, key, in.EraseAfter.Time)
	if err != nil {
		return err
	}
	s.present(r, &d)
	writeJSON(w, http.StatusOK, d)
	return nil
}

// count: GET /v1/occurrence/search/count?<search params>[&format=F].
// Anonymous callers may count; signed-in ones (HTTP Basic) get the
// longer deadline and more slots of jobs.Config.UserCounts.
func (s *Server) count(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	format := strings.ToUpper(q.Get("format"))
	q.Del("format")
	pred, err := s.searchPredicate(r.Context(), q) // what the page's search counted
	if err != nil {
		return err
	}
	return s.writeEstimate(w, r, format, pred)
}

// countPredicate: POST /v1/occurrence/search/predicate with a predicate, or
// {"predicate": ..., "format": ...}.
func (s *Server) countPredicate(w http.ResponseWriter, r *http.Request) error {
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		return fmt.Errorf("%w: body is not a JSON object: %v", jobs.ErrInvalidRequest, err)
	}
	pred, format := json.RawMessage(body), ""
	// A wrapper has a predicate and no type (a bare not predicate has both).
	if p, ok := probe["predicate"]; ok && probe["type"] == nil {
		for k := range probe {
			if k != "predicate" && k != "format" {
				return fmt.Errorf("%w: unknown JSON property '%s'", jobs.ErrInvalidRequest, k)
			}
		}
		pred = p
		if f, ok := probe["format"]; ok {
			if err := json.Unmarshal(f, &format); err != nil {
				return fmt.Errorf("%w: format: %v", jobs.ErrInvalidRequest, err)
			}
		}
	}
	return s.writeEstimate(w, r, strings.ToUpper(format), pred)
}

func (s *Server) writeEstimate(w http.ResponseWriter, r *http.Request, format string, pred json.RawMessage) error {
	u, err := s.caller(r)
	if err != nil {
		return err
	}
	est, err := s.svc.Count(r.Context(), u, format, pred)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, est)
	return nil
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(openAPIDoc)
	return nil
}

// listParam reads a list query parameter: comma-separated, repeated, or
// both.
func listParam(values []string) []string {
	var out []string
	for _, v := range values {
		for _, e := range strings.Split(v, ",") {
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}
