package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// fileConfig is the configuration file of `downloader serve`
// (docs/configuration.md; docs/downloader.example.yaml comments every key).
// A key bound to a serve flag names it in its flag tag: the file sets the
// flag unless the command line did, and $DOWNLOADER_<FLAG> overrides the
// file. Every other scalar key is overridden by $DOWNLOADER_<PATH> (dots as
// underscores) or the variable its env tag names. Secrets (type secret) are
// given as KEY or KEY_file, or by the variable and its _FILE twin.
//
// The values of flag-bound keys are only read into this struct; once the
// configuration is applied, the flags hold the effective values
// (serveFlags), and effective() copies them back for printing.
type fileConfig struct {
	Role      string       `yaml:"role" flag:"role"`
	Listen    string       `yaml:"listen" flag:"listen"`
	OpsListen string       `yaml:"ops_listen" flag:"ops-listen"`
	PublicURL string       `yaml:"public_url" flag:"public-url"`
	Portal    portalConfig `yaml:"portal"`
	Database  dbConfig     `yaml:"database"`
	Table     string       `yaml:"table" flag:"table"`
	// ExportTable is an embedded snapshot exports read instead of Table.
	ExportTable string `yaml:"export_table" flag:"export-table"`
	// TaxonomyDir is the taxonomy the species API reads (default: the
	// table directory's taxonomy).
	TaxonomyDir string       `yaml:"taxonomy_dir" flag:"taxonomy-dir"`
	Storage     storeConfig  `yaml:"storage"`
	SMTP        smtpConfig   `yaml:"smtp"`
	Mail        mailConfig   `yaml:"mail"`
	Limits      limitsConfig `yaml:"limits"`
	HTTP        httpConfig   `yaml:"http"`
	Search      searchConfig `yaml:"search"`
	Logins      loginsConfig `yaml:"logins"`
	Page        pageConfig   `yaml:"page"`
	Erase       eraseConfig  `yaml:"erase"`
	// ScheduledExports says who scheduled exports belong to and when they
	// answer users' unfiltered requests.
	ScheduledExports scheduledExportsConfig `yaml:"scheduled_exports"`
	// Schedules are named periodic jobs (erasure, digest, rollover, exports).
	Schedules []scheduleConfig `yaml:"schedules"`
	// Overrides is the directory where operators put templates, strings,
	// CSS and a logo that replace the built-in ones.
	Overrides string    `yaml:"overrides" flag:"overrides"`
	Log       logConfig `yaml:"log"`
}

type portalConfig struct {
	Name  string `yaml:"name" flag:"portal-name"`
	Short string `yaml:"short" flag:"portal-short"`
}

type dbConfig struct {
	URL string `yaml:"url" flag:"db" redact:"url"`
	// Password is PostgreSQL's, put into the URL when it has none.
	Password secret `yaml:"password" env:"DOWNLOADER_DB_PASSWORD"`
}

type storeConfig struct {
	Location        string   `yaml:"location" flag:"storage" redact:"url"`
	AccessKeyID     string   `yaml:"access_key_id" env:"AWS_ACCESS_KEY_ID"`
	SecretAccessKey secret   `yaml:"secret_access_key" env:"AWS_SECRET_ACCESS_KEY"`
	PartSize        byteSize `yaml:"part_size"`
	LinkExpiry      duration `yaml:"link_expiry"`
}

type smtpConfig struct {
	// Host and Port make the --smtp flag's host:port.
	Host           string   `yaml:"host"`
	Port           int      `yaml:"port"`
	TLS            string   `yaml:"tls" flag:"smtp-tls"`
	CAFile         string   `yaml:"ca_file" flag:"smtp-ca-file"`
	User           string   `yaml:"user" flag:"smtp-user"`
	Password       secret   `yaml:"password"`
	From           string   `yaml:"from" flag:"smtp-from"`
	ConnectTimeout duration `yaml:"connect_timeout" flag:"smtp-connect-timeout"`
	CommandTimeout duration `yaml:"command_timeout" flag:"smtp-command-timeout"`
	Attempts       int      `yaml:"attempts" flag:"smtp-attempts"`
	RetryMin       duration `yaml:"retry_min" flag:"smtp-retry-min"`
	RetryMax       duration `yaml:"retry_max" flag:"smtp-retry-max"`
}

// mailConfig is what the notices say beyond the SMTP connection.
type mailConfig struct {
	// Operators receive the daily digest of failures (comma separated).
	Operators        string `yaml:"operators" flag:"mail-operators"`
	OperatorLanguage string `yaml:"operator_language" flag:"mail-operator-language"`
	Help             string `yaml:"help" flag:"mail-help"`
	PageURL          string `yaml:"page_url" flag:"mail-page-url"`
}

