// Package jobs runs occurrence downloads: requests and their lifecycle, the
// River queue and its workers, limits, dedupe, archive storage, notification
// and the erase schedule. It is what the REST API (package web) and the
// `downloader serve` command drive; it knows nothing about HTTP.
//
// Notices are mailed through github.com/wneessen/go-mail rather than
// net/smtp by hand: implicit TLS and STARTTLS under a policy, the choice of
// an SMTP AUTH mechanism, and multipart/alternative MIME with RFC 2047
// headers are what net/smtp leaves to its caller (mail.go; docs/mail.md).
package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Status is a download's lifecycle state, named as GBIF names them.
type Status string

// The lifecycle: PREPARING -> RUNNING -> SUCCEEDED | FAILED | CANCELLED |
// KILLED; RUNNING -> SUSPENDED on a graceful shutdown (and back to RUNNING when
// a worker resumes it); SUCCEEDED -> FILE_ERASED after eraseAfter.
const (
	StatusPreparing  Status = "PREPARING"
	StatusRunning    Status = "RUNNING"
	StatusSuspended  Status = "SUSPENDED"
	StatusSucceeded  Status = "SUCCEEDED"
	StatusFailed     Status = "FAILED"
	StatusCancelled  Status = "CANCELLED"
	StatusKilled     Status = "KILLED"
	StatusFileErased Status = "FILE_ERASED"
)

// Statuses returns every status, in the order of GBIF's Download.Status
// enum (clients and the OpenAPI document list them in this order).
func Statuses() []Status { return slices.Clone(statuses) }

var statuses = []Status{StatusPreparing, StatusRunning, StatusSucceeded, StatusCancelled,
	StatusKilled, StatusFailed, StatusSuspended, StatusFileErased}

// Active reports whether a download still occupies a running slot.
func (s Status) Active() bool {
	return s == StatusPreparing || s == StatusRunning || s == StatusSuspended
}

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	for _, v := range statuses {
		if v == s {
			return true
		}
	}
	return false
}

// Sentinel errors. The web package maps them to HTTP statuses.
var (
	ErrNotFound          = errors.New("not found")
	ErrUnauthorized      = errors.New("unauthorized")
	ErrInvalidRequest    = errors.New("invalid request")
	ErrTooManyDownloads  = errors.New("too many running downloads")
	ErrPredicateTooLarge = errors.New("predicate too complex")
	ErrNotReady          = errors.New("download file not ready")
	ErrErased            = errors.New("download file erased")
	ErrUserExists        = errors.New("user already exists")
	ErrUnknownFormat     = errors.New("unknown download format")
	ErrEngineUnavailable = errors.New("no occurrence table configured")
	// ErrTooManyCounts: the caller's class already runs as many counts as
	// it may (Config.AnonymousCounts, UserCounts).
	ErrTooManyCounts = errors.New("too many counts running")
	// ErrCountTimeout: a count ran past its deadline and was stopped.
	ErrCountTimeout = errors.New("count stopped at its deadline")
)

// LimitError is a request over one of the service's limits, worded as
// GBIF words it ("A download limitation is exceeded:" and the reason on the
// next line), so that portals that show GBIF's message show this one. It
// wraps ErrTooManyDownloads or ErrPredicateTooLarge.
type LimitError struct {
	Reason string
	Kind   error
	Err    error // the underlying error, if any
}

func (e *LimitError) Error() string { return "A download limitation is exceeded:\n" + e.Reason }

