package jobs

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/internal/logctx"
)

// Why an export's context was cancelled from inside the service.
var (
	errCancelledByUser = errors.New("download cancelled")
	errLeaseLost       = errors.New("lease on download lost to another worker")
)

type exportWorker struct {
	river.WorkerDefaults[exportArgs]
	s *Service
}

// Work exports one download. It is idempotent: a download that already
// reached a final state is left alone, and a download leased by a live worker
// elsewhere is snoozed until that lease runs out.
func (w *exportWorker) Work(ctx context.Context, job *river.Job[exportArgs]) error {
	s := w.s
	key := job.Args.Key
	ctx = logctx.With(ctx, slog.String("key", key))
	owner := fmt.Sprintf("%s/%d", s.river.ID(), job.ID)
	claimed, err := s.db.claim(ctx, key, owner, s.cfg.Lease)
	if err != nil {
		return err
	}
	if !claimed {
		r, err := s.db.getDownload(ctx, s.db.SQL, key)
		if errors.Is(err, ErrNotFound) || (err == nil && !r.Status.Active()) {
			return nil
		}
		return river.JobSnooze(s.cfg.Lease)
	}
	s.logger.InfoContext(ctx, "export started", "key", key, "attempt", job.Attempt)
	// From the claim on, every failure goes through exportFailed, which
	// gives the lease up: a shutdown right after the claim suspends the
	// download instead of leaving it RUNNING under a lease nobody renews.
	r, err := s.db.getDownload(ctx, s.db.SQL, key)
	if err == nil {
		err = s.dropStaleObject(ctx, r)
	}
	if err != nil {
		return s.exportFailed(ctx, job, owner, err)
	}
	s.abortDeadUploads(ctx, key)
	res, name, err := s.runExport(ctx, r, owner)
	if err == nil {
		return s.finish(ctx, key, owner, name, res)
	}
	return s.exportFailed(ctx, job, owner, err)
}

// runExport streams the archive of the claimed download r into storage and
// commits it only when the export succeeded and the lease is still held.
func (s *Service) runExport(ctx context.Context, r row, owner string) (ExportResult, string, error) {
	key := r.Key
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var prog atomicProgress
	beat := make(chan struct{})
	go func() {
		defer close(beat)
		s.heartbeat(ctx, key, owner, &prog, cancel)
	}()
	defer func() { cancel(nil); <-beat }()

	// A name per attempt: a run that lost its download to another worker
	// can delete its own archive without touching the other one.
	ext, contentType := download.FileOf(r.Request.Format)
	file := File{Name: key + ext, ContentType: contentType}
	name := fmt.Sprintf("%s-%x%s", key, time.Now().UnixNano(), ext)
	up, err := s.store.Create(ctx, name, file)
	if err != nil {
		return ExportResult{}, "", err
	}
	defer func() { _ = up.Abort(context.WithoutCancel(ctx)) }()
	meter := s.metrics.export(r.Request.Format)
	metered := meter.upload(up)
	h := sha256.New()
	cw := &countingWriter{w: io.MultiWriter(metered, h), n: &prog.bytes}
	res, err := s.engine.Export(ctx, ExportRequest{Key: key, Format: r.Request.Format, Predicate: r.Request.Predicate,
		Description: r.Request.Description, Created: r.Created.Time, ChecklistKey: r.Request.ChecklistKey,
		VerbatimExtensions: r.Request.VerbatimExtensions, InterpretedExtensions: r.Request.InterpretedExtensions, Fields: r.Request.Fields, SQL: r.Request.SQL, DOI: r.DOI, Link: s.downloadLink(key),
		Portal: s.cfg.Portal}, cw,
		func(p Progress) { prog.store(p); meter.progress(p) })
	if cause := context.Cause(ctx); err == nil && cause != nil {
		err = cause
	}
	if err != nil {
		if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
			err = fmt.Errorf("%w (%v)", cause, err)
		}
		return ExportResult{}, "", err
	}
	// Name the object before it exists, so that a run that dies between
	// commit and success leaves a name the next run deletes (see
	// dropStaleObject).
	exported := meter.exported(res)
	if err := s.db.setObject(ctx, key, owner, name); err != nil {
		return ExportResult{}, "", err
	}
	if err := metered.Commit(ctx); err != nil {
		return ExportResult{}, "", err
	}
	meter.committed(exported)
	fillResult(&res, cw.count(), h)
	return res, name, nil
}

func fillResult(res *ExportResult, n int64, h hash.Hash) {
	res.Bytes = n
	res.SHA256 = hex.EncodeToString(h.Sum(nil))
	if res.Datasets == nil {
		res.Datasets = []DatasetUsage{}
	}
}

