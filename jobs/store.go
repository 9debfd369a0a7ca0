package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/migrations"
)

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

const downloadColumns = `key, creator, status, format, predicate, request, created, modified, erase_after,
	size, total_records, number_datasets, license, table_snapshot, object_name, sha256,
	records_scanned, records_written, bytes_written, error, source, erasure_notification, error_kind`

// scanner is what *sql.Row and *sql.Rows share.
type scanner interface{ Scan(dest ...any) error }

// collect runs query on q and scans every row; the rows are closed when it
// returns, so the caller may use q's connection again (the SQLite writer
// pool has only one).
func collect[T any](ctx context.Context, q querier, query string, args []any, scan func(scanner) (T, error)) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// row is a download as stored.
type row struct {
	Download
	Creator   string
	Predicate sql.NullString
	// ErrorKind classifies Error (failureReason; "" for none or unknown).
	ErrorKind string
}

func scanDownload(s scanner) (row, error) {
	var r row
	var req string
	var created, modified, erase, warned int64
	var p Progress
	err := s.Scan(&r.Key, &r.Creator, &r.Status, &r.Request.Format, &r.Predicate, &req, &created, &modified, &erase,
		&r.Size, &r.TotalRecords, &r.NumberDatasets, &r.License, &r.TableSnapshot, &r.ObjectName, &r.SHA256,
		&p.RecordsScanned, &p.RecordsWritten, &p.BytesWritten, &r.Error, &r.Source, &warned, &r.ErrorKind)
	if err != nil {
		return row{}, err
	}
	if err := json.Unmarshal([]byte(req), &r.Request); err != nil {
		return row{}, fmt.Errorf("download %s: stored request: %w", r.Key, err)
	}
	r.Request.Source = r.Source
	r.License = gbifLicense(r.License)
	r.Created, r.Modified, r.EraseAfter = fromMillis(created), fromMillis(modified), fromMillis(erase)
	r.ErasureNotification = fromMillis(warned)
	if r.Status != StatusPreparing {
		r.Progress = &p
	}
	return r, nil
}

// gbifLicense is a stored download licence as GBIF's API serializes it:
// the licence URL, else the lower-cased name of GBIF's License value. A
// download without one yet (not finished) is "unspecified", as GBIF
// records it at creation.
func gbifLicense(stored string) string {
	if stored == "" {
		return "unspecified"
	}
	if strings.Contains(stored, "://") {
		return stored
	}
	return strings.ToLower(stored)
}

func (db *DB) getDownload(ctx context.Context, q querier, key string) (row, error) {
	r, err := scanDownload(q.QueryRowContext(ctx, db.q("SELECT "+downloadColumns+" FROM downloads WHERE key = ?"), key))
	if errors.Is(err, sql.ErrNoRows) {
		return row{}, fmt.Errorf("%w: download %s", ErrNotFound, key)
	}
	return r, err
}

