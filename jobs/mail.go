package jobs

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	netmail "net/mail"
	"os"
	"strings"
	"time"

	"github.com/wneessen/go-mail"
)

// The SMTP side of notices: settings and the transport. Messages go out
// through github.com/wneessen/go-mail rather than net/smtp by hand: it does
// implicit TLS and STARTTLS under a policy, picks an SMTP AUTH mechanism the
// server offers (SCRAM, PLAIN, LOGIN, CRAM-MD5) and refuses to send a
// password in clear off localhost, and writes multipart/alternative bodies
// with RFC 2047 headers and quoted-printable parts, all of which net/smtp
// leaves to its caller.

// TLSMode says how the connection to the SMTP server is secured.
type TLSMode string

// The TLS modes of MailConfig.TLS.
const (
	// TLSAuto (the default) uses STARTTLS when the server offers it, and
	// requires it when a password is sent to a host that is not loopback.
	TLSAuto TLSMode = ""
	// TLSStartTLS requires STARTTLS (submission, port 587).
	TLSStartTLS TLSMode = "starttls"
	// TLSImplicit speaks TLS from the first byte (SMTPS, port 465).
	TLSImplicit TLSMode = "tls"
	// TLSNone never encrypts; refused with a password off loopback.
	TLSNone TLSMode = "none"
)

// MailConfig holds the notice settings: how to reach the SMTP server, how
// often to retry, and who gets what. Zero fields take the defaults of
// WithDefaults. The config file's smtp section maps onto these fields by
// name; the flags of `downloader serve` are named in each comment.
type MailConfig struct {
	// Addr is host:port of the SMTP server (--smtp). Empty: no mail.
	Addr string
	// From is the sender, an address with an optional display name
	// ("Downloads <downloads@example.org>") (--smtp-from).
	From string
	// Username and Password enable SMTP AUTH (--smtp-user; the password
	// from $DOWNLOADER_SMTP_PASSWORD). The password is never logged.
	Username, Password string
	// TLS is TLSAuto, TLSStartTLS, TLSImplicit or TLSNone (--smtp-tls).
	TLS TLSMode
	// CAFile is a PEM file of certificates trusted for the server's
	// certificate besides the system's roots (--smtp-ca-file).
	CAFile string
	// ConnectTimeout bounds connecting (and the TLS handshake of implicit
	// TLS); CommandTimeout bounds each SMTP command and its reply
	// (--smtp-connect-timeout, --smtp-command-timeout). One delivery may
	// take ConnectTimeout + 8 × CommandTimeout; a notice whose worker died
	// is tried again once that and 5 s (and the queue's rescue interval)
	// have passed.
	ConnectTimeout, CommandTimeout time.Duration
	// MaxAttempts is how often a notice is tried before it is given up
	// (--smtp-attempts); RetryMin is the wait after the first failure,
	// doubled after each further one up to RetryMax (--smtp-retry-min,
	// --smtp-retry-max). The defaults (30, 30 s, 1 h) keep trying for about
	// a day.
	MaxAttempts        int
	RetryMin, RetryMax time.Duration
	// Operators receive the daily digest of failed downloads
	// (--mail-operators, comma-separated); OperatorLanguage is its language
	// (--mail-operator-language, default en).
	Operators        []string
	OperatorLanguage string
	// Help is where users get help, shown in failure mails: a URL or an
	// e-mail address (--mail-help). Default: the first operator address.
	Help string
	// PageURL is a download's page in the portal, "{key}" standing for its
	// key, where users find the download and postpone its erasure
	// (--mail-page-url). Default: the API's status URL under the public URL.
	PageURL string
}

// WithDefaults returns c with every zero field set to its default.
func (c MailConfig) WithDefaults() MailConfig {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.ConnectTimeout, 30*time.Second)
	def(&c.CommandTimeout, time.Minute)
	def(&c.RetryMin, 30*time.Second)
	def(&c.RetryMax, time.Hour)
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 30
	}
	if c.OperatorLanguage == "" {
		c.OperatorLanguage = "en"
	}
	if c.Help == "" && len(c.Operators) > 0 {
		c.Help = c.Operators[0]
	}
	return c
}

