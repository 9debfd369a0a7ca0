package occurrence

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// ColumnStats summarizes one column of a split. Min and Max are int64 for
// integer and timestamp columns, float64 for floats, bool for booleans and string
// for strings; they are only meaningful when HasMinMax is set.
type ColumnStats struct {
	HasMinMax bool
	Min, Max  any
	NullCount int64
	Rows      int64
	// Values is the complete set of distinct non-null values of a string column
	// when the backend knows it (a Parquet dictionary), else nil.
	Values []string
}

// Stats gives the statistics a backend knows about a split. A missing column
// (ok == false) means nothing is known and no pruning may happen on it.
type Stats interface {
	ColumnStats(column string) (s ColumnStats, ok bool)
}

// Split is an independently scannable part of a table (a Parquet row group, an
// HBase region). Splits are ordered: scanning them in Index order and
// concatenating gives the table's deterministic order.
type Split struct {
	Index int
	Rows  int64
	// Stats is nil when the backend has no statistics for the split.
	Stats Stats
	// Ref is backend-specific and opaque to callers.
	Ref any
}

// ScanRequest says which rows and columns a scan returns.
type ScanRequest struct {
	// Predicate selects rows; nil selects all rows.
	Predicate *Predicate
	// Columns are materialized for matching rows, in this order; nil means all.
	Columns []string
	// BatchSize caps the rows per emitted batch; 0 means DefaultBatchSize.
	BatchSize int
	// Dictionaries lets string columns arrive dictionary-encoded where that
	// saves copying every row's string: an arrow Dictionary with int32
	// indices over a utf8 (*array.String) dictionary, either the column
	// chunk's own dictionary or, for a plain column most of whose rows
	// match, a copy of the decoded column that the indices select from.
	// A consumer that sets it accepts both forms of a string column in any
	// batch: the form may change from batch to batch, also within one split,
	// and the batch schema then names the Dictionary type instead of
	// SchemaOf's. The dictionaries handed out are immutable and GC-managed
	// (not recycled when the batch is released): a consumer may keep them and
	// strings taken from them. Backends without dictionaries ignore it;
	// without it string columns are always plain.
	Dictionaries bool
	// Transient names string columns whose values the consumer reads only
	// while its callback for the batch runs: it keeps no string of theirs
	// past it (a copy excepted) and no array of theirs without Retain. A
	// backend may then hand their memory to a later batch once the batch
	// is released (the parquet store does, for the copies of mostly
	// selected plain columns of Dictionaries). Backends may ignore it.
	Transient []string
	// Skip and Limit window a split's matches: ScanSplit emits only the
	// matching rows after the first Skip (in the split's row order), at
	// most Limit of them (0: no limit). A backend reads the predicate's
	// columns of the rows it skips but materializes the requested columns
	// only for the rows it emits, and stops reading the split once Limit
	// rows were emitted. ScanStats.RowsMatched counts the emitted rows.
	// Scan passes the request to every split, so there they window each
	// split's matches (a search page windows one split at a time).
	Skip, Limit int64
}

// DefaultBatchSize is the number of rows per Arrow batch a scan emits at most.
const DefaultBatchSize = 8192

// ScanStats counts what a split scan did.
type ScanStats struct {
	SplitsPruned int
	RowsScanned  int64 // rows whose predicate columns were read
	RowsMatched  int64
	BytesRead    int64 // bytes the backend shipped, where it can tell (HBase); 0 otherwise
	// ColumnsTrimmed counts the predicate columns of splits left unread
	// because statistics or bloom filters proved them without a match
	// (EvalCache.Trim), summed over splits.
	ColumnsTrimmed int64
}

// Add accumulates o into s.
func (s *ScanStats) Add(o ScanStats) {
	s.SplitsPruned += o.SplitsPruned
	s.RowsScanned += o.RowsScanned
	s.RowsMatched += o.RowsMatched
	s.BytesRead += o.BytesRead
	s.ColumnsTrimmed += o.ColumnsTrimmed
}

