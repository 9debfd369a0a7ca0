package jobs

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
)

// Engine is what the job service needs from the occurrence table and the
// archive writers. The predicate methods must use the occurrence package's
// parser (jobs never parses predicates itself); their errors wrap
// ErrInvalidRequest, or ErrPredicateTooLarge when a predicate exceeds the
// complexity limits.
type Engine interface {
	// CheckPredicate validates predicate JSON (empty or null means every
	// record) and returns its canonical JSON (null for every record).
	CheckPredicate(raw json.RawMessage) (json.RawMessage, error)
	// PredicateFromQuery converts portal search parameters to canonical JSON.
	PredicateFromQuery(params url.Values) (json.RawMessage, error)
	// DescribePredicate returns a canonical predicate in words, as the
	// archive's metadata says it ("" for every record), for notices.
	DescribePredicate(predicate json.RawMessage) (string, error)
	// Count returns the number of records predicate matches in the current
	// table snapshot.
	Count(ctx context.Context, predicate json.RawMessage) (int64, error)
	// Export writes the archive for req to w, calling progress now and then.
	Export(ctx context.Context, req ExportRequest, w io.Writer, progress func(Progress)) (ExportResult, error)
}

// ExportRequest is what an export needs to know about its download.
type ExportRequest struct {
	Key         string
	Format      string
	Predicate   json.RawMessage
	Description string
	Created     time.Time
	// ChecklistKey is the taxonomy the request named (the table's own
	// answers; the archive's metadata says so).
	ChecklistKey string
	// VerbatimExtensions are the extension row types whose source rows a
	// DWCA carries.
	VerbatimExtensions []string
	// InterpretedExtensions are those a DWCA or FASTA archive carries
	// interpreted (DNA_DERIVED_DATA's row type).
	InterpretedExtensions []string
	// Fields are the chosen columns (Request.Fields); nil: the format's.
	Fields []string
	// SQL is a SQL_TSV_ZIP download's query (Request.SQL).
	SQL string
	// DOI is the download's DOI name, when it has one; Link its page.
	DOI, Link string
	// Portal names the service in citations and metadata.
	Portal download.Portal
}

// ExportResult is what an export reports once the archive is written.
type ExportResult struct {
	Records int64
	// Scanned is the number of table records the scan read (pruned splits
	// are not read).
	Scanned  int64
	Datasets []DatasetUsage
	// License is the most restrictive licence of the datasets.
	License string
	Bytes   int64
	SHA256  string
	// Snapshot identifies the table snapshot that was read.
	Snapshot string
}

// PermanentError marks an export failure that retrying cannot fix (a bad
// predicate, an unknown format); the download fails at once.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }
