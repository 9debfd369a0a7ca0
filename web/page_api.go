package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// The page's API under /ui/api: what the page does for a signed-in user
// (downloads, the contact form) and what it needs to know (formats,
// datasets, strings). Answers are JSON; errors {"code", "message"}
// (page_session.go).

func (s *Server) pageAPIRoutes() []route {
	const api = "/ui/api"
	h := s.pageAPI
	return []route{
		{"GET", api + "/messages/{lang}", nil, s.pageMessages},
		{"GET", api + "/config", nil, h(s.pageConfig)},
		{"GET", api + "/session", nil, h(s.pageSession)},
		{"POST", api + "/signin", nil, h(s.pageSignIn)},
		{"POST", api + "/signout", nil, h(s.pageSignOut)},
		{"GET", api + "/downloads", nil, h(s.pageDownloads)},
		{"POST", api + "/downloads", nil, h(s.pageSubmit)},
		{"GET", api + "/downloads/{key}", nil, h(s.pageDownload)},
		{"POST", api + "/downloads/{key}/cancel", nil, h(s.pageCancel)},
		{"POST", api + "/downloads/{key}/postpone", nil, h(s.pagePostpone)},
		{"POST", api + "/downloads/{key}/rerun", nil, h(s.pageRerun)},
		{"GET", api + "/datasets", nil, h(s.pageDatasets)},
		{"GET", api + "/datasets/{key}", nil, h(s.pageDataset)},
		{"POST", api + "/contact", nil, h(s.pageContact)},
	}
}

// formatJSON is a download format as the page offers it.
type formatJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Fields says the columns can be chosen; Default are the columns
	// written when none are, Choosable the interpreted columns.
	Fields    bool     `json:"fields"`
	Default   []string `json:"defaultFields,omitempty"`
	Extension string   `json:"extension"`
}

// pageConfig: GET /ui/api/config, what the page offers: the portal's name,
// the formats of the registry (every one, in its order), the columns a
// format's fields may be chosen from, the languages, the running-download
// limit and whether the contact form is on.
func (s *Server) pageConfig(w http.ResponseWriter, r *http.Request) error {
	p := s.cfg.Page
	cfg := s.svc.Config()
	out := struct {
		Portal     string       `json:"portal"`
		Formats    []formatJSON `json:"formats"`
		Choosable  []string     `json:"choosableFields"`
		Languages  []string     `json:"languages"`
		MaxRunning int          `json:"maxRunning"`
		Contact    bool         `json:"contact"`
		EraseAfter float64      `json:"eraseAfterDays"`
	}{Portal: cfg.Portal.Name, Choosable: download.ChoosableFields(), Languages: p.langs,
		MaxRunning: cfg.MaxRunningPerUser, Contact: s.svc.CanMail() && p.cfg.ContactPerDay > 0,
		EraseAfter: cfg.EraseAfter.Hours() / 24}
	for _, f := range download.Formats() {
		if f.SQL || f.Project {
			continue // the page builds predicates for people; SQL downloads and projects' exports come through the API
		}
		out.Formats = append(out.Formats, formatJSON{Name: string(f.Name), Description: f.Description, Fields: f.Fields,
			Default: download.DefaultFields(f.Name), Extension: f.Extension})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// pageDownloads: GET /ui/api/downloads?offset=N, the user's downloads,
// newest first.
func (s *Server) pageDownloads(w http.ResponseWriter, r *http.Request) error {
	ses, err := s.signedIn(r)
	if err != nil {
		return err
	}
	// The page's lists are 20 long; only offset is read (limit is not),
	// and a bad one is refused (the page sends only its own).
	offset := 0
	if v := r.URL.Query().Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("%w: offset=%q is not a non-negative integer", jobs.ErrInvalidRequest, v)
		}
		offset = n
	}
	page, err := s.svc.List(r.Context(), ses.User, ses.User.Name, jobs.ListFilter{}, false, 20, offset)
	if err != nil {
		return err
	}
	s.writeDownloads(w, r, page)
	return nil
}