// heartbeat saves progress, renews the lease and watches for cancellation
// until ctx ends.
func (s *Service) heartbeat(ctx context.Context, key, owner string, p *atomicProgress, cancel context.CancelCauseFunc) {
	tick(ctx, s.cfg.Heartbeat, func() bool {
		st, held, err := s.db.renew(ctx, key, owner, s.cfg.Lease, p.load())
		switch {
		case err != nil:
			if ctx.Err() == nil {
				s.logger.WarnContext(ctx, "heartbeat", "key", key, "err", err)
			}
		case st == StatusCancelled:
			cancel(errCancelledByUser)
			return false
		case !held:
			cancel(errLeaseLost)
			return false
		}
		return true
	})
}

// exportFailed decides what an interrupted or failed export becomes.
func (s *Service) exportFailed(ctx context.Context, job *river.Job[exportArgs], owner string, err error) error {
	key := job.Args.Key
	bg := context.WithoutCancel(ctx)
	switch {
	case errors.Is(err, errCancelledByUser):
		s.logger.InfoContext(ctx, "export cancelled", "key", key)
		if derr := s.db.dropLease(bg, key, owner); derr != nil {
			s.logger.ErrorContext(bg, "drop lease", "key", key, "err", derr)
		}
		return river.JobCancel(err)
	case errors.Is(err, errLeaseLost):
		s.logger.WarnContext(ctx, "export taken over by another worker", "key", key)
		return nil
	case ctx.Err() != nil:
		// Shutdown (or a River cancel): SUSPENDED, resumed at the next start.
		if r, gerr := s.db.getDownload(bg, s.db.SQL, key); gerr == nil && r.Status == StatusCancelled {
			s.logger.InfoContext(bg, "export cancelled", "key", key)
			_ = s.db.dropLease(bg, key, owner)
			return river.JobCancel(err)
		}
		if _, serr := s.db.release(bg, s.db.SQL, key, owner, StatusSuspended, "", ""); serr != nil {
			s.logger.ErrorContext(bg, "suspend", "key", key, "err", serr)
		}
		s.logger.InfoContext(bg, "export suspended", "key", key)
		return river.JobSnooze(0)
	}
	var perm *PermanentError
	if errors.As(err, &perm) || job.Attempt >= job.MaxAttempts {
		s.logger.ErrorContext(ctx, "export failed", "key", key, "attempt", job.Attempt, "err", err)
		// FAILED and the job that mails it commit together.
		reason := failureReason(err)
		if serr := s.db.inTx(bg, func(tx *sql.Tx) error {
			ok, rerr := s.db.release(bg, tx, key, owner, StatusFailed, err.Error(), reason)
			if rerr != nil || !ok {
				return rerr
			}
			return s.notifyTx(bg, tx, key, reason)
		}); serr != nil {
			return serr
		}
		s.counted(bg, key, StatusFailed)
		return river.JobCancel(err)
	}
	s.logger.WarnContext(ctx, "export attempt failed; will retry", "key", key, "attempt", job.Attempt, "err", err)
	if _, serr := s.db.release(bg, s.db.SQL, key, owner, StatusRunning, err.Error(), failureReason(err)); serr != nil {
		s.logger.ErrorContext(bg, "release", "key", key, "err", serr)
	}
	return err
}

// finish records a successful export and queues its notification in the
// same transaction; if the download was cancelled (or taken over) meanwhile,
// the new archive is deleted instead.
func (s *Service) finish(ctx context.Context, key, owner, name string, res ExportResult) error {
	bg := context.WithoutCancel(ctx)
	ok := false
	err := s.db.inTx(bg, func(tx *sql.Tx) error {
		var err error
		if ok, err = s.db.succeed(bg, tx, key, owner, name, res); err != nil || !ok {
			return err
		}
		return s.notifyTx(bg, tx, key, "")
	})
	if err != nil {
		return err
	}
	if !ok {
		s.logger.InfoContext(ctx, "export finished after cancel or takeover; discarding", "key", key)
		return s.store.Delete(bg, name)
	}
	s.logger.InfoContext(ctx, "export succeeded", "key", key, "records", res.Records, "bytes", res.Bytes)
	s.counted(bg, key, StatusSucceeded)
	s.abortDeadUploads(bg, key) // a stalled run's, if one woke up meanwhile
	return nil
}

type atomicProgress struct{ scanned, written, bytes atomic.Int64 }

func (p *atomicProgress) store(v Progress) {
	p.scanned.Store(v.RecordsScanned)
	p.written.Store(v.RecordsWritten)
}

func (p *atomicProgress) load() Progress {
	return Progress{RecordsScanned: p.scanned.Load(), RecordsWritten: p.written.Load(), BytesWritten: p.bytes.Load()}
}

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingWriter) count() int64 { return c.n.Load() }

// dropStaleObject deletes the archive an earlier run of a download committed
// without living to record its success. Only a claimed, unfinished download
// gets here, so the object is never one that is being served.
func (s *Service) dropStaleObject(ctx context.Context, r row) error {
	if r.ObjectName == "" {
		return nil
	}
	s.logger.WarnContext(ctx, "deleting the archive of an unfinished earlier run", "key", r.Key, "object", r.ObjectName)
	return s.store.Delete(ctx, r.ObjectName)
}
