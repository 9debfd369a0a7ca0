package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/biodiversity-downloads/downloader/internal/logctx"
)

// A run of a schedule is a row of schedule_runs keyed by the schedule and
// its fire time, inserted by the worker that starts it: a second job for the
// same fire (two leaders in a failover, a run asked for twice) finds the row
// and does nothing. While it runs, the worker holds a lease on the row and
// renews it; a run whose lease ran out belongs to a dead worker and is
// queued again (RecoverSchedules), and the new job resumes it. Every kind's
// work is safe to run again. An export run ends when its download does.

// RunStatus is the state of a schedule run.
type RunStatus string

// The states of a run.
const (
	RunRunning   RunStatus = "running"
	RunSucceeded RunStatus = "succeeded"
	RunFailed    RunStatus = "failed"
)

// RunTrigger says what started a run.
type RunTrigger string

// The triggers.
const (
	// TriggerCron: the schedule's cron expression fired.
	TriggerCron RunTrigger = "cron"
	// TriggerManual: someone asked for it (`downloader schedule run`).
	TriggerManual RunTrigger = "manual"
)

// ScheduleRun is one recorded run of a schedule.
type ScheduleRun struct {
	Schedule string       `json:"schedule"`
	Kind     ScheduleKind `json:"kind"`
	// Fire is the time the run is for: the cron fire, or when it was asked for.
	Fire     time.Time  `json:"fire"`
	Trigger  RunTrigger `json:"trigger"`
	Status   RunStatus  `json:"status"`
	Started  time.Time  `json:"started"`
	Finished time.Time  `json:"finished,omitzero"`
	// Result says what the run did, or why it failed, in a line.
	Result string `json:"result,omitempty"`
	// DownloadKey is the download an export run submitted.
	DownloadKey string `json:"downloadKey,omitempty"`
}

// Duration is how long the run took, or has run so far at now.
func (r ScheduleRun) Duration(now time.Time) time.Duration {
	if r.Finished.IsZero() {
		return max(0, now.Sub(r.Started))
	}
	return max(0, r.Finished.Sub(r.Started))
}

// Errors of schedule runs.
var (
	// ErrUnknownSchedule: no schedule of that name is configured.
	ErrUnknownSchedule = errors.New("no such schedule")
	// ErrDuplicateRun: the fire was already run, or is running elsewhere.
	ErrDuplicateRun = errors.New("schedule run already recorded")
	// errRunLeased: the run is being run by a live worker.
	errRunLeased = errors.New("schedule run leased by another worker")
)

// scheduleArgs is the River job that runs schedule Name. A cron fire's job
// has no Fire (its scheduled time is the fire); a run asked for by hand, or
// queued again after its worker died, names its fire (Unix ms).
type scheduleArgs struct {
	Name   string `json:"name"`
	Fire   int64  `json:"fire,omitempty"`
	Manual bool   `json:"manual,omitempty"`
}

func (scheduleArgs) Kind() string { return "download_schedule" }

// queueSchedules is the River queue of schedule runs: slots of their own,
// so that a rollover never waits for an export slot.
const (
	queueSchedules   = "download_schedule"
	scheduleWorkers  = 2
	scheduleAttempts = 1 // a failed run is recorded; the next fire runs again
)

// InsertOpts puts schedule runs in their queue.
func (scheduleArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueSchedules, MaxAttempts: scheduleAttempts}
}

// periodicJobs are the River periodic jobs of the configured schedules.
func (s *Service) periodicJobs() []*river.PeriodicJob {
	var out []*river.PeriodicJob
	for _, sc := range s.cfg.Scheduler.Schedules {
		name := sc.Name
		out = append(out, river.NewPeriodicJob(sc.When,
			func() (river.JobArgs, *river.InsertOpts) { return scheduleArgs{Name: name}, nil }, nil))
	}
	return out
}

type scheduleWorker struct {
	river.WorkerDefaults[scheduleArgs]
	s *Service
}

