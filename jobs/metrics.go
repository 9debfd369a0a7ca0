package jobs

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Option configures a Service beyond its Config.
type Option func(*Service) error

// WithMetrics registers the service's Prometheus metrics on reg (see
// docs/operations.md): downloads by final status and format, queue depth and
// age, records scanned and written, archive bytes, export stage durations,
// mail failures and the age of the table snapshot. Without it the counters
// still count but nobody can scrape them.
func WithMetrics(reg prometheus.Registerer) Option {
	return func(s *Service) error {
		for _, c := range s.metrics.collectors() {
			if err := reg.Register(c); err != nil {
				return err
			}
		}
		return reg.Register(&stateCollector{s: s})
	}
}

// metrics are the service's counters; they exist (unregistered) even when
// nobody scrapes them, so that the code that counts never checks.
type metrics struct {
	downloads      *prometheus.CounterVec
	recordsScanned *prometheus.CounterVec
	recordsWritten *prometheus.CounterVec
	bytesWritten   *prometheus.CounterVec
	stage          *prometheus.HistogramVec
	mailFailures   prometheus.Counter
	// scheduleRuns counts finished schedule runs by schedule and status;
	// snapshotAnswers the unfiltered requests answered with a scheduled
	// export, by format.
	scheduleRuns    *prometheus.CounterVec
	snapshotAnswers *prometheus.CounterVec
}

// Export stages, the stage label of downloader_export_stage_seconds.
const (
	stageScan     = "scan"
	stageCompress = "compress"
	stageUpload   = "upload"
)

func newMetrics() *metrics {
	return &metrics{
		downloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "downloader_downloads_total",
			Help: "Downloads that entered a status (PREPARING when submitted, then SUCCEEDED, FAILED, CANCELLED, KILLED, FILE_ERASED), by the process that changed it.",
		}, []string{"status", "format"}),
		recordsScanned: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "downloader_export_records_scanned_total",
			Help: "Table records read by exports (attempts that failed later included).",
		}, []string{"format"}),
		recordsWritten: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "downloader_export_records_written_total",
			Help: "Records written into archives by exports (attempts that failed later included).",
		}, []string{"format"}),
		bytesWritten: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "downloader_export_bytes_written_total",
			Help: "Archive bytes written to storage by exports.",
		}, []string{"format"}),
		stage: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "downloader_export_stage_seconds",
			Help: "Durations of successful exports by stage: scan (start to the last record written into the archive), " +
				"compress (closing the archive: the last compressed chunks, spooled entries, the zip directory), " +
				"upload (time spent waiting on storage: writes and the final commit). Stages overlap.",
			Buckets: prometheus.ExponentialBuckets(0.01, 4, 12),
		}, []string{"stage", "format"}),
		mailFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "downloader_mail_failures_total",
			Help: "Notification mails that could not be sent (each failed try; River retries them).",
		}),
		scheduleRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "downloader_schedule_runs_total",
			Help: "Finished runs of the configured schedules, by schedule and status (succeeded, failed), by the process that ended them.",
		}, []string{"schedule", "status"}),
		snapshotAnswers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "downloader_snapshot_answers_total",
			Help: "Unfiltered download requests answered with a scheduled export's archive instead of a scan, by format.",
		}, []string{"format"}),
	}
}

func (m *metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.downloads, m.recordsScanned, m.recordsWritten, m.bytesWritten, m.stage, m.mailFailures,
		m.scheduleRuns, m.snapshotAnswers}
}

// counted counts a download entering status st; the format is read from the
// database (one read by key, at a status change).
func (s *Service) counted(ctx context.Context, key string, st Status) {
	format := "unknown"
	if r, err := s.db.getDownload(ctx, s.db.SQL, key); err == nil {
		format = r.Request.Format
	}
	s.metrics.downloads.WithLabelValues(string(st), format).Inc()
}

// exportMeter feeds one export attempt into the counters: progress adds what
// the scan did since the last report, done tops the counters up to the
// final result and observes the stage durations. progress and done are
// called by one goroutine at a time; upload time is added by the writer.
type exportMeter struct {
	m                *metrics
	format           string
	start, lastBeat  time.Time
	scanned, written int64
	mu               sync.Mutex
	uploading        time.Duration
}

func (m *metrics) export(format string) *exportMeter {
	now := time.Now()
	return &exportMeter{m: m, format: format, start: now, lastBeat: now}
}

func (e *exportMeter) progress(p Progress) {
	e.lastBeat = time.Now()
	e.add(p.RecordsScanned, p.RecordsWritten)
}

// add moves the counters to the attempt's totals scanned and written (never
// backwards).
func (e *exportMeter) add(scanned, written int64) {
	if d := scanned - e.scanned; d > 0 {
		e.m.recordsScanned.WithLabelValues(e.format).Add(float64(d))
		e.scanned = scanned
	}
	if d := written - e.written; d > 0 {
		e.m.recordsWritten.WithLabelValues(e.format).Add(float64(d))
		e.written = written
	}
}

// exported is called when the engine returned the complete archive.
func (e *exportMeter) exported(res ExportResult) time.Time {
	e.add(res.Scanned, res.Records)
	return time.Now()
}

// committed is called once the archive is committed to storage.
func (e *exportMeter) committed(exported time.Time) {
	e.mu.Lock()
	up := e.uploading
	e.mu.Unlock()
	e.m.stage.WithLabelValues(stageScan, e.format).Observe(e.lastBeat.Sub(e.start).Seconds())
	e.m.stage.WithLabelValues(stageCompress, e.format).Observe(max(0, exported.Sub(e.lastBeat)).Seconds())
	e.m.stage.WithLabelValues(stageUpload, e.format).Observe(up.Seconds())
}

