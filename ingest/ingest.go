// Package ingest loads sources (Darwin Core Archives, ABCD documents and
// archives, BioCASe endpoints) into an occurrence table: it reads raw
// records with the dwca and abcd readers, interprets them in parallel, has
// the table mint their gbifIDs from their occurrence keys, and hands them,
// in source order, to the table's dataset writer, which publishes them
// atomically. A source's dataset key is its own identifier or one derived
// from its content, and a load never silently replaces a dataset loaded
// from another origin (keys.go). It is an integration layer above
// occurrence, dwca and abcd, which never import it.
package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/taxonomy"
)

// Source is an opened input: its dataset and its records.
type Source interface {
	// Dataset describes the source's dataset (key, title, licence as given,
	// citation, the source's name); the key may be empty.
	Dataset() occurrence.DatasetInfo
	// EML opens the dataset's metadata document; occurrence.ErrNoEML when
	// the source has none.
	EML() (io.ReadCloser, error)
	// Next returns the next raw record, io.EOF at the end, or a *RowError
	// for a broken record the caller may skip.
	Next(ctx context.Context) (occurrence.RawRecord, error)
	// Broken reports what the source skipped by itself, beyond the
	// *RowErrors Next returned (a DwC-A's broken extension rows, an ABCD
	// archive's failed documents): how many, and messages for some.
	Broken() (n int64, problems []string)
	Close() error
}

// RowError is a record that could not be read; ingestion skips it and counts it.
type RowError struct {
	Where string // "occurrence.txt:17", "response.00002.xml unit 5"
	Err   error
}

func (e *RowError) Error() string { return e.Where + ": " + e.Err.Error() }
func (e *RowError) Unwrap() error { return e.Err }

// Options tunes an ingest.
type Options struct {
	// DatasetKey overrides the key the source gives (or that is derived).
	DatasetKey string
	// Workers interpret records in parallel; 0 means GOMAXPROCS.
	Workers int
	// MaxProblems is how many broken-row messages Result keeps (default 100).
	MaxProblems int
	// Replace lets the source replace a dataset of its key that the table
	// holds from another origin (another place and other content; see
	// keys.go); without it such a load fails with a *ReplaceError.
	Replace bool
	// Taxa matches each record's taxon to the table's taxonomy (OpenTaxa)
	// and fills taxonKey..speciesKey, the names and the TAXON_MATCH_*
	// issues; nil leaves the taxon columns as occurrence.Interpret sets
	// them.
	Taxa *Taxa
}

// Table is what Load needs of an occurrence table: loading and minting ids
// (occurrence.Loader), and looking up the dataset a source would replace.
type Table interface {
	occurrence.Loader
	Dataset(ctx context.Context, key string) (occurrence.DatasetInfo, error)
}

// Result reports one ingest.
type Result struct {
	DatasetKey string
	Title      string
	Records    int64
	BrokenRows int64
	Problems   []string // "file:line: what", the first MaxProblems
	Snapshot   string
	// Issues counts records per interpretation issue.
	Issues map[string]int64
}

// Load ingests src into the table as one dataset, replacing the table's
// version of it atomically. The table mints the records' gbifIDs
// (occurrence.IDMinter); records without an occurrence key, or with the key
// of an earlier record of src, are skipped as broken rows.
func Load(ctx context.Context, table Table, src Source, opts Options) (Result, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.MaxProblems <= 0 {
		opts.MaxProblems = 100
	}
	info := src.Dataset()
	legacy := ""
	if l, ok := src.(interface{ legacyKey() string }); ok {
		legacy = l.legacyKey()
	}
	if opts.DatasetKey != "" {
		info.Key, legacy = opts.DatasetKey, ""
	}
	if info.Key == "" {
		return Result{}, errors.New("ingest: the source names no dataset key; give one")
	}
	key, err := checkOrigin(ctx, table, info, legacy, opts.Replace)
	if err != nil {
		return Result{}, err
	}
	info.Key = key
	if l, ok := occurrence.NormalizeLicense(info.License); ok {
		info.License = l
	}
	eml := readEML(src)
	info.CitationParts = citationParts(eml)
	w, err := table.BeginDataset(ctx, info)
	if err != nil {
		return Result{}, err
	}
	res := Result{DatasetKey: info.Key, Title: info.Title, Issues: map[string]int64{}}
	if err := keepEML(ctx, w, eml); err != nil {
		w.Abort(ctx)
		return res, err
	}
	// The licence normalized above: Interpret then need not normalize it
	// again for every record.
	dctx := occurrence.DatasetContext{Key: info.Key, Title: info.Title, License: info.License, Protocol: info.Protocol}
	terms := termSet{}
	if err := pipeline(ctx, src, table, w, dctx, opts, &res, terms); err != nil {
		w.Abort(ctx)
		return res, err
	}
	n, list := src.Broken()
	res.BrokenRows += n
	for _, p := range list {
		if len(res.Problems) < opts.MaxProblems {
			res.Problems = append(res.Problems, p)
		}
	}
	if res.Records == 0 {
		w.Abort(ctx)
		e := &NoRecordsError{Dataset: info.Key, Broken: res.BrokenRows, Problems: res.Problems}
		if c, ok := src.(interface{ firstFailure() error }); ok {
			e.Cause = c.firstFailure()
		}
		return res, e
	}
	if opts.Taxa != nil {
		// the keys a derived taxonomy minted are durable before records
		// carrying them are published
		if err := opts.Taxa.Sync(); err != nil {
			w.Abort(ctx)
			return res, err
		}
	}
	snap, err := w.Commit(ctx, occurrence.LoadStats{BrokenRows: res.BrokenRows, Terms: terms.sorted()})
	if err != nil {
		return res, err
	}
	res.Snapshot = snap
	return res, nil
}

