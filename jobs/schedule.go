package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
)

// Schedules are named periodic jobs: each fires on its cron expression as a
// River periodic job in the worker roles (only the elected leader inserts
// them), runs once per fire however many workers there are, and records
// the run (schedule_runs) with its status, duration and result
// (schedule_run.go). The kinds: erasure of expired archives with warnings
// before, the operators' digest, the table's rollover (a function the
// command supplies, WithRollover) and scheduled exports, which run like
// users' downloads and answer users' unfiltered requests
// (schedule_kinds.go, snapshot_answers.go).

// ScheduleKind names what a schedule does.
type ScheduleKind string

// The schedule kinds.
const (
	// ScheduleErase warns the creators of archives that will be erased
	// within SchedulerConfig.WarnBefore, then erases the expired ones.
	ScheduleErase ScheduleKind = "erase"
	// ScheduleDigest mails the operators the failures of the day before.
	ScheduleDigest ScheduleKind = "digest"
	// ScheduleRollover runs the table's rollover (WithRollover).
	ScheduleRollover ScheduleKind = "rollover"
	// ScheduleExport submits a download as SchedulerConfig.Creator.
	ScheduleExport ScheduleKind = "export"
)

// ScheduleKinds lists the kinds.
func ScheduleKinds() []ScheduleKind {
	return []ScheduleKind{ScheduleErase, ScheduleDigest, ScheduleRollover, ScheduleExport}
}

// Cron is when a schedule fires: the first fire after a time. robfig/cron's
// parsed schedules are Crons, and so are River's periodic schedules.
type Cron interface {
	Next(after time.Time) time.Time
}

// Schedule is one named periodic job.
type Schedule struct {
	// Name identifies the schedule in run records, metrics and the CLI.
	Name string
	// Spec is the cron expression as the configuration wrote it; When is it
	// parsed (the command parses it, with robfig/cron).
	Spec string
	When Cron
	Kind ScheduleKind
	// Export is what a ScheduleExport exports.
	Export ScheduledExport
}

// ScheduledExport is the download a ScheduleExport submits: a format and
// a GBIF predicate (null or empty for every record), or, for SQL_TSV_ZIP,
// a SQL query.
type ScheduledExport struct {
	Format      string
	Predicate   json.RawMessage
	SQL         string
	Description string
}

// UnfilteredAnswers says when a user's unfiltered request (a predicate that
// matches every record) is answered with a scheduled export's archive
// instead of a new scan of the whole table.
type UnfilteredAnswers string

// The answers to unfiltered requests.
const (
	// AnswerRecent (the default) answers with the latest scheduled export of
	// every record in the request's format that read the table's current
	// snapshot or is not older than SchedulerConfig.UnfilteredMaxAge, as
	// GBIF answers with its monthly snapshots.
	AnswerRecent UnfilteredAnswers = "age"
	// AnswerSameSnapshot answers only with an export of the table's current
	// snapshot: the very records a new scan would write.
	AnswerSameSnapshot UnfilteredAnswers = "snapshot"
	// AnswerNever always scans.
	AnswerNever UnfilteredAnswers = "off"
)

// SchedulerConfig is the schedules' settings.
type SchedulerConfig struct {
	Schedules []Schedule
	// WarnBefore is how long before erasure the creator of a download is
	// warned (0: no warnings). A download is erased no sooner than
	// WarnBefore after its warning was queued: a warning queued later than
	// that (warnings just enabled, workers down) moves eraseAfter.
	WarnBefore time.Duration
	// Creator is the user scheduled exports belong to; it is created
	// without a password (nobody signs in as it) when an export is first
	// submitted. Default "schedules".
	Creator string
	// Unfiltered and UnfilteredMaxAge: when unfiltered requests are
	// answered with a scheduled export (defaults AnswerRecent, 31 days).
	Unfiltered       UnfilteredAnswers
	UnfilteredMaxAge time.Duration
}

// withDefaults fills the zero fields.
func (c SchedulerConfig) withDefaults() SchedulerConfig {
	if c.Creator == "" {
		c.Creator = "schedules"
	}
	if c.Unfiltered == "" {
		c.Unfiltered = AnswerRecent
	}
	if c.UnfilteredMaxAge == 0 {
		c.UnfilteredMaxAge = 31 * 24 * time.Hour
	}
	return c
}

// validate checks the schedules: unique names, known kinds, a cron, an
// export's format.
func (c SchedulerConfig) validate() error {
	seen := map[string]bool{}
	for i, s := range c.Schedules {
		where := fmt.Sprintf("schedule %d (%q)", i, s.Name)
		switch {
		case s.Name == "":
			return fmt.Errorf("jobs: schedule %d has no name", i)
		case seen[s.Name]:
			return fmt.Errorf("jobs: %s: two schedules have this name", where)
		case s.When == nil:
			return fmt.Errorf("jobs: %s: no cron schedule", where)
		}
		seen[s.Name] = true
		switch s.Kind {
		case ScheduleErase, ScheduleDigest, ScheduleRollover:
		case ScheduleExport:
			if _, err := download.ParseFormat(s.Export.Format); err != nil {
				return fmt.Errorf("jobs: %s: %w", where, err)
			}
		default:
			return fmt.Errorf("jobs: %s: unknown kind %q (want erase, digest, rollover or export)", where, s.Kind)
		}
	}
	switch c.Unfiltered {
	case AnswerRecent, AnswerSameSnapshot, AnswerNever:
	default:
		return fmt.Errorf("jobs: unfiltered answers %q: want age, snapshot or off", c.Unfiltered)
	}
	if c.WarnBefore < 0 || c.UnfilteredMaxAge < 0 {
		return fmt.Errorf("jobs: negative scheduler durations")
	}
	return nil
}

// schedule returns the configured schedule name.
func (s *Service) schedule(name string) (Schedule, bool) {
	for _, sc := range s.cfg.Scheduler.Schedules {
		if sc.Name == name {
			return sc, true
		}
	}
	return Schedule{}, false
}

// Schedules returns the configured schedules.
func (s *Service) Schedules() []Schedule {
	return append([]Schedule(nil), s.cfg.Scheduler.Schedules...)
}

// hasSchedule reports whether a schedule of kind k is configured.
func (s *Service) hasSchedule(k ScheduleKind) bool {
	for _, sc := range s.cfg.Scheduler.Schedules {
		if sc.Kind == k {
			return true
		}
	}
	return false
}

// WithClock makes now the service's clock for what the schedules decide
// (which archives are due for erasure or a warning, eraseAfter of new and
// postponed downloads, the days left in a warning, the age of a scheduled
// export, run records); River's own timing keeps the real clock. Tests move
// it to chosen times.
func WithClock(now func() time.Time) Option {
	return func(s *Service) error {
		s.clock = now
		return nil
	}
}

// now is the service's clock.
func (s *Service) now() time.Time {
	if s.clock != nil {
		return s.clock()
	}
	return time.Now()
}

// Rollover runs one rollover of the occurrence table and says what it did
// in a line (the run's result).
type Rollover func(ctx context.Context) (string, error)

// WithRollover gives the rollover schedules their work: the command passes
// the table's rollover, which the jobs package cannot run itself (it never
// touches a table). Without it a rollover schedule's runs fail saying so.
func WithRollover(f Rollover) Option {
	return func(s *Service) error {
		s.rollover = f
		return nil
	}
}
