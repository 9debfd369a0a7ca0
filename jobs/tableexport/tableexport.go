// Package tableexport is the job service's Engine backed by an occurrence
// table and the download formats: predicates are parsed by the occurrence
// package, counts and exports scan the table in parallel, and the archive
// is written by download.Export.
package tableexport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/sqlquery"
)

// Config tunes the engine.
type Config struct {
	Limits occurrence.Limits
	// Workers scanning splits at once; 0 means GOMAXPROCS.
	Workers int
	// TempDir for DWCA's spooled files ("" = os.TempDir()).
	TempDir string
	// PinTTL is how long an export's pin on the snapshot it reads outlives
	// the export's process (default two minutes): the pin is refreshed
	// every PinTTL/3 while the export runs, so a worker that dies leaves a
	// pin that expires within PinTTL.
	PinTTL time.Duration
	// SQLMemory is the bytes a SQL download's groups or sorted rows may
	// hold; 0 means sqlquery.DefaultMemory.
	SQLMemory int64
}

// Table is what the engine reads: the occurrence table's scans, its
// catalog of datasets (citations, licences, EML), and snapshot pins, which
// keep the data an export reads from being retired while it runs (a
// rollover, an ingest's cleanup).
type Table interface {
	occurrence.Table
	occurrence.Catalog
	occurrence.Pinner
}

// Engine implements jobs.Engine over an occurrence table.
type Engine struct {
	table   Table // counts
	exports Table // exports
	cfg     Config
	logger  *slog.Logger
}

var (
	_ jobs.Engine    = (*Engine)(nil)
	_ jobs.TableInfo = (*Engine)(nil)
)

// New returns an Engine reading t; a nil logger discards.
func New(t Table, cfg Config, logger *slog.Logger) *Engine {
	return NewWithExportTable(t, t, cfg, logger)
}

// NewWithExportTable returns an Engine that counts on live and exports from
// exports: an embedded snapshot of an HBase table (downloader rollover
// --snapshot-dir), as GBIF's downloads read tables built from its live
// store while its counts come from the live search index. Exports record
// the snapshot they read (its id names the source snapshot it was copied
// from).
func NewWithExportTable(live, exports Table, cfg Config, logger *slog.Logger) *Engine {
	t := live
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg.PinTTL <= 0 {
		cfg.PinTTL = 2 * time.Minute
	}
	cfg.Limits = cfg.Limits.WithDefaults()
	return &Engine{table: t, exports: exports, cfg: cfg, logger: logger}
}

// sqlErr maps a SQL query's errors to the job service's kinds: a query
// whose groups outgrow the memory budget is over a limit, an invalid one
// is an invalid request; ok is false for any other error, returned as it
// is.
func sqlErr(err error) (mapped error, ok bool) {
	switch {
	case errors.Is(err, sqlquery.ErrTooLarge):
		return &jobs.LimitError{Kind: jobs.ErrPredicateTooLarge, Reason: err.Error(), Err: err}, true
	case errors.Is(err, sqlquery.ErrInvalidSQL):
		return fmt.Errorf("%w: %w", jobs.ErrInvalidRequest, err), true
	}
	return err, false
}

// predicateErr maps the occurrence package's error kinds to the job
// service's. A predicate over GBIF's two limits is reported in GBIF's words
// (its size and the limit); the service's own rules say which rule, the
// limit and what the predicate has, and where.
func predicateErr(err error) error {
	if !errors.Is(err, occurrence.ErrPredicateTooComplex) {
		return fmt.Errorf("%w: %w", jobs.ErrInvalidRequest, err)
	}
	reason := err.Error()
	var pe *occurrence.PredicateError
	if errors.As(err, &pe) {
		switch pe.Rule {
		case occurrence.RuleValues:
			reason = fmt.Sprintf("The request contains %d predicate items.  The maximum is %d.\nRule: %s.", pe.Got, pe.Limit, pe.Rule)
		case occurrence.RulePolygonPoints:
			reason = fmt.Sprintf("The geometry (or geometries) contains %d points.  The maximum is %d.\nRule: %s.", pe.Got, pe.Limit, pe.Rule)
		}
	}
	return &jobs.LimitError{Kind: jobs.ErrPredicateTooLarge, Reason: reason, Err: err}
}

func canonical(p *occurrence.Predicate) (json.RawMessage, error) {
	if p == nil {
		return json.RawMessage("null"), nil
	}
	return p.MarshalJSON()
}

func (e *Engine) parse(raw json.RawMessage) (*occurrence.Predicate, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	p, err := occurrence.ParsePredicateJSON(raw, e.cfg.Limits)
	if err != nil {
		return nil, predicateErr(err)
	}
	return p, nil
}

// CheckPredicate validates predicate JSON and returns its canonical form.
func (e *Engine) CheckPredicate(raw json.RawMessage) (json.RawMessage, error) {
	p, err := e.parse(raw)
	if err != nil {
		return nil, err
	}
	return canonical(p)
}

