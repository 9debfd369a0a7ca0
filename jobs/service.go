package jobs

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/internal/logctx"
)

// Role says what a process does: serve the API, run exports, or both.
type Role string

// The roles of `downloader serve`.
const (
	RoleAPI    Role = "api"
	RoleWorker Role = "worker"
	RoleAll    Role = "all"
)

// Config holds the service's settings; zero fields take the defaults of
// WithDefaults.
type Config struct {
	Role Role
	// MaxRunningPerUser caps a user's PREPARING/RUNNING/SUSPENDED downloads.
	MaxRunningPerUser int
	// EraseAfter is how long an archive is kept (six months by default).
	EraseAfter time.Duration
	// DedupeWindow is how far back an identical request returns the old key.
	DedupeWindow time.Duration
	// RetryAfter is the hint given with ErrTooManyDownloads.
	RetryAfter time.Duration
	// Workers is how many exports one worker process runs at once.
	Workers int
	// MaxAttempts is how often River tries an export before it FAILS.
	MaxAttempts int
	// Lease is how long a worker's claim on a download lasts without a
	// heartbeat; a killed worker's download is taken over after it expires.
	Lease time.Duration
	// RescueAfter is how long a download whose job was fetched by a worker
	// that died before it claimed the download waits before it is queued
	// again (a download that was claimed is recovered when its lease expires).
	RescueAfter time.Duration
	// Heartbeat is how often a running export saves progress and checks for
	// cancellation (cancel takes effect within this interval).
	Heartbeat time.Duration
	// MaintenanceInterval is how often erase, sweep and reconciliation run.
	MaintenanceInterval time.Duration
	// FetchPollInterval is how often idle workers poll for new jobs.
	FetchPollInterval time.Duration
	// PublicURL is the API's base URL as clients see it (for links in mail
	// and the download's link in its citation).
	PublicURL string
	// Portal names the service in citations and metadata where GBIF's say
	// GBIF.org; an empty name is PublicURL's host, else
	// download.DefaultPortalName.
	Portal download.Portal
	// OverridesDir is the operator's overrides directory: its mail/ folder
	// overrides the notices' templates and strings file by file
	// (docs/mail.md). Empty: the embedded ones only.
	OverridesDir string
	// AnonymousCounts and UserCounts bound the record counts of the search
	// routes for anonymous and signed-in callers (see Count).
	AnonymousCounts, UserCounts CountLimit
	// CountRetryAfter is the hint given with ErrTooManyCounts.
	CountRetryAfter time.Duration
	// CountWait is how long a count or search waits for a slot of its
	// class before it is refused with ErrTooManyCounts, so that the burst
	// of one page (a search, its count and its estimate at once) queues
	// instead of failing; negative: refuse at once.
	CountWait time.Duration
	// Scheduler holds the schedules and their settings (schedule.go).
	Scheduler SchedulerConfig
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.Role == "" {
		c.Role = RoleAll
	}
	if c.Portal.Name == "" {
		c.Portal.Name = download.DefaultPortalName
		if u, err := url.Parse(c.PublicURL); err == nil && u.Host != "" {
			c.Portal.Name = u.Host
		}
	}
	if c.MaxRunningPerUser == 0 {
		c.MaxRunningPerUser = 3
	}
	if c.Workers == 0 {
		c.Workers = 2
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 5
	}
	def(&c.EraseAfter, 183*24*time.Hour)
	def(&c.DedupeWindow, 48*time.Hour)
	def(&c.RetryAfter, time.Minute)
	def(&c.Lease, time.Minute)
	def(&c.RescueAfter, 5*time.Minute)
	def(&c.Heartbeat, 500*time.Millisecond)
	def(&c.MaintenanceInterval, time.Hour)
	def(&c.FetchPollInterval, time.Second)
	c.AnonymousCounts = c.AnonymousCounts.withDefaults(2, 10*time.Second)
	c.UserCounts = c.UserCounts.withDefaults(4, time.Minute)
	def(&c.CountRetryAfter, 2*time.Second)
	def(&c.CountWait, 2*time.Second)
	c.Scheduler = c.Scheduler.withDefaults()
	return c
}

