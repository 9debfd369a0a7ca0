package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/search"
)

// Searcher is the occurrence search behind GBIF's search, record and count
// routes (search.Service). Every table scan of these routes goes through
// it, so an admission control (scan concurrency, deadlines) can wrap it.
type Searcher interface {
	ParseRequest(ctx context.Context, q url.Values) (search.Request, error)
	Search(ctx context.Context, r search.Request) (*search.Response, error)
	Record(ctx context.Context, gbifID int64, v search.View) (json.RawMessage, error)
	RecordByOccurrenceID(ctx context.Context, datasetKey, occurrenceID string, v search.View) (json.RawMessage, error)
	Suggest(ctx context.Context, name, prefix string, limit int) ([]string, error)
	ParseCount(q url.Values) (*occurrence.Predicate, error)
	Count(ctx context.Context, pred *occurrence.Predicate) (int64, error)
	Inventory(ctx context.Context, name string, q url.Values) ([]search.FacetCount, error)
}

var _ Searcher = (*search.Service)(nil)

// searchRoutes are GBIF's occurrence search routes.
func (s *Server) searchRoutes() []route {
	const occ = "/v1/occurrence"
	return []route{
		{"GET", occ + "/search", nil, s.search},
		{"GET", occ + "/search/{parameter}", nil, s.suggest},
		{"GET", occ + "/count", nil, s.occurrenceCount},
		{"GET", occ + "/count/schema", nil, s.countSchema},
		{"GET", occ + "/counts/{name}", []string{occ + "/counts/basisOfRecord", occ + "/counts/countries", occ + "/counts/datasets",
			occ + "/counts/publishingCountries", occ + "/counts/year"}, s.occurrenceInventory},
		{"GET", occ + "/{gbifID}", nil, s.occurrence},
		// One pattern for {gbifID}/verbatim, {gbifID}/fragment and GBIF's
		// {datasetKey}/{occurrenceId}: a literal "verbatim" segment would
		// overlap download/{key} in Go's ServeMux.
		{"GET", occ + "/{first}/{second}", []string{occ + "/{gbifID}/verbatim", occ + "/{gbifID}/fragment",
			occ + "/{datasetKey}/{occurrenceId}"}, s.occurrenceSub},
		{"GET", occ + "/{first}/{second}/{third}", []string{occ + "/{datasetKey}/{occurrenceId}/verbatim",
			occ + "/{datasetKey}/{occurrenceId}/fragment"}, s.occurrenceByIDSub},
	}
}

// admit runs a scan for a search route in a slot of the caller's class
// (jobs.Service.Admit: the same slots and deadlines as the count routes);
// a server without a job service (tests of the search alone) runs it as is.
func (s *Server) admit(ctx context.Context, caller *jobs.User, what string, scan func(context.Context) error) error {
	if s.svc == nil {
		return scan(ctx)
	}
	return s.svc.Admit(ctx, caller, what, scan)
}

// searcher returns the configured search or the error that there is none.
func (s *Server) searcher() (Searcher, error) {
	if s.cfg.Search == nil {
		return nil, jobs.ErrEngineUnavailable
	}
	return s.cfg.Search, nil
}

// search: GET /v1/occurrence/search, GBIF's occurrence search.
func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	sr, err := s.searcher()
	if err != nil {
		return err
	}
	req, err := sr.ParseRequest(r.Context(), r.URL.Query())
	if err != nil {
		return searchErr(err)
	}
	u, err := s.caller(r)
	if err != nil {
		return err
	}
	var resp *search.Response
	err = s.admit(r.Context(), u, "search", func(ctx context.Context) error {
		var err error
		resp, err = sr.Search(ctx, req)
		return err
	})
	if err != nil {
		return searchErr(err)
	}
	b, err := resp.AppendJSON(make([]byte, 0, 4096+len(resp.Results)*4096))
	if err != nil {
		return err
	}
	writeRaw(w, append(b, '\n'))
	return nil
}

