package jobs

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/migrations"
)

// Download statistics, as GBIF's /occurrence/download/statistics answers
// them, over the downloads this service's database holds. They count
// downloads that delivered an archive (SUCCEEDED, or FILE_ERASED since):
// GBIF's statistics are documented as counts of downloads and downloaded
// records, and which statuses its queries include is not documented
// (inferred). Months are calendar months of the download's creation, UTC.

// StatsFilter selects the downloads and datasets statistics count. A zero
// field selects all.
type StatsFilter struct {
	// From and To bound the creation time: From <= created < To.
	From, To time.Time
	// DatasetKey, PublishingCountry and PublishingOrgKey select constituent
	// datasets (the latter two match only datasets whose country or
	// organization the catalog recorded).
	DatasetKey, PublishingCountry, PublishingOrgKey string
	// Source selects downloads by their source.
	Source string
	// UserCountry selects downloads by the country of their creator. Users
	// have no country here, so a given country selects nothing.
	UserCountry string
}

// DownloadStatistics is GBIF's DownloadStatistics: the downloads of one
// dataset in one month and the records they held.
type DownloadStatistics struct {
	DatasetKey      string `json:"datasetKey"`
	TotalRecords    int64  `json:"totalRecords"`
	NumberDownloads int64  `json:"numberDownloads"`
	Year            int    `json:"year"`
	Month           int    `json:"month"`
}

// MonthlyCounts maps year to month to a count, GBIF's shape for the
// statistics by country, source and dataset.
type MonthlyCounts map[int]map[int]int64

// MarshalJSON writes {"2023":{"1":5,"12":3}} with years and months in
// numeric order, as GBIF's sorted maps are (encoding/json would sort the
// keys as text: "12" before "2").
func (m MonthlyCounts) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, y := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.Itoa(y) + `":{`)
		for j, mo := range slices.Sorted(maps.Keys(m[y])) {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + strconv.Itoa(mo) + `":` + strconv.FormatInt(m[y][mo], 10))
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// yearMonth returns SQL for the UTC year and month of a Unix-millisecond
// column.
func (db *DB) yearMonth(col string) (year, month string) {
	if db.Dialect == migrations.Postgres {
		ts := "(to_timestamp(" + col + " / 1000.0) AT TIME ZONE 'UTC')"
		return "CAST(EXTRACT(YEAR FROM " + ts + ") AS INTEGER)", "CAST(EXTRACT(MONTH FROM " + ts + ") AS INTEGER)"
	}
	return "CAST(strftime('%Y', " + col + " / 1000, 'unixepoch') AS INTEGER)",
		"CAST(strftime('%m', " + col + " / 1000, 'unixepoch') AS INTEGER)"
}

