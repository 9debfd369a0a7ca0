package main

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/robfig/cron/v3"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/sqlquery"
)

// SMTP TLS modes (smtp.tls), as --smtp-tls prints them.
const (
	smtpAutoTLS     = "auto"
	smtpStartTLS    = "starttls"
	smtpImplicitTLS = "tls"
	smtpNoTLS       = "none"
)

// Log formats and levels (log.format, log.level).
var (
	logFormats = []string{"text", "json"}
	logLevels  = []string{"debug", "info", "warn", "error"}
)

// minPartSize is S3's smallest multipart part.
const minPartSize = 5 << 20

// validate checks the effective configuration (the schedules' own rules
// are validateSchedules', with the decoding); errors say where the bad
// value was set.
func (d *configDecoder) validate(c *fileConfig) {
	d.oneOf(c.Role, "role", "api", "worker", "all")
	d.oneOf(c.Log.Format, "log.format", logFormats...)
	d.oneOf(c.Log.Level, "log.level", logLevels...)
	d.nonNegative(c)
	if c.PublicURL != "" && !isHTTPURL(c.PublicURL) {
		d.fail(d.origin["public_url"], "public_url", "%q is not an http(s) URL", c.PublicURL)
	}
	d.validateSMTP(&c.SMTP)
	d.validateStorage(&c.Storage)
	d.validateWarning(c)
	if c.Overrides != "" {
		if st, err := os.Stat(c.Overrides); err != nil {
			d.fail(d.origin["overrides"], "overrides", "%v", err)
		} else if !st.IsDir() {
			d.fail(d.origin["overrides"], "overrides", "%s is not a directory", c.Overrides)
		}
	}
	d.oneOf(c.ScheduledExports.AnswerUnfiltered, "scheduled_exports.answer_unfiltered",
		string(jobs.AnswerRecent), string(jobs.AnswerSameSnapshot), string(jobs.AnswerNever))
	d.validateDigests(c)
}

// isHTTPURL reports whether s is an absolute http(s) URL with a host.
func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// validateWarning: the default warning shrinks to half of a short
// erase.after (serveFlags.configure) and is not sent without SMTP; one that
// was set must fit, and be mailed.
func (d *configDecoder) validateWarning(c *fileConfig) {
	where, set := d.origin["erase.warn_before"]
	if !set || c.Erase.WarnBefore <= 0 {
		return
	}
	if c.Erase.WarnBefore >= c.Erase.After {
		d.fail(where, "erase.warn_before", "%s is not before erase.after (%s): set a shorter warning, or 0s for none",
			c.Erase.WarnBefore, c.Erase.After)
	}
	if c.SMTP.Host == "" {
		d.fail(where, "erase.warn_before", "%s: the warning is mailed, and smtp.host is not set: set smtp.host, or 0s for no warning",
			c.Erase.WarnBefore)
	}
}

// validateDigests: a digest schedule mails mail.operators through
// smtp.host; without either it would succeed every day and send nothing.
func (d *configDecoder) validateDigests(c *fileConfig) {
	for i, s := range c.Schedules {
		if s.Kind != scheduleDigest {
			continue
		}
		p := fmt.Sprintf("schedules[%d].kind", i)
		where := cmp.Or(d.origin[p], d.origin[fmt.Sprintf("schedules[%d]", i)])
		if strings.TrimSpace(c.Mail.Operators) == "" {
			d.fail(where, p, "a digest schedule mails mail.operators, and none are set")
		}
		if c.SMTP.Host == "" {
			d.fail(where, p, "a digest schedule mails the digest, and smtp.host is not set: set smtp.host, or remove the schedule")
		}
	}
}

// scheduleKindList names the schedule kinds for messages.
const scheduleKindList = scheduleErase + ", " + scheduleDigest + ", " + scheduleRollover + " or " + scheduleExport

func (d *configDecoder) oneOf(v, path string, allowed ...string) {
	if v != "" && !slices.Contains(allowed, v) {
		d.fail(d.origin[path], path, "%q: want %s", v, strings.Join(allowed, ", "))
	}
}