// Unwrap returns the kind and the underlying error.
func (e *LimitError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// tooManyDownloads is GBIF's answer to a user at the running limit. GBIF's
// message ends "See your user page."; this service has no user pages, so
// that sentence is left out.
func tooManyDownloads(user string, limit int) error {
	return &LimitError{Kind: ErrTooManyDownloads, Reason: fmt.Sprintf("User %s has too many simultaneous downloads; "+
		"the limit is %d.\nPlease wait for some to complete, or cancel any unwanted downloads.", user, limit)}
}

// Request is a download request as GBIF's PredicateDownloadRequest serializes it.
type Request struct {
	Predicate             json.RawMessage `json:"predicate,omitempty"`
	SendNotification      bool            `json:"sendNotification"`
	Format                string          `json:"format"`
	Type                  string          `json:"type"`
	Creator               string          `json:"creator,omitempty"`
	NotificationAddresses []string        `json:"notificationAddresses,omitempty"`
	Description           string          `json:"description,omitempty"`
	MachineDescription    json.RawMessage `json:"machineDescription,omitempty"`
	// ChecklistKey is the taxonomy the client asked for (pygbif 0.7 sends
	// the Catalogue of Life's by default). It is recorded and shown; the
	// table has one taxonomy, the one its records were ingested with.
	ChecklistKey       string   `json:"checklistKey,omitempty"`
	VerbatimExtensions []string `json:"verbatimExtensions"`
	// InterpretedExtensions are the extensions whose rows come
	// interpreted (GBIF's field): DNA_DERIVED_DATA's row type, in a DWCA
	// or FASTA_ARCHIVE (dnaderiveddata.txt).
	InterpretedExtensions []string `json:"interpretedExtensions,omitempty"`
	// Fields chooses the columns of a format that lets requests choose
	// them (SIMPLE_CSV, SIMPLE_PARQUET): interpreted column names or
	// verbatim terms, in order; none means the format's own. GBIF's
	// requests have no such property (this service's extension, which the
	// portal page's column choice sends).
	Fields []string `json:"fields,omitempty"`
	// SQL is a SQL download's query (GBIF's SqlDownloadRequest, format
	// SQL_TSV_ZIP; rgbif's occ_download_sql); such a request has no
	// predicate.
	SQL string `json:"sql,omitempty"`
	// Source is where the request came from (GBIF's Download.source: the
	// client's source parameter, else rgbif, pygbif or python from the
	// User-Agent, else the User-Agent); the API sets it. It is the
	// download's, not the request's, and so not part of the request's JSON.
	Source string `json:"-"`
	// Language is the Accept-Language the request came with (the API sets
	// it, at most 200 bytes); notices are written in its best language
	// when the user has none set. Not part of the request's JSON.
	Language string `json:"-"`
}

// MarshalJSON writes the request as GBIF does: null members, a null
// predicate included, are left out (GBIF's mapper writes NON_NULL), and
// the extension set is always there, empty when there are none.
func (r Request) MarshalJSON() ([]byte, error) {
	type plain Request
	p := plain(r)
	if string(bytes.TrimSpace(p.Predicate)) == "null" {
		p.Predicate = nil
	}
	if p.VerbatimExtensions == nil {
		p.VerbatimExtensions = []string{}
	}
	return json.Marshal(p)
}

// Progress is what a running export has done so far.
type Progress struct {
	RecordsScanned int64 `json:"recordsScanned"`
	RecordsWritten int64 `json:"recordsWritten"`
	BytesWritten   int64 `json:"bytesWritten"`
}

// Download is GBIF's download status object (its fields in GBIF's order,
// null ones left out as GBIF leaves them out) plus progress and provenance.
type Download struct {
	Key string `json:"key"`
	// DOI is the download's DOI (prefix/suffix, no resolver). No DOI
	// provider can be configured yet, so it is always empty and absent, as
	// GBIF's is until a DOI is minted.
	DOI string `json:"doi,omitempty"`
	// License is the licence URL, or "unspecified" (GBIF's serialization).
	License    string  `json:"license"`
	Request    Request `json:"request"`
	Created    Time    `json:"created"`
	Modified   Time    `json:"modified"`
	EraseAfter Time    `json:"eraseAfter"`
	// ErasureNotification is when the warning that the archive will be
	// erased was sent (GBIF's field; absent before one was).
	ErasureNotification Time   `json:"erasureNotification,omitzero"`
	Status              Status `json:"status"`
	DownloadLink        string `json:"downloadLink,omitempty"`
	Size                int64  `json:"size"`
	TotalRecords        int64  `json:"totalRecords"`
	NumberDatasets      int64  `json:"numberDatasets"`
	// NumberOrganizations and NumberPublishingCountries count the distinct
	// publishing organizations and countries of the constituent datasets,
	// only when statistics are asked for and only over the datasets whose
	// organization or country is recorded; absent when none is.
	NumberOrganizations       *int64 `json:"numberOrganizations,omitempty"`
	NumberPublishingCountries *int64 `json:"numberPublishingCountries,omitempty"`
	Source                    string `json:"source,omitempty"`

	Progress *Progress `json:"progress,omitempty"`
	// TableSnapshot is the occurrence table snapshot the export read.
	TableSnapshot string `json:"tableSnapshot,omitempty"`
	// SHA256 is the hex digest of the archive once it exists.
	SHA256 string `json:"sha256,omitempty"`
	// Error says why a download FAILED or was KILLED.
	Error string `json:"error,omitempty"`

	// ObjectName is the archive's name in storage, not shown to clients.
	ObjectName string `json:"-"`
}

// Redact removes what only the owner and admins may see: what GBIF hides
// (creator, notification addresses, description, source) and also the
// machine description (which may identify a portal's user) and the error.
func (d *Download) Redact() {
	d.Request.Creator = ""
	d.Request.NotificationAddresses = nil
	d.Request.Description = ""
	d.Request.MachineDescription = nil
	d.Source = ""
	d.Error = ""
}

// DatasetUsage is one constituent dataset of a download and its record
// count, as GBIF's DatasetOccurrenceDownloadUsage (its fields, null ones
// left out), plus the dataset's licence. GBIF's object has no licence; it
// is kept because GBIF's clients read the fields they know by name and
// ignore others (GBIF's own mapper ignores unknown properties), and the
// licence is what a user needs next to a citation.
type DatasetUsage struct {
	DownloadKey  string `json:"downloadKey"`
	DatasetKey   string `json:"datasetKey"`
	DatasetTitle string `json:"datasetTitle,omitempty"`
	// DatasetDOI is the dataset's DOI when the catalog records one.
	DatasetDOI    string `json:"datasetDOI,omitempty"`
	Citation      string `json:"datasetCitation,omitempty"`
	NumberRecords int64  `json:"numberRecords"`
	// PublishingCountryCode is the ISO code of the publisher's country when
	// the catalog records it.
	PublishingCountryCode string `json:"publishingCountryCode,omitempty"`
	License               string `json:"license,omitempty"`
	// PublishingOrgKey is the publishing organization when the catalog
	// records it (GBIF lists organizations separately: /organizations).
	PublishingOrgKey string `json:"-"`
}

// OrganizationUsage is GBIF's OrganizationOccurrenceDownloadUsage: the
// records of a download by publishing organization.
type OrganizationUsage struct {
	DownloadKey           string `json:"downloadKey"`
	OrganizationKey       string `json:"organizationKey"`
	OrganizationTitle     string `json:"organizationTitle,omitempty"`
	NumberRecords         int64  `json:"numberRecords"`
	PublishingCountryCode string `json:"publishingCountryCode,omitempty"`
}

// CountryUsage is GBIF's CountryOccurrenceDownloadUsage: the records of a
// download by publishing country.
type CountryUsage struct {
	DownloadKey           string `json:"downloadKey"`
	NumberRecords         int64  `json:"numberRecords"`
	PublishingCountryCode string `json:"publishingCountryCode"`
}

// Page is GBIF's paging response.
type Page[T any] struct {
	Offset       int   `json:"offset"`
	Limit        int   `json:"limit"`
	EndOfRecords bool  `json:"endOfRecords"`
	Count        int64 `json:"count"`
	Results      []T   `json:"results"`
}

// Time is a timestamp serialized the way GBIF's API does
// (2013-09-16T15:30:14.092+00:00).
type Time struct{ time.Time }

const gbifTimeLayout = "2006-01-02T15:04:05.000-07:00"

// MarshalJSON writes t in GBIF's layout, or null when zero.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(gbifTimeLayout))
}

// UnmarshalJSON reads GBIF's layout or RFC 3339; null is the zero time.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*t = Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	for _, layout := range []string{gbifTimeLayout, time.RFC3339Nano, "2006-01-02"} {
		if v, err := time.Parse(layout, s); err == nil {
			t.Time = v
			return nil
		}
	}
	return errors.New("time " + s + " is not ISO 8601 (2006-01-02T15:04:05.000+00:00)")
}

func fromMillis(ms int64) Time {
	if ms == 0 {
		return Time{}
	}
	return Time{time.UnixMilli(ms).UTC()}
}
