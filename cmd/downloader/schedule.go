package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
)

func init() {
	register("schedule", "the configured schedules: schedule list (next fires, last runs), schedule run NAME (now, by hand)", runScheduleCmd)
}

const scheduleUsage = `usage: downloader schedule list [--runs N] [--json] [serve's flags: --config FILE, --db ...]
       downloader schedule run [--no-wait] [--timeout D] [serve's flags] NAME

list prints each schedule of the configuration with its next fire time and
its last runs (status, duration, result). run queues a run of NAME now; a
worker (serve --role worker or all, with the same schedules) runs it and
records it like a fire of its cron expression, and this command waits for
the run to end and prints it (exit status 1 when it failed)`

// runScheduleCmd: downloader schedule list|run.
func runScheduleCmd(ctx context.Context, args []string, env *Env) error {
	if len(args) == 0 {
		return errors.New(scheduleUsage)
	}
	switch args[0] {
	case "list":
		return scheduleList(ctx, args[1:], env)
	case "run":
		return scheduleRun(ctx, args[1:], env)
	case "-h", "--help", "help":
		fmt.Fprintln(env.Stderr, scheduleUsage)
		return nil
	}
	return fmt.Errorf("unknown subcommand %q\n%s", args[0], scheduleUsage)
}

// scheduleService parses serve's flags and the command's (fs), and returns
// the job service over the configured database, in the api role (it only
// reads runs and queues jobs), with the arguments left.
func scheduleService(ctx context.Context, f *serveFlags, fs *flag.FlagSet, args []string, env *Env) (*jobs.Service, func(), []string, error) {
	rest, err := f.parse(fs, args)
	if err != nil {
		return nil, nil, nil, err
	}
	dsn, err := f.databaseURL()
	if err != nil {
		return nil, nil, nil, err
	}
	db, err := jobs.OpenMigratedDB(ctx, dsn)
	if err != nil {
		return nil, nil, nil, err
	}
	cfg := f.jobs
	cfg.Role = jobs.RoleAPI
	svc, err := jobs.New(db, nil, nil, nil, cfg, env.Logger)
	if err != nil {
		_ = db.Close()
		return nil, nil, nil, err
	}
	return svc, func() { _ = db.Close() }, rest, nil
}

// scheduleListing is one schedule as `schedule list --json` prints it.
type scheduleListing struct {
	Name string            `json:"name"`
	Kind jobs.ScheduleKind `json:"kind"`
	Cron string            `json:"cron"`
	Next time.Time         `json:"next"`
	Runs []runListing      `json:"runs"`
}

type runListing struct {
	jobs.ScheduleRun
	Seconds float64 `json:"durationSeconds"`
}

func scheduleList(ctx context.Context, args []string, env *Env) error {
	var f serveFlags
	fs := serveFlagSet(&f, env)
	runs := fs.Int("runs", 3, "last runs shown per schedule")
	asJSON := fs.Bool("json", false, "print JSON")
	svc, done, rest, err := scheduleService(ctx, &f, fs, args, env)
	if err != nil {
		return err
	}
	defer done()
	if len(rest) > 0 {
		return fmt.Errorf("unexpected arguments %q", rest)
	}
	now := time.Now()
	var out []scheduleListing
	for _, sc := range svc.Schedules() {
		l := scheduleListing{Name: sc.Name, Kind: sc.Kind, Cron: sc.Spec, Next: sc.When.Next(now).UTC(), Runs: []runListing{}}
		rs, err := svc.ScheduleRuns(ctx, sc.Name, max(*runs, 0))
		if err != nil {
			return err
		}
		for _, r := range rs {
			l.Runs = append(l.Runs, runListing{ScheduleRun: r, Seconds: r.Duration(now).Seconds()})
		}
		out = append(out, l)
	}
	if *asJSON {
		return printJSON(env.Stdout, out)
	}
	printSchedules(env.Stdout, out, now)
	return nil
}

