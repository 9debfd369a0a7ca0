package jobs

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/biodiversity-downloads/downloader/internal/logctx"
	"github.com/biodiversity-downloads/downloader/migrations"
)

// Notices: what is mailed, to whom, in which language, and once.
//
// A notice is a River job (notifyArgs) inserted in the transaction that
// gives it cause: a download's final status, a scheduler's run. Its worker
// composes the message, skips it when its idempotency key is recorded in
// mail_notices, sends it, and records it in the transaction that completes
// its job. The Message-ID is derived from the idempotency key. The one
// window no SMTP client can close is between the server's acceptance of
// the message and that transaction: a worker that dies there leaves a
// notice that is sent again, once per such death, with the same Message-ID
// (mail clients that thread or deduplicate by Message-ID show it once).

// NoticeKind names a notice; its templates are named after it.
type NoticeKind string

// The notices.
const (
	// NoticeSuccess tells the recipients of a SUCCEEDED download where it is.
	NoticeSuccess NoticeKind = "success"
	// NoticeFailure tells them that a download FAILED or was KILLED.
	NoticeFailure NoticeKind = "failure"
	// NoticeErasureWarning tells them when a download's archive will be
	// erased and how to keep it (QueueErasureWarning).
	NoticeErasureWarning NoticeKind = "erasure_warning"
	// NoticeDigest lists the last day's failed downloads for the operators
	// (QueueDigest).
	NoticeDigest NoticeKind = "digest"
)

var noticeKinds = []NoticeKind{NoticeSuccess, NoticeFailure, NoticeErasureWarning, NoticeDigest, NoticeContact}

// MailStage names a point of a notice's delivery where a fault can be
// injected (InjectMailFault).
type MailStage string

// The stages of InjectMailFault.
const (
	// MailAccepted: the SMTP server accepted the message (its reply to
	// DATA); the notice is not yet recorded.
	MailAccepted MailStage = "accepted"
	// MailRecorded: the notice is recorded as sent and its job completed.
	MailRecorded MailStage = "recorded"
)

// InjectMailFault is FAULT INJECTION for tests and the binary built with
// the faultinject tag; production code never calls it. f runs at each stage
// of every delivery with the notice's idempotency key; an error ends the
// delivery there (as if the worker had died) and the notice's job fails
// that attempt. nil removes it.
func (s *Service) InjectMailFault(f func(stage MailStage, idempotencyKey string) error) {
	s.mailFault.Store(&f)
}

// ObserveMail registers f, called after every attempt to send a notice
// with its kind and the error (nil when the server accepted the message):
// metrics count mail failures here. nil removes it.
func (s *Service) ObserveMail(f func(kind NoticeKind, err error)) { s.mailObserver.Store(&f) }

// QueueErasureWarning queues the notice that d's archive will be erased on
// erase, with how to keep it. The schedules call it days before; the same
// download and day are mailed once however often it is called.
func (s *Service) QueueErasureWarning(ctx context.Context, d Download, erase time.Time) error {
	return s.db.inTx(ctx, func(tx *sql.Tx) error { return s.queueErasureWarningTx(ctx, tx, d.Key, erase) })
}

// queueErasureWarningTx is QueueErasureWarning in tx.
func (s *Service) queueErasureWarningTx(ctx context.Context, tx *sql.Tx, key string, erase time.Time) error {
	return s.queueNoticeTx(ctx, tx, notifyArgs{Key: key, Notice: NoticeErasureWarning, Date: erase.UTC().Format(time.DateOnly)})
}

// QueueDigest queues the operators' digest of the downloads that failed on
// the UTC day before end's (a schedule that calls it at 06:00 mails
// yesterday's failures). One digest per day: a second call for the same day
// changes nothing. Nothing is mailed without operator addresses or when
// nothing failed.
func (s *Service) QueueDigest(ctx context.Context, end time.Time) error {
	return s.db.inTx(ctx, func(tx *sql.Tx) error {
		return s.queueNoticeTx(ctx, tx, notifyArgs{Notice: NoticeDigest, Date: end.UTC().Format(time.DateOnly)})
	})
}

type notifyWorker struct {
	river.WorkerDefaults[notifyArgs]
	s *Service
}

// Timeout lets one delivery run for the mailer's send timeout: the job of a
// worker that died is retried once that has passed.
func (w *notifyWorker) Timeout(*river.Job[notifyArgs]) time.Duration {
	if w.s.mailer == nil {
		return time.Minute
	}
	return w.s.mailer.cfg.sendTimeout() + 5*time.Second
}

