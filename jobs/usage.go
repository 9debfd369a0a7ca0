package jobs

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// A download's usages are its constituent datasets (recorded when it
// succeeds) and, grouped from them, its publishing organizations and
// countries. The organization and country of a dataset are known only when
// the table's catalog records them; until then those lists are empty and
// the download's numberOrganizations and numberPublishingCountries absent
// (nothing is guessed from the records).

// UsageQuery filters, orders and pages a download's usages, with GBIF's
// parameters: Title is an exact title (datasetTitle, organizationTitle),
// SortBy one of the list's sort keys (RECORD_COUNT, COUNTRY_CODE,
// DATASET_TITLE or ORGANIZATION_TITLE), SortOrder ASC or DESC.
type UsageQuery struct {
	Title         string
	SortBy        string
	SortOrder     string
	Limit, Offset int
}

// usageOrder is the ORDER BY clause for q over the named columns. Without
// SortBy the list is by records, most first (GBIF's order is not
// documented; this is the order the archive's citations use); with SortBy
// and no SortOrder it is ascending, as SQL's ORDER BY is (GBIF passes both
// to SQL). tie breaks ties so that pages never overlap.
func usageOrder(q UsageQuery, cols map[string]string, tie string) (string, error) {
	order := strings.ToUpper(strings.TrimSpace(q.SortOrder))
	switch order {
	case "", "ASC", "DESC":
	default:
		return "", fmt.Errorf("%w: sortOrder=%q (want ASC or DESC)", ErrInvalidRequest, q.SortOrder)
	}
	by := strings.ToUpper(strings.TrimSpace(q.SortBy))
	if by == "" {
		by = "RECORD_COUNT"
		if order == "" {
			order = "DESC"
		}
	}
	if order == "" {
		order = "ASC"
	}
	col, ok := cols[by]
	if !ok {
		keys := make([]string, 0, len(cols))
		for k := range cols {
			keys = append(keys, k)
		}
		return "", fmt.Errorf("%w: sortBy=%q (want one of %s)", ErrInvalidRequest, q.SortBy, strings.Join(slices.Sorted(slices.Values(keys)), ", "))
	}
	return " ORDER BY " + col + " " + order + ", " + tie, nil
}

const datasetUsageColumns = `dataset_key, title, record_count, license, citation, dataset_doi, publishing_org_key,
	publishing_country`

func scanDatasetUsage(key string) func(scanner) (DatasetUsage, error) {
	return func(s scanner) (DatasetUsage, error) {
		u := DatasetUsage{DownloadKey: key}
		err := s.Scan(&u.DatasetKey, &u.DatasetTitle, &u.NumberRecords, &u.License, &u.Citation, &u.DatasetDOI,
			&u.PublishingOrgKey, &u.PublishingCountryCode)
		return u, err
	}
}

// datasets pages through the datasets of download key.
func (db *DB) datasets(ctx context.Context, key string, q UsageQuery) ([]DatasetUsage, int64, error) {
	order, err := usageOrder(q, map[string]string{"RECORD_COUNT": "record_count", "DATASET_TITLE": "title",
		"COUNTRY_CODE": "publishing_country"}, "dataset_key")
	if err != nil {
		return nil, 0, err
	}
	where, args := "download_key = ?", []any{key}
	if q.Title != "" {
		where += " AND title = ?"
		args = append(args, q.Title)
	}
	var total int64
	if err := db.read.QueryRowContext(ctx, db.q("SELECT count(*) FROM download_datasets WHERE "+where), args...).
		Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := collect(ctx, db.read, db.q("SELECT "+datasetUsageColumns+" FROM download_datasets WHERE "+where+
		order+" LIMIT ? OFFSET ?"), append(args, q.Limit, q.Offset), scanDatasetUsage(key))
	return out, total, err
}

// eachDataset calls f with every dataset of download key, most records
// first, streaming the rows.
func (db *DB) eachDataset(ctx context.Context, key string, f func(DatasetUsage) error) error {
	rows, err := db.read.QueryContext(ctx, db.q("SELECT "+datasetUsageColumns+
		" FROM download_datasets WHERE download_key = ? ORDER BY record_count DESC, dataset_key"), key)
	if err != nil {
		return err
	}
	defer rows.Close()
	scan := scanDatasetUsage(key)
	for rows.Next() {
		u, err := scan(rows)
		if err != nil {
			return err
		}
		if err := f(u); err != nil {
			return err
		}
	}
	return rows.Err()
}