// nonNegative rejects negative numbers, sizes and durations anywhere.
func (d *configDecoder) nonNegative(c *fileConfig) {
	root := reflect.ValueOf(c).Elem()
	for _, l := range configLeaves() {
		v := root.FieldByIndex(l.index)
		if (v.Kind() == reflect.Int || v.Kind() == reflect.Int64) && v.Int() < 0 && !l.signed {
			d.fail(d.origin[l.path], l.path, "%s is negative (0 takes the default)", flagText(v))
		}
	}
}

func (d *configDecoder) validateSMTP(s *smtpConfig) {
	switch s.TLS {
	case "", smtpAutoTLS, smtpStartTLS, smtpImplicitTLS, "implicit", smtpNoTLS:
	default:
		d.fail(d.origin["smtp.tls"], "smtp.tls", "%q: want auto, starttls, tls (implicit) or none", s.TLS)
	}
	if s.Port < 0 || s.Port > 65535 {
		d.fail(d.origin["smtp.port"], "smtp.port", "%d is not a port", s.Port)
	}
	if s.Host != "" {
		// Without a user the service does not authenticate: a password alone
		// is a forgotten user, not a setting.
		if s.Password.value != "" && s.User == "" {
			d.fail(d.origin["smtp.password"], "smtp.password", "set without smtp.user: the password is only sent with a user (set smtp.user, or remove the password)")
		}
		return
	}
	for k, set := range map[string]bool{"smtp.port": s.Port != 0, "smtp.tls": s.TLS != "" && s.TLS != smtpAutoTLS,
		"smtp.user": s.User != "", "smtp.password": s.Password.value != ""} {
		if where := d.origin[k]; set && !strings.HasPrefix(where, "--") {
			d.fail(where, k, "set without smtp.host")
		}
	}
}

func (d *configDecoder) validateStorage(s *storeConfig) {
	if strings.HasPrefix(s.Location, "s3://") {
		if s.PartSize != 0 && (s.PartSize < minPartSize || s.PartSize > 5<<30) {
			d.fail(d.origin["storage.part_size"], "storage.part_size", "%s: S3 parts are 5MiB to 5GiB", s.PartSize)
		}
		return
	}
	// The S3 settings do not apply to a directory. The AWS variables may be
	// set for other programs: only the file's keys are refused.
	for k, set := range map[string]bool{"storage.access_key_id": s.AccessKeyID != "", "storage.secret_access_key": s.SecretAccessKey.value != "",
		"storage.part_size": s.PartSize != 0, "storage.link_expiry": s.LinkExpiry != 0} {
		if where := d.origin[k]; set && d.file != "" && strings.HasPrefix(where, d.file+":") {
			d.fail(where, k, "only for s3:// storage (storage.location is a directory)")
		}
	}
}

// cronParser reads the standard five fields and the @daily-style
// descriptors, with an optional CRON_TZ= prefix.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

var scheduleNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

func (d *configDecoder) validateSchedules(ss []scheduleConfig) {
	names := map[string]string{}
	for i, s := range ss {
		p := fmt.Sprintf("schedules[%d]", i)
		at := func(key string) (string, string) {
			if where, ok := d.origin[p+"."+key]; ok {
				return where, p + "." + key
			}
			return d.origin[p], p + "." + key
		}
		switch where, path := at("name"); {
		case s.Name == "":
			d.fail(where, path, "missing: every schedule has a name")
		case !scheduleNameRE.MatchString(s.Name):
			d.fail(where, path, "%q: lower-case letters, digits, - and _ (at most 64)", s.Name)
		case names[s.Name] != "":
			d.fail(where, path, "%q is also the name of the schedule at %s", s.Name, names[s.Name])
		default:
			names[s.Name] = where
		}
		if where, path := at("cron"); s.Cron == "" {
			d.fail(where, path, "missing (like \"0 3 * * *\" or @daily)")
		} else if _, err := cronParser.Parse(s.Cron); err != nil {
			d.fail(where, path, "%q: %v", s.Cron, err)
		}
		d.validateParams(s, p)
	}
}