// printJSON writes v as indented JSON (the --json of list commands).
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printSchedules prints the listing for people: a line per schedule, an
// indented line per run.
func printSchedules(w io.Writer, ls []scheduleListing, now time.Time) {
	if len(ls) == 0 {
		fmt.Fprintln(w, "no schedules configured (the configuration's schedules: list)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCHEDULE\tKIND\tCRON\tNEXT FIRE (UTC)")
	for _, l := range ls {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", l.Name, l.Kind, l.Cron, l.Next.Format(time.DateTime))
		if len(l.Runs) == 0 {
			fmt.Fprintln(tw, "  no runs yet\t\t\t")
		}
		for _, r := range l.Runs {
			fmt.Fprintf(tw, "  %s\t%s\t%s %s\t%s\n", r.Fire.Format(time.DateTime), r.Trigger, r.Status,
				r.Duration(now).Round(time.Millisecond), r.Result)
		}
	}
	_ = tw.Flush()
}

func scheduleRun(ctx context.Context, args []string, env *Env) error {
	var f serveFlags
	fs := serveFlagSet(&f, env)
	noWait := fs.Bool("no-wait", false, "return once the run is queued")
	timeout := fs.Duration("timeout", 0, "stop waiting after this long (0: until the run ends)")
	// The name may come first, as in `schedule run erase --config F`.
	name := ""
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	svc, done, rest, err := scheduleService(ctx, &f, fs, args, env)
	if err != nil {
		return err
	}
	defer done()
	if name == "" && len(rest) == 1 {
		name, rest = rest[0], nil
	}
	if name == "" || len(rest) > 0 {
		return errors.New(scheduleUsage)
	}
	queued, err := svc.TriggerSchedule(ctx, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "run of %s for %s queued\n", name, queued.Fire.UTC().Format(time.RFC3339Nano))
	if *noWait {
		return nil
	}
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	run, started, err := waitRun(ctx, svc, name, queued.Fire, env)
	switch {
	case err != nil && ctx.Err() != nil && !started:
		return withdraw(svc, name, queued, err)
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("stopped waiting for the run of %s (it goes on; schedule list shows it): %w", name, err)
	case err != nil:
		return err
	}
	fmt.Fprintf(env.Stdout, "%s: %s in %s: %s\n", name, run.Status, run.Duration(time.Now()).Round(time.Millisecond), run.Result)
	if run.Status == jobs.RunFailed {
		return fmt.Errorf("the run of %s failed", name)
	}
	return nil
}

// waitRun polls the run of name for fire until it ends; it says once when
// no worker has started it after a while. started says whether a worker
// had begun the run when the wait stopped.
func waitRun(ctx context.Context, svc *jobs.Service, name string, fire time.Time, env *Env) (jobs.ScheduleRun, bool, error) {
	said, warned, since, started := "", false, time.Now(), false
	for {
		run, err := svc.ScheduleRun(ctx, name, fire)
		switch {
		case err == nil && run.Status != jobs.RunRunning:
			return run, true, nil
		case err == nil:
			started = true
			now := "running"
			if run.DownloadKey != "" {
				now = "download " + run.DownloadKey + " queued; waiting for it to finish"
			}
			if now != said {
				fmt.Fprintln(env.Stdout, now)
				said = now
			}
		case errors.Is(err, jobs.ErrNotFound):
			if !warned && time.Since(since) > 30*time.Second {
				warned = true
				fmt.Fprintln(env.Stderr, "no worker has started the run yet: is a worker (serve --role worker or all) running with this schedule?")
			}
		case err != nil:
			return run, started, err
		}
		select {
		case <-ctx.Done():
			return run, started, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// withdraw takes back a queued run whose wait stopped (timeout, interrupt)
// before any worker began it: otherwise it would run whenever a worker next
// starts, maybe days later, with nobody waiting for it.
func withdraw(svc *jobs.Service, name string, queued jobs.ManualRun, waitErr error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ok, err := svc.WithdrawRun(ctx, queued)
	switch {
	case err != nil:
		return fmt.Errorf("stopped waiting for the run of %s (%w), and withdrawing it failed, so a worker may still run it: %w", name, waitErr, err)
	case ok:
		return fmt.Errorf("stopped waiting for the run of %s (%w): no worker had started it, so it was withdrawn and will not run", name, waitErr)
	}
	// A worker took it meanwhile.
	return fmt.Errorf("stopped waiting for the run of %s (it goes on; schedule list shows it): %w", name, waitErr)
}
