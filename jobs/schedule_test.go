package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/pgtest"
	"github.com/biodiversity-downloads/downloader/migrations"
)

// every fires at each multiple of d (a cron expression's granularity is a
// minute; tests need seconds).
type every time.Duration

func (e every) Next(t time.Time) time.Time {
	return t.Truncate(time.Duration(e)).Add(time.Duration(e))
}

// dbPair opens two handles of one fresh database, as two worker processes
// have: SQLite's file twice, or PostgreSQL's database twice.
func dbPair(t *testing.T, dialect migrations.Dialect) (*DB, *DB) {
	t.Helper()
	ctx := context.Background()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "pair.db")
	if dialect == migrations.Postgres {
		dsn = pgtest.Database(t, "jobstest")
	}
	first := openMigrated(t, dsn)
	second, err := OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = second.Close() })
	return first, second
}

func forEachDialect(t *testing.T, f func(t *testing.T, d migrations.Dialect)) {
	t.Run("sqlite", func(t *testing.T) { f(t, migrations.SQLite) })
	t.Run("postgres", func(t *testing.T) { f(t, migrations.Postgres) })
}

// countingRollover is a rollover that counts its runs and takes a while.
type countingRollover struct {
	runs atomic.Int64
	took time.Duration
}

func (c *countingRollover) run(ctx context.Context) (string, error) {
	n := c.runs.Add(1)
	select {
	case <-time.After(c.took):
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return fmt.Sprintf("rollover %d", n), nil
}

// scheduleService is a service on db with the schedules given and the
// rollover of roll.
func scheduleService(t *testing.T, db *DB, role Role, roll *countingRollover, schedules ...Schedule) *Service {
	t.Helper()
	cfg := Config{Role: role, FetchPollInterval: 100 * time.Millisecond, Lease: time.Second, RescueAfter: 2 * time.Second,
		Scheduler: SchedulerConfig{Schedules: schedules}}
	s, err := New(db, checkOnlyEngine{}, nil, nil, cfg, slog.New(slog.DiscardHandler), WithRollover(roll.run))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// twoWorkers are two services on two handles of one database (two
// worker processes), with a rollover schedule "roll" firing every second
// whose rollover takes took.
func twoWorkers(t *testing.T, d migrations.Dialect, took time.Duration) ([]*Service, *countingRollover) {
	t.Helper()
	a, b := dbPair(t, d)
	roll := &countingRollover{took: took}
	sc := Schedule{Name: "roll", Spec: "every second", When: every(time.Second), Kind: ScheduleRollover}
	return []*Service{scheduleService(t, a, RoleWorker, roll, sc), scheduleService(t, b, RoleWorker, roll, sc)}, roll
}

// Two workers that both get a job for the same fire run it once: the
// second finds the run recorded and does nothing.
func TestScheduleFireRunsOnce(t *testing.T) {
	forEachDialect(t, func(t *testing.T, d migrations.Dialect) {
		ctx := context.Background()
		svcs, roll := twoWorkers(t, d, 300*time.Millisecond)
		fire := time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		runs := make([]ScheduleRun, 2)
		for i, s := range svcs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runs[i], errs[i] = s.RunSchedule(ctx, "roll", fire, TriggerCron)
			}()
		}
		wg.Wait()
		ok := 0
		for i, err := range errs {
			switch {
			case err == nil:
				ok++
				if runs[i].Status != RunSucceeded || runs[i].Result != "rollover 1" || runs[i].Finished.IsZero() {
					t.Errorf("the run: %+v", runs[i])
				}
			case !errors.Is(err, ErrDuplicateRun):
				t.Errorf("second run: %v, want ErrDuplicateRun", err)
			}
		}
		if ok != 1 || roll.runs.Load() != 1 {
			t.Fatalf("%d runs recorded, the rollover ran %d times; want 1 and 1", ok, roll.runs.Load())
		}
		rs, err := svcs[1].ScheduleRuns(ctx, "roll", 10)
		if err != nil || len(rs) != 1 || !rs[0].Fire.Equal(fire) || rs[0].Trigger != TriggerCron || rs[0].Kind != ScheduleRollover {
			t.Fatalf("runs %+v %v", rs, err)
		}
		if _, err := svcs[0].RunSchedule(ctx, "nope", fire, TriggerManual); !errors.Is(err, ErrUnknownSchedule) {
			t.Errorf("unknown schedule: %v", err)
		}
	})
}