// Snapshot is an immutable view of a table: the splits it consisted of when it
// was taken. Scans of a snapshot's splits are unaffected by later ingests.
type Snapshot struct {
	ID     string
	Splits []Split
	// Created is when the snapshot was published (the embedded store's
	// manifest time, HBase's latest dataset load); zero when unknown.
	Created time.Time
}

// Table is the read side of an occurrence table: its snapshots and their
// split scans. Counts and exports need only this.
type Table interface {
	// Snapshot returns the table's current splits.
	Snapshot(ctx context.Context) (Snapshot, error)
	// ScanSplit scans one split of a snapshot and calls emit with batches of
	// matching rows, in the split's row order. Batches are released by the
	// backend after emit returns; emit must Retain what it keeps. A backend may
	// skip a split whose statistics rule out a match (counted in SplitsPruned).
	ScanSplit(ctx context.Context, split Split, req ScanRequest, emit func(arrow.RecordBatch) error) (ScanStats, error)
}

// Catalog is what a table knows of its datasets: their descriptions and the
// EML documents they were ingested with. Downloads cite and license from it.
type Catalog interface {
	// Datasets lists the table's datasets in key order.
	Datasets(ctx context.Context) ([]DatasetInfo, error)
	// Dataset describes one dataset; an unknown key gives an error wrapping
	// ErrNoDataset, any other error is a failure to look it up.
	Dataset(ctx context.Context, key string) (DatasetInfo, error)
	// DatasetEML opens the dataset's EML document as ingested: ErrNoDataset
	// for an unknown key, ErrNoEML for a dataset that came without one.
	DatasetEML(ctx context.Context, key string) (io.ReadCloser, error)
}

// DatasetWriter receives the records of one dataset replacing (or adding)
// it in a table. Nothing it writes is visible before Commit; Abort, a failure
// or a crash leave the table's previous version of the dataset in place.
type DatasetWriter interface {
	// Append copies what it keeps of r: the caller may reuse r once Append
	// returns. A writer may go on sending appended records under ctx after
	// Append returns (HBase's sends one batch while the next fills), so
	// ctx must stay live until Commit or Abort.
	Append(ctx context.Context, r *Record) error
	// SetEML keeps the dataset's EML document (DatasetInfo.HasEML); a
	// document over MaxEMLBytes is refused with an error.
	SetEML(ctx context.Context, r io.Reader) error
	// Commit publishes the appended records as the dataset's new version in
	// one atomic step and returns the id of the snapshot that holds it.
	// DatasetInfo.Records becomes the number appended, BrokenRows and Terms
	// stats'.
	Commit(ctx context.Context, stats LoadStats) (snapshot string, err error)
	// Abort discards what was written. It returns once the table is as it
	// was; what it could not delete (ctx done, a failure) is left for the
	// backend's next writer of the dataset to collect.
	Abort(ctx context.Context)
}

// LoadStats is what the loader of a dataset knows at its end that the
// backend records with it.
type LoadStats struct {
	// BrokenRows counts source rows skipped as unreadable.
	BrokenRows int64
	// Terms lists, by row type, the terms the dataset's records carried
	// (sorted; see DatasetInfo.Terms).
	Terms map[string][]string
}

// Loader replaces and deletes the datasets of a table, and mints the
// gbifIDs of the records it stores: a loader appends records whose ids it
// minted for their dataset (IDMinter), so that ids are unique table-wide.
type Loader interface {
	IDMinter
	// BeginDataset starts replacing (or adding) the dataset info.Key.
	BeginDataset(ctx context.Context, info DatasetInfo) (DatasetWriter, error)
	// DeleteDataset removes a dataset from later snapshots (ErrNoDataset
	// when the table does not hold it). The ids minted for it stay with
	// their keys and are never handed to others.
	DeleteDataset(ctx context.Context, key string) error
}

// Backend is a whole occurrence table as a backend package provides it
// (occurrence/parquet, occurrence/hbase): scans, catalog, loading and id
// minting, the resolution of replaced ids, and snapshot pins. Each backend asserts it at
// compile time and runs occurrencetest's conformance suite.
type Backend interface {
	Table
	Catalog
	Loader
	IDResolver
	Pinner
	Close() error
}

