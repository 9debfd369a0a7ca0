package taxonomy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/dwca"
)

// LoadOptions tune Load. The zero value is usable.
type LoadOptions struct {
	// Key and Title name the checklist when its EML does not (default:
	// the archive's file name).
	Key, Title string
	// Logger receives progress; nil discards.
	Logger *slog.Logger
	// TempDir holds the archive reader's temporary files ("" = the
	// taxonomy directory).
	TempDir string
	// MaxIssuesListed caps the issues a LoadReport lists (default 100);
	// all are counted.
	MaxIssuesListed int
	// Workers parse names in parallel (default GOMAXPROCS).
	Workers int
}

// Kinds of LoadIssue.
const (
	LoadBrokenRow               = "BROKEN_ROW"
	LoadNoName                  = "NO_SCIENTIFIC_NAME"
	LoadDuplicateID             = "DUPLICATE_TAXON_ID"
	LoadParentNotFound          = "PARENT_NOT_FOUND"
	LoadAcceptedNotFound        = "ACCEPTED_NOT_FOUND"
	LoadParentCycle             = "PARENT_CYCLE"
	LoadAcceptedCycle           = "ACCEPTED_CYCLE"
	LoadSynonymParent           = "PARENT_IS_SYNONYM"
	LoadStatusConflict          = "STATUS_CONFLICT"
	LoadSynonymNoAccepted       = "SYNONYM_WITHOUT_ACCEPTED"
	LoadAmbiguousClassification = "AMBIGUOUS_CLASSIFICATION"
	LoadNameTooLong             = "NAME_TOO_LONG"
)

