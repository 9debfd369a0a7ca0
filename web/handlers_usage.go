package web

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// usageQuery reads GBIF's parameters of the usage lists: the title filter
// named titleParam, sortBy, sortOrder and paging.
func usageQuery(q url.Values, titleParam string) (jobs.UsageQuery, pageParams) {
	pp := paging(q)
	return jobs.UsageQuery{Title: q.Get(titleParam), SortBy: q.Get("sortBy"), SortOrder: q.Get("sortOrder"),
		Limit: pp.limit, Offset: pp.offset}, pp
}

// getSub: GET /v1/occurrence/download/{key}/datasets, .../organizations,
// .../countries and .../citation.
func (s *Server) getSub(w http.ResponseWriter, r *http.Request) error {
	key := r.PathValue("key")
	q := r.URL.Query()
	var page any
	var err error
	switch r.PathValue("sub") {
	case "datasets":
		uq, pp := usageQuery(q, "datasetTitle")
		var p jobs.Page[jobs.DatasetUsage]
		p, err = s.svc.Datasets(r.Context(), key, uq)
		page = paged(p, pp)
	case "organizations":
		uq, pp := usageQuery(q, "organizationTitle")
		var p jobs.Page[jobs.OrganizationUsage]
		p, err = s.svc.Organizations(r.Context(), key, uq)
		page = paged(p, pp)
	case "countries":
		uq, pp := usageQuery(q, "")
		var p jobs.Page[jobs.CountryUsage]
		p, err = s.svc.Countries(r.Context(), key, uq)
		page = paged(p, pp)
	case "citation":
		c, err := s.svc.Citation(r.Context(), key, s.baseURL(r)+"/v1/occurrence/download/"+key)
		if err != nil {
			return err
		}
		writeText(w, http.StatusOK, c)
		return nil
	default:
		http.NotFound(w, r)
		return nil
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// tableWriter is a TSV or CSV writer of GBIF's export files.
type tableWriter struct {
	ext, contentType string
	comma            rune
}

// exportFormat reads GBIF's format parameter of the export routes: TSV (the
// default) or CSV.
func exportFormat(q url.Values) (tableWriter, error) {
	switch strings.ToUpper(q.Get("format")) {
	case "", "TSV":
		return tableWriter{"tsv", "text/tab-separated-values; charset=utf-8", '\t'}, nil
	case "CSV":
		return tableWriter{"csv", "text/csv; charset=utf-8", ','}, nil
	}
	return tableWriter{}, fmt.Errorf("%w: format=%q (want TSV or CSV)", jobs.ErrInvalidRequest, q.Get("format"))
}

// stream writes an export file named name: the header, then the rows
// each passes to row. The response starts with the first row (or, for no
// rows, when each returns), so that an error before it, such as an unknown
// download, is answered as an error; an error after it can only cut the
// file short, and is logged.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, tw tableWriter, name string, header []string,
	each func(row func([]string) error) error) error {
	cw := csv.NewWriter(w)
	cw.Comma = tw.comma
	started := false
	start := func() error {
		if started {
			return nil
		}
		started = true
		w.Header().Set("Content-Type", tw.contentType)
		w.Header().Set("Content-Disposition", "attachment; filename="+name+"."+tw.ext)
		w.WriteHeader(http.StatusOK)
		return cw.Write(header)
	}
	err := each(func(rec []string) error {
		if err := start(); err != nil {
			return err
		}
		return cw.Write(rec)
	})
	if err == nil {
		err = start()
	}
	if err == nil {
		cw.Flush()
		err = cw.Error()
	}
	if err != nil && started {
		s.logger.WarnContext(r.Context(), "export cut short", "path", r.URL.Path, "err", err)
		return nil
	}
	return err
}

// datasetsExport: GET /v1/occurrence/download/{key}/datasets/export, the
// constituent datasets as GBIF's export file (TSV or CSV, header
// dataset_doi, dataset_key, dataset_title, dataset_citation,
// number_records).
func (s *Server) datasetsExport(w http.ResponseWriter, r *http.Request) error {
	tw, err := exportFormat(r.URL.Query())
	if err != nil {
		return err
	}
	key := r.PathValue("key")
	header := []string{"dataset_doi", "dataset_key", "dataset_title", "dataset_citation", "number_records"}
	return s.stream(w, r, tw, "datasets_download_usage_"+key, header, func(row func([]string) error) error {
		return s.svc.EachDataset(r.Context(), key, func(u jobs.DatasetUsage) error {
			return row([]string{u.DatasetDOI, u.DatasetKey, u.DatasetTitle, u.Citation, strconv.FormatInt(u.NumberRecords, 10)})
		})
	})
}

// datasetActivity: GET /v1/occurrence/download/dataset/{datasetKey}, the
// downloads that delivered the dataset's records, newest first (GBIF's
// registry OccurrenceDatasetDownloadUsageResource, rgbif's
// occ_download_dataset_activity); showDownloadDetails (default true) adds
// each download, redacted for callers other than its creator, and caps the
// page at 100.
func (s *Server) datasetActivity(w http.ResponseWriter, r *http.Request) error {
	key := r.PathValue("datasetKey")
	if !uuidPattern.MatchString(key) {
		return fmt.Errorf("%w: datasetKey %q is not a UUID", jobs.ErrInvalidRequest, key)
	}
	q := r.URL.Query()
	pp := paging(q)
	details, err := boolParam(q, "showDownloadDetails", true)
	if err != nil {
		return err
	}
	u, err := s.caller(r)
	if err != nil {
		return err
	}
	page, err := s.svc.DatasetActivity(r.Context(), u, strings.ToLower(key), details, pp.limit, pp.offset)
	if err != nil {
		return err
	}
	page = paged(page, pp)
	for _, a := range page.Results {
		if a.Download != nil {
			s.present(r, a.Download)
		}
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}