// timed runs f and adds its duration to the upload stage.
func (e *exportMeter) timed(f func() error) error {
	t := time.Now()
	err := f()
	d := time.Since(t)
	e.mu.Lock()
	e.uploading += d
	e.mu.Unlock()
	return err
}

// meteredUpload counts the bytes written to storage and the time spent
// writing them.
type meteredUpload struct {
	Upload
	e     *exportMeter
	bytes prometheus.Counter
}

func (e *exportMeter) upload(up Upload) *meteredUpload {
	return &meteredUpload{Upload: up, e: e, bytes: e.m.bytesWritten.WithLabelValues(e.format)}
}

func (u *meteredUpload) Write(p []byte) (n int, err error) {
	_ = u.e.timed(func() error {
		n, err = u.Upload.Write(p)
		return nil
	})
	u.bytes.Add(float64(n))
	return n, err
}

func (u *meteredUpload) Commit(ctx context.Context) error {
	return u.e.timed(func() error { return u.Upload.Commit(ctx) })
}

// stateCollector reports what is read from the database and the table at
// scrape time: the queue and the table snapshot's age.
type stateCollector struct{ s *Service }

var (
	queueDesc = prometheus.NewDesc("downloader_queue_downloads",
		"Downloads not finished, by status (PREPARING and SUSPENDED wait for a worker).", []string{"status"}, nil)
	queueAgeDesc = prometheus.NewDesc("downloader_queue_oldest_seconds",
		"Age of the oldest download waiting for a worker (PREPARING or SUSPENDED); 0 when none waits.", nil, nil)
	snapshotAgeDesc = prometheus.NewDesc("downloader_table_snapshot_age_seconds",
		"Age of the occurrence table's current snapshot (when the backend records its time).", nil, nil)
	lastSuccessDesc = prometheus.NewDesc("downloader_schedule_last_success_timestamp_seconds",
		"When the last successful run of each configured schedule finished (Unix time; absent before the first).",
		[]string{"schedule"}, nil)
	intervalDesc = prometheus.NewDesc("downloader_schedule_interval_seconds",
		"The time between the next two fires of each configured schedule's cron expression (an alert on a late schedule compares its last success with it).",
		[]string{"schedule"}, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDesc
	ch <- queueAgeDesc
	ch <- snapshotAgeDesc
	ch <- lastSuccessDesc
	ch <- intervalDesc
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if q, err := c.s.queueState(ctx); err != nil {
		c.s.logger.WarnContext(ctx, "metrics: queue state", "err", err)
	} else {
		for _, st := range []Status{StatusPreparing, StatusRunning, StatusSuspended} {
			ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(q.count[st]), string(st))
		}
		age := 0.0
		if !q.oldestWaiting.IsZero() {
			age = max(0, time.Since(q.oldestWaiting).Seconds())
		}
		ch <- prometheus.MustNewConstMetric(queueAgeDesc, prometheus.GaugeValue, age)
	}
	if scheds := c.s.cfg.Scheduler.Schedules; len(scheds) > 0 {
		now := c.s.now()
		for _, sc := range scheds {
			if d, ok := cronInterval(sc.When, now); ok {
				ch <- prometheus.MustNewConstMetric(intervalDesc, prometheus.GaugeValue, d.Seconds(), sc.Name)
			}
		}
		if last, err := c.s.db.lastSuccesses(ctx); err != nil {
			c.s.logger.WarnContext(ctx, "metrics: schedule runs", "err", err)
		} else {
			for _, sc := range scheds {
				if t, ok := last[sc.Name]; ok {
					ch <- prometheus.MustNewConstMetric(lastSuccessDesc, prometheus.GaugeValue, float64(t.UnixMilli())/1e3, sc.Name)
				}
			}
		}
	}
	if ti, ok := tableInfo(c.s.engine); ok {
		if snap, err := ti.TableSnapshot(ctx); err != nil {
			c.s.logger.WarnContext(ctx, "metrics: table snapshot", "err", err)
		} else if !snap.Created.IsZero() {
			ch <- prometheus.MustNewConstMetric(snapshotAgeDesc, prometheus.GaugeValue, max(0, time.Since(snap.Created).Seconds()))
		}
	}
}

type queueState struct {
	count         map[Status]int64
	oldestWaiting time.Time
}

// queueState counts the unfinished downloads by status (the status and
// creation index answers it).
func (s *Service) queueState(ctx context.Context) (queueState, error) {
	q := queueState{count: map[Status]int64{}}
	rows, err := s.db.read.QueryContext(ctx, s.db.q(`SELECT status, COUNT(*), MIN(created) FROM downloads
		WHERE status IN (?, ?, ?) GROUP BY status`), StatusPreparing, StatusRunning, StatusSuspended)
	if err != nil {
		return q, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			st     Status
			n      int64
			oldest sql.NullInt64
		)
		if err := rows.Scan(&st, &n, &oldest); err != nil {
			return q, err
		}
		q.count[st] = n
		if st != StatusRunning && oldest.Valid {
			t := time.UnixMilli(oldest.Int64)
			if q.oldestWaiting.IsZero() || t.Before(q.oldestWaiting) {
				q.oldestWaiting = t
			}
		}
	}
	return q, rows.Err()
}

// cronInterval is the time between the next two fires of when after now;
// false for no cron or one that does not fire twice.
func cronInterval(when Cron, now time.Time) (time.Duration, bool) {
	if when == nil {
		return 0, false
	}
	next := when.Next(now)
	after := when.Next(next)
	return after.Sub(next), !next.IsZero() && after.After(next)
}
