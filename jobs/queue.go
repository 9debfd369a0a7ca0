package jobs

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/biodiversity-downloads/downloader/migrations"
)

// exportArgs is the River job that exports one download. Run tells apart
// the jobs of one download: a download whose worker died is queued again
// with a new run number (see recover.go).
type exportArgs struct {
	Key string `json:"key"`
	Run int    `json:"run,omitempty"`
}

func (exportArgs) Kind() string { return "download_export" }

// InsertOpts puts exports in their own queue, worked by Config.Workers
// slots per process.
func (exportArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: queueExports} }

// notifyArgs is the River job that mails a notice (mail_notices.go): the
// outcome of download Key when Notice is empty (Reason is why it failed),
// else the notice named, for the day Date (YYYY-MM-DD).
type notifyArgs struct {
	Key    string     `json:"key,omitempty"`
	Notice NoticeKind `json:"notice,omitempty"`
	Reason string     `json:"reason,omitempty"`
	Date   string     `json:"date,omitempty"`
}

func (notifyArgs) Kind() string { return "download_notify" }

// InsertOpts puts notifications in a queue of their own, so that mail goes
// out while every export slot is busy.
func (notifyArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: queueNotify} }

// maintenanceArgs is the periodic job: erase expired archives, sweep
// abandoned uploads, and reconcile downloads with their River jobs.
type maintenanceArgs struct{}

func (maintenanceArgs) Kind() string { return "download_maintenance" }

// InsertOpts puts the periodic maintenance in a queue of its own.
func (maintenanceArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueMaintenance}
}

// The service's River queues. Each has its own slots in a worker process:
// exports exactly Config.Workers, notifications notifyWorkers and
// maintenance one, so that neither mail nor maintenance waits for an export
// slot and no export runs in theirs.
const (
	queueExports     = "download_export"
	queueNotify      = "download_notify"
	queueMaintenance = "download_maintenance"
	notifyWorkers    = 2
)