// Two worker processes on one database, a schedule firing every second:
// River's leader inserts each fire, and each fire runs exactly once.
func TestPeriodicScheduleTwoWorkers(t *testing.T) {
	forEachDialect(t, func(t *testing.T, d migrations.Dialect) {
		ctx := context.Background()
		svcs, roll := twoWorkers(t, d, 50*time.Millisecond)
		for _, s := range svcs {
			if err := s.Start(ctx); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(30 * time.Second)
		var rs []ScheduleRun
		for ; time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			var err error
			if rs, err = svcs[0].ScheduleRuns(ctx, "roll", 100); err != nil {
				t.Fatal(err)
			}
			if len(rs) >= 4 && rs[0].Status == RunSucceeded {
				break
			}
		}
		for _, s := range svcs {
			stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			if err := s.Stop(stopCtx); err != nil {
				t.Error(err)
			}
			cancel()
		}
		rs, err := svcs[1].ScheduleRuns(ctx, "roll", 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) < 4 {
			t.Fatalf("%d runs in 30 s of a schedule firing every second", len(rs))
		}
		seen := map[time.Time]bool{}
		finished := 0
		for _, r := range rs {
			if seen[r.Fire] || r.Fire.Nanosecond() != 0 {
				t.Errorf("fire %s recorded twice, or not a fire of the schedule", r.Fire)
			}
			seen[r.Fire] = true
			if r.Status == RunSucceeded {
				finished++
			}
		}
		// Every execution of the rollover is a recorded run (one still
		// running at the stop is counted by neither, or by both).
		if got := roll.runs.Load(); got != int64(finished) && got != int64(len(rs)) {
			t.Fatalf("the rollover ran %d times for %d recorded runs (%d finished)", got, len(rs), finished)
		}
		var jobs int
		if err := svcs[0].db.SQL.QueryRowContext(ctx, "SELECT count(*) FROM river_job WHERE kind = 'download_schedule'").Scan(&jobs); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d runs, %d River jobs, %d rollovers", len(rs), jobs, roll.runs.Load())
		if jobs < len(rs) {
			t.Errorf("%d River jobs for %d runs", jobs, len(rs))
		}
	})
}

// A run whose worker died (its lease ran out) is queued again, and the new
// job resumes that run: same fire, same trigger, recorded once.
func TestScheduleRunRequeuedWhenWorkerDies(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		roll := &countingRollover{took: 10 * time.Millisecond}
		sc := Schedule{Name: "roll", Spec: "@daily", When: every(24 * time.Hour), Kind: ScheduleRollover}
		s := scheduleService(t, db, RoleWorker, roll, sc)
		fire := time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)
		// A worker starts the run and dies: its lease runs out.
		if _, err := db.beginRun(ctx, sc, fire, TriggerManual, 0, "dead/1", fire, time.Millisecond); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
		n, err := s.RecoverSchedules(ctx, time.Now())
		if err != nil || n != 1 {
			t.Fatalf("recovered %d, %v", n, err)
		}
		if n, err := s.RecoverSchedules(ctx, time.Now()); err != nil || n != 0 {
			t.Fatalf("second recovery: %d, %v", n, err)
		}
		if err := s.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Stop(context.Background()) })
		var run ScheduleRun
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if run, err = s.ScheduleRun(ctx, "roll", fire); err != nil {
				t.Fatal(err)
			}
			if run.Status != RunRunning {
				break
			}
		}
		if run.Status != RunSucceeded || run.Trigger != TriggerManual || roll.runs.Load() != 1 {
			t.Fatalf("resumed run %+v after %d rollovers", run, roll.runs.Load())
		}
	})
}

