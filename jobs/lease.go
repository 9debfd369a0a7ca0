package jobs

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// A worker leases a download before exporting it and renews the lease with
// every heartbeat. A second run of the same job (River rescues jobs whose
// worker vanished) can only claim the download once the lease has expired,
// so two workers never export the same download at the same time.

// claim takes the lease of an active download and marks it RUNNING.
func (db *DB) claim(ctx context.Context, key, owner string, lease time.Duration) (bool, error) {
	now := time.Now()
	res, err := db.SQL.ExecContext(ctx, db.q(`UPDATE downloads SET status = ?, lease_owner = ?, lease_until = ?,
		attempts = attempts + 1, modified = ?
		WHERE key = ? AND status IN (?, ?, ?) AND (lease_owner = '' OR lease_until < ? OR lease_owner = ?)`),
		StatusRunning, owner, now.Add(lease).UnixMilli(), now.UnixMilli(),
		key, StatusPreparing, StatusRunning, StatusSuspended, now.UnixMilli(), owner)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// renew extends the lease and saves progress; it returns the download's
// status and whether owner still holds the lease. A heartbeat that renews
// costs one statement; only one that fails reads the row to say why.
func (db *DB) renew(ctx context.Context, key, owner string, lease time.Duration, p Progress) (Status, bool, error) {
	now := time.Now()
	res, err := db.SQL.ExecContext(ctx, db.q(`UPDATE downloads SET lease_until = ?, records_scanned = ?,
		records_written = ?, bytes_written = ? WHERE key = ? AND lease_owner = ? AND status = ?`),
		now.Add(lease).UnixMilli(), p.RecordsScanned, p.RecordsWritten, p.BytesWritten, key, owner, StatusRunning)
	if err != nil {
		return "", false, err
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return StatusRunning, err == nil, err
	}
	var st Status
	var holder string
	err = db.SQL.QueryRowContext(ctx, db.q("SELECT status, lease_owner FROM downloads WHERE key = ?"), key).Scan(&st, &holder)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return st, holder == owner, err
}

// release gives the lease up and sets status (when still RUNNING) and the
// error with its kind (failureReason), on q (the database or a
// transaction).
func (db *DB) release(ctx context.Context, q querier, key, owner string, to Status, errText, errKind string) (bool, error) {
	res, err := q.ExecContext(ctx, db.q(`UPDATE downloads SET status = ?, error = ?, error_kind = ?, lease_owner = '',
		lease_until = 0, modified = ? WHERE key = ? AND lease_owner = ? AND status = ?`),
		to, errText, errKind, time.Now().UnixMilli(), key, owner, StatusRunning)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// succeed records a finished export and its datasets in tx; it reports
// whether owner still held the RUNNING download.
func (db *DB) succeed(ctx context.Context, tx *sql.Tx, key, owner, object string, r ExportResult) (bool, error) {
	res, err := tx.ExecContext(ctx, db.q(`UPDATE downloads SET status = ?, modified = ?, size = ?, total_records = ?,
		number_datasets = ?, license = ?, table_snapshot = ?, object_name = ?, sha256 = ?, records_scanned = ?,
		records_written = ?, bytes_written = ?, error = '', lease_owner = '', lease_until = 0
		WHERE key = ? AND lease_owner = ? AND status = ?`),
		StatusSucceeded, time.Now().UnixMilli(), r.Bytes, r.Records, len(r.Datasets), r.License, r.Snapshot,
		object, r.SHA256, r.Scanned, r.Records, r.Bytes, key, owner, StatusRunning)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, db.q("DELETE FROM download_datasets WHERE download_key = ?"), key); err != nil {
		return false, err
	}
	for _, d := range r.Datasets {
		if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO download_datasets
			(download_key, dataset_key, title, record_count, license, citation, dataset_doi, publishing_org_key,
			publishing_country) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			key, d.DatasetKey, d.DatasetTitle, d.NumberRecords, d.License, d.Citation, d.DatasetDOI,
			d.PublishingOrgKey, d.PublishingCountryCode); err != nil {
			return false, err
		}
	}
	return true, nil
}

// dropLease gives up owner's lease whatever the status (after a cancel).
func (db *DB) dropLease(ctx context.Context, key, owner string) error {
	_, err := db.SQL.ExecContext(ctx, db.q(`UPDATE downloads SET lease_owner = '', lease_until = 0
		WHERE key = ? AND lease_owner = ?`), key, owner)
	return err
}

// dropExpiredLease clears key's lease unless a worker holds one that has
// not run out at now, and reports whether it did (no live worker has the
// download: a dead one's partial archive is then discarded, once).
func (db *DB) dropExpiredLease(ctx context.Context, key string, now time.Time) (bool, error) {
	res, err := db.SQL.ExecContext(ctx, db.q(`UPDATE downloads SET lease_owner = '', lease_until = 0
		WHERE key = ? AND (lease_owner = '' OR lease_until < ?)`), key, now.UnixMilli())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// setObject records the archive name a run is about to commit.
func (db *DB) setObject(ctx context.Context, key, owner, name string) error {
	res, err := db.SQL.ExecContext(ctx, db.q(`UPDATE downloads SET object_name = ? WHERE key = ? AND lease_owner = ?`),
		name, key, owner)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(err, errLeaseLost)
	}
	return nil
}
