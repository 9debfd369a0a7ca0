package download

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/internal/pzip"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/sqlquery"
)

// ExportSpec says what a download contains.
type ExportSpec struct {
	Format Format
	// Key is the download key (GBIF style "0001005-130906152512535"); it names
	// the SIMPLE_CSV entry and appears in metadata.xml. Empty: "occurrence".
	Key string
	// Fields chooses the columns of SIMPLE_CSV and SIMPLE_PARQUET: interpreted
	// column names or verbatim terms (a name such as "habitat" or a term
	// URI). Nil means GBIF's defaults.
	Fields []string
	// Predicate is the query; nil means all records.
	Predicate *occurrence.Predicate
	// Snapshot is the table snapshot the download ran on (for the EML).
	Snapshot string
	// Created stamps entries and metadata; zero means now.
	Created time.Time
	// DOI is the download's DOI name (10.xxxx/yyy), when an operator's DOI
	// provider gave it one; the citation then names it.
	DOI string
	// Link is the download's address (its landing page or file), cited
	// when there is no DOI.
	Link string
	// ChecklistKey names the taxonomy the request asked for; the
	// download's metadata says which taxonomy answered.
	ChecklistKey string
	// VerbatimExtensions are the extension row types whose source rows a
	// DWCA carries (GBIF's request field; verbatim/<name>.txt files).
	VerbatimExtensions []string
	// InterpretedExtensions are the extensions whose rows a DWCA or FASTA
	// archive carries interpreted (GBIF's request field): DNA_DERIVED_DATA,
	// as dnaderiveddata.txt.
	InterpretedExtensions []string
	// SQL is a SQL_TSV_ZIP download's query (GBIF's SqlDownloadRequest);
	// the scan's predicate is then the part of its WHERE clause a
	// predicate can say, and Predicate must be nil.
	SQL string
}

// Portal names the service in a download's citation and metadata, where
// GBIF's say "GBIF.org" and "GBIF".
type Portal struct {
	// Name is the publisher in citations ("GBIF.org"); default
	// DefaultPortalName.
	Name string
	// Short prefixes the download's title ("GBIF" in "GBIF Occurrence
	// Download"); empty leaves the title without a prefix.
	Short string
}

// DefaultPortalName is Portal.Name when an operator configures none.
const DefaultPortalName = "Occurrence download service"

// ExportOptions tune an export.
type ExportOptions struct {
	Zip pzip.Options
	// Catalog describes the constituent datasets (the table's catalog):
	// titles, licences and citations, and the EML documents copied into a
	// DWCA's dataset/ folder. A lookup that fails fails the export; it never
	// degrades a citation. Nil (tests, tools without a table) leaves
	// citations, rights and dataset/ with only what the records carry.
	Catalog occurrence.Catalog
	// TempDir holds DWCA's spooled verbatim/multimedia data ("" = os.TempDir).
	TempDir string
	// ParquetPartBytes rolls SIMPLE_PARQUET over to a new part after about
	// this many bytes; 0 means 256 MiB.
	ParquetPartBytes int64
	// Portal names the service in citations and metadata.
	Portal Portal
	// Logger receives warnings; nil discards.
	Logger *slog.Logger
	// SQL bounds the query text of a SQL_TSV_ZIP download; SQLMemory is
	// the bytes its groups or sorted rows may hold (0: the default of
	// sqlquery.DefaultMemory).
	SQL       sqlquery.Options
	SQLMemory int64
}

// ExportResult describes a finished download.
type ExportResult struct {
	Format  Format
	Records int64
	// Datasets counts records per datasetKey (citations and usages).
	Datasets map[string]int64
	// DatasetInfos describes the constituent datasets in key order, as the
	// catalog gave them (the key as title when there is no catalog).
	DatasetInfos []occurrence.DatasetInfo
	// License is the most restrictive recognized licence of the constituent
	// datasets (a CC legal-code URI), "" when none is recognized.
	License string
	// UnknownLicense lists datasets whose licence is not recognized; they are
	// reported, never counted as CC0.
	UnknownLicense []string
	// DroppedVerbatimTerms counts values of verbatim terms that verbatim.txt
	// has no column for (DWCA): they are reported here and logged, never
	// dropped without a word.
	DroppedVerbatimTerms map[string]int64
	// Citations are the constituent datasets' citations, as a DWCA's
	// citations.txt gives them (GBIF's, from each dataset's EML: see
	// datasetCitation), by dataset key; DOIs their DOIs ("10.5886/x") when
	// their EML gives one.
	Citations, DOIs map[string]string
	Bytes           int64
	SHA256          string
}

