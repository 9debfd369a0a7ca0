package taxonomy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// DerivedReader is a read-only view of a taxonomy directory's derived
// taxonomy for processes that only answer questions (the species API of
// serve) while another process (ingest) appends to the log: it never
// writes, its Match never mints keys (a name the records never gave is no
// match, or a match of the lowest rank of its classification the records
// gave), and Refresh reads the lines appended since. A missing log is an
// empty taxonomy. Safe for concurrent use.
type DerivedReader struct {
	path string
	mu   sync.Mutex // serializes Refresh
	d    *Derived
	off  int64 // length of the whole lines read
}

var _ Taxonomy = (*DerivedReader)(nil)

// OpenDerivedReader reads the derived taxonomy of dir (nothing is created).
func OpenDerivedReader(dir string) (*DerivedReader, error) {
	r := &DerivedReader{path: filepath.Join(dir, derivedName)}
	r.d = r.empty()
	if err := r.Refresh(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *DerivedReader) empty() *Derived {
	return &Derived{path: r.path, ids: map[string]int64{}, byName: map[string][]int64{}, closed: true}
}

// Refresh reads the lines appended to the log since the last Refresh (all
// of it again when the log shrank: a torn line cut off by a restart).
// Cheap when nothing changed: one stat.
func (r *DerivedReader) Refresh() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	st, err := os.Stat(r.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("taxonomy: derived taxonomy: %w", err)
	}
	if st.Size() == r.off {
		return nil
	}
	f, err := os.Open(r.path)
	if err != nil {
		return fmt.Errorf("taxonomy: derived taxonomy: %w", err)
	}
	defer f.Close()
	d, off := r.d, r.off
	if st.Size() < off {
		d, off = r.empty(), 0
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("taxonomy: derived taxonomy: %w", err)
	}
	d.mu.Lock()
	good, err := d.read(f)
	d.mu.Unlock()
	if err != nil {
		return err
	}
	r.d, r.off = d, off+good
	return nil
}

func (r *DerivedReader) cur() *Derived {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.d
}

// Len is the number of taxa read.
func (r *DerivedReader) Len() int { return r.cur().Len() }

// Match returns the derived taxon of the lowest level the query names when
// the records gave it, else a HIGHERRANK match of the lowest level above it
// they gave (none with Strict), else no match. Nothing is minted.
func (r *DerivedReader) Match(ctx context.Context, q Query) (Match, error) {
	if err := ctx.Err(); err != nil {
		return Match{}, err
	}
	d := r.cur()
	levels := derivedLevels(&q)
	if len(levels) == 0 {
		return noDerivedMatch(), nil
	}
	d.mu.RLock()
	var last int64
	found := 0
	k := kingdomName(levels)
	for _, l := range levels {
		key, ok := d.find(l, k, false)
		if !ok {
			break
		}
		last, found = key, found+1
		if k == "" {
			k = d.taxa[key-1].kingdom
		}
	}
	d.mu.RUnlock()
	typ := MatchExact
	switch {
	case found == 0, found < len(levels) && q.Strict:
		return noDerivedMatch(), nil
	case found < len(levels):
		typ = MatchHigherRank
	}
	u := d.Usage(last)
	m := Match{Type: typ, Confidence: 100, Usage: u, Accepted: u, Classification: d.Classification(last)}
	if typ == MatchHigherRank {
		m.Issues = []string{IssueTaxonMatchHigherRank}
	}
	return m, nil
}

// noDerivedMatch is the reader's no match (built where returned: a
// matched query allocates no issue list).
func noDerivedMatch() Match {
	return Match{Type: MatchNone, Confidence: 100, Issues: []string{IssueTaxonMatchNone}}
}

// Usage returns the derived usage of key, or nil.
func (r *DerivedReader) Usage(key int64) *Usage { return r.cur().Usage(key) }

// Classification returns key's ancestors, root first, then the taxon.
func (r *DerivedReader) Classification(key int64) []Taxon { return r.cur().Classification(key) }

// Children returns the taxa whose parent is key.
func (r *DerivedReader) Children(key int64) []*Usage { return r.cur().Children(key) }

// Synonyms returns nothing: derived taxa have no synonyms.
func (r *DerivedReader) Synonyms(int64) []*Usage { return nil }

// Suggest returns up to limit taxa whose name starts with prefix.
func (r *DerivedReader) Suggest(prefix string, limit int) []*Usage {
	return r.cur().Suggest(prefix, limit)
}