// ConfigError is a setting of Config that does not fit another: Field
// does not fit Other (both names of Config's fields).
type ConfigError struct {
	Field, Other string
	Msg          string
}

func (e *ConfigError) Error() string { return "jobs: " + e.Msg }

// Validate checks the settings that must fit each other, with the defaults
// of the zero ones; it connects to nothing, so that a configuration can be
// checked before the service starts.
// The errors are *ConfigError values, joined.
func (c Config) Validate() error {
	c = c.WithDefaults()
	var errs []error
	if c.RescueAfter <= c.Lease {
		errs = append(errs, &ConfigError{Field: "RescueAfter", Other: "Lease",
			Msg: fmt.Sprintf("rescue interval %s must exceed the lease %s", c.RescueAfter, c.Lease)})
	}
	// A worker renews its lease only once per heartbeat (worker.go's tick):
	// with less than two heartbeats to a lease, the lease of a running
	// export runs out and the download is taken from a live worker, again
	// and again.
	if c.Heartbeat > c.Lease/2 {
		errs = append(errs, &ConfigError{Field: "Heartbeat", Other: "Lease",
			Msg: fmt.Sprintf("heartbeat %s is more than half the lease %s: a worker renews its lease only once a heartbeat, "+
				"so the lease of every export that runs longer would run out and the download be taken from a live worker", c.Heartbeat, c.Lease)})
	}
	return errors.Join(errs...)
}

// Service is the download job service.
type Service struct {
	db      *DB
	engine  Engine
	store   Storage
	mailer  *Mailer
	mail    *mailCatalog // the notices' words (nil without a mailer)
	cfg     Config
	logger  *slog.Logger
	started time.Time
	river   *river.Client[*sql.Tx]
	metrics *metrics

	// beforeSubmitCommit, set only by tests, runs in Submit's transaction
	// after the download and its job are written, just before the commit;
	// an error rolls the transaction back.
	beforeSubmitCommit func(ctx context.Context, tx *sql.Tx, key string) error
	// mailFault and mailObserver: InjectMailFault, ObserveMail.
	mailFault    atomic.Pointer[func(stage MailStage, idempotencyKey string) error]
	mailObserver atomic.Pointer[func(kind NoticeKind, err error)]

	// clock is WithClock's (nil: time.Now); rollover WithRollover's.
	clock    func() time.Time
	rollover Rollover

	stopRecover context.CancelFunc
	recoverDone chan struct{}

	// countSlots are the running counts of anonymous and signed-in callers.
	anonCounts, userCounts chan struct{}
}

// New returns a Service; call Start to run its queue. A nil logger
// discards.
func New(db *DB, engine Engine, store Storage, mailer *Mailer, cfg Config, logger *slog.Logger, opts ...Option) (*Service, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	// Lines logged with a job's context carry its download key.
	logger = logctx.Logger(logger)
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Scheduler.validate(); err != nil {
		return nil, err
	}
	s := &Service{db: db, engine: engine, store: store, mailer: mailer, cfg: cfg, logger: logger, started: time.Now(),
		metrics: newMetrics(), anonCounts: make(chan struct{}, cfg.AnonymousCounts.Concurrent),
		userCounts: make(chan struct{}, cfg.UserCounts.Concurrent)}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	if mailer != nil {
		var err error
		if s.mail, err = loadMailCatalog(cfg.OverridesDir); err != nil {
			return nil, err
		}
	}
	c, err := newRiver(s)
	if err != nil {
		return nil, err
	}
	s.river = c
	return s, nil
}

// Config returns the effective configuration.
func (s *Service) Config() Config { return s.cfg }

// Submit validates and records a download request by caller and queues it:
// the download and its export job are committed together. An identical
// request (same user, format and predicate) made within the dedupe window
// returns the earlier key unless that one failed, was cancelled, killed or
// erased, or the table changed since (see dedupeHash).
func (s *Service) Submit(ctx context.Context, caller User, req Request) (key string, err error) {
	if err := req.validate(); err != nil {
		return "", err
	}
	if err := setCreator(caller, &req); err != nil {
		return "", err
	}
	if err := s.check(&req); err != nil {
		return "", err
	}
	if req.SendNotification && len(req.NotificationAddresses) == 0 {
		if u, err := s.db.GetUser(ctx, req.Creator); err == nil && u.Email != "" {
			req.NotificationAddresses = []string{u.Email}
		}
	}
	key, err = s.insert(ctx, req)
	if err == nil {
		// A duplicate or a scheduled export's answer is logged too: the
		// key says which download the caller was given.
		s.logger.InfoContext(ctx, "download requested", "key", key, "creator", req.Creator, "caller", caller.Name, "format", req.Format)
	}
	return key, err
}

