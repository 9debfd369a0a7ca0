// Package jobs runs occurrence downloads: requests and their lifecycle, the
// River queue and its workers, limits, dedupe, archive storage, notification
// and the erase schedule. It is what the REST API (package web) and the
// `downloader serve` command drive; it knows nothing about HTTP.
package jobs

import (
	"encoding/json"
	"errors"
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

// Statuses returns every status, in lifecycle order.
func Statuses() []Status { return slices.Clone(statuses) }

var statuses = []Status{StatusPreparing, StatusRunning, StatusSuspended, StatusSucceeded,
	StatusFailed, StatusCancelled, StatusKilled, StatusFileErased}

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
	ErrForbidden         = errors.New("forbidden")
	ErrUnauthorized      = errors.New("unauthorized")
	ErrInvalidRequest    = errors.New("invalid request")
	ErrTooManyDownloads  = errors.New("too many running downloads")
	ErrPredicateTooLarge = errors.New("predicate too complex")
	ErrNotReady          = errors.New("download file not ready")
	ErrErased            = errors.New("download file erased")
	ErrNotCancellable    = errors.New("download already finished")
	ErrUserExists        = errors.New("user already exists")
	ErrUnknownFormat     = errors.New("unknown download format")
	ErrEngineUnavailable = errors.New("no occurrence table configured")
)

// Request is a download request as GBIF's PredicateDownloadRequest serializes it.
type Request struct {
	Predicate             json.RawMessage `json:"predicate"`
	SendNotification      bool            `json:"sendNotification"`
	Format                string          `json:"format"`
	Type                  string          `json:"type"`
	Creator               string          `json:"creator,omitempty"`
	NotificationAddresses []string        `json:"notificationAddresses,omitempty"`
	Description           string          `json:"description,omitempty"`
	MachineDescription    json.RawMessage `json:"machineDescription,omitempty"`
	VerbatimExtensions    []string        `json:"verbatimExtensions"`
}

// Progress is what a running export has done so far.
type Progress struct {
	RecordsScanned int64 `json:"recordsScanned"`
	RecordsWritten int64 `json:"recordsWritten"`
	BytesWritten   int64 `json:"bytesWritten"`
}

// Download is GBIF's download status object plus progress and provenance.
type Download struct {
	Key            string    `json:"key"`
	License        string    `json:"license"`
	Request        Request   `json:"request"`
	Created        Time      `json:"created"`
	Modified       Time      `json:"modified"`
	EraseAfter     Time      `json:"eraseAfter"`
	Status         Status    `json:"status"`
	DownloadLink   string    `json:"downloadLink,omitempty"`
	Size           int64     `json:"size"`
	TotalRecords   int64     `json:"totalRecords"`
	NumberDatasets int64     `json:"numberDatasets"`
	Progress       *Progress `json:"progress,omitempty"`
	// TableSnapshot is the occurrence table snapshot the export read.
	TableSnapshot string `json:"tableSnapshot,omitempty"`
	// SHA256 is the hex digest of the archive once it exists.
	SHA256 string `json:"sha256,omitempty"`
	// Error says why a download FAILED or was KILLED.
	Error string `json:"error,omitempty"`

	// ObjectName is the archive's name in storage, not shown to clients.
	ObjectName string `json:"-"`
}

// Redact removes what only the owner and admins may see, as GBIF does.
func (d *Download) Redact() {
	d.Request.Creator = ""
	d.Request.NotificationAddresses = nil
	d.Error = ""
}

// DatasetUsage is one constituent dataset of a download and its record count.
type DatasetUsage struct {
	DownloadKey   string `json:"downloadKey"`
	DatasetKey    string `json:"datasetKey"`
	DatasetTitle  string `json:"datasetTitle,omitempty"`
	NumberRecords int64  `json:"numberRecords"`
	License       string `json:"license,omitempty"`
	Citation      string `json:"datasetCitation,omitempty"`
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

// UnmarshalJSON reads GBIF's layout or RFC 3339.
func (t *Time) UnmarshalJSON(b []byte) error {
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