// LogValue shows the settings without the password.
func (c MailConfig) LogValue() slog.Value {
	pw := ""
	if c.Password != "" {
		pw = "(set)"
	}
	return slog.GroupValue(slog.String("addr", c.Addr), slog.String("from", c.From),
		slog.String("user", c.Username), slog.String("password", pw), slog.String("tls", string(c.TLS)),
		slog.String("caFile", c.CAFile), slog.Any("operators", c.Operators))
}

// sendTimeout bounds one whole delivery: connecting, then the commands of a
// session (greeting, EHLO, STARTTLS, EHLO, AUTH, MAIL, RCPT, DATA and QUIT;
// a few recipients).
func (c MailConfig) sendTimeout() time.Duration { return c.ConnectTimeout + 8*c.CommandTimeout }

// Mailer sends notices by SMTP, one connection per message.
type Mailer struct {
	cfg  MailConfig
	host string
	tls  *tls.Config
	auth bool
}

// NewMailer checks cfg and returns a Mailer; it does not connect until it
// sends.
func NewMailer(cfg MailConfig) (*Mailer, error) {
	cfg = cfg.WithDefaults()
	host, _, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("smtp address %q: %w", cfg.Addr, err)
	}
	if cfg.From == "" {
		return nil, errors.New("smtp: a sender address is needed")
	}
	if _, err := netmail.ParseAddress(cfg.From); err != nil {
		return nil, fmt.Errorf("smtp sender %q: %w", cfg.From, err)
	}
	for _, a := range cfg.Operators {
		if _, err := netmail.ParseAddress(a); err != nil {
			return nil, fmt.Errorf("mail operator address %q: %w", a, err)
		}
	}
	m := &Mailer{cfg: cfg, host: host, auth: cfg.Username != ""}
	switch cfg.TLS {
	case TLSAuto, TLSStartTLS, TLSImplicit:
	case TLSNone:
		if m.auth && !isLoopback(host) {
			return nil, fmt.Errorf("smtp: TLS %q with a password to %s: a password goes only over TLS or to loopback (use starttls or tls)", cfg.TLS, host)
		}
	default:
		return nil, fmt.Errorf("smtp: TLS mode %q: want starttls, tls or none (empty: STARTTLS when offered)", cfg.TLS)
	}
	if m.tls, err = tlsConfig(host, cfg.CAFile); err != nil {
		return nil, err
	}
	return m, nil
}