// newRiver returns the service's River client, of one type on both
// databases: *river.Client[*sql.Tx]. River's SQLite driver works on
// database/sql, and on PostgreSQL River's database/sql driver runs on DB.SQL,
// the pgx pool seen through database/sql that the service's own queries use.
// That driver is complete (it fetches and works jobs, elects a leader and
// runs River's own maintenance, not only inserts), so one client serves both
// roles instead of an insert client on database/sql beside a pgx client that
// works jobs. Every job the service inserts goes in with InsertTx, in the
// transaction that writes the download rows it belongs to: a download and its
// job commit or roll back together. On PostgreSQL the client listens on a
// connection of the pgx pool behind DB.SQL (NewWithPgxListener), so new jobs
// and cancels reach workers at once, as with River's pgx driver (which only
// the migrations still use, see DB.Migrate). SQLite has no notifications: a
// job inserted in a transaction is found at the workers' next poll
// (Config.FetchPollInterval).
func newRiver(s *Service) (*river.Client[*sql.Tx], error) {
	cfg := &river.Config{
		Logger:               s.logger,
		JobTimeout:           -1,
		RescueStuckJobsAfter: s.cfg.RescueAfter,
		MaxAttempts:          s.cfg.MaxAttempts,
		FetchPollInterval:    s.cfg.FetchPollInterval,
	}
	if s.cfg.Role != RoleAPI {
		workers := river.NewWorkers()
		river.AddWorker(workers, &exportWorker{s: s})
		river.AddWorker(workers, &notifyWorker{s: s})
		river.AddWorker(workers, &maintenanceWorker{s: s})
		river.AddWorker(workers, &scheduleWorker{s: s})
		cfg.Workers = workers
		cfg.Queues = map[string]river.QueueConfig{
			queueExports:     {MaxWorkers: s.cfg.Workers},
			queueNotify:      {MaxWorkers: notifyWorkers},
			queueMaintenance: {MaxWorkers: 1},
			queueSchedules:   {MaxWorkers: scheduleWorkers},
		}
		cfg.PeriodicJobs = append([]*river.PeriodicJob{river.NewPeriodicJob(
			river.PeriodicInterval(s.cfg.MaintenanceInterval),
			func() (river.JobArgs, *river.InsertOpts) { return maintenanceArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true})}, s.periodicJobs()...)
	}
	var (
		c   *river.Client[*sql.Tx]
		err error
	)
	if s.db.Dialect == migrations.Postgres {
		c, err = river.NewClient(riverdatabasesql.NewWithPgxListener(s.db.SQL, s.db.pool), cfg)
	} else {
		c, err = river.NewClient(riversqlite.New(s.db.SQL), cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("river: %w", err)
	}
	return c, nil
}

// enqueueTx inserts, in tx, run number run of the export job of key (unique
// by key and run among live jobs) and records the job on the download.
func (s *Service) enqueueTx(ctx context.Context, tx *sql.Tx, key string, run int) error {
	res, err := s.river.InsertTx(ctx, tx, exportArgs{Key: key, Run: run}, &river.InsertOpts{
		UniqueOpts: river.UniqueOpts{ByArgs: true},
	})
	if err != nil {
		return fmt.Errorf("queue the export of %s: %w", key, err)
	}
	return s.db.setRiverJob(ctx, tx, key, res.Job.ID)
}

// enqueue is enqueueTx in a transaction of its own.
func (s *Service) enqueue(ctx context.Context, key string, run int) error {
	return s.db.inTx(ctx, func(tx *sql.Tx) error { return s.enqueueTx(ctx, tx, key, run) })
}

// notifyTx queues, in tx, the job that mails the outcome of key (nothing
// without a mailer); reason says why a failed download failed
// (failureReason), "" for a success.
func (s *Service) notifyTx(ctx context.Context, tx *sql.Tx, key, reason string) error {
	return s.queueNoticeTx(ctx, tx, notifyArgs{Key: key, Reason: reason})
}

// queueNoticeTx queues, in tx, the job that mails notice a (nothing without
// a mailer), once: a notice already waiting is not queued again.
func (s *Service) queueNoticeTx(ctx context.Context, tx *sql.Tx, a notifyArgs) error {
	if s.mailer == nil {
		return nil
	}
	if _, err := s.river.InsertTx(ctx, tx, a, &river.InsertOpts{MaxAttempts: s.mailer.cfg.MaxAttempts,
		UniqueOpts: river.UniqueOpts{ByArgs: true}}); err != nil {
		return fmt.Errorf("queue the notification of %s: %w", cmp.Or(a.Key, string(a.Notice)+" "+a.Date), err)
	}
	return nil
}

// cancelJob cancels River job id of key once the change of the download that
// retires the job has committed. A failure is only logged: the job's export
// finds its download no longer active, or its lease taken, and stops. The
// cancel stays outside that transaction: JobCancelTx does not wake this
// process's own producer on SQLite, which has no notifications, and a cancel
// that fails must not undo the change of the download.
func (s *Service) cancelJob(ctx context.Context, key string, id int64) {
	if _, err := s.river.JobCancel(ctx, id); err != nil {
		s.logger.WarnContext(ctx, "cancel river job", "key", key, "job", id, "err", err)
	}
}

// Start starts the queue: workers and the maintenance schedule in the
// worker roles; in the api role only the client that inserts and cancels.
func (s *Service) Start(ctx context.Context) error {
	if s.cfg.Role == RoleAPI {
		return nil // an insert-only River client needs no Start
	}
	if err := s.adoptDefaultQueueJobs(ctx); err != nil {
		return err
	}
	if err := s.river.Start(ctx); err != nil {
		return err
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stopRecover = cancel
	s.recoverDone = make(chan struct{})
	go s.recoverLoop(rctx)
	return nil
}

// adoptDefaultQueueJobs moves the service's jobs that versions before the
// separate queues put in River's default queue (which no process works any
// longer) to their own queues. Only jobs waiting to run are moved; it is
// idempotent and cheap when there are none.
func (s *Service) adoptDefaultQueueJobs(ctx context.Context) error {
	_, err := s.db.SQL.ExecContext(ctx, s.db.q(`UPDATE river_job SET queue = kind
		WHERE queue = ? AND kind IN (?, ?, ?) AND state IN ('available', 'scheduled', 'retryable', 'pending')`),
		river.QueueDefault, queueExports, queueNotify, queueMaintenance)
	if err != nil {
		return fmt.Errorf("move jobs out of the default queue: %w", err)
	}
	return nil
}

// Stop shuts the queue down gracefully: running exports are interrupted,
// marked SUSPENDED and resumed by the next worker that starts.
func (s *Service) Stop(ctx context.Context) error {
	if s.cfg.Role == RoleAPI {
		return nil
	}
	if s.stopRecover != nil {
		s.stopRecover()
		<-s.recoverDone
	}
	err := s.river.StopAndCancel(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("jobs: stop: exports did not stop in time: %w", err)
	}
	return err
}