// ErrNoRecords means a source held no readable occurrence record; the table
// is left unchanged rather than emptying the dataset.
var ErrNoRecords = errors.New("no occurrence records")

// NoRecordsError is a source without a readable occurrence record, with
// what it skipped: the message shows the first problems (an ABCD
// document's error with its file and line, broken rows), and the error
// matches ErrNoRecords and the first failed document's error kind (say
// abcd.ErrEntity).
type NoRecordsError struct {
	Dataset  string
	Broken   int64    // rows or documents skipped
	Problems []string // the first of them
	Cause    error    // the first failed document's error, if the source keeps it
}

// shownProblems is how many problems the message of a NoRecordsError shows.
const shownProblems = 3

func (e *NoRecordsError) Error() string {
	s := "ingest " + e.Dataset + ": " + ErrNoRecords.Error()
	if e.Broken == 0 {
		return s
	}
	s += fmt.Sprintf(" (%d skipped as unreadable)", e.Broken)
	shown := min(len(e.Problems), shownProblems)
	for _, p := range e.Problems[:shown] {
		s += "; " + p
	}
	if more := e.Broken - int64(shown); more > 0 {
		s += fmt.Sprintf("; and %d more", more)
	}
	return s
}

func (e *NoRecordsError) Unwrap() []error {
	if e.Cause != nil {
		return []error{ErrNoRecords, e.Cause}
	}
	return []error{ErrNoRecords}
}

// readEML returns the source's EML document, nil when it has none.
// Metadata is optional: a source without one, or whose document cannot be
// produced, is still ingested. Sources hold their EML in memory already
// (a DwC-A's is capped at occurrence.MaxEMLBytes, an ABCD source's is
// made from its metadata).
func readEML(src Source) []byte {
	r, err := src.EML()
	if err != nil {
		return nil
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil
	}
	return b
}

// citationParts reads an EML's citation parts for the catalog; nil
// without a document or when it cannot be read (a download then cites
// the dataset from what the catalog has, as GBIF does without an EML).
func citationParts(eml []byte) *occurrence.CitationParts {
	if eml == nil {
		return nil
	}
	p, err := dwca.ReadCitationParts(bytes.NewReader(eml))
	if err != nil {
		return nil
	}
	return &p
}

// keepEML stores the EML document with the dataset (nothing without one).
func keepEML(ctx context.Context, w occurrence.DatasetWriter, eml []byte) error {
	if eml == nil {
		return nil
	}
	return w.SetEML(ctx, bytes.NewReader(eml))
}

// chunk is a run of consecutive records travelling through the pipeline.
// Once appended it goes back to the reader, records and all, for a later run.
type chunk struct {
	raw   []occurrence.RawRecord
	recs  []*occurrence.Record // at least len(raw); Interpret resets each
	terms termSet              // the terms of raw, filled by the worker
	// cells marks, by layout, the fields of raw's Cells cores that held a
	// value (filled by the worker, merged into terms and emptied by the
	// appender)
	cells cellsSeen
	// keys are the records' occurrence keys ("": none), set by the workers.
	keys []string
	// keep marks the records the minter gave an id to; the others are
	// broken rows.
	keep []bool
	// deferred are the matches of the records whose taxa the workers
	// could not key (new derived taxa; nil for the others): they are
	// matched again, minting, in source order.
	deferred []*taxonomy.UnmintedError
	// broken and problems are the rows of this run that are skipped: the
	// source's unreadable ones, then the minter's.
	broken   int64
	problems []string
	done     chan struct{}
	mintScratch
}

