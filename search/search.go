// Package search answers GBIF's occurrence search over an occurrence
// table: pages of records in table order as GBIF's occurrence JSON, exact
// counts, facets, single records and their verbatim form, with GBIF's
// parameters and limits. A page never scans the whole table for its rows:
// splits are counted in order and the page's rows are read from the splits
// that hold them, windowed (occurrence.ScanRequest Skip and Limit), while
// the later splits are still being counted for the total.
package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Config tunes the search. Zero values take the defaults.
type Config struct {
	// Limits bound predicates as they bound download predicates.
	Limits occurrence.Limits
	// Workers scanning splits at once for one count or facet scan; 0
	// means GOMAXPROCS.
	Workers int
	// MaxLimit caps a page's limit (GBIF: 300); a larger limit is lowered.
	MaxLimit int
	// MaxOffset caps offset+limit (GBIF: 100,000); beyond it a search is
	// an error, as in GBIF.
	MaxOffset int
	// MaxFacetValues caps facetOffset+facetLimit (GBIF: 1,200,000).
	MaxFacetValues int
	// FacetTimeout bounds the facet scans of one search (default 10s).
	FacetTimeout time.Duration
	// Cache is how many (snapshot, predicate) split counts are kept, and
	// as many facets (default 4096 each; negative disables the caches).
	Cache int
	// MaxReads bounds the record reads running at once across all
	// searches (a page's splits, lookups by id): each decodes a page of
	// every one of a record's ~225 columns, ~200 MB of page buffers at
	// most, and is CPU work (default GOMAXPROCS).
	MaxReads int
}

func (c Config) withDefaults() Config {
	if c.MaxLimit <= 0 {
		c.MaxLimit = DefaultMaxLimit
	}
	if c.MaxOffset <= 0 {
		c.MaxOffset = DefaultMaxOffset
	}
	if c.MaxFacetValues <= 0 {
		c.MaxFacetValues = DefaultMaxFacetValues
	}
	if c.FacetTimeout <= 0 {
		c.FacetTimeout = 10 * time.Second
	}
	if c.Cache == 0 {
		c.Cache = 4096
	}
	if c.MaxReads <= 0 {
		c.MaxReads = runtime.GOMAXPROCS(0)
	}
	return c
}

// Service searches one occurrence table.
type Service struct {
	table  occurrence.Table
	cfg    Config
	logger *slog.Logger

	mu       sync.Mutex
	inflight map[string]*splitCounts
	cache    *lru.Cache[string, []int64]

	facetCache   *lru.Cache[string, []FacetCount]
	suggestCache *lru.Cache[string, []string]
	flight       singleflight.Group // facet and suggestion scans in progress
	reads        chan struct{}      // MaxReads slots
	names        Names              // nil: scientificName is text
}

// New returns a search over t; a nil logger discards.
func New(t occurrence.Table, cfg Config, logger *slog.Logger, opts ...Option) *Service {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{table: t, cfg: cfg.withDefaults(), logger: logger, inflight: map[string]*splitCounts{}}
	if s.cfg.Cache > 0 {
		s.cache, _ = lru.New[string, []int64](s.cfg.Cache)
		s.facetCache, _ = lru.New[string, []FacetCount](s.cfg.Cache)
		s.suggestCache, _ = lru.New[string, []string](s.cfg.Cache)
	}
	s.reads = make(chan struct{}, s.cfg.MaxReads)
	for _, o := range opts {
		o(s)
	}
	return s
}

// Config returns the service's settings with defaults applied.
func (s *Service) Config() Config { return s.cfg }

// Response is a page of GBIF's occurrence search.
type Response struct {
	Offset       int               `json:"offset"`
	Limit        int               `json:"limit"`
	EndOfRecords bool              `json:"endOfRecords"`
	Count        int64             `json:"count"`
	Results      []json.RawMessage `json:"results"`
	Facets       []Facet           `json:"facets"`
}

// Search answers r over the table's current snapshot: its page of records,
// the count of all matches and the facets, computed concurrently.
func (s *Service) Search(ctx context.Context, r Request) (*Response, error) {
	snap, err := s.table.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	counts, release := s.counts(snap, r.Predicate)
	defer release()
	var facets []Facet
	var facetErr error
	facetsDone := make(chan struct{})
	go func() {
		defer close(facetsDone)
		if facets, facetErr = s.facets(ctx, snap, r); facetErr != nil {
			cancel()
		}
	}()
	var results []json.RawMessage
	if r.tiers != nil {
		results, err = s.rankedPage(ctx, snap, r)
	} else {
		results, err = s.page(ctx, snap, r, counts)
	}
	var total int64
	if err == nil {
		total, err = counts.total(ctx)
	}
	if err != nil {
		cancel()
	}
	<-facetsDone
	if err == nil || errors.Is(err, context.Canceled) && facetErr != nil {
		err = facetErr
	}
	if err != nil {
		return nil, err
	}
	if results == nil {
		results = []json.RawMessage{}
	}
	if facets == nil {
		facets = []Facet{}
	}
	return &Response{Offset: r.Offset, Limit: r.Limit, Count: total, Results: results, Facets: facets,
		EndOfRecords: total <= int64(r.Offset)+int64(r.Limit)}, nil
}

