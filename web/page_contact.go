package web

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/search"
)

// "Contact the publisher": a signed-in user writes about a record; the
// message goes to the contact its dataset's EML names, with the user's
// own address in Cc and Reply-To (jobs.QueueContact), at most
// PageConfig.ContactPerDay a day per user.

// datasetContact is the contact a message about a record of dataset key
// goes to: the EML's point of contact, else its creator, else its
// metadata provider.
func (s *Server) datasetContact(r *http.Request, key string) (dwca.Contact, error) {
	cat := s.cfg.Page.cfg.Catalog
	if cat == nil {
		return dwca.Contact{}, jobs.ErrEngineUnavailable
	}
	rc, err := cat.DatasetEML(r.Context(), key)
	if errors.Is(err, occurrence.ErrNoDataset) || errors.Is(err, occurrence.ErrNoEML) {
		return dwca.Contact{}, fmt.Errorf("%w: dataset %s has no metadata naming a contact", jobs.ErrNotFound, key)
	}
	if err != nil {
		return dwca.Contact{}, err
	}
	defer rc.Close()
	cs, err := dwca.ReadContacts(rc)
	if err != nil {
		return dwca.Contact{}, fmt.Errorf("%w: dataset %s: %v", jobs.ErrNotFound, key, err)
	}
	if len(cs) == 0 {
		return dwca.Contact{}, fmt.Errorf("%w: dataset %s's metadata names no contact address", jobs.ErrNotFound, key)
	}
	return cs[0], nil
}

// pageDatasets: GET /ui/api/datasets, every dataset's key, title, licence
// and record count.
func (s *Server) pageDatasets(w http.ResponseWriter, r *http.Request) error {
	cat := s.cfg.Page.cfg.Catalog
	if cat == nil {
		return jobs.ErrEngineUnavailable
	}
	ds, err := cat.Datasets(r.Context())
	if err != nil {
		return err
	}
	out := make([]datasetJSON, len(ds))
	for i, d := range ds {
		out[i] = datasetJSON{Key: d.Key, Title: d.Title, License: d.License, Records: d.Records}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// pageContact: POST /ui/api/contact {"gbifID", "name", "subject",
// "message"}: 202 when the message is queued.
func (s *Server) pageContact(w http.ResponseWriter, r *http.Request) error {
	ses, err := s.signedIn(r)
	if err != nil {
		return err
	}
	p := s.cfg.Page
	if p.cfg.ContactPerDay < 0 || !s.svc.CanMail() {
		return &codedError{code: "contact_off", status: http.StatusServiceUnavailable, err: jobs.ErrNoMail}
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	var in struct {
		GBIFID  int64  `json:"gbifID"`
		Name    string `json:"name"`
		Subject string `json:"subject"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return fmt.Errorf("%w: message body: %v", jobs.ErrInvalidRequest, err)
	}
	sr, err := s.searcher()
	if err != nil {
		return err
	}
	raw, err := sr.Record(r.Context(), in.GBIFID, search.Interpreted)
	if err != nil {
		return searchErr(err)
	}
	var rec struct {
		DatasetKey     string `json:"datasetKey"`
		ScientificName string `json:"scientificName"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil || rec.DatasetKey == "" {
		return fmt.Errorf("%w: record %d names no dataset", jobs.ErrNotFound, in.GBIFID)
	}
	c, err := s.datasetContact(r, rec.DatasetKey)
	if err != nil {
		return err
	}
	title := rec.DatasetKey
	if info, err := p.cfg.Catalog.Dataset(r.Context(), rec.DatasetKey); err == nil && info.Title != "" {
		title = info.Title
	}
	_, err = s.svc.QueueContact(r.Context(), jobs.ContactMessage{Sender: ses.User, SenderName: in.Name, To: c.Email,
		ToName: cmp.Or(c.Name, c.Organization), GBIFID: in.GBIFID, DatasetKey: rec.DatasetKey, DatasetTitle: title,
		RecordURL: s.baseURL(r) + "/occurrence/" + strconv.FormatInt(in.GBIFID, 10),
		Subject:   in.Subject, Body: in.Message, Language: p.language(r)}, p.cfg.ContactPerDay)
	switch {
	case errors.Is(err, jobs.ErrTooManyMessages):
		return &codedError{code: "too_many_messages", status: http.StatusTooManyRequests, err: err}
	case errors.Is(err, jobs.ErrNoMail):
		return &codedError{code: "contact_off", status: http.StatusServiceUnavailable, err: err}
	case err != nil:
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"queued": true, "to": c.Label(),
		"cc": strings.TrimSpace(ses.User.Email)})
	return nil
}
