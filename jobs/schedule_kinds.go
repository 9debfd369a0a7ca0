package jobs

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"
)

// The work of each schedule kind but rollover (the command's, WithRollover).

// eraseRun warns the creators of archives due for erasure within
// WarnBefore, then erases the expired archives, both at the service's
// clock. Warnings go first: a download whose warning goes out now is not
// erased in the same run (see WarnErasures).
func (s *Service) eraseRun(ctx context.Context) (string, error) {
	now := s.now()
	warned, err := s.WarnErasures(ctx, now)
	if err != nil {
		return "", fmt.Errorf("erasure warnings: %w", err)
	}
	erased, err := s.EraseExpired(ctx, now)
	if err != nil {
		return "", fmt.Errorf("erase (%d erased before the error): %w", erased, err)
	}
	return fmt.Sprintf("warned %d, erased %d", warned, erased), nil
}

// maxWarnings bounds one pass of WarnErasures; the next pass takes the rest.
const maxWarnings = 1000

// WarnErasures queues the erasure warning of every SUCCEEDED download whose
// eraseAfter is within WarnBefore of now and that was not warned for that
// date yet, and returns how many it queued. A download is never erased
// sooner than WarnBefore after its warning: when the warning goes out later
// than that (warnings just enabled, no worker ran for a while, a
// postponement to a nearer date), eraseAfter moves to now + WarnBefore, and
// the warning names that date. Nothing is done without a mailer or with
// WarnBefore 0. The warning is mailed once per download and date
// (QueueErasureWarning); the postpone link is in it.
func (s *Service) WarnErasures(ctx context.Context, now time.Time) (int, error) {
	before := s.cfg.Scheduler.WarnBefore
	if before <= 0 || s.mailer == nil {
		return 0, nil
	}
	type due struct {
		key   string
		erase int64
	}
	ds, err := collect(ctx, s.db.SQL, s.db.q(`SELECT key, erase_after FROM downloads
		WHERE status = ? AND erase_after <= ? AND erase_warned <> erase_after ORDER BY erase_after LIMIT ?`),
		[]any{StatusSucceeded, now.Add(before).UnixMilli(), maxWarnings}, func(sc scanner) (due, error) {
			var d due
			err := sc.Scan(&d.key, &d.erase)
			return d, err
		})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range ds {
		erase := max(d.erase, now.Add(before).UnixMilli())
		queued := false
		err := s.db.inTx(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, s.db.q(`UPDATE downloads SET erase_after = ?, erase_warned = ?
				WHERE key = ? AND status = ? AND erase_after = ?`), erase, erase, d.key, StatusSucceeded, d.erase)
			if err != nil {
				return err
			}
			if k, err := res.RowsAffected(); err != nil || k == 0 {
				return err // postponed or erased meanwhile: the next pass sees it
			}
			queued = true
			return s.queueErasureWarningTx(ctx, tx, d.key, time.UnixMilli(erase))
		})
		if err != nil {
			return n, fmt.Errorf("warn %s: %w", d.key, err)
		}
		if queued {
			n++
		}
	}
	return n, nil
}

// digestRun queues the operators' digest of yesterday's failures (UTC).
func (s *Service) digestRun(ctx context.Context) (string, error) {
	now := s.now()
	if s.mailer == nil {
		return "no mail configured: no digest", nil
	}
	if len(s.mailer.cfg.Operators) == 0 {
		return "no operator addresses (--mail-operators): no digest", nil
	}
	if err := s.QueueDigest(ctx, now); err != nil {
		return "", err
	}
	day := now.UTC().Truncate(24 * time.Hour).Add(-24 * time.Hour)
	return fmt.Sprintf("digest of %s queued for %d operators (none is mailed when nothing failed)",
		day.Format(time.DateOnly), len(s.mailer.cfg.Operators)), nil
}

// exportRun submits the download of an export schedule as the schedules'
// creator, in the transaction that records its key on the run and gives
// up the run's lease (the run ends with the download: endExportRuns). A
// run resumed after its download was submitted only gives up its lease.
func (s *Service) exportRun(ctx context.Context, sc Schedule, run *ScheduleRun, owner string) (string, error) {
	if run.DownloadKey != "" {
		_, err := s.db.SQL.ExecContext(ctx, s.db.q(`UPDATE schedule_runs SET lease_owner = '', lease_until = 0
			WHERE schedule = ? AND fire = ? AND lease_owner = ?`), run.Schedule, run.Fire.UnixMilli(), owner)
		return "", err
	}
	req := Request{Format: sc.Export.Format, Predicate: sc.Export.Predicate, SQL: sc.Export.SQL, Type: "OCCURRENCE",
		Creator: s.cfg.Scheduler.Creator, Description: sc.Export.Description, Source: "schedule " + sc.Name}
	if req.Description == "" {
		req.Description = "Scheduled export " + sc.Name
	}
	if err := req.validate(); err != nil {
		return "", err
	}
	if err := s.check(&req); err != nil {
		return "", err
	}
	now := s.now().UTC()
	var key string
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.db.ensureSystemUser(ctx, tx, req.Creator, now); err != nil {
			return err
		}
		var err error
		if key, err = s.db.nextKey(ctx, tx, s.started); err != nil {
			return err
		}
		r := s.newRow(key, req, now)
		// Never deduplicated: each run is an export of its own.
		h := sha256.Sum256(fmt.Appendf(nil, "schedule\x00%s\x00%d", sc.Name, run.Fire.UnixMilli()))
		if err := s.db.insertDownload(ctx, tx, r, hex.EncodeToString(h[:])); err != nil {
			return fmt.Errorf("record the scheduled export: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.db.q("UPDATE downloads SET schedule = ? WHERE key = ?"), sc.Name, key); err != nil {
			return err
		}
		if err := s.enqueueTx(ctx, tx, key, 0); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.db.q(`UPDATE schedule_runs SET download_key = ?, result = ?, lease_owner = '',
			lease_until = 0 WHERE schedule = ? AND fire = ? AND lease_owner = ? AND status = ?`),
			key, "download "+key+" queued", run.Schedule, run.Fire.UnixMilli(), owner, RunRunning)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("%w (%v)", errLeaseLost, err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	s.metrics.downloads.WithLabelValues(string(StatusPreparing), req.Format).Inc()
	run.DownloadKey, run.Result = key, "download "+key+" queued"
	return run.Result, nil
}

// ensureSystemUser creates user name, whom nobody can sign in as (its
// password hash is no bcrypt hash), unless it exists.
func (db *DB) ensureSystemUser(ctx context.Context, tx *sql.Tx, name string, now time.Time) error {
	_, err := tx.ExecContext(ctx, db.q(`INSERT INTO users (name, email, password_hash, admin, created)
		VALUES (?, '', '!', FALSE, ?) ON CONFLICT (name) DO NOTHING`), name, now.UnixMilli())
	if err != nil {
		return fmt.Errorf("create the schedules' user %s: %w", name, err)
	}
	return nil
}