// organizations pages through the publishing organizations of download
// key: the datasets' recorded organizations and their records. No title is
// recorded for an organization, so a title filter matches none.
func (db *DB) organizations(ctx context.Context, key string, q UsageQuery) ([]OrganizationUsage, int64, error) {
	order, err := usageOrder(q, map[string]string{"RECORD_COUNT": "records", "ORGANIZATION_TITLE": "publishing_org_key",
		"COUNTRY_CODE": "country"}, "publishing_org_key")
	if err != nil {
		return nil, 0, err
	}
	if q.Title != "" {
		return []OrganizationUsage{}, 0, nil
	}
	const where = " FROM download_datasets WHERE download_key = ? AND publishing_org_key <> ''"
	var total int64
	if err := db.read.QueryRowContext(ctx, db.q("SELECT count(DISTINCT publishing_org_key)"+where), key).
		Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := collect(ctx, db.read, db.q("SELECT publishing_org_key, sum(record_count) AS records, "+
		"max(publishing_country) AS country"+where+" GROUP BY publishing_org_key"+order+" LIMIT ? OFFSET ?"),
		[]any{key, q.Limit, q.Offset}, func(s scanner) (OrganizationUsage, error) {
			u := OrganizationUsage{DownloadKey: key}
			err := s.Scan(&u.OrganizationKey, &u.NumberRecords, &u.PublishingCountryCode)
			return u, err
		})
	return out, total, err
}

// countries pages through the publishing countries of download key.
func (db *DB) countries(ctx context.Context, key string, q UsageQuery) ([]CountryUsage, int64, error) {
	order, err := usageOrder(q, map[string]string{"RECORD_COUNT": "records", "COUNTRY_CODE": "publishing_country"},
		"publishing_country")
	if err != nil {
		return nil, 0, err
	}
	const where = " FROM download_datasets WHERE download_key = ? AND publishing_country <> ''"
	var total int64
	if err := db.read.QueryRowContext(ctx, db.q("SELECT count(DISTINCT publishing_country)"+where), key).
		Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := collect(ctx, db.read, db.q("SELECT publishing_country, sum(record_count) AS records"+where+
		" GROUP BY publishing_country"+order+" LIMIT ? OFFSET ?"), []any{key, q.Limit, q.Offset},
		func(s scanner) (CountryUsage, error) {
			u := CountryUsage{DownloadKey: key}
			err := s.Scan(&u.PublishingCountryCode, &u.NumberRecords)
			return u, err
		})
	return out, total, err
}

// usageCounts fills NumberOrganizations and NumberPublishingCountries of ds
// from their recorded datasets; a count stays nil when no dataset of the
// download has that recorded.
func (db *DB) usageCounts(ctx context.Context, ds []Download) error {
	if len(ds) == 0 {
		return nil
	}
	at := make(map[string]int, len(ds))
	args := make([]any, len(ds))
	for i, d := range ds {
		at[d.Key] = i
		args[i] = d.Key
	}
	type counts struct {
		key             string
		orgs, countries int64
	}
	cs, err := collect(ctx, db.read, db.q(`SELECT download_key,
		count(DISTINCT CASE WHEN publishing_org_key <> '' THEN publishing_org_key END),
		count(DISTINCT CASE WHEN publishing_country <> '' THEN publishing_country END)
		FROM download_datasets WHERE download_key IN (?`+strings.Repeat(", ?", len(ds)-1)+`) GROUP BY download_key`),
		args, func(s scanner) (counts, error) {
			var c counts
			err := s.Scan(&c.key, &c.orgs, &c.countries)
			return c, err
		})
	if err != nil {
		return err
	}
	for _, c := range cs {
		d := &ds[at[c.key]]
		if c.orgs > 0 {
			d.NumberOrganizations = &c.orgs
		}
		if c.countries > 0 {
			d.NumberPublishingCountries = &c.countries
		}
	}
	return nil
}

// Datasets pages through a download's constituent datasets and their
// counts. The count is the download's number of datasets (with a title
// filter, of those with that title).
func (s *Service) Datasets(ctx context.Context, key string, q UsageQuery) (Page[DatasetUsage], error) {
	if _, err := s.db.getDownload(ctx, s.db.read, key); err != nil {
		return Page[DatasetUsage]{}, err
	}
	q.Limit, q.Offset = clampPage(q.Limit, q.Offset)
	res, total, err := s.db.datasets(ctx, key, q)
	if err != nil {
		return Page[DatasetUsage]{}, err
	}
	return newPage(res, total, q.Limit, q.Offset), nil
}