const chunkSize = 256

// recycler is a Source that takes back raw records once they are appended
// (a DwC-A's core term maps, refilled for later rows).
type recycler interface {
	recycle(occurrence.RawRecord)
}

// nextChunk returns an appended chunk from free, emptied, or a new one;
// rec (when not nil) takes back the appended chunk's raw records.
func nextChunk(free <-chan *chunk, rec recycler) *chunk {
	select {
	case c := <-free:
		if rec != nil {
			for _, raw := range c.raw {
				rec.recycle(raw)
			}
		}
		clear(c.raw) // drop the old raw records for the collector
		clear(c.keys)
		c.raw, c.done = c.raw[:0], make(chan struct{})
		c.broken, c.problems = 0, c.problems[:0]
		return c
	default:
		return &chunk{done: make(chan struct{}), raw: make([]occurrence.RawRecord, 0, chunkSize)}
	}
}

// problem notes a skipped row of the chunk, with its message while the
// stage that found it has messages left in its budget (Options.MaxProblems
// each: the whole load keeps no more than that).
func (c *chunk) problem(budget *int, msg func() string) {
	c.broken++
	if *budget > 0 {
		*budget--
		c.problems = append(c.problems, msg())
	}
}

// pipeline reads on one goroutine, interprets on opts.Workers goroutines,
// mints the records' gbifIDs on one goroutine in source order (a batch per
// chunk) and appends on the calling goroutine in source order.
func pipeline(ctx context.Context, src Source, table occurrence.IDMinter, w occurrence.DatasetWriter, dctx occurrence.DatasetContext, opts Options, res *Result, terms termSet) error {
	// The writer is given the caller's context, not the pipeline's: a
	// writer may still be sending its last batch under it when the
	// pipeline returns and cancels its own (HBase's writes one batch while
	// the next fills, and Commit waits for it).
	writeCtx := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// One chunk queued per worker keeps the workers busy; each chunk in
	// flight holds 256 raw and interpreted records (~4 MB with verbatim
	// documents of ~200 terms), so deeper queues only cost memory.
	ordered := make(chan *chunk, opts.Workers)
	work := make(chan *chunk, opts.Workers)
	minted := make(chan *chunk, 1)
	// free holds appended chunks for reuse: room for every chunk in flight,
	// the ones queued in ordered and minted, the one being minted, the one
	// being appended and the one being read.
	free := make(chan *chunk, opts.Workers+4)
	var readErr error
	go func() {
		defer close(ordered)
		defer close(work)
		readErr = readChunks(ctx, src, ordered, work, free, opts)
	}()
	var wg sync.WaitGroup
	var taxErr error
	var taxOnce sync.Once
	for i := 0; i < opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				if c.terms == nil {
					c.terms, c.cells = termSet{}, cellsSeen{}
				}
				clear(c.terms)
				for j, raw := range c.raw {
					occurrence.Interpret(raw, dctx, c.recs[j])
					c.deferred[j] = nil
					if opts.Taxa != nil {
						var err error
						if c.deferred[j], err = opts.Taxa.InterpretRaw(ctx, raw, c.recs[j]); err != nil {
							taxOnce.Do(func() { taxErr = err; cancel() })
						}
					}
					if raw.Cells != nil {
						c.cells.add(raw.Cells)
						c.terms.addExtensions(raw)
					} else {
						c.terms.add(raw)
					}
					c.keys[j], _ = occurrence.RecordKey(c.recs[j])
				}
				close(c.done)
			}
		}()
	}
	// A panic on this goroutine (the table writer's Append) stops the reader
	// before the workers are waited for: waited for first, they would wait
	// on the reader, which waits on the chunks nobody takes any more.
	defer func() {
		cancel()
		wg.Wait()
	}()
	var mintErr error
	mt := newMinter(table, dctx.Key, opts.MaxProblems)
	go func() {
		defer close(minted)
		mintErr = mt.run(ctx, ordered, minted)
		if mintErr != nil {
			cancel()
		}
	}()
	var err error
	for c := range minted {
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			continue
		}
		res.BrokenRows += c.broken
		for _, p := range c.problems {
			if len(res.Problems) < opts.MaxProblems {
				res.Problems = append(res.Problems, p)
			}
		}
		for j, r := range c.recs[:len(c.raw)] {
			if !c.keep[j] {
				continue
			}
			if c.deferred[j] != nil {
				if err = opts.Taxa.MintRaw(ctx, c.raw[j], c.deferred[j], r); err != nil {
					cancel()
					break
				}
			}
			if err = w.Append(writeCtx, r); err != nil {
				cancel()
				break
			}
			res.Records++
			countIssues(r, res.Issues)
		}
		terms.merge(c.terms)
		terms.mergeCells(c.cells)
		if err == nil {
			select {
			case free <- c:
			default:
			}
		}
	}
	wg.Wait()
	switch {
	case taxErr != nil:
		return taxErr
	case mintErr != nil:
		return mintErr
	case err != nil:
		return err
	case readErr != nil:
		return readErr
	}
	return ctx.Err()
}

