package species

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/biodiversity-downloads/downloader/taxonomy"
)

// Source is where the service finds its taxonomy for one request. The
// release function must be called when the request is done with it.
type Source interface {
	Acquire() (taxonomy.Taxonomy, func(), error)
}

// Static is a Source of one taxonomy the caller owns (tests, tools).
type Static struct{ T taxonomy.Taxonomy }

// Acquire returns the taxonomy.
func (s Static) Acquire() (taxonomy.Taxonomy, func(), error) {
	if s.T == nil {
		return nil, nil, ErrNoTaxonomy
	}
	return s.T, func() {}, nil
}

// Dir is the Source of a taxonomy directory (TABLEDIR/taxonomy): the
// checklist loaded into it, reopened when a load publishes a new version
// (taxonomy.CurrentVersion, one small file read a request), else the
// taxonomy derived from the records, read-only and followed as ingest
// appends to it. A request keeps the version it acquired: a checklist
// replaced meanwhile is closed when its last request releases it.
type Dir struct {
	dir    string
	logger *slog.Logger

	mu      sync.Mutex
	version int
	cur     *handle
	derived *taxonomy.DerivedReader
}

// handle counts the requests using one opened checklist.
type handle struct {
	c       *taxonomy.Checklist
	refs    int
	retired bool
}

// NewDir returns the Source of taxonomy directory dir; nothing is opened
// before the first request.
func NewDir(dir string, logger *slog.Logger) *Dir {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Dir{dir: dir, logger: logger}
}

// Acquire returns the current taxonomy.
func (d *Dir) Acquire() (taxonomy.Taxonomy, func(), error) {
	v := taxonomy.CurrentVersion(d.dir)
	d.mu.Lock()
	defer d.mu.Unlock()
	if v != d.version || (v > 0 && d.cur == nil) {
		if err := d.reopen(v); err != nil {
			return nil, nil, err
		}
	}
	if h := d.cur; h != nil {
		h.refs++
		return h.c, func() { d.release(h) }, nil
	}
	if d.derived == nil {
		r, err := taxonomy.OpenDerivedReader(d.dir)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrNoTaxonomy, err)
		}
		d.derived = r
	} else if err := d.derived.Refresh(); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrNoTaxonomy, err)
	}
	return d.derived, func() {}, nil
}

// reopen opens version v's checklist (mu held) and retires the old one.
func (d *Dir) reopen(v int) error {
	var next *handle
	if v > 0 {
		c, err := taxonomy.Open(d.dir)
		switch {
		case errors.Is(err, taxonomy.ErrNoChecklist):
		case err != nil && d.cur != nil:
			// a damaged new version: keep answering from the one open
			// until a load publishes another
			d.logger.Error("species API keeps its checklist: the new version does not open", "dir", d.dir, "version", v, "err", err)
			d.version = v
			return nil
		case err != nil:
			return fmt.Errorf("%w: %w", ErrNoTaxonomy, err)
		default:
			next = &handle{c: c}
			v = c.Info().Version
			d.logger.Info("species API reads a checklist", "dir", d.dir, "key", c.Info().Key, "version", v, "usages", c.Len())
		}
	}
	if old := d.cur; old != nil {
		old.retired = true
		if old.refs == 0 {
			_ = old.c.Close()
		}
	}
	d.cur, d.version = next, v
	return nil
}

func (d *Dir) release(h *handle) {
	d.mu.Lock()
	defer d.mu.Unlock()
	h.refs--
	if h.retired && h.refs == 0 {
		_ = h.c.Close()
	}
}

// Close closes the checklist once no request uses it.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if h := d.cur; h != nil {
		h.retired = true
		if h.refs == 0 {
			return h.c.Close()
		}
	}
	d.cur = nil
	return nil
}