// setCreator makes the caller the creator of a request that names none,
// and refuses a creator other than the caller unless the caller is an
// admin: unauthorized, as GBIF answers (401, not 403), with its message.
func setCreator(caller User, req *Request) error {
	if req.Creator == "" {
		req.Creator = caller.Name
	}
	if req.Creator != caller.Name && !caller.Admin {
		return fmt.Errorf("%w: %s not allowed to create download with creator %s", ErrUnauthorized, caller.Name, req.Creator)
	}
	return nil
}

// check validates req's predicate with the engine and puts it in canonical
// form.
func (s *Service) check(req *Request) error {
	if s.engine == nil {
		return ErrEngineUnavailable
	}
	pred, err := s.engine.CheckPredicate(req.Predicate)
	if err != nil {
		return err
	}
	req.Predicate = pred
	if req.VerbatimExtensions == nil {
		req.VerbatimExtensions = []string{}
	}
	return nil
}

// Validate checks a download request as Submit would, without recording
// it, and returns it as it would be recorded. A caller (nil: anonymous) who
// names no creator is the creator; the creator rule is Submit's.
func (s *Service) Validate(ctx context.Context, caller *User, req Request) (Request, error) {
	if err := req.validate(); err != nil {
		return Request{}, err
	}
	if caller != nil {
		if err := setCreator(*caller, &req); err != nil {
			return Request{}, err
		}
		if req.Creator != caller.Name {
			if err := s.db.lockCreator(ctx, s.db.read, req.Creator); err != nil {
				return Request{}, err
			}
		}
	}
	if err := s.check(&req); err != nil {
		return Request{}, err
	}
	return req, nil
}