func readChunks(ctx context.Context, src Source, ordered, work chan<- *chunk, free <-chan *chunk, opts Options) error {
	budget := opts.MaxProblems
	rec, _ := src.(recycler)
	for {
		c := nextChunk(free, rec)
		var eof bool
		for len(c.raw) < chunkSize {
			raw, err := src.Next(ctx)
			if err == io.EOF {
				eof = true
				break
			}
			var re *RowError
			if errors.As(err, &re) {
				c.problem(&budget, re.Error)
				continue
			}
			if err != nil {
				return err
			}
			c.raw = append(c.raw, raw)
		}
		for len(c.recs) < len(c.raw) {
			c.recs = append(c.recs, occurrence.NewRecord())
		}
		for len(c.keys) < len(c.raw) {
			c.keys = append(c.keys, "")
			c.keep = append(c.keep, false)
			c.deferred = append(c.deferred, nil)
		}
		select {
		case ordered <- c:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case work <- c:
		case <-ctx.Done():
			close(c.done)
			return ctx.Err()
		}
		if eof {
			return nil
		}
	}
}

var issueCol = occurrence.ColumnIndex(occurrence.ColIssue)

func countIssues(r *occurrence.Record, into map[string]int64) {
	v := r.Get(issueCol)
	if !v.Valid {
		return
	}
	start := 0
	for i := 0; i <= len(v.S); i++ {
		if i == len(v.S) || v.S[i] == ';' {
			into[v.S[start:i]]++
			start = i + 1
		}
	}
}

// termSet collects, by row type, the terms raw records carried values for:
// the dataset's table entry keeps them (occurrence.LoadStats.Terms), so
// that downloads give every one a column.
type termSet map[string]map[string]struct{}

func (s termSet) add(raw occurrence.RawRecord) {
	s.addRow(occurrence.RowTypeOccurrence, raw.Core)
	s.addExtensions(raw)
}

func (s termSet) addExtensions(raw occurrence.RawRecord) {
	for rt, rows := range raw.Extensions {
		for _, t := range rows {
			s.addRow(rt, t)
		}
	}
}

func (s termSet) addRow(rowType string, t occurrence.Terms) {
	set := s[rowType]
	for term, v := range t {
		if v == "" {
			continue
		}
		if _, ok := set[term]; !ok {
			if set == nil {
				set = map[string]struct{}{}
				s[rowType] = set
			}
			set[term] = struct{}{}
		}
	}
}

// cellsSeen marks, by layout, the fields that held a value in some row.
type cellsSeen map[*occurrence.Layout][]bool

func (c cellsSeen) add(cells *occurrence.Cells) {
	seen := c[cells.Layout]
	if seen == nil {
		seen = make([]bool, cells.Layout.Len())
		c[cells.Layout] = seen
	}
	for i, v := range cells.Vals {
		if v != "" {
			seen[i] = true
		}
	}
}

// mergeCells adds the core terms c marked, and empties c's marks.
func (s termSet) mergeCells(c cellsSeen) {
	for l, seen := range c {
		set := s[occurrence.RowTypeOccurrence]
		for i, ok := range seen {
			if !ok {
				continue
			}
			if set == nil {
				set = map[string]struct{}{}
				s[occurrence.RowTypeOccurrence] = set
			}
			set[l.Term(i)] = struct{}{}
			seen[i] = false
		}
	}
}

func (s termSet) merge(o termSet) {
	for rt, set := range o {
		dst := s[rt]
		if dst == nil {
			dst = make(map[string]struct{}, len(set))
			s[rt] = dst
		}
		for t := range set {
			dst[t] = struct{}{}
		}
	}
}

// sorted returns the terms by row type, each list sorted; nil when empty.
func (s termSet) sorted() map[string][]string {
	if len(s) == 0 {
		return nil
	}
	out := make(map[string][]string, len(s))
	for rt, set := range s {
		list := make([]string, 0, len(set))
		for t := range set {
			list = append(list, t)
		}
		slices.Sort(list)
		out[rt] = list
	}
	return out
}