// Work runs one fire of a schedule, once.
func (w *scheduleWorker) Work(ctx context.Context, job *river.Job[scheduleArgs]) error {
	s := w.s
	a := job.Args
	ctx = logctx.With(ctx, slog.String("schedule", a.Name))
	fire, trigger := job.ScheduledAt.Truncate(time.Second), TriggerCron
	if a.Fire != 0 {
		fire = time.UnixMilli(a.Fire)
	}
	if a.Manual {
		trigger = TriggerManual
	}
	sc, ok := s.schedule(a.Name)
	if !ok {
		s.logger.WarnContext(ctx, "run of a schedule that is no longer configured", "schedule", a.Name)
		return s.db.abandonRuns(ctx, job.ID, a.Name, s.now())
	}
	owner := fmt.Sprintf("%s/%d", s.river.ID(), job.ID)
	_, err := s.startRun(ctx, sc, fire, trigger, job.ID, owner)
	switch {
	case errors.Is(err, ErrDuplicateRun):
		s.logger.InfoContext(ctx, "schedule fire already run", "schedule", a.Name, "fire", fire)
		return nil
	case errors.Is(err, errRunLeased):
		return river.JobSnooze(s.cfg.Lease)
	case err != nil && ctx.Err() != nil:
		// Shutdown: the run's lease runs out and RecoverSchedules queues it
		// again.
		return nil
	}
	return err
}

// RunSchedule runs schedule name in this process for fire, recorded as a
// run like a fire of its cron expression (trigger says which it stands
// for). An export run returns once its download is queued; the run ends
// when the download does (RecoverSchedules). A fire that has a run already
// is ErrDuplicateRun.
func (s *Service) RunSchedule(ctx context.Context, name string, fire time.Time, trigger RunTrigger) (ScheduleRun, error) {
	sc, ok := s.schedule(name)
	if !ok {
		return ScheduleRun{}, fmt.Errorf("%w: %q", ErrUnknownSchedule, name)
	}
	owner := fmt.Sprintf("%s/inline-%d", s.river.ID(), time.Now().UnixNano())
	return s.startRun(logctx.With(ctx, slog.String("schedule", name)), sc, fire, trigger, 0, owner)
}

// ManualRun is a run TriggerSchedule queued: Fire finds it (ScheduleRun),
// and WithdrawRun takes it back while no worker has started it.
type ManualRun struct {
	Fire time.Time
	job  int64
}

// TriggerSchedule queues a run of schedule name now, as `downloader
// schedule run` does: a worker runs it and records it like a fire of its
// cron expression.
func (s *Service) TriggerSchedule(ctx context.Context, name string) (ManualRun, error) {
	if _, ok := s.schedule(name); !ok {
		return ManualRun{}, fmt.Errorf("%w: %q", ErrUnknownSchedule, name)
	}
	fire := time.UnixMilli(s.now().UnixMilli())
	res, err := s.river.Insert(ctx, scheduleArgs{Name: name, Fire: fire.UnixMilli(), Manual: true}, nil)
	if err != nil {
		return ManualRun{}, fmt.Errorf("queue a run of %s: %w", name, err)
	}
	return ManualRun{Fire: fire, job: res.Job.ID}, nil
}