// dedupeHash identifies identical requests: same creator, format,
// predicate, checklist and extensions, the same description (it is written
// into the archive's metadata) and notification (who is mailed, and whether;
// a deduplicated request mails no one new), made while the table was at the
// same snapshot. A request for data that changed since is a new download.
// Only the machine description and the source may differ.
func dedupeHash(req Request, snapshot string) string {
	h := sha256.New()
	addrs := slices.Clone(req.NotificationAddresses)
	slices.Sort(addrs)
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00checklist:%s\x00extensions:%s\x00snapshot:%s\x00description:%s\x00notify:%t:%s",
		req.Creator, req.Format, req.Predicate, req.ChecklistKey, strings.Join(req.VerbatimExtensions, " "),
		snapshot, req.Description, req.SendNotification, strings.Join(addrs, " "))
	if len(req.Fields) > 0 {
		// Chosen columns (none hashes as before they could be chosen).
		fmt.Fprintf(h, "\x00fields:%s", strings.Join(req.Fields, "\x01"))
	}
	if req.SQL != "" {
		fmt.Fprintf(h, "\x00sql:%s", req.SQL)
	}
	if len(req.InterpretedExtensions) > 0 {
		fmt.Fprintf(h, "\x00interpreted:%s", strings.Join(req.InterpretedExtensions, " "))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// tableSnapshot is the ID of the table's current snapshot, for dedupe; ""
// when the engine cannot tell (no engine here is such).
func (s *Service) tableSnapshot(ctx context.Context) (string, error) {
	ti, ok := tableInfo(s.engine)
	if !ok {
		return "", nil
	}
	snap, err := ti.TableSnapshot(ctx)
	if err != nil {
		return "", fmt.Errorf("table snapshot: %w", err)
	}
	return snap.ID, nil
}

// insert records the download and inserts its export job in one transaction
// with the limit and dedupe checks, or returns the key of an earlier
// identical download.
func (s *Service) insert(ctx context.Context, req Request) (string, error) {
	snapshot, err := s.tableSnapshot(ctx)
	if err != nil {
		return "", err
	}
	hash := dedupeHash(req, snapshot)
	tx, err := s.db.SQL.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer func() { _ = tx.Rollback() }()
	if err := s.db.lockCreator(ctx, tx, req.Creator); err != nil {
		return "", err
	}
	now := s.now().UTC()
	if old, ok, err := s.db.findDuplicate(ctx, tx, hash, now.Add(-s.cfg.DedupeWindow)); err != nil || ok {
		return old, err
	}
	if key, ok, err := s.answerUnfiltered(ctx, tx, req, hash, snapshot, now); err != nil || ok {
		return key, err
	}
	n, err := s.db.countActive(ctx, tx, req.Creator)
	if err != nil {
		return "", err
	}
	if n >= s.cfg.MaxRunningPerUser {
		return "", tooManyDownloads(req.Creator, s.cfg.MaxRunningPerUser)
	}
	key, err := s.db.nextKey(ctx, tx, s.started)
	if err != nil {
		return "", err
	}
	if err := s.db.insertDownload(ctx, tx, s.newRow(key, req, now), hash); err != nil {
		return "", fmt.Errorf("record download: %w", err)
	}
	if err := s.enqueueTx(ctx, tx, key, 0); err != nil {
		return "", err
	}
	if s.beforeSubmitCommit != nil {
		if err := s.beforeSubmitCommit(ctx, tx, key); err != nil {
			return "", err
		}
	}
	if err := tx.Commit(); err != nil {
		return "", fmt.Errorf("record download: %w", err)
	}
	s.metrics.downloads.WithLabelValues(string(StatusPreparing), req.Format).Inc()
	return key, nil
}

// newRow is a new PREPARING download of req.
func (s *Service) newRow(key string, req Request, now time.Time) row {
	r := row{Creator: req.Creator}
	r.Key, r.Status, r.Request = key, StatusPreparing, req
	r.Created, r.Modified, r.EraseAfter = Time{now}, Time{now}, Time{now.Add(s.cfg.EraseAfter)}
	if len(req.Predicate) > 0 && string(req.Predicate) != "null" {
		r.Predicate.String, r.Predicate.Valid = string(req.Predicate), true
	}
	return r
}

// Get returns a download; callers other than its creator and admins (caller
// nil for anonymous) see it redacted. With stats, the numbers of publishing
// organizations and countries are filled in (GBIF's statistics=true).
func (s *Service) Get(ctx context.Context, caller *User, key string, stats bool) (Download, error) {
	r, err := s.db.getDownload(ctx, s.db.read, key)
	if err != nil {
		return Download{}, err
	}
	r.showTo(caller)
	if stats {
		ds := []Download{r.Download}
		if err := s.db.usageCounts(ctx, ds); err != nil {
			return Download{}, err
		}
		return ds[0], nil
	}
	return r.Download, nil
}

// showTo leaves in r what caller may see of it: callers other than the
// creator and admins see it redacted, and a creator who is not an admin
// sees an internal error as a sentence naming the download, not its text
// (which holds the server's paths and addresses; the operators have it in
// the log and the digest).
func (r *row) showTo(caller *User) {
	switch {
	case !mayManage(caller, r.Creator):
		r.Redact()
	case !caller.Admin && r.ErrorKind == reasonInternal && r.Error != "":
		r.Error = internalErrorText(r.Key)
	}
}

// internalErrorText is what a creator reads of an internal error.
func internalErrorText(key string) string {
	return "an error on the server's side (its operators have the details under download " + key + ")"
}

func mayManage(caller *User, creator string) bool {
	return caller != nil && (caller.Admin || caller.Name == creator)
}

// mayList rejects callers other than user and admins, with GBIF's 401.
func mayList(caller User, user string) error {
	if !mayManage(&caller, user) {
		return fmt.Errorf("%w: %s may not see the downloads of %s", ErrUnauthorized, caller.Name, user)
	}
	return nil
}

func (f ListFilter) validate() error {
	for _, st := range f.Statuses {
		if !st.Valid() {
			return fmt.Errorf("%w: status %q", ErrInvalidRequest, st)
		}
	}
	return nil
}

// List pages through user's downloads, newest first, filtered by f. Only
// the user and admins may list. With stats, each download's numbers of
// publishing organizations and countries are filled in (GBIF's default).
func (s *Service) List(ctx context.Context, caller User, user string, f ListFilter, stats bool, limit, offset int) (Page[Download], error) {
	if err := mayList(caller, user); err != nil {
		return Page[Download]{}, err
	}
	if err := f.validate(); err != nil {
		return Page[Download]{}, err
	}
	limit, offset = clampPage(limit, offset)
	rows, total, err := s.db.listDownloads(ctx, user, f, limit, offset)
	if err != nil {
		return Page[Download]{}, err
	}
	res := make([]Download, len(rows))
	for i, r := range rows {
		r.showTo(&caller)
		res[i] = r.Download
	}
	if stats {
		if err := s.db.usageCounts(ctx, res); err != nil {
			return Page[Download]{}, err
		}
	}
	return newPage(res, total, limit, offset), nil
}

// CountUser counts user's downloads selected by f; only the user and admins
// may count.
func (s *Service) CountUser(ctx context.Context, caller User, user string, f ListFilter) (int64, error) {
	if err := mayList(caller, user); err != nil {
		return 0, err
	}
	if err := f.validate(); err != nil {
		return 0, err
	}
	return s.db.countDownloads(ctx, user, f)
}

func clampPage(limit, offset int) (int, int) {
	if limit <= 0 {
		limit = 20
	}
	if limit > 1000 {
		limit = 1000
	}
	if offset < 0 {
		offset = 0
	}
	return limit, offset
}

// Cancel stops a download that has not finished. The running export sees
// the CANCELLED status at its next heartbeat and stops. Cancelling a
// download that already finished changes nothing and succeeds, as GBIF's
// does.
func (s *Service) Cancel(ctx context.Context, caller User, key string) error {
	r, err := s.db.getDownload(ctx, s.db.read, key)
	if err != nil {
		return err
	}
	if !mayManage(&caller, r.Creator) {
		return fmt.Errorf("%w: %s not allowed to cancel download %s", ErrUnauthorized, caller.Name, key)
	}
	ok, err := s.db.setStatus(ctx, key, StatusCancelled, "", StatusPreparing, StatusRunning, StatusSuspended)
	if err != nil || !ok {
		return err
	}
	s.logger.InfoContext(ctx, "download cancelled", "key", key, "creator", r.Creator, "caller", caller.Name)
	s.metrics.downloads.WithLabelValues(string(StatusCancelled), r.Request.Format).Inc()
	if id, err := s.db.riverJob(ctx, key); err == nil && id != 0 {
		s.cancelJob(ctx, key, id)
	}
	// A live worker aborts its own upload when it sees the cancel; a dead
	// one's partial archive is removed here.
	if dead, err := s.db.dropExpiredLease(ctx, key, time.Now()); err != nil {
		s.logger.WarnContext(ctx, "release a dead worker's lease", "key", key, "err", err)
	} else if dead {
		s.abortDeadUploads(ctx, key)
	}
	return nil
}

// Postpone moves eraseAfter to until (zero: the default period from now).
// It never brings the date forward.
func (s *Service) Postpone(ctx context.Context, caller User, key string, until time.Time) (Download, error) {
	r, err := s.db.getDownload(ctx, s.db.read, key)
	if err != nil {
		return Download{}, err
	}
	if !mayManage(&caller, r.Creator) {
		// 401, as GBIF's registry (checkUserIsInSecurityContext) and this
		// service's other "not yours" answers.
		return Download{}, fmt.Errorf("%w: %s may not change download %s", ErrUnauthorized, caller.Name, key)
	}
	if r.Status == StatusFileErased {
		return Download{}, fmt.Errorf("%w: download %s", ErrErased, key)
	}
	now := s.now()
	if until.IsZero() {
		// A day's date: asking again the same day changes nothing.
		until = now.Add(s.cfg.EraseAfter).UTC().Truncate(24 * time.Hour)
	}
	if until.After(now.Add(5 * s.cfg.EraseAfter)) {
		return Download{}, fmt.Errorf("%w: eraseAfter %s is too far away", ErrInvalidRequest, until.Format(time.RFC3339))
	}
	if until.After(r.EraseAfter.Time) {
		if err := s.db.postpone(ctx, key, until); err != nil {
			return Download{}, err
		}
	}
	return s.Get(ctx, &caller, key, false)
}

// Citation returns the text to cite a download with, the same as its
// archive's citations.txt says (download.Citation) and a newline: "GBIF.org
// (2 January 2023) GBIF Occurrence Download https://doi.org/...", with the
// configured portal, the download's DOI URL when it has one, else its link
// (under PublicURL when configured, else link, the page the caller asked).
// As GBIF's, it is answered from the download's creation on, not for one
// cancelled, killed or failed (ErrNotReady).
func (s *Service) Citation(ctx context.Context, key, link string) (string, error) {
	r, err := s.db.getDownload(ctx, s.db.read, key)
	if err != nil {
		return "", err
	}
	// GBIF cites a download from its creation on (its DOI is reserved
	// then); one cancelled or failed never delivers a file to cite.
	if r.Status == StatusCancelled || r.Status == StatusFailed || r.Status == StatusKilled {
		return "", fmt.Errorf("%w: download %s is %s", ErrNotReady, key, r.Status)
	}
	if l := s.downloadLink(key); l != "" {
		link = l
	}
	return download.Citation(s.cfg.Portal, r.Created.Time, r.DOI, link, key) + "\n", nil
}

// downloadLink is the download's page under PublicURL ("" without one).
func (s *Service) downloadLink(key string) string {
	if s.cfg.PublicURL == "" {
		return ""
	}
	return strings.TrimSuffix(s.cfg.PublicURL, "/") + "/v1/occurrence/download/" + key
}

// File returns the archive of a SUCCEEDED download.
func (s *Service) File(ctx context.Context, key string) (Object, error) {
	r, err := s.db.getDownload(ctx, s.db.read, key)
	if err != nil {
		return Object{}, err
	}
	switch r.Status {
	case StatusSucceeded:
		obj, err := s.store.Open(ctx, r.ObjectName)
		obj.SHA256 = r.SHA256
		obj.FileName, obj.ContentType = FileName(r.Key, r.Request.Format)
		return obj, err
	case StatusFileErased:
		return Object{}, fmt.Errorf("%w: download %s", ErrErased, key)
	}
	return Object{}, fmt.Errorf("%w: download %s is %s", ErrNotReady, key, r.Status)
}

// Checksum returns the hex SHA-256 of the archive of a SUCCEEDED (or since
// erased) download, and the archive's file name.
func (s *Service) Checksum(ctx context.Context, key string) (sum, file string, err error) {
	r, err := s.db.getDownload(ctx, s.db.read, key)
	if err != nil {
		return "", "", err
	}
	if (r.Status != StatusSucceeded && r.Status != StatusFileErased) || r.SHA256 == "" {
		return "", "", fmt.Errorf("%w: download %s is %s", ErrNotReady, key, r.Status)
	}
	file, _ = FileName(r.Key, r.Request.Format)
	return r.SHA256, file, nil
}

// FileName is the name a download's file is served under, its key and
// its format's extension (KEY.zip, KEY.avro as GBIF's SIMPLE_AVRO), and
// the file's content type.
func FileName(key, format string) (name, contentType string) {
	ext, ct := download.FileOf(format)
	return key + ext, ct
}

// PredicateFromQuery converts portal search parameters to predicate JSON.
func (s *Service) PredicateFromQuery(params url.Values) (json.RawMessage, error) {
	if s.engine == nil {
		return nil, ErrEngineUnavailable
	}
	return s.engine.PredicateFromQuery(params)
}

// PollInterval suggests how long a client should wait before asking for the
// status of d again.
func (s *Service) PollInterval(d Download) time.Duration {
	switch d.Status {
	case StatusPreparing:
		return 2 * time.Second
	case StatusRunning, StatusSuspended:
		if time.Since(d.Created.Time) < time.Minute {
			return 2 * time.Second
		}
		return 10 * time.Second
	}
	return 0
}
