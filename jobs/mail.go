package jobs

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/smtp"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/biodiversity-downloads/downloader/internal/logctx"
)

// MailConfig says how to reach the SMTP server.
type MailConfig struct {
	// Addr is host:port of the SMTP server.
	Addr string
	// From is the sender address.
	From string
	// Username and Password enable PLAIN auth (only over TLS or to localhost,
	// as net/smtp enforces).
	Username, Password string
}

// Mailer sends download notifications by SMTP.
type Mailer struct{ cfg MailConfig }

// NewMailer returns a Mailer; it does not connect until it sends.
func NewMailer(cfg MailConfig) (*Mailer, error) {
	if _, _, err := net.SplitHostPort(cfg.Addr); err != nil {
		return nil, fmt.Errorf("smtp address %q: %w", cfg.Addr, err)
	}
	if cfg.From == "" {
		return nil, fmt.Errorf("smtp: a sender address is needed")
	}
	return &Mailer{cfg: cfg}, nil
}

// Send delivers a plain-text message.
func (m *Mailer) Send(ctx context.Context, to []string, subject, body string) error {
	var msg bytes.Buffer
	fmt.Fprintf(&msg, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\n", m.cfg.From, strings.Join(to, ", "),
		mime.QEncoding.Encode("utf-8", subject), time.Now().Format(time.RFC1123Z))
	msg.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
	msg.WriteString(strings.ReplaceAll(body, "\n", "\r\n"))
	var auth smtp.Auth
	if m.cfg.Username != "" {
		host, _, _ := net.SplitHostPort(m.cfg.Addr)
		auth = smtp.PlainAuth("", m.cfg.Username, m.cfg.Password, host)
	}
	done := make(chan error, 1)
	go func() { done <- smtp.SendMail(m.cfg.Addr, auth, m.cfg.From, to, msg.Bytes()) }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("smtp %s: %w", m.cfg.Addr, err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type notifyWorker struct {
	river.WorkerDefaults[notifyArgs]
	s *Service
}

// Work mails the download's link (or its failure) to its notification
// addresses. River retries it with backoff when the server is unreachable.
func (w *notifyWorker) Work(ctx context.Context, job *river.Job[notifyArgs]) error {
	s := w.s
	ctx = logctx.With(ctx, slog.String("key", job.Args.Key))
	r, err := s.db.getDownload(ctx, s.db.SQL, job.Args.Key)
	if err != nil {
		return err
	}
	if !r.Request.SendNotification || len(r.Request.NotificationAddresses) == 0 || s.mailer == nil {
		return nil
	}
	subject, body := notification(r.Download, s.cfg.PublicURL)
	if err := s.mailer.Send(ctx, r.Request.NotificationAddresses, subject, body); err != nil {
		s.metrics.mailFailures.Inc()
		s.logger.WarnContext(ctx, "notification not sent; will retry", "attempt", job.Attempt, "err", err)
		return err
	}
	return nil
}

func notification(d Download, base string) (subject, body string) {
	base = strings.TrimRight(base, "/")
	status := base + "/v1/occurrence/download/" + d.Key
	if d.Status == StatusSucceeded {
		link := base + "/v1/occurrence/download/request/" + d.Key + ".zip"
		return "Your download " + d.Key + " is ready",
			fmt.Sprintf("Your %s download %s is ready: %d records from %d datasets (%d bytes).\n\n"+
				"Download it from:\n%s\n\nIt is kept until %s. Details: %s\n",
				d.Request.Format, d.Key, d.TotalRecords, d.NumberDatasets, d.Size, link,
				d.EraseAfter.Format("2006-01-02"), status)
	}
	return "Your download " + d.Key + " failed",
		fmt.Sprintf("Your %s download %s could not be produced (%s).\n\nDetails: %s\n",
			d.Request.Format, d.Key, d.Status, status)
}