// WithdrawRun deletes the queued job of m if no worker has taken it yet,
// so that a run nobody waits for any more does not start whenever a
// worker next does; it reports whether it did. A job a worker holds, or
// one that has ended, is left alone.
func (s *Service) WithdrawRun(ctx context.Context, m ManualRun) (bool, error) {
	job, err := s.river.JobGet(ctx, m.job)
	switch {
	case errors.Is(err, river.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("withdraw run %s: %w", m.Fire.UTC().Format(time.RFC3339Nano), err)
	}
	switch job.State {
	case rivertype.JobStateAvailable, rivertype.JobStateScheduled, rivertype.JobStatePending, rivertype.JobStateRetryable:
	default:
		return false, nil
	}
	if _, err := s.river.JobDelete(ctx, m.job); err != nil {
		if errors.Is(err, rivertype.ErrJobRunning) || errors.Is(err, river.ErrNotFound) {
			return false, nil
		}
		return false, fmt.Errorf("withdraw run %s: %w", m.Fire.UTC().Format(time.RFC3339Nano), err)
	}
	return true, nil
}

// startRun records (or resumes) the run of sc for fire under owner's lease
// and runs it; jobID is the River job that runs it (0: none).
func (s *Service) startRun(ctx context.Context, sc Schedule, fire time.Time, trigger RunTrigger, jobID int64, owner string) (ScheduleRun, error) {
	run, err := s.db.beginRun(ctx, sc, fire, trigger, jobID, owner, s.now(), s.cfg.Lease)
	if err != nil || run.Status != RunRunning {
		return run, err
	}
	s.logger.InfoContext(ctx, "schedule run started", "schedule", sc.Name, "kind", sc.Kind, "fire", fire, "trigger", trigger)
	return s.execRun(ctx, sc, run, owner)
}

// execRun does the work of run under owner's lease, renewing it, and
// records the outcome.
func (s *Service) execRun(ctx context.Context, sc Schedule, run ScheduleRun, owner string) (ScheduleRun, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	beat := make(chan struct{})
	go func() {
		defer close(beat)
		s.runHeartbeat(ctx, run, owner, cancel)
	}()
	result, err := s.doRun(ctx, sc, &run, owner)
	cause, stopped := context.Cause(ctx), ctx.Err() != nil
	cancel(nil)
	<-beat
	bg := context.WithoutCancel(ctx)
	switch {
	case errors.Is(cause, errLeaseLost):
		s.logger.WarnContext(bg, "schedule run taken over by another worker", "schedule", sc.Name, "fire", run.Fire)
		return run, nil
	case err != nil && stopped:
		// Shutdown: the lease is left to expire and the run is queued again.
		return run, err
	case err == nil && run.DownloadKey != "":
		s.logger.InfoContext(bg, "scheduled export queued", "schedule", sc.Name, "key", run.DownloadKey)
		return run, nil // the run ends with its download
	}
	run.Status, run.Result = RunSucceeded, result
	if err != nil {
		run.Status, run.Result = RunFailed, cut(err.Error(), 1000)
		s.logger.ErrorContext(bg, "schedule run failed", "schedule", sc.Name, "fire", run.Fire, "err", err)
	} else {
		s.logger.InfoContext(bg, "schedule run succeeded", "schedule", sc.Name, "fire", run.Fire, "result", result)
	}
	run.Finished = time.UnixMilli(s.now().UnixMilli()).UTC()
	ok, ferr := s.db.finishRun(bg, run, owner)
	if ferr != nil {
		return run, ferr
	}
	if ok {
		s.metrics.scheduleRuns.WithLabelValues(run.Schedule, string(run.Status)).Inc()
	}
	return run, nil
}

// runHeartbeat renews the lease on run until ctx ends; a lost lease
// cancels the run.
func (s *Service) runHeartbeat(ctx context.Context, run ScheduleRun, owner string, cancel context.CancelCauseFunc) {
	tick(ctx, max(s.cfg.Lease/3, 10*time.Millisecond), func() bool {
		held, err := s.db.renewRun(ctx, run, owner, s.cfg.Lease)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				s.logger.WarnContext(ctx, "schedule run heartbeat", "schedule", run.Schedule, "err", err)
			}
		case !held:
			cancel(errLeaseLost)
			return false
		}
		return true
	})
}

// doRun does a run's work by kind and returns its result in a line.
func (s *Service) doRun(ctx context.Context, sc Schedule, run *ScheduleRun, owner string) (string, error) {
	switch sc.Kind {
	case ScheduleErase:
		return s.eraseRun(ctx)
	case ScheduleDigest:
		return s.digestRun(ctx)
	case ScheduleRollover:
		if s.rollover == nil {
			return "", errors.New("no rollover in this process: the worker was started without a table it can roll over")
		}
		return s.rollover(ctx)
	case ScheduleExport:
		return s.exportRun(ctx, sc, run, owner)
	}
	return "", fmt.Errorf("unknown schedule kind %q", sc.Kind)
}