// where returns the conditions of f over downloads d and, when datasets,
// download_datasets dd.
func (f StatsFilter) where(datasets bool) (string, []any) {
	conds := []string{"d.status IN (?, ?)"}
	args := []any{StatusSucceeded, StatusFileErased}
	add := func(cond string, v any) {
		conds = append(conds, cond)
		args = append(args, v)
	}
	if !f.From.IsZero() {
		add("d.created >= ?", f.From.UnixMilli())
	}
	if !f.To.IsZero() {
		add("d.created < ?", f.To.UnixMilli())
	}
	if f.Source != "" {
		add("d.source = ?", f.Source)
	}
	if f.UserCountry != "" {
		conds = append(conds, "1 = 0")
	}
	if datasets {
		if f.DatasetKey != "" {
			add("dd.dataset_key = ?", f.DatasetKey)
		}
		if f.PublishingCountry != "" {
			add("dd.publishing_country = ?", strings.ToUpper(f.PublishingCountry))
		}
		if f.PublishingOrgKey != "" {
			add("dd.publishing_org_key = ?", f.PublishingOrgKey)
		}
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

const statsFrom = " FROM downloads d JOIN download_datasets dd ON dd.download_key = d.key"

// datasetStatsQuery is the grouped query of DownloadStatistics under f.
func (db *DB) datasetStatsQuery(f StatsFilter) (string, []any) {
	y, m := db.yearMonth("d.created")
	where, args := f.where(true)
	return "SELECT dd.dataset_key, sum(dd.record_count), count(*), " + y + " AS yr, " + m + " AS mo" + statsFrom +
		where + " GROUP BY dd.dataset_key, yr, mo", args
}

func scanDownloadStatistics(s scanner) (DownloadStatistics, error) {
	var st DownloadStatistics
	err := s.Scan(&st.DatasetKey, &st.TotalRecords, &st.NumberDownloads, &st.Year, &st.Month)
	return st, err
}

// statsOrder lists the newest month first, datasets in key order (GBIF's
// order is not documented).
const statsOrder = " ORDER BY yr DESC, mo DESC, dataset_key"

// DownloadStatistics pages through the downloads and records per dataset
// and month under f.
func (s *Service) DownloadStatistics(ctx context.Context, f StatsFilter, limit, offset int) (Page[DownloadStatistics], error) {
	limit, offset = clampPage(limit, offset)
	q, args := s.db.datasetStatsQuery(f)
	var total int64
	if err := s.db.read.QueryRowContext(ctx, s.db.q("SELECT count(*) FROM ("+q+") g"), args...).Scan(&total); err != nil {
		return Page[DownloadStatistics]{}, err
	}
	res, err := collect(ctx, s.db.read, s.db.q("SELECT * FROM ("+q+") g"+statsOrder+" LIMIT ? OFFSET ?"),
		append(args, limit, offset), scanDownloadStatistics)
	if err != nil {
		return Page[DownloadStatistics]{}, err
	}
	return newPage(res, total, limit, offset), nil
}

// EachDownloadStatistic calls fn with every row DownloadStatistics would
// page through, in the same order, streaming them.
func (s *Service) EachDownloadStatistic(ctx context.Context, f StatsFilter, fn func(DownloadStatistics) error) error {
	q, args := s.db.datasetStatsQuery(f)
	rows, err := s.db.read.QueryContext(ctx, s.db.q("SELECT * FROM ("+q+") g"+statsOrder), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		st, err := scanDownloadStatistics(rows)
		if err != nil {
			return err
		}
		if err := fn(st); err != nil {
			return err
		}
	}
	return rows.Err()
}

// monthly runs a query of year, month and count rows into MonthlyCounts.
func (s *Service) monthly(ctx context.Context, query string, args []any) (MonthlyCounts, error) {
	type cell struct {
		y, m int
		n    int64
	}
	cells, err := collect(ctx, s.db.read, s.db.q(query), args, func(sc scanner) (cell, error) {
		var c cell
		err := sc.Scan(&c.y, &c.m, &c.n)
		return c, err
	})
	if err != nil {
		return nil, err
	}
	out := MonthlyCounts{}
	for _, c := range cells {
		if out[c.y] == nil {
			out[c.y] = map[int]int64{}
		}
		out[c.y][c.m] += c.n
	}
	return out, nil
}

// DownloadsByMonth counts the downloads under f (its time, source and user
// country) per month: GBIF's downloadsByUserCountry and downloadsBySource.
func (s *Service) DownloadsByMonth(ctx context.Context, f StatsFilter) (MonthlyCounts, error) {
	y, m := s.db.yearMonth("d.created")
	where, args := f.where(false)
	return s.monthly(ctx, "SELECT "+y+" AS yr, "+m+" AS mo, count(*) FROM downloads d"+where+" GROUP BY yr, mo", args)
}

// DatasetDownloadsByMonth counts per month the downloads that hold the
// datasets under f (records false: GBIF's downloadsByDataset) or the
// records of those datasets they hold (records true:
// downloadedRecordsByDataset).
func (s *Service) DatasetDownloadsByMonth(ctx context.Context, f StatsFilter, records bool) (MonthlyCounts, error) {
	y, m := s.db.yearMonth("d.created")
	where, args := f.where(true)
	agg := "count(DISTINCT d.key)"
	if records {
		agg = "sum(dd.record_count)"
	}
	return s.monthly(ctx, "SELECT "+y+" AS yr, "+m+" AS mo, "+agg+statsFrom+where+" GROUP BY yr, mo", args)
}