// EachDataset calls f with every constituent dataset of download key.
func (s *Service) EachDataset(ctx context.Context, key string, f func(DatasetUsage) error) error {
	if _, err := s.db.getDownload(ctx, s.db.read, key); err != nil {
		return err
	}
	return s.db.eachDataset(ctx, key, f)
}

// Organizations pages through a download's publishing organizations.
func (s *Service) Organizations(ctx context.Context, key string, q UsageQuery) (Page[OrganizationUsage], error) {
	if _, err := s.db.getDownload(ctx, s.db.read, key); err != nil {
		return Page[OrganizationUsage]{}, err
	}
	q.Limit, q.Offset = clampPage(q.Limit, q.Offset)
	res, total, err := s.db.organizations(ctx, key, q)
	if err != nil {
		return Page[OrganizationUsage]{}, err
	}
	return newPage(res, total, q.Limit, q.Offset), nil
}

// Countries pages through a download's publishing countries.
func (s *Service) Countries(ctx context.Context, key string, q UsageQuery) (Page[CountryUsage], error) {
	if _, err := s.db.getDownload(ctx, s.db.read, key); err != nil {
		return Page[CountryUsage]{}, err
	}
	q.Limit, q.Offset = clampPage(q.Limit, q.Offset)
	res, total, err := s.db.countries(ctx, key, q)
	if err != nil {
		return Page[CountryUsage]{}, err
	}
	return newPage(res, total, q.Limit, q.Offset), nil
}

// newPage is one page of results (never a null list).
func newPage[T any](res []T, total int64, limit, offset int) Page[T] {
	if res == nil {
		res = []T{}
	}
	return Page[T]{Offset: offset, Limit: limit, Count: total, Results: res,
		EndOfRecords: int64(offset+len(res)) >= total}
}

// DatasetActivity is one download of a dataset, as GBIF's
// DatasetOccurrenceDownloadUsage: the dataset's usage in that download and,
// with details, the download itself (redacted for callers other than its
// creator).
type DatasetActivity struct {
	DatasetUsage
	Download *Download `json:"download,omitempty"`
}

// MaxActivityDetails caps the page of a dataset's activity with download
// details, as GBIF's registry does (showDownloadDetails caps limit at 100).
const MaxActivityDetails = 100

// DatasetActivity pages through the downloads that delivered records of
// dataset datasetKey, newest first (GBIF's /occurrence/download/dataset/
// {datasetKey}; download keys grow with creation); details adds each
// download, redacted unless caller may manage it, read in one query.
func (s *Service) DatasetActivity(ctx context.Context, caller *User, datasetKey string, details bool, limit, offset int) (Page[DatasetActivity], error) {
	limit, offset = clampPage(limit, offset)
	if details {
		limit = min(limit, MaxActivityDetails)
	}
	var total int64
	if err := s.db.read.QueryRowContext(ctx, s.db.q("SELECT count(*) FROM download_datasets WHERE dataset_key = ?"), datasetKey).
		Scan(&total); err != nil {
		return Page[DatasetActivity]{}, err
	}
	res, err := collect(ctx, s.db.read, s.db.q("SELECT download_key, "+datasetUsageColumns+
		" FROM download_datasets WHERE dataset_key = ? ORDER BY download_key DESC LIMIT ? OFFSET ?"),
		[]any{datasetKey, limit, offset}, func(sc scanner) (DatasetActivity, error) {
			var key string
			u, err := scanDatasetUsage("")(keyFirst{sc, &key})
			u.DownloadKey = key
			return DatasetActivity{DatasetUsage: u}, err
		})
	if err != nil || !details || len(res) == 0 {
		return newPage(res, total, limit, offset), err
	}
	args := make([]any, len(res))
	for i, a := range res {
		args[i] = a.DownloadKey
	}
	rows, err := collect(ctx, s.db.read, s.db.q("SELECT "+downloadColumns+" FROM downloads WHERE key IN (?"+
		strings.Repeat(", ?", len(args)-1)+")"), args, scanDownload)
	if err != nil {
		return Page[DatasetActivity]{}, err
	}
	byKey := make(map[string]*Download, len(rows))
	for i := range rows {
		rows[i].showTo(caller)
		byKey[rows[i].Key] = &rows[i].Download
	}
	for i := range res {
		res[i].Download = byKey[res[i].DownloadKey]
	}
	return newPage(res, total, limit, offset), nil
}

// keyFirst scans a row's first column into key and the rest into the
// destinations its user asks for (a usage row with its download's key).
type keyFirst struct {
	scanner
	key *string
}

func (k keyFirst) Scan(dest ...any) error { return k.scanner.Scan(append([]any{k.key}, dest...)...) }