// validateParams checks that a schedule's parameters fit its kind.
func (d *configDecoder) validateParams(s scheduleConfig, p string) {
	at := func(key string) string {
		if where, ok := d.origin[p+"."+key]; ok {
			return where
		}
		return d.origin[p]
	}
	given := []string{}
	for _, k := range []string{"format", "predicate", "query", "description"} {
		if _, ok := d.origin[p+".params."+k]; ok {
			given = append(given, k)
		}
	}
	switch s.Kind {
	case scheduleErase, scheduleRollover, scheduleDigest:
		for _, k := range given {
			d.fail(at("params."+k), p+".params."+k, "not a parameter of %s schedules", s.Kind)
		}
	case scheduleExport:
		if s.Params.Format == "" {
			d.fail(at("params"), p+".params.format", "missing: an export names its format (%s)", strings.Join(download.FormatNames(), ", "))
		} else if _, err := download.ParseFormat(s.Params.Format); err != nil {
			d.fail(at("params.format"), p+".params.format", "%v", err)
		}
		d.validateSelection(s, p, at)
	case "":
		d.fail(at("kind"), p+".kind", "missing: %s", scheduleKindList)
	default:
		d.fail(at("kind"), p+".kind", "%q: want %s", s.Kind, scheduleKindList)
	}
}

// validateSelection parses an export's predicate or query as a download's,
// or its SQL query, which a SQL_TSV_ZIP export takes and no other.
func (d *configDecoder) validateSelection(s scheduleConfig, p string, at func(string) string) {
	lim := occurrence.DefaultLimits()
	isSQL := strings.EqualFold(s.Params.Format, string(download.FormatSQLTSVZip))
	switch {
	case isSQL && (len(s.Params.Predicate) > 0 || s.Params.Query != ""):
		d.fail(at("params"), p+".params", "a %s export takes its filter from params.sql's WHERE clause, not a predicate or query", download.FormatSQLTSVZip)
	case isSQL && strings.TrimSpace(s.Params.SQL) == "":
		d.fail(at("params"), p+".params.sql", "missing: a %s export runs a SQL query (docs/sql.md)", download.FormatSQLTSVZip)
	case isSQL:
		if _, err := download.ParseSQL(s.Params.SQL, sqlquery.Options{Limits: lim}); err != nil {
			d.fail(at("params.sql"), p+".params.sql", "%v", err)
		}
	case s.Params.SQL != "":
		d.fail(at("params.sql"), p+".params.sql", "a SQL query makes a %s export, not %s", download.FormatSQLTSVZip, s.Params.Format)
	case len(s.Params.Predicate) > 0 && s.Params.Query != "":
		d.fail(at("params.query"), p+".params.query", "give a predicate or a query, not both")
	case len(s.Params.Predicate) > 0:
		if _, err := occurrence.ParsePredicateJSON(s.Params.Predicate, lim); err != nil {
			d.fail(at("params.predicate"), p+".params.predicate", "%v", err)
		}
	case s.Params.Query != "":
		vals, err := url.ParseQuery(strings.TrimPrefix(s.Params.Query, "?"))
		if err == nil {
			_, err = occurrence.ParseQuery(vals, lim)
		}
		if err != nil {
			d.fail(at("params.query"), p+".params.query", "%v", err)
		}
	}
}

// jobsKeys are the keys of the jobs.Config fields a jobs.ConfigError names.
var jobsKeys = map[string]string{"Lease": "limits.lease", "RescueAfter": "limits.rescue_after", "Heartbeat": "limits.heartbeat"}

// checkJobs applies the job service's rules on settings that must fit each
// other (jobs.Config.Validate), each error at the first of its two keys
// that was set.
func (d *configDecoder) checkJobs(cfg jobs.Config) {
	err := cfg.Validate()
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, err := range errs {
		var ce *jobs.ConfigError
		if !errors.As(err, &ce) {
			d.fail("", "", "%v", err)
			continue
		}
		key, other := jobsKeys[ce.Field], jobsKeys[ce.Other]
		d.fail(cmp.Or(d.origin[key], d.origin[other]), key+", "+other, "%s", ce.Msg)
	}
}