// formatWriter is one download format.
type formatWriter interface {
	// columns are the interpreted columns the scan must materialize.
	columns() []string
	write(b *batch) error
	// finish writes the remaining entries; res and infos describe the
	// records written (infos in dataset key order).
	finish(ctx context.Context, res ExportResult, infos []occurrence.DatasetInfo) error
	// abort releases temporary resources after a failure.
	abort()
}

// Export writes one download archive. Create it with NewExport, feed it the
// scan's batches with Write and finish with Close.
type Export struct {
	spec    ExportSpec
	format  FormatInfo
	opts    ExportOptions
	zw      *pzip.Writer
	out     *hashWriter
	fw      formatWriter
	acct    accounting
	cols    []string
	closed  bool
	created time.Time
	query   *sqlquery.Query // SQL_TSV_ZIP
}

// NewExport starts a download archive of spec.Format written to w. It does
// not close w.
func NewExport(ctx context.Context, w io.Writer, spec ExportSpec, opts ExportOptions) (*Export, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Portal.Name == "" {
		opts.Portal.Name = DefaultPortalName
	}
	name, err := ParseFormat(string(spec.Format))
	if err != nil {
		return nil, err
	}
	f, _ := name.Info()
	spec.Format = name
	if spec.Fields != nil && !f.Fields {
		return nil, fmt.Errorf("%w: fields can be chosen for %s, not %s", ErrFormat, strings.Join(fieldFormats(), " and "), name)
	}
	if len(spec.VerbatimExtensions) > 0 && !f.Extensions {
		return nil, fmt.Errorf("%w: verbatim extensions come in %s, not %s", ErrFormat, strings.Join(ExtensionFormats(), " or "), name)
	}
	if _, err := CheckInterpretedExtensions(spec.InterpretedExtensions, name); err != nil {
		return nil, err
	}
	query, err := sqlOf(&spec, name, opts.SQL)
	if err != nil {
		return nil, err
	}
	if spec.Key == "" {
		spec.Key = "occurrence"
	}
	if err := checkKey(spec.Key); err != nil {
		return nil, err
	}
	created := spec.Created
	if created.IsZero() {
		created = time.Now().UTC()
	}
	x := &Export{spec: spec, format: f, opts: opts, out: &hashWriter{w: w, h: sha256.New()}, created: created, query: query}
	if f.zipped() {
		if x.zw, err = pzip.NewWriter(x.out, opts.Zip); err != nil {
			return nil, err
		}
	}
	x.fw, err = f.open(ctx, x)
	if err != nil {
		if x.fw != nil {
			x.fw.abort()
		}
		x.abortZip()
		return nil, err
	}
	x.cols = withAccounting(x.fw.columns())
	x.acct.init()
	return x, nil
}

// rowSelector is a format that keeps some of the scan's rows (SQL's
// WHERE): the download's datasets and licence count only those.
type rowSelector interface {
	selectRows(b *batch) (kept []bool, err error)
}

// sqlOf parses a SQL_TSV_ZIP spec's query and makes its pushed-down
// conditions the spec's predicate; other formats take no query.
func sqlOf(spec *ExportSpec, f Format, opts sqlquery.Options) (*sqlquery.Query, error) {
	if f != FormatSQLTSVZip {
		if spec.SQL != "" {
			return nil, fmt.Errorf("%w: a SQL query makes a %s download, not %s", ErrFormat, FormatSQLTSVZip, f)
		}
		return nil, nil
	}
	if spec.SQL == "" || spec.Predicate != nil || spec.Fields != nil {
		return nil, fmt.Errorf("%w: a %s download takes a SQL query, and no predicate or fields", ErrFormat, FormatSQLTSVZip)
	}
	q, err := ParseSQL(spec.SQL, opts)
	if err != nil {
		return nil, err
	}
	spec.Predicate = q.Predicate()
	return q, nil
}