// ScheduleRuns returns the last runs of schedule name, newest first.
func (s *Service) ScheduleRuns(ctx context.Context, name string, limit int) ([]ScheduleRun, error) {
	return collect(ctx, s.db.read, s.db.q("SELECT "+runColumns+` FROM schedule_runs WHERE schedule = ?
		ORDER BY started DESC, fire DESC LIMIT ?`), []any{name, limit}, scanRun)
}

// ScheduleRun returns the run of schedule name for fire (ErrNotFound:
// not started yet).
func (s *Service) ScheduleRun(ctx context.Context, name string, fire time.Time) (ScheduleRun, error) {
	r, err := scanRun(s.db.read.QueryRowContext(ctx, s.db.q("SELECT "+runColumns+
		" FROM schedule_runs WHERE schedule = ? AND fire = ?"), name, fire.UnixMilli()))
	if errors.Is(err, sql.ErrNoRows) {
		return ScheduleRun{}, fmt.Errorf("%w: run of %s for %s", ErrNotFound, name, fire.UTC().Format(time.RFC3339Nano))
	}
	return r, err
}

// RecoverSchedules queues again the runs whose worker died (their lease
// ran out before now) and ends the export runs whose download finished. It
// returns how many runs it changed. Every worker calls it with its lease
// recovery.
func (s *Service) RecoverSchedules(ctx context.Context, now time.Time) (int, error) {
	lost, err := collect(ctx, s.db.SQL, s.db.q(`SELECT schedule, fire, lease_owner, job_id FROM schedule_runs
		WHERE status = ? AND lease_owner <> '' AND lease_until < ?`), []any{RunRunning, now.UnixMilli()},
		func(sc scanner) (lostRun, error) {
			var l lostRun
			err := sc.Scan(&l.schedule, &l.fire, &l.owner, &l.job)
			return l, err
		})
	if err != nil {
		return 0, err
	}
	n, err := countDone(lost, func(l lostRun) (bool, error) {
		ok, err := s.requeueRun(ctx, l, now)
		if err != nil {
			return false, fmt.Errorf("requeue the run of %s: %w", l.schedule, err)
		}
		return ok, nil
	})
	if err != nil {
		return n, err
	}
	done, err := s.endExportRuns(ctx)
	return n + done, err
}

type lostRun struct {
	schedule, owner string
	fire, job       int64
}

// requeueRun clears a dead worker's lease and queues a job that resumes
// the run, in one transaction (only one process succeeds).
func (s *Service) requeueRun(ctx context.Context, l lostRun, now time.Time) (bool, error) {
	cleared := false
	err := s.db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := s.river.InsertTx(ctx, tx, scheduleArgs{Name: l.schedule, Fire: l.fire}, nil)
		if err != nil {
			return err
		}
		r, err := tx.ExecContext(ctx, s.db.q(`UPDATE schedule_runs SET lease_owner = '', lease_until = 0, job_id = ?
			WHERE schedule = ? AND fire = ? AND lease_owner = ? AND lease_until < ? AND status = ?`),
			res.Job.ID, l.schedule, l.fire, l.owner, now.UnixMilli(), RunRunning)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, errNoChange)
		}
		cleared = true
		return nil
	})
	if errors.Is(err, errNoChange) {
		return false, nil
	}
	if err != nil || !cleared {
		return false, err
	}
	s.logger.WarnContext(ctx, "worker lost during a schedule run; queued it again", "schedule", l.schedule,
		"fire", time.UnixMilli(l.fire).UTC(), "owner", l.owner)
	if l.job != 0 {
		if _, err := s.river.JobCancel(ctx, l.job); err != nil {
			s.logger.WarnContext(ctx, "cancel the dead run's job", "job", l.job, "err", err)
		}
	}
	return true, nil
}

// errNoChange rolls back a transaction whose guarded update matched nothing.
var errNoChange = errors.New("no change")
