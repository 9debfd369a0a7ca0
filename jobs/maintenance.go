package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

type maintenanceWorker struct {
	river.WorkerDefaults[maintenanceArgs]
	s *Service
}

// Work erases expired archives (after warning their creators) unless an
// erase schedule does, sweeps abandoned uploads and reconciles downloads
// with their River jobs.
func (w *maintenanceWorker) Work(ctx context.Context, job *river.Job[maintenanceArgs]) error {
	erased := "by the erase schedule"
	if !w.s.hasSchedule(ScheduleErase) {
		var err error
		if erased, err = w.s.eraseRun(ctx); err != nil {
			return err
		}
	}
	if err := w.s.store.Sweep(ctx, time.Now().Add(-24*time.Hour)); err != nil {
		return fmt.Errorf("sweep storage: %w", err)
	}
	fixed, err := w.s.Reconcile(ctx, time.Now().Add(-time.Minute))
	if err != nil {
		return err
	}
	w.s.logger.InfoContext(ctx, "maintenance", "erased", erased, "reconciled", fixed)
	return nil
}

// EraseExpired marks the SUCCEEDED downloads whose eraseAfter is before
// now FILE_ERASED and deletes their archives, and returns how many it
// erased. An archive that other downloads still serve (an unfiltered
// request answered with a scheduled export's, snapshot_answers.go) is kept
// until the last of them is erased.
func (s *Service) EraseExpired(ctx context.Context, now time.Time) (int, error) {
	type victim struct{ key, name string }
	vs, err := collect(ctx, s.db.SQL, s.db.q(
		"SELECT key, object_name FROM downloads WHERE status = ? AND erase_after < ? ORDER BY erase_after LIMIT 1000"),
		[]any{StatusSucceeded, now.UnixMilli()}, func(s scanner) (victim, error) {
			var v victim
			err := s.Scan(&v.key, &v.name)
			return v, err
		})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, v := range vs {
		// Status first: once FILE_ERASED nobody is sent to the file.
		ok, err := s.db.setStatus(ctx, v.key, StatusFileErased, "", StatusSucceeded)
		if err != nil {
			return n, err
		}
		if !ok {
			continue
		}
		// The status changed first, and an answer that shares the archive
		// locks the download it copies (PostgreSQL) or runs alone (SQLite):
		// a download that shares it after this count cannot exist.
		shared, err := s.db.archiveUsers(ctx, v.name)
		if err != nil {
			return n, err
		}
		if shared == 0 {
			if err := s.store.Delete(ctx, v.name); err != nil {
				return n, fmt.Errorf("erase %s: %w", v.key, err)
			}
		} else {
			s.logger.InfoContext(ctx, "archive kept for the downloads that share it", "key", v.key, "downloads", shared)
		}
		s.counted(ctx, v.key, StatusFileErased)
		n++
	}
	return n, nil
}

// Reconcile repairs downloads whose queue state disagrees with their row
// (created before olderThan and not leased by a live worker): a download
// whose job is missing or was fetched by a worker that died before it claimed
// the download is queued again; an active download whose job River gave up
// on is marked KILLED. A download is committed together with its job (see
// Service.insert), so a download without one was recorded by an older
// version; a job is missing when River's cleaner or an operator deleted it.
func (s *Service) Reconcile(ctx context.Context, olderThan time.Time) (int, error) {
	as, err := collect(ctx, s.db.SQL, s.db.q(`SELECT key, river_job_id, status, attempts FROM downloads
		WHERE status IN (?, ?, ?) AND created < ? AND lease_until < ?`),
		[]any{StatusPreparing, StatusRunning, StatusSuspended, olderThan.UnixMilli(), time.Now().UnixMilli()},
		func(s scanner) (activeDownload, error) {
			var a activeDownload
			err := s.Scan(&a.key, &a.job, &a.status, &a.attempts)
			return a, err
		})
	if err != nil {
		return 0, err
	}
	return countDone(as, func(a activeDownload) (bool, error) { return s.reconcileOne(ctx, a) })
}

// killOrphan marks key KILLED, in tx, if it is still active and its
// recorded job is still job: a worker that found the download's lease
// expired may have queued a new job (and cancelled this one) since
// Reconcile read the row, and that download is alive.
func (db *DB) killOrphan(ctx context.Context, tx *sql.Tx, key string, job int64) (bool, error) {
	res, err := tx.ExecContext(ctx, db.q(`UPDATE downloads SET status = ?, modified = ?, error = ?
		WHERE key = ? AND river_job_id = ? AND status IN (?, ?, ?)`),
		StatusKilled, time.Now().UnixMilli(), "the export job stopped without finishing (worker lost)",
		key, job, StatusPreparing, StatusRunning, StatusSuspended)
	if err != nil {
		return false, fmt.Errorf("download %s -> %s: %w", key, StatusKilled, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

type activeDownload struct {
	key      string
	job      int64
	status   Status
	attempts int
}

func (s *Service) reconcileOne(ctx context.Context, a activeDownload) (bool, error) {
	if a.job == 0 {
		return true, s.enqueue(ctx, a.key, a.attempts)
	}
	j, err := s.river.JobGet(ctx, a.job)
	if errors.Is(err, river.ErrNotFound) {
		return true, s.enqueue(ctx, a.key, a.attempts+1)
	}
	if err != nil {
		return false, err
	}
	switch j.State {
	case rivertype.JobStateDiscarded, rivertype.JobStateCancelled, rivertype.JobStateCompleted:
		// KILLED and the job that mails it commit together.
		killed := false
		err := s.db.inTx(ctx, func(tx *sql.Tx) error {
			ok, err := s.db.killOrphan(ctx, tx, a.key, a.job)
			if err != nil || !ok {
				return err
			}
			killed = true
			return s.notifyTx(ctx, tx, a.key, reasonInterrupted)
		})
		if err == nil && killed {
			s.counted(ctx, a.key, StatusKilled)
			s.abortDeadUploads(ctx, a.key) // the dead worker's partial archive
		}
		return err == nil, err
	case rivertype.JobStateRunning:
		stuck := j.AttemptedAt != nil && time.Since(*j.AttemptedAt) > s.cfg.RescueAfter
		if a.status == StatusPreparing && stuck {
			if err := s.enqueue(ctx, a.key, a.attempts+1); err != nil {
				return false, err
			}
			_, err := s.river.JobCancel(ctx, a.job)
			return true, err
		}
	}
	return false, nil
}
