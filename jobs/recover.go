package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Recovery of downloads whose worker died. River's own rescuer does not act
// on jobs without a timeout, and an export may legitimately run for hours, so
// the lease is the liveness signal: a worker renews its lease with every
// heartbeat, and a download whose lease has expired belongs to a dead (or
// hopelessly stalled) worker. Every worker process looks for such downloads
// twice per lease period; the first to clear the stale lease queues a new run
// of the export and cancels the dead job. A stalled worker that wakes up sees
// its lease gone and stops without publishing anything.

func (s *Service) recoverLoop(ctx context.Context) {
	defer close(s.recoverDone)
	tick(ctx, max(s.cfg.Lease/2, 200*time.Millisecond), func() bool {
		if n, err := s.RecoverExpired(ctx, time.Now()); err != nil {
			if ctx.Err() == nil {
				s.logger.WarnContext(ctx, "recover expired leases", "err", err)
			}
		} else if n > 0 {
			s.logger.InfoContext(ctx, "requeued downloads of dead workers", "count", n)
		}
		if _, err := s.RecoverSchedules(ctx, time.Now()); err != nil && ctx.Err() == nil {
			s.logger.WarnContext(ctx, "recover schedule runs", "err", err)
		}
		return true
	})
}

type staleLease struct {
	key, owner string
	job        int64
	attempts   int
}

// RecoverExpired queues again every active download whose lease expired
// before now and returns how many it queued.
func (s *Service) RecoverExpired(ctx context.Context, now time.Time) (int, error) {
	stale, err := collect(ctx, s.db.SQL, s.db.q(`SELECT key, lease_owner, river_job_id, attempts FROM downloads
		WHERE status IN (?, ?, ?) AND lease_owner <> '' AND lease_until < ?`),
		[]any{StatusPreparing, StatusRunning, StatusSuspended, now.UnixMilli()}, func(s scanner) (staleLease, error) {
			var l staleLease
			err := s.Scan(&l.key, &l.owner, &l.job, &l.attempts)
			return l, err
		})
	if err != nil {
		return 0, err
	}
	n, err := countDone(stale, func(l staleLease) (bool, error) {
		ok, err := s.requeue(ctx, l, now)
		if err != nil {
			return false, fmt.Errorf("requeue %s: %w", l.key, err)
		}
		return ok, nil
	})
	if err != nil {
		return n, err
	}
	return n, s.releaseCancelled(ctx, now)
}

// releaseCancelled clears the expired leases of cancelled downloads and
// discards their partial archives: a download cancelled while a worker
// that had died still held its lease (the cancel could not tell) has no
// one else to remove them but the daily sweep. A live worker drops its
// lease when it sees the cancel, so only dead workers' are left.
func (s *Service) releaseCancelled(ctx context.Context, now time.Time) error {
	keys, err := collect(ctx, s.db.SQL, s.db.q(`UPDATE downloads SET lease_owner = '', lease_until = 0
		WHERE status = ? AND lease_owner <> '' AND lease_until < ? RETURNING key`),
		[]any{StatusCancelled, now.UnixMilli()}, func(s scanner) (string, error) {
			var key string
			err := s.Scan(&key)
			return key, err
		})
	if err != nil {
		return fmt.Errorf("release cancelled downloads: %w", err)
	}
	for _, key := range keys {
		s.abortDeadUploads(ctx, key)
	}
	return nil
}

// countDone calls f on each item until one fails and counts the items f
// reports done.
func countDone[T any](items []T, f func(T) (bool, error)) (int, error) {
	n := 0
	for _, it := range items {
		done, err := f(it)
		if err != nil {
			return n, err
		}
		if done {
			n++
		}
	}
	return n, nil
}

// tick calls f every d until ctx ends or f returns false.
func tick(ctx context.Context, d time.Duration, f func() bool) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !f() {
			return
		}
	}
}

// requeue clears one stale lease (only one process succeeds) and queues a
// new run in the same transaction, so a failed insert leaves the stale lease
// for the next pass; then it cancels the dead job.
func (s *Service) requeue(ctx context.Context, l staleLease, now time.Time) (bool, error) {
	cleared := false
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.db.q(`UPDATE downloads SET lease_owner = '', lease_until = 0, modified = ?
			WHERE key = ? AND lease_owner = ? AND lease_until < ?`), now.UnixMilli(), l.key, l.owner, now.UnixMilli())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		cleared = true
		return s.enqueueTx(ctx, tx, l.key, l.attempts)
	})
	if err != nil || !cleared {
		return false, err
	}
	s.logger.WarnContext(ctx, "worker lost; queued the download again", "key", l.key, "owner", l.owner)
	if l.job != 0 {
		s.cancelJob(ctx, l.key, l.job)
	}
	return true, nil
}