// NextRetry waits RetryMin after the first failure, doubling up to RetryMax.
func (w *notifyWorker) NextRetry(job *river.Job[notifyArgs]) time.Time {
	if w.s.mailer == nil {
		return time.Time{}
	}
	c := w.s.mailer.cfg
	wait := c.RetryMin
	for i := 1; i < job.Attempt && wait < c.RetryMax; i++ {
		wait *= 2
	}
	return time.Now().Add(min(wait, c.RetryMax))
}

// Work delivers one notice; River retries it with backoff while the server
// is unreachable. It never touches the download's status.
func (w *notifyWorker) Work(ctx context.Context, job *river.Job[notifyArgs]) error {
	s := w.s
	if job.Args.Key != "" {
		ctx = logctx.With(ctx, slog.String("key", job.Args.Key))
	}
	err := s.deliver(ctx, job.Args, func(tx *sql.Tx) error { return s.completeJobTx(ctx, tx, job) })
	if err != nil && job.Attempt >= job.MaxAttempts {
		s.logger.ErrorContext(ctx, "notice given up", "notice", noticeKindOf(job.Args),
			"attempts", job.Attempt, "err", err)
	}
	return err
}

// noticeKindOf names the notice a job delivers: its own kind, or, for a
// download's notice (which leaves Notice empty and is composed from the
// download's status), "download".
func noticeKindOf(a notifyArgs) string {
	if a.Notice != "" {
		return string(a.Notice)
	}
	return "download"
}

// completeJobTx completes job in tx, the transaction that records its
// notice.
func (s *Service) completeJobTx(ctx context.Context, tx *sql.Tx, job *river.Job[notifyArgs]) error {
	var err error
	if s.db.Dialect == migrations.Postgres {
		_, err = river.JobCompleteTx[*riverdatabasesql.Driver](ctx, tx, job)
	} else {
		_, err = river.JobCompleteTx[*riversqlite.Driver](ctx, tx, job)
	}
	return err
}

// notice is a composed notice, ready to send.
type notice struct {
	kind        NoticeKind
	idem        string
	downloadKey string
	lang        string
	msg         Message
}

// deliver composes, sends and records notice a; complete, when not nil,
// runs in the recording transaction. Its log lines carry the download's
// key through ctx (the notice worker puts it there; a digest has none).
func (s *Service) deliver(ctx context.Context, a notifyArgs, complete func(*sql.Tx) error) error {
	if s.mailer == nil || s.mail == nil {
		return nil
	}
	n, err := s.compose(ctx, a)
	if err != nil || n == nil {
		return err
	}
	sent, err := s.db.noticeSent(ctx, n.idem)
	if err != nil {
		return err
	}
	if sent {
		s.logger.InfoContext(ctx, "notice already sent", "notice", n.kind, "messageId", n.msg.MessageID)
		return nil
	}
	err = s.mailer.Send(ctx, n.msg)
	if f := s.mailObserver.Load(); f != nil && *f != nil {
		(*f)(n.kind, err)
	}
	if err != nil {
		s.metrics.mailFailures.Inc()
		s.logger.WarnContext(ctx, "notice not sent; will retry", "notice", n.kind, "err", err)
		return err
	}
	if err := s.injectMailFault(MailAccepted, n.idem); err != nil {
		return err
	}
	bg := context.WithoutCancel(ctx)
	if err := s.db.inTx(bg, func(tx *sql.Tx) error {
		if err := s.db.recordNotice(bg, tx, n); err != nil {
			return err
		}
		if n.kind == NoticeErasureWarning {
			// GBIF's erasureNotification: when the warning was sent.
			if _, err := tx.ExecContext(bg, s.db.q("UPDATE downloads SET erasure_notification = ? WHERE key = ?"),
				s.now().UnixMilli(), n.downloadKey); err != nil {
				return err
			}
		}
		if complete != nil {
			return complete(tx)
		}
		return nil
	}); err != nil {
		s.logger.ErrorContext(ctx, "notice sent but not recorded; a retry sends it again",
			"notice", n.kind, "messageId", n.msg.MessageID, "err", err)
		return err
	}
	s.logger.InfoContext(ctx, "notice sent", "notice", n.kind, "to", len(n.msg.To),
		"language", n.lang, "messageId", n.msg.MessageID)
	return s.injectMailFault(MailRecorded, n.idem)
}

func (s *Service) injectMailFault(stage MailStage, idem string) error {
	f := s.mailFault.Load()
	if f == nil || *f == nil {
		return nil
	}
	if err := (*f)(stage, idem); err != nil {
		return fmt.Errorf("fault injected at %s: %w", stage, err)
	}
	return nil
}