// occurrenceCount: GET /v1/occurrence/count, GBIF's record count by its
// ten dimensions; a bare number.
func (s *Server) occurrenceCount(w http.ResponseWriter, r *http.Request) error {
	sr, err := s.searcher()
	if err != nil {
		return err
	}
	pred, err := sr.ParseCount(r.URL.Query())
	if err != nil {
		return searchErr(err)
	}
	u, err := s.caller(r)
	if err != nil {
		return err
	}
	var n int64
	err = s.admit(r.Context(), u, "count", func(ctx context.Context) error {
		var err error
		n, err = sr.Count(ctx, pred)
		return err
	})
	if err != nil {
		return searchErr(err)
	}
	writeRaw(w, strconv.AppendInt(nil, n, 10))
	return nil
}

// countSchema: GET /v1/occurrence/count/schema, the dimension sets of
// GBIF's occurrence cube (pygbif's count_schema).
func (s *Server) countSchema(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, search.CountSchema())
	return nil
}

// occurrenceInventory: GET /v1/occurrence/counts/{name}, GBIF's occurrence
// inventories (pygbif's count_basisofrecord, count_countries,
// count_datasets, count_publishingcountries, count_year): a JSON object of
// value -> records, most frequent first.
func (s *Server) occurrenceInventory(w http.ResponseWriter, r *http.Request) error {
	sr, err := s.searcher()
	if err != nil {
		return err
	}
	u, err := s.caller(r)
	if err != nil {
		return err
	}
	var counts []search.FacetCount
	err = s.admit(r.Context(), u, "count", func(ctx context.Context) error {
		var err error
		counts, err = sr.Inventory(ctx, r.PathValue("name"), r.URL.Query())
		return err
	})
	if err != nil {
		return searchErr(err)
	}
	b := []byte{'{'}
	for i, c := range counts {
		if i > 0 {
			b = append(b, ',')
		}
		name, err := json.Marshal(c.Name) // JSON's quoting, not Go's
		if err != nil {
			return err
		}
		b = append(b, name...)
		b = append(b, ':')
		b = strconv.AppendInt(b, c.Count, 10)
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(append(b, '}'))
	return err
}

// occurrence: GET /v1/occurrence/{gbifID}.
func (s *Server) occurrence(w http.ResponseWriter, r *http.Request) error {
	return s.record(w, r, r.PathValue("gbifID"), "")
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// recordViews are the record routes' last segments and the view each
// answers.
var recordViews = map[string]search.View{"": search.Interpreted, "verbatim": search.Verbatim, "fragment": search.Fragment}

// occurrenceSub: GET /v1/occurrence/{gbifID}/verbatim, {gbifID}/fragment
// and {datasetKey}/{occurrenceId}.
func (s *Server) occurrenceSub(w http.ResponseWriter, r *http.Request) error {
	first, second := r.PathValue("first"), r.PathValue("second")
	if uuidPattern.MatchString(first) {
		return s.recordByOccurrenceID(w, r, first, second, "")
	}
	return s.record(w, r, first, second) // a wildcard never matches an empty segment
}

// occurrenceByIDSub: GET /v1/occurrence/{datasetKey}/{occurrenceId}/verbatim
// and .../fragment.
func (s *Server) occurrenceByIDSub(w http.ResponseWriter, r *http.Request) error {
	first, second, third := r.PathValue("first"), r.PathValue("second"), r.PathValue("third")
	if !uuidPattern.MatchString(first) {
		return fmt.Errorf("%w: no such resource /v1/occurrence/%s/%s/%s", jobs.ErrNotFound, first, second, third)
	}
	return s.recordByOccurrenceID(w, r, first, second, third)
}

// recordByOccurrenceID answers a dataset's record by its occurrenceID in
// the view named by sub ("", "verbatim" or "fragment").
func (s *Server) recordByOccurrenceID(w http.ResponseWriter, r *http.Request, datasetKey, occurrenceID, sub string) error {
	view, ok := recordViews[sub]
	if !ok {
		return fmt.Errorf("%w: no such resource /v1/occurrence/%s/%s/%s", jobs.ErrNotFound, datasetKey, occurrenceID, sub)
	}
	sr, err := s.searcher()
	if err != nil {
		return err
	}
	js, err := sr.RecordByOccurrenceID(r.Context(), datasetKey, occurrenceID, view)
	if err != nil {
		return searchErr(err)
	}
	writeRaw(w, append(js, '\n'))
	return nil
}

// record answers a record in the view named by sub ("", "verbatim" or
// "fragment"); a replaced id redirects to the record that replaced it.
func (s *Server) record(w http.ResponseWriter, r *http.Request, rawID, sub string) error {
	view, ok := recordViews[sub]
	if !ok {
		return fmt.Errorf("%w: no such resource /v1/occurrence/%s/%s", jobs.ErrNotFound, rawID, sub)
	}
	sr, err := s.searcher()
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(rawID, 10, 64)
	if err != nil || id < 1 {
		return fmt.Errorf("%w: gbifID %q is not a positive integer", jobs.ErrInvalidRequest, rawID)
	}
	js, err := sr.Record(r.Context(), id, view)
	var moved *search.Moved
	if errors.As(err, &moved) {
		to := s.baseURL(r) + "/v1/occurrence/" + strconv.FormatInt(moved.ID, 10)
		if sub != "" {
			to += "/" + sub
		}
		http.Redirect(w, r, to, http.StatusMovedPermanently)
		return nil
	}
	if err != nil {
		return searchErr(err)
	}
	writeRaw(w, append(js, '\n'))
	return nil
}

// suggest: GET /v1/occurrence/search/{parameter}?q=&limit=, GBIF's
// suggestions of a field's values (catalogNumber, recordedBy, ...): a
// JSON list of strings. As in GBIF, q and limit are required.
func (s *Server) suggest(w http.ResponseWriter, r *http.Request) error {
	sr, err := s.searcher()
	if err != nil {
		return err
	}
	name := r.PathValue("parameter")
	if !slices.Contains(search.SuggestNames(), name) {
		return fmt.Errorf("%w: no such resource /v1/occurrence/search/%s (suggestions: %s)", jobs.ErrNotFound, name,
			strings.Join(search.SuggestNames(), ", "))
	}
	q := r.URL.Query()
	if !q.Has("q") || !q.Has("limit") {
		return fmt.Errorf("%w: suggestions need the parameters q (the prefix) and limit", jobs.ErrInvalidRequest)
	}
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil {
		return fmt.Errorf("%w: limit %q is not an integer", jobs.ErrInvalidRequest, q.Get("limit"))
	}
	u, err := s.caller(r)
	if err != nil {
		return err
	}
	var values []string
	err = s.admit(r.Context(), u, "count", func(ctx context.Context) error {
		var err error
		values, err = sr.Suggest(ctx, name, q.Get("q"), limit)
		return err
	})
	if err != nil {
		return searchErr(err)
	}
	writeJSON(w, http.StatusOK, values)
	return nil
}

func writeRaw(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// kindErr keeps a search error's message and adds the job service's kind
// that fail maps to an HTTP status.
type kindErr struct{ err, kind error }

func (e kindErr) Error() string   { return e.err.Error() }
func (e kindErr) Unwrap() []error { return []error{e.err, e.kind} }

// searchErr maps the search package's error kinds to statuses: a bad
// request 400, a predicate over the limits 413, an unknown record 404,
// facets past their deadline 503.
func searchErr(err error) error {
	switch {
	case errors.Is(err, search.ErrInvalidRequest):
		return kindErr{err, jobs.ErrInvalidRequest}
	case errors.Is(err, search.ErrTooComplex):
		return kindErr{err, jobs.ErrPredicateTooLarge}
	case errors.Is(err, search.ErrNotFound):
		return kindErr{err, jobs.ErrNotFound}
	case errors.Is(err, search.ErrTooExpensive):
		return kindErr{err, jobs.ErrEngineUnavailable}
	}
	return err
}