// checkKey rejects a key that cannot name a zip entry.
func checkKey(k string) error {
	if strings.ContainsAny(k, "/\\\x00") || k == "." || k == ".." {
		return fmt.Errorf("%w: download key %q cannot name a file", ErrFormat, k)
	}
	return nil
}

// Columns returns the interpreted columns the scan must deliver, in order.
func (x *Export) Columns() []string { return x.cols }

// Written returns the archive bytes produced so far.
func (x *Export) Written() int64 {
	if x.zw == nil {
		return x.out.n
	}
	return x.zw.Written()
}

// Write adds a batch of matching records; its schema must hold Columns().
// String columns may be plain or dictionary-encoded from batch to batch
// (occurrence.ScanRequest.Dictionaries; SIMPLE_PARQUET needs one type per
// column). A dictionary must not change while the export runs: the text
// formats clean its entries once and reuse them for every batch that
// carries the same dictionary.
func (x *Export) Write(ctx context.Context, rec arrow.RecordBatch) error {
	if x.closed {
		return errors.New("dwca: write to a closed export")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b := newBatch(rec)
	if s, ok := x.fw.(rowSelector); ok {
		kept, err := s.selectRows(b)
		if err != nil {
			return err
		}
		x.acct.addKept(b, kept)
	} else {
		x.acct.add(b)
	}
	return x.fw.write(b)
}

// Close writes the remaining entries and the zip directory and returns what
// the download holds.
func (x *Export) Close(ctx context.Context) (ExportResult, error) {
	if x.closed {
		return ExportResult{}, errors.New("dwca: export already closed")
	}
	x.closed = true
	// Each dataset is described once, for the licence and the DWCA entries.
	infos, err := datasetInfos(ctx, x.opts.Catalog, x.acct.datasetKeys())
	if err != nil {
		x.fw.abort()
		x.abortZip()
		return ExportResult{}, err
	}
	res := x.acct.result(infos)
	if err := x.fw.finish(ctx, res, infos); err != nil {
		x.fw.abort()
		x.abortZip()
		return ExportResult{}, err
	}
	x.fw.abort() // releases temporary files
	if x.zw != nil {
		if err := x.zw.Close(); err != nil {
			return ExportResult{}, err
		}
	}
	res.Format = x.spec.Format
	if r, ok := x.fw.(interface{ resultRows() int64 }); ok {
		res.Records = r.resultRows()
	}
	if d := dwcaOf(x.fw); d != nil {
		res.DroppedVerbatimTerms = d.droppedTerms()
		res.Citations, res.DOIs = d.cites, d.dois // made for citations.txt
	} else {
		// The EML is read only for datasets ingested before the catalog
		// kept their citation parts.
		parts, err := citationPartsOf(ctx, x.opts.Catalog, infos)
		if err != nil {
			return ExportResult{}, err
		}
		res.Citations, res.DOIs = citationsOf(x, infos, parts)
	}
	res.Bytes = x.Written()
	res.SHA256 = hex.EncodeToString(x.out.h.Sum(nil))
	return res, nil
}

// dwcaOf returns the DWCA writer of a format that writes a DWCA (DWCA,
// FASTA_ARCHIVE), else nil.
func dwcaOf(fw formatWriter) *dwcaWriter {
	switch w := fw.(type) {
	case *dwcaWriter:
		return w
	case *fastaWriter:
		return w.dwcaWriter
	}
	return nil
}

// Abort releases resources of an export that will not be closed; what was
// written to w is not a valid archive.
func (x *Export) Abort() {
	if x.closed {
		return
	}
	x.closed = true
	x.fw.abort()
	x.abortZip()
}

// abortZip stops the zip writer of a zipped format.
func (x *Export) abortZip() {
	if x.zw != nil {
		x.zw.Abort()
	}
}

// file is where a format that is not a zip (FormatInfo.Extension) writes
// its one file.
func (x *Export) file() io.Writer { return x.out }

// create adds a deflated entry stamped with the download's creation time.
func (x *Export) create(name string) (io.Writer, error) {
	return x.zw.CreateHeader(&pzip.FileHeader{Name: name, Modified: x.created})
}

// hashWriter hashes the archive on its way out (the zip writer counts it).
type hashWriter struct {
	w io.Writer
	h hash.Hash
	n int64
}

func (hw *hashWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	hw.n += int64(n)
	return n, err
}