// pageFetch is the part of a page one split holds.
type pageFetch struct {
	split       occurrence.Split
	skip, limit int64
	rows        []json.RawMessage
	err         error
}

// page reads the records [Offset, Offset+Limit) of the matches: it walks
// the split counts in order and reads each split that holds part of the
// page with a window, as soon as the counts before it are known.
func (s *Service) page(ctx context.Context, snap occurrence.Snapshot, r Request, counts *splitCounts) ([]json.RawMessage, error) {
	if r.Limit == 0 {
		return nil, nil
	}
	var fetches []*pageFetch
	var wg sync.WaitGroup
	var before int64
	offset, left := int64(r.Offset), int64(r.Limit)
	for i := 0; i < len(snap.Splits) && left > 0; i++ {
		n, err := counts.split(ctx, i)
		if err != nil {
			wg.Wait()
			return nil, err
		}
		if before+n <= offset {
			before += n
			continue
		}
		skip := max(offset-before, 0)
		f := &pageFetch{split: snap.Splits[i], skip: skip, limit: min(n-skip, left)}
		left -= f.limit
		before += n
		fetches = append(fetches, f)
		wg.Add(1)
		go func() {
			defer wg.Done()
			f.rows, f.err = s.fetch(ctx, r.Predicate, f)
		}()
	}
	wg.Wait()
	var out []json.RawMessage
	for _, f := range fetches {
		if f.err != nil {
			return nil, f.err
		}
		if int64(len(f.rows)) != f.limit {
			return nil, fmt.Errorf("search: split %d gave %d of the %d records its count promised", f.split.Index, len(f.rows), f.limit)
		}
		out = append(out, f.rows...)
	}
	return out, nil
}

// rankedPage reads the page of a full-text search with several words:
// the records holding all of them in table order, then those holding one
// fewer, and so on (r.tiers), each tier counted (and cached) as a
// predicate of its own. GBIF orders by Elasticsearch's relevance score,
// which rises with each word a record holds and also weighs rare words
// and name fields; this counts the words only.
func (s *Service) rankedPage(ctx context.Context, snap occurrence.Snapshot, r Request) ([]json.RawMessage, error) {
	var out []json.RawMessage
	offset, left := int64(r.Offset), int64(r.Limit)
	for _, tier := range r.tiers {
		if left == 0 {
			break
		}
		rows, n, err := s.tierPage(ctx, snap, r, tier, offset, left)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
		left -= int64(len(rows))
		offset = max(offset-n, 0)
	}
	return out, nil
}

// tierPage reads up to limit records of one tier from offset, and
// returns the tier's count.
func (s *Service) tierPage(ctx context.Context, snap occurrence.Snapshot, r Request, tier *occurrence.Predicate,
	offset, limit int64) ([]json.RawMessage, int64, error) {
	counts, release := s.counts(snap, tier)
	defer release()
	n, err := counts.total(ctx)
	if err != nil || offset >= n {
		return nil, n, err
	}
	r.Predicate, r.Offset, r.Limit = tier, int(offset), int(min(limit, n-offset))
	rows, err := s.page(ctx, snap, r, counts)
	return rows, n, err
}

// fetch reads one split's part of a page as records.
func (s *Service) fetch(ctx context.Context, pred *occurrence.Predicate, f *pageFetch) ([]json.RawMessage, error) {
	release, err := s.read(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	req := occurrence.ScanRequest{Predicate: pred, Columns: recordJSON.cols, Skip: f.skip, Limit: f.limit}
	var rows []json.RawMessage
	_, err = s.table.ScanSplit(ctx, f.split, req, func(b arrow.RecordBatch) error {
		for i := 0; i < int(b.NumRows()); i++ {
			rows = append(rows, recordJSON.appendRecord(nil, b, i))
		}
		return nil
	})
	return rows, err
}

// read takes one of the MaxReads slots of record reads.
func (s *Service) read(ctx context.Context) (release func(), err error) {
	select {
	case s.reads <- struct{}{}:
		return func() { <-s.reads }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Count counts the records pred matches in the current snapshot (shared
// with searches of the same predicate, and cached).
func (s *Service) Count(ctx context.Context, pred *occurrence.Predicate) (int64, error) {
	snap, err := s.table.Snapshot(ctx)
	if err != nil {
		return 0, err
	}
	c, release := s.counts(snap, pred)
	defer release()
	return c.total(ctx)
}

// AppendJSON appends the response as GBIF writes a search response; the
// records are already JSON and are copied, not re-encoded.
func (r *Response) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"offset":`...)
	b = strconv.AppendInt(b, int64(r.Offset), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, int64(r.Limit), 10)
	b = append(b, `,"endOfRecords":`...)
	b = strconv.AppendBool(b, r.EndOfRecords)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, r.Count, 10)
	b = append(b, `,"results":[`...)
	for i, rec := range r.Results {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, rec...)
	}
	facets, err := json.Marshal(r.Facets)
	if err != nil {
		return nil, err
	}
	if r.Facets == nil {
		facets = []byte("[]")
	}
	b = append(b, `],"facets":`...)
	b = append(b, facets...)
	return append(b, '}'), nil
}