// pageSubmit: POST /ui/api/downloads {"query", "format", "fields",
// "description", "sendNotification"}: the search's query string becomes
// the predicate as the API's GET request route makes it.
func (s *Server) pageSubmit(w http.ResponseWriter, r *http.Request) error {
	ses, err := s.signedIn(r)
	if err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	var in struct {
		Query            string   `json:"query"`
		Format           string   `json:"format"`
		Fields           []string `json:"fields"`
		Description      string   `json:"description"`
		SendNotification bool     `json:"sendNotification"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("%w: download body: %v", jobs.ErrInvalidRequest, err)
	}
	q, err := url.ParseQuery(in.Query)
	if err != nil {
		return fmt.Errorf("%w: query: %v", jobs.ErrInvalidRequest, err)
	}
	for _, p := range requestParams {
		if q.Has(p) {
			return fmt.Errorf("%w: query: %s is not a search parameter", jobs.ErrInvalidRequest, p)
		}
	}
	// The download of the page's search: the predicate the search ran, so
	// the archive holds the records the page counted.
	pred, err := s.searchPredicate(r.Context(), q)
	if err != nil {
		return err
	}
	req := jobs.Request{Type: "OCCURRENCE", Predicate: pred}
	req.Format, req.Fields, req.Description = in.Format, in.Fields, in.Description
	req.SendNotification = in.SendNotification
	return s.pageSubmitRequest(w, r, ses, req)
}

// searchPredicate is the predicate JSON of the occurrence search q, the one
// the search itself runs (blank values dropped, scientificName resolved to
// taxon keys: docs/search.md); without a search, the API's GET download
// rule's. A search with q has none: downloads have no full-text search.
func (s *Server) searchPredicate(ctx context.Context, q url.Values) (json.RawMessage, error) {
	if s.cfg.Search == nil {
		return s.svc.PredicateFromQuery(q)
	}
	sr, err := s.cfg.Search.ParseRequest(ctx, q)
	if err != nil {
		return nil, searchErr(err)
	}
	if len(sr.Words) > 0 {
		return nil, fmt.Errorf("%w: q (full-text search) selects records for the search only: downloads, and their estimates, select by search parameters, as GBIF's do",
			jobs.ErrInvalidRequest)
	}
	if sr.Predicate == nil {
		return json.RawMessage("null"), nil
	}
	return sr.Predicate.MarshalJSON()
}

// pageSubmitRequest submits req as the page's, answering 201 {"key"}.
func (s *Server) pageSubmitRequest(w http.ResponseWriter, r *http.Request, ses jobs.Session, req jobs.Request) error {
	req.Source = "portal page"
	req.Language = truncate(r.Header.Get("Accept-Language"), 200)
	key, err := s.svc.Submit(r.Context(), ses.User, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]string{"key": key})
	return nil
}

// pageDownload: GET /ui/api/downloads/{key}, the user's download with its
// progress; Retry-After says when to ask again while it runs.
func (s *Server) pageDownload(w http.ResponseWriter, r *http.Request) error {
	ses, err := s.signedIn(r)
	if err != nil {
		return err
	}
	d, err := s.ownDownload(r, ses)
	if err != nil {
		return err
	}
	s.present(r, &d)
	if wait := s.svc.PollInterval(d); wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)))
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

// ownDownload is the download the path names, when the session's user may
// manage it (its creator, an admin); another's is not found.
func (s *Server) ownDownload(r *http.Request, ses jobs.Session) (jobs.Download, error) {
	d, err := s.svc.Get(r.Context(), &ses.User, r.PathValue("key"), false)
	if err != nil {
		return d, err
	}
	if d.Request.Creator != ses.User.Name && !ses.User.Admin {
		return jobs.Download{}, fmt.Errorf("%w: download %s is not yours", jobs.ErrNotFound, d.Key)
	}
	return d, nil
}

// pageCancel: POST /ui/api/downloads/{key}/cancel.
func (s *Server) pageCancel(w http.ResponseWriter, r *http.Request) error {
	ses, err := s.signedIn(r)
	if err != nil {
		return err
	}
	if err := s.svc.Cancel(r.Context(), ses.User, r.PathValue("key")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// pagePostpone: POST /ui/api/downloads/{key}/postpone moves the erasure to
// the default period from now.
func (s *Server) pagePostpone(w http.ResponseWriter, r *http.Request) error {
	ses, err := s.signedIn(r)
	if err != nil {
		return err
	}
	d, err := s.svc.Postpone(r.Context(), ses.User, r.PathValue("key"), time.Time{})
	if err != nil {
		return err
	}
	s.present(r, &d)
	writeJSON(w, http.StatusOK, d)
	return nil
}

// pageRerun: POST /ui/api/downloads/{key}/rerun submits the download's
// request again: the same query and format over the table as it is now.
// An identical request within the dedupe window answers the earlier key,
// as any submission does.
func (s *Server) pageRerun(w http.ResponseWriter, r *http.Request) error {
	ses, err := s.signedIn(r)
	if err != nil {
		return err
	}
	d, err := s.ownDownload(r, ses)
	if err != nil {
		return err
	}
	req := d.Request
	req.Creator = ""
	return s.pageSubmitRequest(w, r, ses, req)
}

// datasetJSON is what a record page shows of its dataset.
type datasetJSON struct {
	Key      string `json:"key"`
	Title    string `json:"title,omitempty"`
	License  string `json:"license,omitempty"`
	Citation string `json:"citation,omitempty"`
	Records  int64  `json:"records"`
	// Contact names the publisher's contact the contact form writes to
	// (never the address); empty when the EML names none.
	Contact string `json:"contact,omitempty"`
}

// pageDataset: GET /ui/api/datasets/{key}.
func (s *Server) pageDataset(w http.ResponseWriter, r *http.Request) error {
	cat := s.cfg.Page.cfg.Catalog
	if cat == nil {
		return jobs.ErrEngineUnavailable
	}
	info, err := cat.Dataset(r.Context(), r.PathValue("key"))
	if errors.Is(err, occurrence.ErrNoDataset) {
		return fmt.Errorf("%w: dataset %s", jobs.ErrNotFound, r.PathValue("key"))
	}
	if err != nil {
		return err
	}
	out := datasetJSON{Key: info.Key, Title: info.Title, License: info.License, Citation: info.Citation, Records: info.Records}
	if c, err := s.datasetContact(r, info.Key); err == nil {
		out.Contact = c.Label()
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