type limitsConfig struct {
	Workers         int      `yaml:"workers" flag:"workers"`
	MaxRunning      int      `yaml:"max_running_per_user" flag:"max-running"`
	MaxAttempts     int      `yaml:"max_attempts" flag:"max-attempts"`
	MaxBody         byteSize `yaml:"max_body" flag:"max-body"`
	RetryAfter      duration `yaml:"retry_after" flag:"retry-after"`
	ShutdownTimeout duration `yaml:"shutdown_timeout" flag:"shutdown-timeout"`
	Lease           duration `yaml:"lease" flag:"lease"`
	RescueAfter     duration `yaml:"rescue_after" flag:"rescue-after"`
	Heartbeat       duration `yaml:"heartbeat" flag:"heartbeat"`
	Poll            duration `yaml:"poll" flag:"poll"`
	PinTTL          duration `yaml:"pin_ttl" flag:"pin-ttl"`
	SQLMemory       byteSize `yaml:"sql_memory" flag:"sql-memory"`
	// Counts bounds the search routes' record counts per caller class.
	Counts countsConfig `yaml:"counts"`
	// Predicate bounds a predicate's cost before any scan (docs/limits.md).
	Predicate predicateLimits `yaml:"predicate"`
}

// searchConfig bounds the occurrence search API (docs/limits.md).
type searchConfig struct {
	MaxLimit       int      `yaml:"max_limit" flag:"search-max-limit"`
	MaxOffset      int      `yaml:"max_offset" flag:"search-max-offset"`
	MaxFacetValues int      `yaml:"max_facet_values" flag:"search-max-facet-values"`
	FacetTimeout   duration `yaml:"facet_timeout" flag:"search-facet-timeout"`
	// Cache may be negative: no cache.
	Cache    int `yaml:"cache" flag:"search-cache" signed:"true"`
	MaxReads int `yaml:"max_reads" flag:"search-max-reads"`
}

type countsConfig struct {
	Concurrency          int      `yaml:"concurrency" flag:"count-concurrency"`
	Timeout              duration `yaml:"timeout" flag:"count-timeout"`
	ConcurrencyAnonymous int      `yaml:"concurrency_anonymous" flag:"count-concurrency-anonymous"`
	TimeoutAnonymous     duration `yaml:"timeout_anonymous" flag:"count-timeout-anonymous"`
	RetryAfter           duration `yaml:"retry_after" flag:"count-retry-after"`
	// Wait may be negative: refuse at once when the slots are taken.
	Wait duration `yaml:"wait" flag:"count-wait" signed:"true"`
}

type predicateLimits struct {
	MaxValues           int `yaml:"max_values" flag:"predicate-max-values"`
	MaxPoints           int `yaml:"max_points" flag:"predicate-max-points"`
	MaxDepth            int `yaml:"max_depth" flag:"predicate-max-depth"`
	MaxNodes            int `yaml:"max_nodes" flag:"predicate-max-nodes"`
	MaxLikes            int `yaml:"max_likes" flag:"predicate-max-likes"`
	MaxPatternLength    int `yaml:"max_pattern_length" flag:"predicate-max-pattern-length"`
	MaxPatternWildcards int `yaml:"max_pattern_wildcards" flag:"predicate-max-pattern-wildcards"`
	MaxCost             int `yaml:"max_cost" flag:"predicate-max-cost"`
}

// pageConfig is the portal page's (docs/page.md).
type pageConfig struct {
	Enabled     bool     `yaml:"enabled" flag:"page"`
	SessionIdle duration `yaml:"session_idle" flag:"session-idle"`
	SessionMax  duration `yaml:"session_max" flag:"session-max"`
	// ContactPerDay may be negative: no contact form.
	ContactPerDay int `yaml:"contact_per_day" flag:"contact-per-day" signed:"true"`
}

// httpConfig is the API server's timeouts (docs/operations.md).
type httpConfig struct {
	ReadHeaderTimeout   duration `yaml:"read_header_timeout" flag:"read-header-timeout"`
	ReadTimeout         duration `yaml:"read_timeout" flag:"read-timeout"`
	WriteTimeout        duration `yaml:"write_timeout" flag:"write-timeout"`
	IdleTimeout         duration `yaml:"idle_timeout" flag:"idle-timeout"`
	ArchiveStallTimeout duration `yaml:"archive_stall_timeout" flag:"archive-stall-timeout"`
	ShutdownGrace       duration `yaml:"shutdown_grace" flag:"shutdown-grace"`
	ClientIPHeader      string   `yaml:"client_ip_header" flag:"client-ip-header"`
}