// LoadIssue is a problem found in a checklist: where, which taxon, what.
type LoadIssue struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	TaxonID string `json:"taxonID,omitempty"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (i LoadIssue) String() string {
	var b strings.Builder
	if i.File != "" {
		fmt.Fprintf(&b, "%s:%d: ", i.File, i.Line)
	}
	if i.TaxonID != "" {
		fmt.Fprintf(&b, "taxonID %q: ", i.TaxonID)
	}
	b.WriteString(i.Kind)
	if i.Message != "" {
		b.WriteString(": " + i.Message)
	}
	return b.String()
}

// LoadReport is what Load did.
type LoadReport struct {
	Info ChecklistInfo `json:"info"`
	// Store is the published store file.
	Store string `json:"store"`
	// Rows counts the core rows read (broken ones included).
	Rows        int            `json:"rows"`
	Issues      []LoadIssue    `json:"issues,omitempty"`
	IssueCounts map[string]int `json:"issueCounts,omitempty"`
	Elapsed     time.Duration  `json:"elapsed"`
}

// Load reads a checklist Darwin Core Archive (a Taxon core) into a new
// store file in dir and publishes it as the directory's checklist: readers
// that opened the previous version keep it, Open sees the new one. Rows
// are streamed; memory grows by about 100 bytes per name (the fixed-size
// records and indexes; names and IDs go to a temporary file as they are
// read). Problems (broken rows, duplicate IDs, missing parents or accepted
// names, cycles) are reported with file and line and do not stop the
// load; an archive that is no checklist, or a failure to write, does, and
// leaves the published checklist as it was.
func Load(ctx context.Context, dir, archive string, opts LoadOptions) (*LoadReport, error) {
	start := time.Now()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxIssuesListed <= 0 {
		opts.MaxIssuesListed = 100
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.TempDir == "" {
		opts.TempDir = dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("taxonomy: %w", err)
	}
	unlock, err := lockDir(filepath.Join(dir, lockName))
	if err != nil {
		return nil, err
	}
	defer unlock()

	a, err := dwca.Options{Logger: opts.Logger, TempDir: opts.TempDir}.Open(ctx, archive)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	if rt := a.Meta.Core.RowType; dwca.NormalizeRowType(rt) != dwca.RowTypeTaxon {
		return nil, fmt.Errorf("taxonomy: %s: not a checklist: the core row type is %s, not %s", archive, rt, dwca.RowTypeTaxon)
	}
	info := ChecklistInfo{Source: archive, Key: opts.Key, Title: opts.Title}
	if rc, err := a.EML(); err == nil {
		ds, err := dwca.ReadDatasetInfo(rc)
		rc.Close()
		if err == nil {
			if ds.Key != "" {
				info.Key = ds.Key
			}
			if ds.Title != "" {
				info.Title = ds.Title
			}
		} else {
			opts.Logger.Warn("checklist EML unreadable", "archive", archive, "err", err)
		}
	} else if !errors.Is(err, dwca.ErrNoMetadata) {
		return nil, err
	}
	if info.Key == "" {
		info.Key = strings.TrimSuffix(filepath.Base(archive), filepath.Ext(archive))
	}
	if info.Title == "" {
		info.Title = info.Key
	}

	l, err := newLoader(dir, opts)
	if err != nil {
		return nil, err
	}
	defer l.heap.close()
	defer l.side.close()
	if err := l.read(ctx, a); err != nil {
		return nil, err
	}
	opts.Logger.Info("checklist read", "archive", archive, "rows", l.rows, "names", len(l.recs), "elapsed", time.Since(start))
	keys, err := openKeyLookup(keysPath(dir, info.Key))
	if err != nil {
		return nil, err
	}
	if err := l.resolve(ctx, keys); err != nil {
		return nil, err
	}
	info.KeyMode = keys.mode
	version := CurrentVersion(dir) + 1
	info.Version = version
	info.Loaded = time.Now().UTC()
	l.count(&info)
	path := filepath.Join(dir, storeName(version))
	b := &builder{heap: l.heap, recs: l.recs}
	if err := b.build(ctx, path, info); err != nil {
		os.Remove(path)
		return nil, err
	}
	if err := keys.save(); err != nil {
		os.Remove(path)
		return nil, err
	}
	if err := publish(dir, current{Store: storeName(version), Version: version, Key: info.Key}); err != nil {
		os.Remove(path)
		return nil, err
	}
	opts.Logger.Info("checklist published", "store", path, "usages", info.Usages, "issues", info.Issues, "elapsed", time.Since(start))
	return &LoadReport{Info: info, Store: path, Rows: l.rows, Issues: l.issues, IssueCounts: l.issueCounts, Elapsed: time.Since(start)}, nil
}

// count fills the counts of info.
func (l *loader) count(info *ChecklistInfo) {
	info.Usages = len(l.recs)
	for i := range l.recs {
		r := &l.recs[i]
		switch {
		case r.accepted != 0:
			info.Synonyms++
		default:
			info.Accepted++
		}
		if r.flags&flagImplicit != 0 {
			info.Implicit++
		}
	}
	for _, n := range l.issueCounts {
		info.Issues += n
	}
}

// The terms a checklist row is read with.
const (
	dwc = "http://rs.tdwg.org/dwc/terms/"
)

var checklistTerms = [...]string{
	colID: dwc + "taxonID", colParent: dwc + "parentNameUsageID", colAccepted: dwc + "acceptedNameUsageID",
	colName: dwc + "scientificName", colAuthor: dwc + "scientificNameAuthorship", colRank: dwc + "taxonRank",
	colVerbatimRank: dwc + "verbatimTaxonRank", colStatus: dwc + "taxonomicStatus", colCode: dwc + "nomenclaturalCode",
	colKingdom: dwc + "kingdom", colPhylum: dwc + "phylum", colClass: dwc + "class", colOrder: dwc + "order",
	colFamily: dwc + "family", colGenus: dwc + "genus",
}

const (
	colID = iota
	colParent
	colAccepted
	colName
	colAuthor
	colRank
	colVerbatimRank
	colStatus
	colCode
	colKingdom
	colPhylum
	colClass
	colOrder
	colFamily
	colGenus
	numCols
)

// classificationRanks are the ranks of the classification columns.
var classificationRanks = [6]Rank{RankKingdom, RankPhylum, RankClass, RankOrder, RankFamily, RankGenus}

// rowIn is a row's values, copied out of the reader.
type rowIn struct {
	v    [numCols]string
	line uint32
	file uint8
}

// rowOut is a row read and parsed.
type rowOut struct {
	in        rowIn
	sci       string
	canonical string
	author    string
	rank      Rank
	status    TaxonomicStatus
	nameType  NameType
	code      NomCode
}

// chunk is a batch of rows through the parse workers.
type chunk struct {
	seq  int
	rows []rowOut
}

const chunkRows = 1024

// read streams the core rows through the parse workers into the loader.
func (l *loader) read(ctx context.Context, a *dwca.Archive) error {
	spec := a.Meta.Core
	var idx [numCols]int
	for c, term := range checklistTerms {
		idx[c] = spec.FieldIndex(term)
	}
	if idx[colName] < 0 {
		return fmt.Errorf("taxonomy: %s: the Taxon core has no scientificName column", a.Path)
	}
	rr, err := a.Rows(ctx, spec)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan chunk, l.opts.Workers)
	results := make(chan chunk, l.opts.Workers*2)
	readErr := make(chan error, 1)
	go func() {
		defer close(jobs)
		seq := 0
		cur := make([]rowOut, 0, chunkRows)
		files := map[string]uint8{}
		for {
			row, err := rr.Next()
			if err == io.EOF {
				break
			}
			var re *dwca.RowError
			if errors.As(err, &re) {
				l.rowIssue(re.File, re.Line, "", LoadBrokenRow, re.Err.Error())
				l.rows++
				continue
			}
			if err != nil {
				readErr <- err
				return
			}
			l.rows++
			fi, ok := files[row.File()]
			if !ok {
				fi = uint8(min(len(l.files), 255))
				files[row.File()] = fi
				if len(l.files) < 256 {
					l.files = append(l.files, row.File())
				}
			}
			var in rowIn
			in.line, in.file = uint32(row.Line()), fi
			for c, i := range idx {
				if i >= 0 {
					in.v[c] = strings.Clone(strings.TrimSpace(row.Value(i)))
				}
			}
			if in.v[colID] == "" {
				in.v[colID] = strings.Clone(strings.TrimSpace(row.ID()))
			}
			cur = append(cur, rowOut{in: in})
			if len(cur) == chunkRows {
				select {
				case jobs <- chunk{seq, cur}:
				case <-ctx.Done():
					readErr <- ctx.Err()
					return
				}
				seq++
				cur = make([]rowOut, 0, chunkRows)
			}
		}
		if len(cur) > 0 {
			select {
			case jobs <- chunk{seq, cur}:
			case <-ctx.Done():
				readErr <- ctx.Err()
				return
			}
		}
		readErr <- nil
	}()
	done := make(chan struct{})
	for range l.opts.Workers {
		go func() {
			for c := range jobs {
				for i := range c.rows {
					parseRow(&c.rows[i])
				}
				select {
				case results <- c:
				case <-ctx.Done():
					return
				}
			}
			done <- struct{}{}
		}()
	}
	go func() {
		for range l.opts.Workers {
			<-done
		}
		close(results)
	}()
	pending := map[int][]rowOut{}
	next := 0
	for c := range results {
		pending[c.seq] = c.rows
		for rows, ok := pending[next]; ok; rows, ok = pending[next] {
			delete(pending, next)
			next++
			for i := range rows {
				if err := l.add(&rows[i]); err != nil {
					cancel()
					return err
				}
			}
		}
	}
	if err := <-readErr; err != nil {
		return err
	}
	return ctx.Err()
}

// parseRow parses a row's name (in a worker).
func parseRow(r *rowOut) {
	v := &r.in.v
	sci, auth := v[colName], v[colAuthor]
	if auth != "" && !strings.Contains(sci, auth) {
		sci = sci + " " + auth
	}
	r.sci = sci
	rank, _ := ParseRank(v[colRank])
	if !rank.Known() {
		if vr, ok := ParseRank(v[colVerbatimRank]); ok {
			rank = vr
		}
	}
	code := parseCode(v[colCode])
	pn := Parse(sci, rank, code)
	r.nameType, r.code = pn.Type, pn.Code
	if pn.Parsed() {
		r.canonical = pn.CanonicalMinimal()
		r.author = pn.AuthorshipString()
	} else {
		r.canonical = strings.Join(strings.Fields(pn.Verbatim), " ")
	}
	if auth != "" && r.author == "" {
		r.author = auth
	}
	switch {
	case rank.Known():
		r.rank = rank
	case pn.Rank.Known():
		r.rank = pn.Rank
	default:
		r.rank = RankUnranked
	}
	r.status, _ = ParseStatus(v[colStatus])
}

// parseCode reads dwc:nomenclaturalCode.
func parseCode(s string) NomCode {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "ICZN", "ZOOLOGICAL":
		return CodeZoological
	case "ICN", "ICBN", "ICNAFP", "BOTANICAL":
		return CodeBotanical
	case "ICNP", "ICSP", "BACTERIAL", "ICNB":
		return CodeBacterial
	case "ICVCN", "ICTV", "VIRUS", "VIRAL":
		return CodeVirus
	case "ICNCP", "CULTIVARS":
		return CodeCultivars
	}
	return CodeUnknown
}
