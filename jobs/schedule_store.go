package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The schedule_runs table (migrations/sql/0035_schedules.sql).

const runColumns = "schedule, kind, fire, run_trigger, status, started, finished, result, download_key"

func scanRun(sc scanner) (ScheduleRun, error) {
	var r ScheduleRun
	var fire, started, finished int64
	err := sc.Scan(&r.Schedule, &r.Kind, &fire, &r.Trigger, &r.Status, &started, &finished, &r.Result, &r.DownloadKey)
	r.Fire, r.Started = time.UnixMilli(fire).UTC(), time.UnixMilli(started).UTC()
	if finished != 0 {
		r.Finished = time.UnixMilli(finished).UTC()
	}
	return r, err
}

// beginRun records a new run of sc for fire leased by owner, or resumes
// the run that job jobID already has (a job queued again after its worker
// died, or resumed after a shutdown). A fire that has a run of another job
// is ErrDuplicateRun; a run that a live worker leases is errRunLeased. A
// finished run is returned as it is.
func (db *DB) beginRun(ctx context.Context, sc Schedule, fire time.Time, trigger RunTrigger, jobID int64, owner string,
	now time.Time, lease time.Duration) (ScheduleRun, error) {
	until := time.Now().Add(lease).UnixMilli()
	if jobID != 0 {
		r, err := scanRun(db.SQL.QueryRowContext(ctx, db.q("SELECT "+runColumns+" FROM schedule_runs WHERE job_id = ?"), jobID))
		switch {
		case err == nil:
			return db.resumeRun(ctx, r, owner, until)
		case !errors.Is(err, sql.ErrNoRows):
			return ScheduleRun{}, err
		}
	}
	r := ScheduleRun{Schedule: sc.Name, Kind: sc.Kind, Fire: time.UnixMilli(fire.UnixMilli()).UTC(), Trigger: trigger,
		Status: RunRunning, Started: time.UnixMilli(now.UnixMilli()).UTC()}
	res, err := db.SQL.ExecContext(ctx, db.q(`INSERT INTO schedule_runs
		(schedule, fire, kind, run_trigger, status, started, job_id, lease_owner, lease_until)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (schedule, fire) DO NOTHING`),
		r.Schedule, r.Fire.UnixMilli(), r.Kind, r.Trigger, r.Status, r.Started.UnixMilli(), jobID, owner, until)
	if err != nil {
		return ScheduleRun{}, fmt.Errorf("record the run of %s: %w", sc.Name, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return ScheduleRun{}, errors.Join(err, fmt.Errorf("%w: %s for %s", ErrDuplicateRun, sc.Name, r.Fire.Format(time.RFC3339Nano)))
	}
	return r, nil
}

// resumeRun takes the lease of r (an unfinished run whose lease is free or
// ran out) for owner.
func (db *DB) resumeRun(ctx context.Context, r ScheduleRun, owner string, until int64) (ScheduleRun, error) {
	if r.Status != RunRunning {
		return r, nil
	}
	res, err := db.SQL.ExecContext(ctx, db.q(`UPDATE schedule_runs SET lease_owner = ?, lease_until = ?
		WHERE schedule = ? AND fire = ? AND status = ? AND (lease_owner = '' OR lease_until < ? OR lease_owner = ?)`),
		owner, until, r.Schedule, r.Fire.UnixMilli(), RunRunning, time.Now().UnixMilli(), owner)
	if err != nil {
		return ScheduleRun{}, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return ScheduleRun{}, errors.Join(err, errRunLeased)
	}
	return r, nil
}

// renewRun extends owner's lease on r; false when owner lost it.
func (db *DB) renewRun(ctx context.Context, r ScheduleRun, owner string, lease time.Duration) (bool, error) {
	res, err := db.SQL.ExecContext(ctx, db.q(`UPDATE schedule_runs SET lease_until = ?
		WHERE schedule = ? AND fire = ? AND lease_owner = ? AND status = ?`),
		time.Now().Add(lease).UnixMilli(), r.Schedule, r.Fire.UnixMilli(), owner, RunRunning)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// finishRun records r's outcome if owner still holds it; it reports
// whether it did.
func (db *DB) finishRun(ctx context.Context, r ScheduleRun, owner string) (bool, error) {
	res, err := db.SQL.ExecContext(ctx, db.q(`UPDATE schedule_runs SET status = ?, finished = ?, result = ?,
		lease_owner = '', lease_until = 0 WHERE schedule = ? AND fire = ? AND lease_owner = ? AND status = ?`),
		r.Status, r.Finished.UnixMilli(), r.Result, r.Schedule, r.Fire.UnixMilli(), owner, RunRunning)
	if err != nil {
		return false, fmt.Errorf("record the end of the run of %s: %w", r.Schedule, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// abandonRuns fails the unfinished run of job jobID, whose schedule is no
// longer configured.
func (db *DB) abandonRuns(ctx context.Context, jobID int64, name string, now time.Time) error {
	_, err := db.SQL.ExecContext(ctx, db.q(`UPDATE schedule_runs SET status = ?, finished = ?, result = ?,
		lease_owner = '', lease_until = 0 WHERE job_id = ? AND status = ?`),
		RunFailed, now.UnixMilli(), "the schedule "+name+" is no longer configured", jobID, RunRunning)
	return err
}

// exportRunEnd is an export run whose download finished.
type exportRunEnd struct {
	schedule       string
	fire           int64
	key            string
	status         Status
	errText        string
	records, bytes int64
}

// endExportRuns ends the export runs whose download reached a final
// status: succeeded with a SUCCEEDED download, failed otherwise.
func (s *Service) endExportRuns(ctx context.Context) (int, error) {
	ends, err := collect(ctx, s.db.SQL, s.db.q(`SELECT r.schedule, r.fire, d.key, d.status, d.error, d.total_records, d.size
		FROM schedule_runs r JOIN downloads d ON d.key = r.download_key
		WHERE r.status = ? AND r.download_key <> '' AND d.status NOT IN (?, ?, ?)`),
		[]any{RunRunning, StatusPreparing, StatusRunning, StatusSuspended}, func(sc scanner) (exportRunEnd, error) {
			var e exportRunEnd
			err := sc.Scan(&e.schedule, &e.fire, &e.key, &e.status, &e.errText, &e.records, &e.bytes)
			return e, err
		})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range ends {
		status, result := RunSucceeded, fmt.Sprintf("download %s: %d records, %d bytes", e.key, e.records, e.bytes)
		if e.status != StatusSucceeded && e.status != StatusFileErased {
			status, result = RunFailed, cut(fmt.Sprintf("download %s %s: %s", e.key, e.status, e.errText), 1000)
		}
		res, err := s.db.SQL.ExecContext(ctx, s.db.q(`UPDATE schedule_runs SET status = ?, finished = ?, result = ?,
			lease_owner = '', lease_until = 0 WHERE schedule = ? AND fire = ? AND status = ?`),
			status, s.now().UnixMilli(), result, e.schedule, e.fire, RunRunning)
		if err != nil {
			return n, err
		}
		if k, err := res.RowsAffected(); err == nil && k > 0 {
			n++
			s.metrics.scheduleRuns.WithLabelValues(e.schedule, string(status)).Inc()
			s.logger.InfoContext(ctx, "scheduled export finished", "schedule", e.schedule, "key", e.key, "status", e.status)
		}
	}
	return n, nil
}

// lastSuccesses returns, by schedule, when its last successful run finished.
func (db *DB) lastSuccesses(ctx context.Context) (map[string]time.Time, error) {
	type last struct {
		name string
		at   int64
	}
	ls, err := collect(ctx, db.read, db.q(`SELECT schedule, MAX(finished) FROM schedule_runs WHERE status = ?
		GROUP BY schedule`), []any{RunSucceeded}, func(sc scanner) (last, error) {
		var l last
		err := sc.Scan(&l.name, &l.at)
		return l, err
	})
	out := map[string]time.Time{}
	for _, l := range ls {
		out[l.name] = time.UnixMilli(l.at)
	}
	return out, err
}