// Errors every backend uses.
var (
	// ErrUnknownColumn is returned for a column name the schema does not have.
	ErrUnknownColumn = errors.New("unknown column")
	// ErrNoDataset is returned for a dataset the table does not hold; other
	// errors reading a dataset are real failures.
	ErrNoDataset = errors.New("no such dataset")
	// ErrNoEML is returned for the EML document of a dataset ingested
	// without one.
	ErrNoEML = errors.New("dataset has no EML document")
	// ErrNoTable is returned by a backend asked to open, without creating
	// it, a table that does not exist.
	ErrNoTable = errors.New("no occurrence table")
)

// MaxEMLBytes is the largest EML document a table keeps with a dataset
// (an HBase cell holds at most 10 MB by default; real EML is a few KB to a
// few MB). Every backend refuses a larger one, and readers cap their
// sources' EML at it.
const MaxEMLBytes = 8 << 20

// DatasetInfo describes a dataset: what a source says of it (key, title,
// licence, citation), what a table records of it when loading, and what
// downloads need for citations, rights and the dataset/ folder of an
// archive. It is the one description of a dataset the packages share.
type DatasetInfo struct {
	Key      string `json:"key"`
	Title    string `json:"title,omitempty"`
	License  string `json:"license,omitempty"` // normalized (see NormalizeLicense) or as given
	Citation string `json:"citation,omitempty"`
	// Source is where the dataset was loaded from: an absolute path, a URL.
	Source string `json:"source,omitempty"`
	// Fingerprint identifies what it was loaded from by content (a hash of
	// the first data rows, or of an ABCD document's metadata and first
	// unit), whatever the file's name: with Source, its origin.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Protocol is how the dataset was published, as GBIF's EndpointType
	// names it (DWC_ARCHIVE, BIOCASE, BIOCASE_XML_ARCHIVE).
	Protocol string `json:"protocol,omitempty"`
	// Records is the number of records the table holds of the dataset.
	Records int64 `json:"records"`
	// BrokenRows counts the source rows skipped as unreadable at its load.
	BrokenRows int64 `json:"brokenRows,omitempty"`
	// Terms lists, by row type (the occurrence core's and each
	// extension's), the terms the dataset's raw records carried values for,
	// sorted: downloads give every one of them a column (verbatim.txt's
	// terms beyond GBIF's, the verbatim extension files).
	Terms    map[string][]string `json:"terms,omitempty"`
	Ingested time.Time           `json:"ingested"`
	HasEML   bool                `json:"hasEML,omitempty"`
	// CitationParts are read from the EML at ingest, so that a download
	// cites the dataset without reading its EML again; nil without an
	// EML, for an EML they could not be read from, and for datasets
	// ingested before they were kept (a download then reads the EML).
	CitationParts *CitationParts `json:"citationParts,omitempty"`
}

// CitationParts are what GBIF's generated dataset citations are made of
// (gbif-api CitationGenerator), read from a dataset's EML
// (dwca.ReadCitationParts): the authors, the year of publication, the
// version, the publisher and the DOI.
type CitationParts struct {
	// Authors are the creators and metadata providers with a surname, in
	// document order, each once ("Sheffield C"); none unless one of them is
	// a creator, as GBIF requires an originator.
	Authors []string `json:"authors,omitempty"`
	// Year is pubDate's year, Version packageId's ("…/v12.2" is 12.2).
	Year    string `json:"year,omitempty"`
	Version string `json:"version,omitempty"`
	// Publisher is dataset/publisher's organization, else that of the
	// associatedParty whose role is publisher (GBIF uses its registry's
	// publishing organization, which this service does not have).
	Publisher string `json:"publisher,omitempty"`
	// DOI is the first alternateIdentifier that is a DOI, by its name
	// (10.5886/txsd3at3).
	DOI string `json:"doi,omitempty"`
}
