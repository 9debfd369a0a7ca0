package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"

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

// notifyArgs is the River job that mails a finished download's link.
type notifyArgs struct {
	Key string `json:"key"`
}

func (notifyArgs) Kind() string { return "download_notify" }

// maintenanceArgs is the periodic job: erase expired archives, sweep
// abandoned uploads, and reconcile downloads with their River jobs.
type maintenanceArgs struct{}

func (maintenanceArgs) Kind() string { return "download_maintenance" }

// queue hides River's transaction type parameter (pgx.Tx or *sql.Tx).
type queue interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error)
	Cancel(ctx context.Context, id int64) error
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
	ID() string
}

type riverQueue[TTx any] struct{ c *river.Client[TTx] }

func (q riverQueue[TTx]) Insert(ctx context.Context, a river.JobArgs, o *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	return q.c.Insert(ctx, a, o)
}
func (q riverQueue[TTx]) JobGet(ctx context.Context, id int64) (*rivertype.JobRow, error) {
	return q.c.JobGet(ctx, id)
}
func (q riverQueue[TTx]) Cancel(ctx context.Context, id int64) error {
	_, err := q.c.JobCancel(ctx, id)
	return err
}
func (q riverQueue[TTx]) Start(ctx context.Context) error         { return q.c.Start(ctx) }
func (q riverQueue[TTx]) Stop(ctx context.Context) error          { return q.c.Stop(ctx) }
func (q riverQueue[TTx]) StopAndCancel(ctx context.Context) error { return q.c.StopAndCancel(ctx) }
func (q riverQueue[TTx]) ID() string                              { return q.c.ID() }

func newQueue(s *Service) (queue, error) {
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
		cfg.Workers = workers
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: s.cfg.Workers + 2}}
		cfg.PeriodicJobs = []*river.PeriodicJob{river.NewPeriodicJob(
			river.PeriodicInterval(s.cfg.MaintenanceInterval),
			func() (river.JobArgs, *river.InsertOpts) { return maintenanceArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true})}
	}
	if s.db.Dialect == migrations.Postgres {
		c, err := river.NewClient(riverpgxv5.New(s.db.pool), cfg)
		if err != nil {
			return nil, fmt.Errorf("river: %w", err)
		}
		return riverQueue[pgx.Tx]{c}, nil
	}
	c, err := river.NewClient(riversqlite.New(s.db.SQL), cfg)
	if err != nil {
		return nil, fmt.Errorf("river: %w", err)
	}
	return riverQueue[*sql.Tx]{c}, nil
}

// enqueue inserts run number run of the export job of key (unique by key
// and run among live jobs).
func (s *Service) enqueue(ctx context.Context, key string, run int) error {
	res, err := s.queue.Insert(ctx, exportArgs{Key: key, Run: run}, &river.InsertOpts{
		UniqueOpts: river.UniqueOpts{ByArgs: true},
	})
	if err != nil {
		return err
	}
	return s.db.setRiverJob(ctx, key, res.Job.ID)
}

// Start starts the queue: workers and the maintenance schedule in the
// worker roles; in the api role only the client that inserts and cancels.
func (s *Service) Start(ctx context.Context) error {
	if s.cfg.Role == RoleAPI {
		return nil // an insert-only River client needs no Start
	}
	if err := s.queue.Start(ctx); err != nil {
		return err
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stopRecover = cancel
	s.recoverDone = make(chan struct{})
	go s.recoverLoop(rctx)
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
	err := s.queue.StopAndCancel(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("jobs: stop: exports did not stop in time: %w", err)
	}
	return err
}
