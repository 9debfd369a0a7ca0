package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// jobSchedules turns the configuration's schedules (validated already)
// into the job service's: the cron expression parsed, an export's query
// turned into its predicate.
func jobSchedules(cs []scheduleConfig, lim occurrence.Limits) ([]jobs.Schedule, error) {
	out := make([]jobs.Schedule, 0, len(cs))
	for i, c := range cs {
		when, err := cronParser.Parse(c.Cron)
		if err != nil {
			return nil, fmt.Errorf("schedules[%d].cron: %q: %w", i, c.Cron, err)
		}
		s := jobs.Schedule{Name: c.Name, Spec: c.Cron, When: when, Kind: jobs.ScheduleKind(c.Kind)}
		if s.Kind == jobs.ScheduleExport {
			pred, err := schedulePredicate(c.Params, lim)
			if err != nil {
				return nil, fmt.Errorf("schedules[%d].params: %w", i, err)
			}
			s.Export = jobs.ScheduledExport{Format: c.Params.Format, Predicate: pred, SQL: c.Params.SQL, Description: c.Params.Description}
		}
		out = append(out, s)
	}
	return out, nil
}

// schedulePredicate is an export's selection as predicate JSON: its
// predicate, its portal query converted, or null for every record.
func schedulePredicate(p scheduleParams, lim occurrence.Limits) (json.RawMessage, error) {
	if len(p.Predicate) > 0 {
		return json.RawMessage(p.Predicate), nil
	}
	if p.Query == "" {
		return json.RawMessage("null"), nil
	}
	vals, err := url.ParseQuery(strings.TrimPrefix(p.Query, "?"))
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	pred, err := occurrence.ParseQuery(vals, lim)
	if err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	if pred == nil {
		return json.RawMessage("null"), nil
	}
	return pred.MarshalJSON()
}

// scheduledRollover is the work of the rollover schedules: what
// `downloader rollover` does with its default settings, on serve's table
// (an HBase table's snapshot goes to --export-table, which the exports
// read), reported in a line.
func (f *serveFlags) scheduledRollover(logger *slog.Logger) jobs.Rollover {
	st := rolloverSettings{table: f.table, keepSnapshots: defaultKeepSnapshots, keepFor: defaultKeepFor}
	if strings.HasPrefix(f.table, "hbase://") {
		st.snapshotDir = f.exports.table
	}
	return func(ctx context.Context) (string, error) {
		rep, err := rollover(ctx, st, logger)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("snapshot %s -> %s in %.1fs: %d -> %d files, %s -> %s; %d datasets merged; %d snapshots retired, %s freed; %d pinned",
			rep.Before, rep.After, rep.Duration.Seconds(), rep.FilesBefore, rep.FilesAfter, mib(rep.BytesBefore), mib(rep.BytesAfter),
			rep.DatasetsMerged, len(rep.Retired), mib(rep.FreedBytes), len(rep.Pins)), nil
	}
}