func (db *DB) insertDownload(ctx context.Context, q querier, r row, dedupe string) error {
	req, err := json.Marshal(r.Request)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, db.q(`INSERT INTO downloads
		(key, creator, status, format, predicate, request, dedupe_hash, created, modified, erase_after, source, language)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		r.Key, r.Creator, r.Status, r.Request.Format, r.Predicate, string(req), dedupe,
		r.Created.UnixMilli(), r.Modified.UnixMilli(), r.EraseAfter.UnixMilli(), r.Request.Source, r.Request.Language)
	return err
}

// lockCreator checks, in the submission's transaction, that the creator is
// a user who may own downloads, and serializes the submissions of one user
// on PostgreSQL (row lock); SQLite's immediate transactions already
// serialize every writer. An unknown creator (an admin may name anyone) is
// a bad request naming the creator, not a foreign-key failure.
func (db *DB) lockCreator(ctx context.Context, q querier, user string) error {
	query := "SELECT disabled, removed FROM users WHERE name = ?"
	if _, inTx := q.(*sql.Tx); inTx && db.Dialect == migrations.Postgres {
		query += " FOR UPDATE"
	}
	var disabled bool
	var removed int64
	err := q.QueryRowContext(ctx, db.q(query), user).Scan(&disabled, &removed)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%w: creator %q is not a user of this service", ErrInvalidRequest, user)
	case err == nil && removed != 0:
		return fmt.Errorf("%w: creator %q was removed", ErrInvalidRequest, user)
	case err == nil && disabled:
		return fmt.Errorf("%w: creator %q is disabled", ErrInvalidRequest, user)
	}
	return err
}

func (db *DB) findDuplicate(ctx context.Context, q querier, hash string, since time.Time) (string, bool, error) {
	var key string
	err := q.QueryRowContext(ctx, db.q(`SELECT key FROM downloads WHERE dedupe_hash = ? AND created >= ?
		AND status NOT IN (?, ?, ?, ?) ORDER BY created DESC LIMIT 1`),
		hash, since.UnixMilli(), StatusFailed, StatusCancelled, StatusKilled, StatusFileErased).Scan(&key)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return key, err == nil, err
}

func (db *DB) countActive(ctx context.Context, q querier, user string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, db.q(`SELECT count(*) FROM downloads WHERE creator = ? AND status IN (?, ?, ?)`),
		user, StatusPreparing, StatusRunning, StatusSuspended).Scan(&n)
	return n, err
}

// ListFilter selects a user's downloads: by status (any when empty) and
// created at or after From (any time when zero).
type ListFilter struct {
	Statuses []Status
	From     time.Time
}

func (f ListFilter) where(user string) (string, []any) {
	where := "creator = ?"
	args := []any{user}
	if len(f.Statuses) > 0 {
		where += " AND status IN (?" + strings.Repeat(", ?", len(f.Statuses)-1) + ")"
		for _, s := range f.Statuses {
			args = append(args, s)
		}
	}
	if !f.From.IsZero() {
		where += " AND created >= ?"
		args = append(args, f.From.UnixMilli())
	}
	return where, args
}

func (db *DB) countDownloads(ctx context.Context, user string, f ListFilter) (int64, error) {
	where, args := f.where(user)
	var total int64
	err := db.read.QueryRowContext(ctx, db.q("SELECT count(*) FROM downloads WHERE "+where), args...).Scan(&total)
	return total, err
}

func (db *DB) listDownloads(ctx context.Context, user string, f ListFilter, limit, offset int) ([]row, int64, error) {
	total, err := db.countDownloads(ctx, user, f)
	if err != nil {
		return nil, 0, err
	}
	where, args := f.where(user)
	out, err := collect(ctx, db.read, db.q("SELECT "+downloadColumns+" FROM downloads WHERE "+where+
		" ORDER BY created DESC, key DESC LIMIT ? OFFSET ?"), append(args, limit, offset), scanDownload)
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// setStatus moves key to status if its current status is one of from.
// It reports whether the row changed.
func (db *DB) setStatus(ctx context.Context, key string, to Status, errText string, from ...Status) (bool, error) {
	return db.setStatusIn(ctx, db.SQL, key, to, errText, from...)
}

// setStatusIn is setStatus on q (a transaction).
func (db *DB) setStatusIn(ctx context.Context, q querier, key string, to Status, errText string, from ...Status) (bool, error) {
	args := []any{to, time.Now().UnixMilli(), errText, key}
	for _, s := range from {
		args = append(args, s)
	}
	res, err := q.ExecContext(ctx, db.q(`UPDATE downloads SET status = ?, modified = ?, error = ?
		WHERE key = ? AND status IN (?`+strings.Repeat(", ?", len(from)-1)+`)`), args...)
	if err != nil {
		return false, fmt.Errorf("download %s -> %s: %w", key, to, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// setRiverJob records on key the River job that exports it (in the
// transaction that inserts the job).
func (db *DB) setRiverJob(ctx context.Context, tx *sql.Tx, key string, id int64) error {
	_, err := tx.ExecContext(ctx, db.q("UPDATE downloads SET river_job_id = ? WHERE key = ?"), id, key)
	return err
}

func (db *DB) riverJob(ctx context.Context, key string) (int64, error) {
	var id int64
	err := db.SQL.QueryRowContext(ctx, db.q("SELECT river_job_id FROM downloads WHERE key = ?"), key).Scan(&id)
	return id, err
}

func (db *DB) postpone(ctx context.Context, key string, until time.Time) error {
	_, err := db.SQL.ExecContext(ctx, db.q("UPDATE downloads SET erase_after = ?, modified = ? WHERE key = ?"),
		until.UnixMilli(), time.Now().UnixMilli(), key)
	return err
}

// averageBytesPerRecord returns the mean archive bytes per record of recent
// successful downloads in format, or 0 when there are none.
func (db *DB) averageBytesPerRecord(ctx context.Context, format string) (float64, error) {
	var size, recs sql.NullInt64
	err := db.read.QueryRowContext(ctx, db.q(`SELECT sum(size), sum(total_records) FROM downloads
		WHERE format = ? AND status = ? AND total_records > 0`), format, StatusSucceeded).Scan(&size, &recs)
	if err != nil || !recs.Valid || recs.Int64 == 0 {
		return 0, err
	}
	return float64(size.Int64) / float64(recs.Int64), nil
}