// loginsConfig bounds failed logins (docs/operations.md).
type loginsConfig struct {
	FreeFailures     int      `yaml:"free_failures" flag:"login-free-failures"`
	FreeUserFailures int      `yaml:"free_user_failures" flag:"login-free-user-failures"`
	MaxBackoff       duration `yaml:"max_backoff" flag:"login-max-backoff"`
	MaxUserBackoff   duration `yaml:"max_user_backoff" flag:"login-max-user-backoff"`
	Hashers          int      `yaml:"hashers" flag:"login-hashers"`
}

type eraseConfig struct {
	After duration `yaml:"after" flag:"erase-after"`
	// WarnBefore is how long before erasure the creator is warned.
	WarnBefore  duration `yaml:"warn_before" flag:"erase-warn-before"`
	Maintenance duration `yaml:"maintenance" flag:"maintenance"`
}

type scheduledExportsConfig struct {
	Creator          string   `yaml:"creator" flag:"schedule-creator"`
	AnswerUnfiltered string   `yaml:"answer_unfiltered" flag:"answer-unfiltered"`
	AnswerMaxAge     duration `yaml:"answer_max_age" flag:"answer-max-age"`
}

type logConfig struct {
	Format string `yaml:"format"`
	Level  string `yaml:"level"`
}

// scheduleConfig is one named periodic job: when (a cron expression) and
// what (its kind and the kind's parameters).
type scheduleConfig struct {
	Name   string         `yaml:"name"`
	Cron   string         `yaml:"cron"`
	Kind   string         `yaml:"kind"`
	Params scheduleParams `yaml:"params"`
}

// Schedule kinds (jobs.ScheduleKind).
const (
	scheduleErase    = string(jobs.ScheduleErase)
	scheduleDigest   = string(jobs.ScheduleDigest)
	scheduleRollover = string(jobs.ScheduleRollover)
	scheduleExport   = string(jobs.ScheduleExport)
)

// scheduleParams are the parameters of the kinds that take any: an export
// names its format and selects its records with a predicate or a portal
// query string (neither: every record).
type scheduleParams struct {
	Format      string    `yaml:"format"`
	Predicate   jsonValue `yaml:"predicate"`
	Query       string    `yaml:"query"`
	SQL         string    `yaml:"sql"`
	Description string    `yaml:"description"`
}

// secret is a password or key: never printed, logged or marshalled, whatever
// the verb.
type secret struct {
	value string
	// source says where it came from, for `config check`.
	source string
}

const redacted = "[redacted]"

func (s secret) String() string {
	if s.value == "" {
		return ""
	}
	return redacted
}

// GoString keeps %#v from printing the value.
func (s secret) GoString() string { return s.String() }

// Format keeps every verb (%d, %x, %+v...) from printing the value.
func (s secret) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(s.String())) }

// LogValue keeps slog from printing the value.
func (s secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON and MarshalText keep encoders from printing the value.
func (s secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }
func (s secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// MarshalYAML keeps the YAML encoder from printing the value.
func (s secret) MarshalYAML() (any, error) { return s.String(), nil }

// Reveal returns the secret, for the one place that hands it to a package.
func (s secret) Reveal() string { return s.value }

// duration is a Go duration ("90s", "1h30m") or whole days with an
// optional rest ("183d", "1d12h").
type duration time.Duration

var daysRE = regexp.MustCompile(`^([0-9]{1,6})d(.*)$`)

func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var days time.Duration
	if m := daysRE.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		days, s = time.Duration(n)*24*time.Hour, m[2]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (like 90s, 15m, 1h30m or 183d)", s)
	}
	if days > 0 && d < 0 {
		return 0, fmt.Errorf("%q is not a duration (like 90s, 15m, 1h30m or 183d)", s)
	}
	return days + d, nil
}

// String prints days when the duration is whole days, and leaves out zero
// minutes and seconds ("1h", not "1h0m0s").
func (d duration) String() string {
	t := time.Duration(d)
	if t > 0 && t%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(t/(24*time.Hour)), 10) + "d"
	}
	s := t.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// byteSize is a number of bytes, plain or with a unit (KB, MB, GB: powers
// of 1000; KiB, MiB, GiB: of 1024).
type byteSize int64

var sizeRE = regexp.MustCompile(`^([0-9]+)\s*([A-Za-z]*)$`)

var sizeUnits = map[string]int64{"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}

func parseSize(s string) (int64, error) {
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("%q is not a size (like 1048576, 512KiB, 8MiB or 1GB)", s)
	}
	unit, ok := sizeUnits[strings.ToLower(m[2])]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)", s, m[2])
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > math.MaxInt64/unit {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * unit, nil
}

func (b byteSize) String() string {
	n := int64(b)
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// jsonValue is any YAML value kept as JSON (a predicate).
type jsonValue json.RawMessage
