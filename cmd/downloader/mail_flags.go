package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// registerMailFlags binds the notice settings (jobs.MailConfig) to flags;
// serve's configuration file sets them through its smtp and mail sections.
func registerMailFlags(fs *flag.FlagSet, c *jobs.MailConfig) {
	def := jobs.MailConfig{}.WithDefaults()
	fs.StringVar(&c.Addr, "smtp", "", "SMTP server host:port for notices (none if empty)")
	fs.StringVar(&c.From, "smtp-from", "downloads@localhost", "sender of notices, an address with an optional name")
	fs.StringVar(&c.Username, "smtp-user", "", "SMTP AUTH user (password in $DOWNLOADER_SMTP_PASSWORD or the config file's smtp.password_file)")
	fs.Var((*tlsModeFlag)(&c.TLS), "smtp-tls", "auto, starttls (required), tls or implicit (port 465) or none; auto: STARTTLS when offered, required with a password off loopback")
	fs.StringVar(&c.CAFile, "smtp-ca-file", "", "PEM certificates trusted for the SMTP server besides the system's")
	fs.DurationVar(&c.ConnectTimeout, "smtp-connect-timeout", def.ConnectTimeout, "how long connecting to the SMTP server may take")
	fs.DurationVar(&c.CommandTimeout, "smtp-command-timeout", def.CommandTimeout, "how long each SMTP command may take")
	fs.IntVar(&c.MaxAttempts, "smtp-attempts", def.MaxAttempts, "tries of a notice before it is given up")
	fs.DurationVar(&c.RetryMin, "smtp-retry-min", def.RetryMin, "wait after a notice's first failed try (doubling after each)")
	fs.DurationVar(&c.RetryMax, "smtp-retry-max", def.RetryMax, "longest wait between tries of a notice")
	fs.Var((*listFlag)(&c.Operators), "mail-operators", "comma-separated addresses of the daily digest of failed downloads")
	fs.StringVar(&c.OperatorLanguage, "mail-operator-language", def.OperatorLanguage, "language of the operators' digest")
	fs.StringVar(&c.Help, "mail-help", "", "where users get help (URL or address), in failure mails (default: the first operator)")
	fs.StringVar(&c.PageURL, "mail-page-url", "", "a download's page in the portal, {key} for its key (default with --page: PUBLIC_URL/occurrence/download/{key}, PUBLIC_URL being --public-url or the listener's address; else its API address)")
}

// tlsModeFlag is --smtp-tls: a jobs.TLSMode spelled as users write it.
type tlsModeFlag jobs.TLSMode

func (m *tlsModeFlag) String() string {
	if m == nil || *m == tlsModeFlag(jobs.TLSAuto) {
		return "auto"
	}
	return string(*m)
}

func (m *tlsModeFlag) Set(v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "auto":
		*m = tlsModeFlag(jobs.TLSAuto)
	case "starttls":
		*m = tlsModeFlag(jobs.TLSStartTLS)
	case "tls", "implicit":
		*m = tlsModeFlag(jobs.TLSImplicit)
	case "none":
		*m = tlsModeFlag(jobs.TLSNone)
	default:
		return fmt.Errorf("%q: want auto, starttls, tls (implicit) or none", v)
	}
	return nil
}

// listFlag is a comma-separated list; empty items are dropped.
type listFlag []string

func (l *listFlag) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, ",")
}

func (l *listFlag) Set(v string) error {
	*l = nil
	for _, a := range strings.Split(v, ",") {
		if a = strings.TrimSpace(a); a != "" {
			*l = append(*l, a)
		}
	}
	return nil
}