// tlsConfig trusts the system's roots and the certificates of caFile.
func tlsConfig(host, caFile string) (*tls.Config, error) {
	c := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	if caFile == "" {
		return c, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("smtp CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("smtp CA file %s: no PEM certificate in it", caFile)
	}
	c.RootCAs = pool
	return c, nil
}

// isLoopback reports whether host names this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Config returns the effective settings.
func (m *Mailer) Config() MailConfig { return m.cfg }

// Message is one rendered notice.
type Message struct {
	To []string
	// Cc receive a copy; ReplyTo is where answers go (empty: the sender).
	Cc      []string
	ReplyTo string
	// Relayed marks a person's message the service passes on (the contact
	// notice): it is not marked Auto-Submitted, so that answers and
	// out-of-office replies reach its author through ReplyTo.
	Relayed bool
	Subject string
	// Text and HTML are the two alternative bodies (HTML may be empty).
	Text, HTML string
	// MessageID is the Message-ID without its angle brackets.
	MessageID string
	// Language is the Content-Language of the bodies.
	Language string
	Date     time.Time
}

// Send delivers msg and returns once the server accepted it (the reply to
// DATA) or failed. Cancelling ctx closes the connection.
func (m *Mailer) Send(ctx context.Context, msg Message) error {
	gm := mail.NewMsg(mail.WithNoDefaultUserAgent())
	if err := gm.From(m.cfg.From); err != nil {
		return fmt.Errorf("smtp sender: %w", err)
	}
	if err := gm.To(msg.To...); err != nil {
		return fmt.Errorf("recipients %q: %w", msg.To, err)
	}
	if len(msg.Cc) > 0 {
		if err := gm.Cc(msg.Cc...); err != nil {
			return fmt.Errorf("copies %q: %w", msg.Cc, err)
		}
	}
	if msg.ReplyTo != "" {
		if err := gm.ReplyTo(msg.ReplyTo); err != nil {
			return fmt.Errorf("reply-to %q: %w", msg.ReplyTo, err)
		}
	}
	// A subject is one line: a newline would end the header.
	gm.Subject(strings.Join(strings.Fields(msg.Subject), " "))
	gm.SetMessageIDWithValue(msg.MessageID)
	gm.SetDateWithValue(msg.Date)
	if !msg.Relayed {
		gm.SetGenHeader("Auto-Submitted", "auto-generated") // RFC 3834: no auto-replies
	}
	if msg.Language != "" {
		gm.SetGenHeader("Content-Language", msg.Language)
	}
	gm.SetBodyString(mail.TypeTextPlain, msg.Text)
	if msg.HTML != "" {
		gm.AddAlternativeString(mail.TypeTextHTML, msg.HTML)
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.sendTimeout())
	defer cancel()
	c, err := m.client(ctx)
	if err != nil {
		return err
	}
	if err := c.DialAndSendWithContext(ctx, gm); err != nil {
		if cause := context.Cause(ctx); cause != nil {
			err = fmt.Errorf("%w (%v)", cause, err)
		}
		return fmt.Errorf("smtp %s: %w", m.cfg.Addr, err)
	}
	return nil
}

// client is a go-mail client for one delivery under ctx: its connection is
// closed when ctx ends, so a cancelled or overdue delivery stops at once
// (go-mail's commands take no context).
func (m *Mailer) client(ctx context.Context) (*mail.Client, error) {
	_, port, _ := net.SplitHostPort(m.cfg.Addr)
	dial := func(dctx context.Context, network, addr string) (net.Conn, error) {
		d := &net.Dialer{Timeout: m.cfg.ConnectTimeout}
		var conn net.Conn
		var err error
		if m.cfg.TLS == TLSImplicit {
			conn, err = (&tls.Dialer{NetDialer: d, Config: m.tls}).DialContext(dctx, network, addr)
		} else {
			conn, err = d.DialContext(dctx, network, addr)
		}
		if err != nil {
			return nil, err
		}
		context.AfterFunc(ctx, func() { _ = conn.Close() })
		return conn, nil
	}
	var p int
	if _, err := fmt.Sscan(port, &p); err != nil {
		return nil, fmt.Errorf("smtp address %q: port: %w", m.cfg.Addr, err)
	}
	policy := mail.TLSOpportunistic
	switch {
	case m.cfg.TLS == TLSImplicit, m.cfg.TLS == TLSNone:
		policy = mail.NoTLS // implicit TLS is the dialer's; no STARTTLS on top
	case m.cfg.TLS == TLSStartTLS, m.auth && !isLoopback(m.host):
		policy = mail.TLSMandatory
	}
	opts := []mail.Option{mail.WithPort(p), mail.WithTimeout(m.cfg.CommandTimeout), mail.WithTLSPolicy(policy),
		mail.WithTLSConfig(m.tls), mail.WithDialContextFunc(dial)}
	if m.auth {
		// PLAIN and LOGIN refuse an unencrypted connection off loopback
		// (as NewMailer does for TLSNone).
		opts = append(opts, mail.WithOpportunisticSMTPAuth(mail.SMTPAuthSCRAMSHA256, mail.SMTPAuthPlain,
			mail.SMTPAuthLogin, mail.SMTPAuthCramMD5),
			mail.WithUsername(m.cfg.Username), mail.WithPassword(m.cfg.Password))
	}
	c, err := mail.NewClient(m.host, opts...)
	if err != nil {
		return nil, fmt.Errorf("smtp client: %w", err)
	}
	return c, nil
}