// A rollover schedule without a rollover fails its runs, saying why, and
// the failure is recorded with its duration.
func TestScheduleRunFailureRecorded(t *testing.T) {
	ctx := context.Background()
	db := testDB(t)
	s, err := New(db, checkOnlyEngine{}, nil, nil, Config{Scheduler: SchedulerConfig{Schedules: []Schedule{
		{Name: "roll", When: every(time.Hour), Kind: ScheduleRollover}}}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.RunSchedule(ctx, "roll", time.Now(), TriggerManual)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != RunFailed || run.Result == "" || run.Finished.IsZero() {
		t.Fatalf("run %+v", run)
	}
	got, err := s.ScheduleRun(ctx, "roll", run.Fire)
	if err != nil || got.Status != RunFailed || got.Result != run.Result || got.Duration(time.Now()) != run.Finished.Sub(run.Started) {
		t.Fatalf("recorded %+v %v", got, err)
	}
}

// Schedules are checked when the service is made.
func TestSchedulesValidated(t *testing.T) {
	db := testDB(t)
	for _, c := range []struct {
		cfg  SchedulerConfig
		want string
	}{
		{SchedulerConfig{Schedules: []Schedule{{Name: "a", When: every(time.Hour), Kind: "sweep"}}}, "unknown kind"},
		{SchedulerConfig{Schedules: []Schedule{{Name: "a", Kind: ScheduleErase}}}, "no cron"},
		{SchedulerConfig{Schedules: []Schedule{{Name: "a", When: every(time.Hour), Kind: ScheduleErase},
			{Name: "a", When: every(time.Hour), Kind: ScheduleErase}}}, "two schedules"},
		{SchedulerConfig{Schedules: []Schedule{{Name: "a", When: every(time.Hour), Kind: ScheduleExport,
			Export: ScheduledExport{Format: "XLS"}}}}, "XLS"},
		{SchedulerConfig{Unfiltered: "always"}, "unfiltered answers"},
	} {
		_, err := New(db, checkOnlyEngine{}, nil, nil, Config{Scheduler: c.cfg}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// Which scheduled export answers an unfiltered request, by rule: one of the
// current table snapshot always (but off), one of another snapshot only
// while younger than the maximum age under "age"; never a filtered export,
// never for a filtered request, never one in another format or with
// verbatim extensions.
func TestSnapshotAnswerRules(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2030, 3, 1, 4, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		rule     UnfilteredAnswers
		snapshot string
		age      time.Duration
		req      Request
		want     string
	}{
		{AnswerRecent, "s1", 40 * 24 * time.Hour, Request{Format: "SIMPLE_CSV"}, "e-s1"},
		{AnswerRecent, "s2", 10 * 24 * time.Hour, Request{Format: "SIMPLE_CSV"}, "e-s1"},
		{AnswerRecent, "s2", 32 * 24 * time.Hour, Request{Format: "SIMPLE_CSV"}, ""},
		{AnswerSameSnapshot, "s1", 40 * 24 * time.Hour, Request{Format: "SIMPLE_CSV"}, "e-s1"},
		{AnswerSameSnapshot, "s2", time.Hour, Request{Format: "SIMPLE_CSV"}, ""},
		{AnswerNever, "s1", time.Hour, Request{Format: "SIMPLE_CSV"}, ""},
		{AnswerRecent, "s1", time.Hour, Request{Format: "SIMPLE_CSV", Predicate: []byte(`{"type":"equals","key":"YEAR","value":"1"}`)}, ""},
		{AnswerRecent, "s1", time.Hour, Request{Format: "DWCA"}, ""},
		{AnswerRecent, "s1", time.Hour, Request{Format: "DWCA", VerbatimExtensions: []string{"x"}}, ""},
		{AnswerRecent, "s1", time.Hour, Request{Format: "SIMPLE_PARQUET"}, ""}, // only a filtered export has it
	} {
		db := testDB(t)
		s, err := New(db, checkOnlyEngine{}, nil, nil, Config{Scheduler: SchedulerConfig{Unfiltered: c.rule}}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		if err := db.inTx(ctx, func(tx *sql.Tx) error { return db.ensureSystemUser(ctx, tx, "schedules", t0) }); err != nil {
			t.Fatal(err)
		}
		for _, e := range []struct {
			key, format, snapshot, predicate string
			status                           Status
		}{
			{"e-s1", "SIMPLE_CSV", "s1", "", StatusSucceeded},
			{"e-dwca-failed", "DWCA", "s1", "", StatusFailed},
			{"e-filtered", "SIMPLE_PARQUET", "s1", `{"type":"equals","key":"YEAR","value":"1"}`, StatusSucceeded},
		} {
			r := s.newRow(e.key, Request{Format: e.format, Predicate: json.RawMessage(e.predicate), Creator: "schedules"}, t0)
			if err := db.insertDownload(ctx, db.SQL, r, e.key); err != nil {
				t.Fatal(err)
			}
			if _, err := db.SQL.ExecContext(ctx, `UPDATE downloads SET status = ?, table_snapshot = ?, schedule = 'monthly'
				WHERE key = ?`, e.status, e.snapshot, e.key); err != nil {
				t.Fatal(err)
			}
		}
		var got string
		err = db.inTx(ctx, func(tx *sql.Tx) error {
			var err error
			got, _, err = s.findSnapshotExport(ctx, tx, c.req, t0.Add(c.age), c.snapshot)
			return err
		})
		if err != nil || got != c.want {
			t.Errorf("%s, table at %s, %s later, request %s %s %v: answered by %q (%v), want %q",
				c.rule, c.snapshot, c.age, c.req.Format, c.req.Predicate, c.req.VerbatimExtensions, got, err, c.want)
		}
	}
}