// compose turns a into a message, or nil when there is nothing to send.
func (s *Service) compose(ctx context.Context, a notifyArgs) (*notice, error) {
	switch a.Notice {
	case NoticeDigest:
		return s.composeDigest(ctx, a)
	case NoticeContact:
		return s.composeContact(ctx, a)
	}
	r, err := s.db.getDownload(ctx, s.db.SQL, a.Key)
	if errors.Is(err, ErrNotFound) {
		s.logger.WarnContext(ctx, "notice of a download that is gone", "key", a.Key)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	kind := a.Notice
	idem := string(kind) + "/" + r.Key + "/" + a.Date
	if kind == "" {
		switch r.Status {
		case StatusSucceeded:
			kind = NoticeSuccess
		case StatusFailed, StatusKilled:
			kind = NoticeFailure
		default:
			s.logger.InfoContext(ctx, "no notice for a download in this state", "key", r.Key, "status", r.Status)
			return nil, nil
		}
		idem = string(kind) + "/" + r.Key
	}
	switch {
	case kind == NoticeSuccess && !r.Request.SendNotification:
		return nil, nil
	case kind == NoticeErasureWarning && r.Status != StatusSucceeded:
		return nil, nil // erased or gone meanwhile: nothing to keep
	}
	user, err := s.db.GetUser(ctx, r.Creator)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	to := r.Request.NotificationAddresses
	if len(to) == 0 && user.Email != "" {
		to = []string{user.Email}
	}
	if len(to) == 0 {
		s.logger.WarnContext(ctx, "notice without a recipient", "key", r.Key, "notice", kind)
		return nil, nil
	}
	accept, err := s.db.downloadLanguage(ctx, r.Key)
	if err != nil {
		return nil, err
	}
	l := s.mail.pick(user.Language, accept)
	data := s.downloadData(r, l, a)
	return s.finishNotice(l, kind, idem, r.Key, to, data)
}

// finishNotice renders data as notice kind in l.
func (s *Service) finishNotice(l *mailLocale, kind NoticeKind, idem, key string, to []string, data noticeData) (*notice, error) {
	data.Lang = l.name
	out, err := l.render(string(kind), data)
	if err != nil {
		return nil, err
	}
	return &notice{kind: kind, idem: idem, downloadKey: key, lang: l.name, msg: Message{To: to, Subject: out.Subject,
		Text: out.Text, HTML: out.HTML, MessageID: messageID(idem, s.mailer.cfg.From), Language: l.name,
		Date: time.Now()}}, nil
}

// messageID derives a notice's Message-ID from its idempotency key, under
// the sender's domain.
func messageID(idem, from string) string {
	sum := sha256.Sum256([]byte(idem))
	domain := "localhost"
	if at := strings.LastIndexByte(from, '@'); at >= 0 {
		domain = strings.ToLower(strings.TrimRight(from[at+1:], "> \t"))
	}
	kind, _, _ := strings.Cut(idem, "/")
	return kind + "." + hex.EncodeToString(sum[:16]) + "@" + domain
}

// noticeSent reports whether the notice idem was recorded as sent.
func (db *DB) noticeSent(ctx context.Context, idem string) (bool, error) {
	var n int
	err := db.SQL.QueryRowContext(ctx, db.q("SELECT count(*) FROM mail_notices WHERE idempotency_key = ?"), idem).Scan(&n)
	return n > 0, err
}

// recordNotice records n as sent, in tx. A row already there (another
// worker recorded the same notice) is kept.
func (db *DB) recordNotice(ctx context.Context, tx *sql.Tx, n *notice) error {
	_, err := tx.ExecContext(ctx, db.q(`INSERT INTO mail_notices
		(idempotency_key, kind, download_key, message_id, recipients, language, sent) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (idempotency_key) DO NOTHING`),
		n.idem, n.kind, n.downloadKey, n.msg.MessageID, strings.Join(append(n.msg.To[:len(n.msg.To):len(n.msg.To)], n.msg.Cc...), ", "), n.lang, time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("record notice %s: %w", n.idem, err)
	}
	return nil
}

// downloadLanguage is the Accept-Language the download was requested with.
func (db *DB) downloadLanguage(ctx context.Context, key string) (string, error) {
	var lang string
	err := db.SQL.QueryRowContext(ctx, db.q("SELECT language FROM downloads WHERE key = ?"), key).Scan(&lang)
	return lang, err
}

// Why a download failed, in the words of the catalogue's reason.* strings.
const (
	reasonQuery       = "query"       // the request cannot be run as it is
	reasonTooLarge    = "too_large"   // the request is over a limit
	reasonInterrupted = "interrupted" // the export stopped (its worker was lost)
	reasonInternal    = "internal"    // anything else, after every attempt
)

// failureReason classifies the error a download finally failed with.
func failureReason(err error) string {
	var perm *PermanentError
	switch {
	case errors.Is(err, ErrPredicateTooLarge):
		return reasonTooLarge
	case errors.Is(err, ErrInvalidRequest), errors.Is(err, ErrUnknownFormat), errors.As(err, &perm):
		return reasonQuery
	}
	return reasonInternal
}