// PredicateFromQuery converts portal search parameters.
func (e *Engine) PredicateFromQuery(params url.Values) (json.RawMessage, error) {
	p, err := occurrence.ParseQuery(params, e.cfg.Limits)
	if err != nil {
		return nil, predicateErr(err)
	}
	return canonical(p)
}

// DescribePredicate returns the predicate in words, the words of the
// archive's metadata.xml ("" for every record).
func (e *Engine) DescribePredicate(raw json.RawMessage) (string, error) {
	p, err := e.parse(raw)
	if err != nil || p == nil {
		return "", err
	}
	return p.Describe(), nil
}

// Count counts the matching records of the current snapshot.
func (e *Engine) Count(ctx context.Context, predicate json.RawMessage) (int64, error) {
	p, err := e.parse(predicate)
	if err != nil {
		return 0, err
	}
	snap, err := e.table.Snapshot(ctx)
	if err != nil {
		return 0, err
	}
	n, _, err := occurrence.Count(ctx, e.table, snap, p, occurrence.ScanOptions{Workers: e.cfg.Workers})
	return n, err
}

// Export writes the archive of req to w.
func (e *Engine) Export(ctx context.Context, req jobs.ExportRequest, w io.Writer, progress func(jobs.Progress)) (jobs.ExportResult, error) {
	p, err := e.parse(req.Predicate)
	if err != nil {
		return jobs.ExportResult{}, &jobs.PermanentError{Err: err}
	}
	format, err := download.ParseFormat(req.Format)
	if err != nil {
		return jobs.ExportResult{}, &jobs.PermanentError{Err: err}
	}
	// The snapshot stays pinned while the archive is written: a rollover
	// or an ingest's cleanup meanwhile retires none of its files.
	snap, release, err := occurrence.PinSnapshot(ctx, e.exports, req.Key, e.cfg.PinTTL, e.logger.With("download", req.Key))
	if err != nil {
		return jobs.ExportResult{}, err
	}
	defer release()
	x, err := download.NewExport(ctx, w, download.ExportSpec{Format: format, Key: req.Key, Predicate: p,
		Snapshot: snap.ID, Created: req.Created, DOI: req.DOI, Link: req.Link, ChecklistKey: req.ChecklistKey,
		VerbatimExtensions: req.VerbatimExtensions, InterpretedExtensions: req.InterpretedExtensions, Fields: req.Fields, SQL: req.SQL},
		download.ExportOptions{Catalog: e.exports, TempDir: e.cfg.TempDir, Logger: e.logger, Portal: req.Portal,
			SQL: sqlquery.Options{Limits: e.cfg.Limits}, SQLMemory: e.cfg.SQLMemory})
	if err != nil {
		mapped, _ := sqlErr(err)
		return jobs.ExportResult{}, &jobs.PermanentError{Err: mapped}
	}
	res, st, err := x.WriteScan(ctx, e.exports, snap, occurrence.ScanOptions{Workers: e.cfg.Workers}, func(s download.ScanProgress) {
		// Splits report rows scanned when they finish, batches arrive
		// sooner: never report fewer scanned than written.
		progress(jobs.Progress{RecordsScanned: max(s.Scan.RowsScanned, s.Written), RecordsWritten: s.Written})
	})
	if err != nil {
		if mapped, ok := sqlErr(err); ok {
			// The query's own doing: another attempt would fail alike, and
			// its creator reads why.
			return jobs.ExportResult{}, &jobs.PermanentError{Err: mapped}
		}
		return jobs.ExportResult{}, err
	}
	out := result(res, snap.ID)
	out.Scanned = max(st.RowsScanned, out.Records)
	return out, nil
}

// result converts dwca's result; the datasets are described as the export
// found them in the catalog. The catalog (occurrence.DatasetInfo) records
// no DOI, publishing organization or publishing country of a dataset, so
// those stay empty: the download's organization and country lists are
// empty rather than guessed.
func result(res download.ExportResult, snapshot string) jobs.ExportResult {
	out := jobs.ExportResult{Records: res.Records, License: res.License, Bytes: res.Bytes, SHA256: res.SHA256,
		Snapshot: snapshot, Datasets: make([]jobs.DatasetUsage, 0, len(res.Datasets))}
	if out.License == "" {
		// GBIF's value when no constituent licence is recognized; datasets
		// with an unknown licence never make the download CC0.
		out.License = occurrence.LicenseUnspecified
	}
	for _, info := range res.DatasetInfos {
		out.Datasets = append(out.Datasets, jobs.DatasetUsage{DatasetKey: info.Key, NumberRecords: res.Datasets[info.Key],
			DatasetTitle: info.Title, License: info.License, Citation: res.Citations[info.Key], DatasetDOI: res.DOIs[info.Key]})
	}
	return out
}

// TableSnapshot describes the table's current snapshot (readiness and the
// snapshot-age metric).
func (e *Engine) TableSnapshot(ctx context.Context) (jobs.TableSnapshot, error) {
	snap, err := e.table.Snapshot(ctx)
	if err != nil {
		return jobs.TableSnapshot{}, err
	}
	return jobs.TableSnapshot{ID: snap.ID, Created: snap.Created}, nil
}
