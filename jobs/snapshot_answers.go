package jobs

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/biodiversity-downloads/downloader/migrations"
)

// Unfiltered requests answered with a scheduled export. A user who asks
// for every record in a format that a scheduled export of every record has
// (SIMPLE_PARQUET each month, say) gets a download of their own, SUCCEEDED
// at once, that serves that export's archive, instead of a new scan of the
// whole table: GBIF answers unfiltered downloads from its monthly
// snapshots the same way. The download has its own key, citation, erasure
// date and notice; the archive, its metadata and its citation file are the
// export's, and the archive is deleted only when the last download serving
// it is erased (EraseExpired).

// unfiltered reports whether a canonical predicate selects every record:
// none, or null. (The parser refuses an empty "and" or "or", so no other
// predicate is read as every record.)
func unfiltered(p json.RawMessage) bool {
	t := bytes.TrimSpace(p)
	return len(t) == 0 || string(t) == "null"
}

// snapshotExport is a scheduled export that may answer a request.
type snapshotExport struct {
	key, snapshot, extensions string
	predicate                 sql.NullString
	created                   int64
}

// maxSnapshotCandidates bounds the exports looked at for an answer.
const maxSnapshotCandidates = 20

// findSnapshotExport returns the latest SUCCEEDED scheduled export of every
// record in req's format that may answer req under the configured rule
// (current is the table's snapshot, "" when unknown), in tx; on PostgreSQL its row stays locked (FOR SHARE) until tx ends, so that
// it is not erased before the answer that shares its archive is committed.
func (s *Service) findSnapshotExport(ctx context.Context, tx *sql.Tx, req Request, now time.Time, current string) (string, bool, error) {
	rule := s.cfg.Scheduler.Unfiltered
	if rule == AnswerNever || len(req.VerbatimExtensions) > 0 || len(req.InterpretedExtensions) > 0 || req.SQL != "" || !unfiltered(req.Predicate) {
		return "", false, nil
	}
	cands, err := collect(ctx, tx, s.db.q(`SELECT key, table_snapshot, predicate, request, created FROM downloads
		WHERE schedule <> '' AND format = ? AND status = ? ORDER BY created DESC LIMIT ?`),
		[]any{req.Format, StatusSucceeded, maxSnapshotCandidates}, func(sc scanner) (snapshotExport, error) {
			var e snapshotExport
			err := sc.Scan(&e.key, &e.snapshot, &e.predicate, &e.extensions, &e.created)
			return e, err
		})
	if err != nil {
		return "", false, err
	}
	for _, c := range cands {
		if c.predicate.Valid && !unfiltered(json.RawMessage(c.predicate.String)) {
			continue
		}
		var stored Request
		if json.Unmarshal([]byte(c.extensions), &stored) != nil || len(stored.VerbatimExtensions) > 0 || len(stored.InterpretedExtensions) > 0 {
			continue
		}
		same := current != "" && c.snapshot == current
		recent := rule == AnswerRecent && now.Sub(time.UnixMilli(c.created)) <= s.cfg.Scheduler.UnfilteredMaxAge
		if !same && !recent {
			continue
		}
		if s.db.Dialect == migrations.Postgres {
			var k string
			err := tx.QueryRowContext(ctx, "SELECT key FROM downloads WHERE key = $1 AND status = $2 FOR SHARE",
				c.key, StatusSucceeded).Scan(&k)
			if errors.Is(err, sql.ErrNoRows) {
				continue // erased meanwhile
			}
			if err != nil {
				return "", false, err
			}
		}
		return c.key, true, nil
	}
	return "", false, nil
}

// answerFromSnapshot records, in tx, download r (its key, creator, request
// and dates set) as SUCCEEDED with the archive of the scheduled export
// from, and queues its notice.
func (s *Service) answerFromSnapshot(ctx context.Context, tx *sql.Tx, r row, hash, from string) error {
	if err := s.db.insertDownload(ctx, tx, r, hash); err != nil {
		return fmt.Errorf("record download: %w", err)
	}
	_, err := tx.ExecContext(ctx, s.db.q(`UPDATE downloads SET (status, size, total_records, number_datasets, license,
		table_snapshot, object_name, sha256, records_written, bytes_written, shares_archive_of) =
		(SELECT ?, size, total_records, number_datasets, license, table_snapshot, object_name, sha256, total_records,
		size, key FROM downloads WHERE key = ?) WHERE key = ?`), StatusSucceeded, from, r.Key)
	if err != nil {
		return fmt.Errorf("answer %s with %s: %w", r.Key, from, err)
	}
	if _, err := tx.ExecContext(ctx, s.db.q(`INSERT INTO download_datasets (download_key, dataset_key, title,
		record_count, license, citation, dataset_doi, publishing_org_key, publishing_country)
		SELECT ?, dataset_key, title, record_count, license, citation, dataset_doi, publishing_org_key, publishing_country
		FROM download_datasets WHERE download_key = ?`), r.Key, from); err != nil {
		return fmt.Errorf("answer %s with %s: datasets: %w", r.Key, from, err)
	}
	return s.notifyTx(ctx, tx, r.Key, "")
}

// archiveUsers counts the SUCCEEDED downloads that serve archive name.
func (db *DB) archiveUsers(ctx context.Context, name string) (int, error) {
	var n int
	err := db.SQL.QueryRowContext(ctx, db.q("SELECT count(*) FROM downloads WHERE object_name = ? AND status = ?"),
		name, StatusSucceeded).Scan(&n)
	return n, err
}

// answerUnfiltered answers req from a scheduled export when one may
// (findSnapshotExport; snapshot is the table's current one): it records the download SUCCEEDED in tx, commits
// tx and returns its key. ok is false when req needs a scan.
func (s *Service) answerUnfiltered(ctx context.Context, tx *sql.Tx, req Request, hash, snapshot string, now time.Time) (string, bool, error) {
	from, ok, err := s.findSnapshotExport(ctx, tx, req, now, snapshot)
	if err != nil || !ok {
		return "", false, err
	}
	key, err := s.db.nextKey(ctx, tx, s.started)
	if err != nil {
		return "", false, err
	}
	if err := s.answerFromSnapshot(ctx, tx, s.newRow(key, req, now), hash, from); err != nil {
		return "", false, err
	}
	if err := tx.Commit(); err != nil {
		return "", false, fmt.Errorf("record download: %w", err)
	}
	s.metrics.downloads.WithLabelValues(string(StatusSucceeded), req.Format).Inc()
	s.metrics.snapshotAnswers.WithLabelValues(req.Format).Inc()
	s.logger.InfoContext(ctx, "unfiltered request answered with a scheduled export", "key", key, "export", from,
		"format", req.Format)
	return key, true, nil
}
