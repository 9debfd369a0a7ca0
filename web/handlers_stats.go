package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/jobs"
)

// describe: GET /v1/occurrence/download/describe/{format}, the columns of
// a format's files in GBIF's shape (format named as GBIF names the path:
// dwca, simpleCsv, speciesList, simpleParquet).
func (s *Server) describe(w http.ResponseWriter, r *http.Request) error {
	f, err := download.LookupDescribed(r.PathValue("format"))
	if err != nil {
		return fmt.Errorf("%w: %v", jobs.ErrNotFound, err)
	}
	d, err := download.Describe(f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

// statsMonth reads a statistics date parameter as GBIF does: yyyy-MM,
// yyyy/MM or yyyy. A start (end false) is the first instant of the month
// (of January for a year); an end is the first instant after it (after
// December for a year), so that the month is included.
func statsMonth(q url.Values, name string, end bool) (time.Time, error) {
	v := q.Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01", "2006/01", "2006"} {
		t, err := time.Parse(layout, v)
		if err != nil {
			continue
		}
		switch {
		case end && layout == "2006":
			t = t.AddDate(1, 0, 0)
		case end:
			t = t.AddDate(0, 1, 0)
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%w: Unaccepted parameter value %s : %s", jobs.ErrInvalidRequest, name, v)
}

// statsFilter reads fromDate and toDate and those of GBIF's other filter
// parameters a statistics route takes (others are ignored, as GBIF ignores
// them).
func statsFilter(q url.Values, params ...string) (jobs.StatsFilter, error) {
	var f jobs.StatsFilter
	var err error
	if f.From, err = statsMonth(q, "fromDate", false); err != nil {
		return f, err
	}
	if f.To, err = statsMonth(q, "toDate", true); err != nil {
		return f, err
	}
	for _, p := range params {
		v := q.Get(p)
		switch p {
		case "datasetKey":
			f.DatasetKey = v
		case "publishingCountry":
			f.PublishingCountry = v
		case "publishingOrgKey":
			f.PublishingOrgKey = v
		case "source":
			f.Source = v
		case "userCountry":
			f.UserCountry = v
		}
	}
	return f, nil
}

var datasetStatsParams = []string{"datasetKey", "publishingCountry", "publishingOrgKey"}

// statistics: GET /v1/occurrence/download/statistics, downloads and records
// per dataset and month, paged.
func (s *Server) statistics(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f, err := statsFilter(q, datasetStatsParams...)
	if err != nil {
		return err
	}
	pp := paging(q)
	p, err := s.svc.DownloadStatistics(r.Context(), f, pp.limit, pp.offset)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, paged(p, pp))
	return nil
}

// statisticsExport: GET /v1/occurrence/download/statistics/export, the same
// rows unpaged as GBIF's export file.
func (s *Server) statisticsExport(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	tw, err := exportFormat(q)
	if err != nil {
		return err
	}
	f, err := statsFilter(q, datasetStatsParams...)
	if err != nil {
		return err
	}
	header := []string{"dataset_key", "total_records", "number_downloads", "year", "month"}
	return s.stream(w, r, tw, "downloads_statistics", header, func(row func([]string) error) error {
		return s.svc.EachDownloadStatistic(r.Context(), f, func(st jobs.DownloadStatistics) error {
			return row([]string{st.DatasetKey, strconv.FormatInt(st.TotalRecords, 10),
				strconv.FormatInt(st.NumberDownloads, 10), strconv.Itoa(st.Year), strconv.Itoa(st.Month)})
		})
	})
}

// monthly answers one of the year -> month -> count statistics.
func (s *Server) monthly(w http.ResponseWriter, r *http.Request, params []string,
	count func(jobs.StatsFilter) (jobs.MonthlyCounts, error)) error {
	f, err := statsFilter(r.URL.Query(), params...)
	if err != nil {
		return err
	}
	m, err := count(f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, m)
	return nil
}

// downloadsByUserCountry: GET .../statistics/downloadsByUserCountry.
func (s *Server) downloadsByUserCountry(w http.ResponseWriter, r *http.Request) error {
	return s.monthly(w, r, []string{"userCountry"}, func(f jobs.StatsFilter) (jobs.MonthlyCounts, error) {
		return s.svc.DownloadsByMonth(r.Context(), f)
	})
}

// downloadsBySource: GET .../statistics/downloadsBySource.
func (s *Server) downloadsBySource(w http.ResponseWriter, r *http.Request) error {
	return s.monthly(w, r, []string{"source"}, func(f jobs.StatsFilter) (jobs.MonthlyCounts, error) {
		return s.svc.DownloadsByMonth(r.Context(), f)
	})
}

// downloadedRecordsByDataset: GET .../statistics/downloadedRecordsByDataset.
func (s *Server) downloadedRecordsByDataset(w http.ResponseWriter, r *http.Request) error {
	return s.monthly(w, r, datasetStatsParams, func(f jobs.StatsFilter) (jobs.MonthlyCounts, error) {
		return s.svc.DatasetDownloadsByMonth(r.Context(), f, true)
	})
}

// downloadsByDataset: GET .../statistics/downloadsByDataset.
func (s *Server) downloadsByDataset(w http.ResponseWriter, r *http.Request) error {
	return s.monthly(w, r, datasetStatsParams, func(f jobs.StatsFilter) (jobs.MonthlyCounts, error) {
		return s.svc.DatasetDownloadsByMonth(r.Context(), f, false)
	})
}
