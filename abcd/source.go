package abcd

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// SourceOptions configure OpenSource.
type SourceOptions struct {
	Reader  Options
	Archive ArchiveOptions
	// Workers is how many documents are parsed at once; 0 means GOMAXPROCS.
	Workers int
	// BatchSize is how many units of a document are handed over together.
	// A document of at most BatchSize units that turns out broken contributes
	// no records; 0 means 1000 (a BioCASe page).
	BatchSize int
	// Dataset is the dataset title to harvest from a BioCASe endpoint that
	// serves several ("" = all, or the one in the inventory).
	Dataset string
	// Harvester is used for biocase+http(s) sources; nil means a default one.
	Harvester *Harvester
	// TempDir receives downloaded archives ("" = os.TempDir()).
	TempDir string
	// MaxDownloadBytes caps a provider's ABCD archive downloaded from a
	// BioCASe endpoint (0: Reader.MaxDocumentBytes, else
	// DefaultMaxDocumentBytes). Archive.MaxEntryBytes defaults to
	// Reader.MaxDocumentBytes too: one setting caps every document.
	MaxDownloadBytes int64
	// MaxProblems is how many failed documents Problems lists (0: 100);
	// SourceStats.FailedDocuments counts them all.
	MaxProblems int
	// Logger receives warnings; nil discards.
	Logger *slog.Logger
}

func (o SourceOptions) withDefaults() SourceOptions {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 1000
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Reader.MaxDocumentBytes <= 0 {
		o.Reader.MaxDocumentBytes = DefaultMaxDocumentBytes
	}
	if o.Archive.MaxEntryBytes <= 0 {
		o.Archive.MaxEntryBytes = o.Reader.MaxDocumentBytes
	}
	if o.MaxDownloadBytes <= 0 {
		o.MaxDownloadBytes = o.Reader.MaxDocumentBytes
	}
	if o.MaxProblems <= 0 {
		o.MaxProblems = 100
	}
	return o
}

// DocumentError is a document that failed; Kept is how many of its units
// were handed out before the failure (0 unless the document was larger than
// a batch).
type DocumentError struct {
	Document string
	Kept     int
	Err      error
}

func (e DocumentError) Error() string { return e.Err.Error() }

// SourceStats count what a Source has read so far.
type SourceStats struct {
	Documents       int // documents finished (read or failed)
	FailedDocuments int
	Records         int // records handed out
	Dropped         int // BioCASe recordDropped, summed over responses
}

// Source streams raw records from ABCD documents, archives or a BioCASe
// endpoint. Broken documents are skipped, counted and listed in Problems;
// the others are still read.
type Source struct {
	opts   SourceOptions
	cancel context.CancelFunc
	docs   chan chan docMsg // per document, in order
	cur    chan docMsg
	batch  []occurrence.RawRecord
	wg     sync.WaitGroup

	records atomic.Int64 // handed out by Next (a lock per record is not needed)

	mu       sync.Mutex
	meta     DatasetMeta
	metaSeen bool
	stats    SourceStats
	problems []DocumentError
	fatal    error
	cleanup  []func() error
}

type docMsg struct {
	name    string
	records []occurrence.RawRecord
	meta    DatasetMeta
	final   bool
	proto   ProtocolInfo
	units   int
	err     error
	fatal   bool // the error ends the whole source (failed harvest)
}

// document is one input: a file or archive entry to open and parse, or a
// stream that produces its own batches (a paged harvest).
type document struct {
	name   string
	open   func(ctx context.Context) (io.ReadCloser, error)
	stream func(ctx context.Context, send func(docMsg) bool)
}

// OpenSource opens src for streaming: a path to an ABCD document (*.xml,
// *.response), a path to an ABCD archive (zip, .abcda), or a BioCASe
// endpoint "biocase+https://host/path/pywrapper.cgi?dsa=NAME" (also
// biocase+http). For an endpoint the provider's ready-made ABCD archive is
// preferred when its inventory lists one; otherwise the dataset is harvested
// page by page.
func OpenSource(ctx context.Context, src string, opts SourceOptions) (*Source, error) {
	return OpenSources(ctx, []string{src}, opts)
}

// OpenSources is OpenSource over several inputs, read in the order given.
func OpenSources(ctx context.Context, srcs []string, opts SourceOptions) (*Source, error) {
	opts = opts.withDefaults()
	s := &Source{opts: opts}
	var docs []document
	for _, src := range srcs {
		d, err := s.resolve(ctx, src)
		if err != nil {
			s.Close()
			return nil, err
		}
		docs = append(docs, d...)
	}
	s.start(ctx, docs)
	return s, nil
}

func (s *Source) resolve(ctx context.Context, src string) ([]document, error) {
	if strings.HasPrefix(src, "biocase+http://") || strings.HasPrefix(src, "biocase+https://") {
		return s.resolveBioCASe(ctx, strings.TrimPrefix(src, "biocase+"))
	}
	if isZip(src) {
		a, err := OpenArchive(src, s.opts.Archive)
		if err != nil {
			return nil, err
		}
		s.cleanup = append(s.cleanup, a.Close)
		return a.documents(), nil
	}
	if _, err := os.Stat(src); err != nil {
		return nil, err
	}
	return []document{{name: src, open: func(context.Context) (io.ReadCloser, error) { return os.Open(src) }}}, nil
}

// isZip sniffs the zip signature.
func isZip(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var sig [4]byte
	if _, err := io.ReadFull(f, sig[:]); err != nil {
		return false
	}
	return string(sig[:]) == "PK\x03\x04" || string(sig[:]) == "PK\x05\x06"
}

// start parses up to Workers documents concurrently; their batches are
// handed out in document order.
func (s *Source) start(ctx context.Context, docs []document) {
	ctx, s.cancel = context.WithCancel(ctx)
	s.docs = make(chan chan docMsg, s.opts.Workers)
	sem := make(chan struct{}, s.opts.Workers)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(s.docs)
		for _, d := range docs {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			ch := make(chan docMsg, 1)
			select {
			case s.docs <- ch:
			case <-ctx.Done():
				return
			}
			s.wg.Add(1)
			go func(d document) {
				defer s.wg.Done()
				defer func() { <-sem }()
				s.parse(ctx, d, ch)
			}(d)
		}
	}()
}

// parse reads one document into batches.
func (s *Source) parse(ctx context.Context, d document, out chan<- docMsg) {
	send := func(m docMsg) bool {
		select {
		case out <- m:
			return true
		case <-ctx.Done():
			return false
		}
	}
	if d.stream != nil {
		d.stream(ctx, send)
		return
	}
	rc, err := d.open(ctx)
	if err != nil {
		send(docMsg{name: d.name, final: true, err: &ParseError{Op: "open", Path: d.name, Err: err}})
		return
	}
	defer rc.Close()
	r := NewReader(rc, d.name, s.opts.Reader)
	batch := make([]occurrence.RawRecord, 0, min(s.opts.BatchSize, 256))
	for {
		rec, err := r.Next(ctx)
		if err == io.EOF {
			send(docMsg{name: d.name, records: batch, meta: r.Dataset(), final: true, proto: r.Protocol(), units: r.Units()})
			return
		}
		if err != nil {
			send(docMsg{name: d.name, meta: r.Dataset(), final: true, proto: r.Protocol(), units: r.Units() - len(batch), err: err})
			return
		}
		batch = append(batch, rec)
		if len(batch) >= s.opts.BatchSize {
			if !send(docMsg{name: d.name, records: batch, meta: r.Dataset()}) {
				return
			}
			batch = make([]occurrence.RawRecord, 0, s.opts.BatchSize)
		}
	}
}

// Next returns the next record, io.EOF at the end. Document failures do not
// end the stream (see Problems); a context error or a harvesting failure
// does.
func (s *Source) Next(ctx context.Context) (occurrence.RawRecord, error) {
	for {
		if len(s.batch) > 0 {
			rec := s.batch[0]
			s.batch[0] = occurrence.RawRecord{}
			s.batch = s.batch[1:]
			s.records.Add(1)
			return rec, nil
		}
		if err := ctx.Err(); err != nil {
			return occurrence.RawRecord{}, err
		}
		if s.cur == nil {
			ch, ok := <-s.docs
			if !ok {
				return occurrence.RawRecord{}, s.end()
			}
			s.cur = ch
		}
		var m docMsg
		select {
		case m = <-s.cur:
		case <-ctx.Done():
			return occurrence.RawRecord{}, ctx.Err()
		}
		s.take(m)
	}
}

func (s *Source) end() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fatal != nil {
		return s.fatal
	}
	return io.EOF
}

func (s *Source) take(m docMsg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.metaSeen && (m.meta.Title != "" || m.meta.GUID != "" || len(m.meta.Owners) > 0) {
		s.meta, s.metaSeen = m.meta, true
	}
	if !m.final {
		s.batch = m.records
		return
	}
	s.cur = nil
	s.stats.Documents++
	s.stats.Dropped += m.proto.RecordDropped
	if m.err != nil {
		if m.fatal && s.fatal == nil {
			s.fatal = m.err
		}
		s.stats.FailedDocuments++
		if len(s.problems) < s.opts.MaxProblems {
			s.problems = append(s.problems, DocumentError{Document: m.name, Kept: m.units, Err: m.err})
		}
		s.opts.Logger.Debug("ABCD document failed", "document", m.name, "kept_units", m.units, "err", m.err)
		return
	}
	s.batch = m.records
}

// Dataset is the metadata of the first document that carries some.
func (s *Source) Dataset() DatasetMeta {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.meta
}

// Stats counts documents, failures, records and dropped records so far.
func (s *Source) Stats() SourceStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Records = int(s.records.Load())
	return st
}

// Problems lists the documents that failed so far, the first
// SourceOptions.MaxProblems of them.
func (s *Source) Problems() []DocumentError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]DocumentError(nil), s.problems...)
}

// Close stops the workers and releases files (downloaded archives are
// removed).
func (s *Source) Close() error {
	if s.cancel != nil {
		s.cancel()
		s.wg.Wait()
	}
	var errs []error
	for i := len(s.cleanup) - 1; i >= 0; i-- {
		errs = append(errs, s.cleanup[i]())
	}
	s.cleanup = nil
	return errors.Join(errs...)
}
