package taxonomy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Taxonomy is what the species API and downloads read of a taxonomy: a
// loaded Checklist or a Derived one.
type Taxonomy interface {
	Matcher
	Usage(key int64) *Usage
	Classification(key int64) []Taxon
	Children(key int64) []*Usage
	Synonyms(key int64) []*Usage
	Suggest(prefix string, limit int) []*Usage
}

var (
	_ Taxonomy = (*Checklist)(nil)
	_ Taxonomy = (*Derived)(nil)
)

// derivedName is the derived taxonomy's log in a taxonomy directory.
const derivedName = "derived.log"

// Derived is the taxonomy built from the records' own classifications when
// no checklist is loaded: every kingdom, phylum, class, order, family,
// genus, species and infraspecific name a record gives becomes a taxon
// under the name above it, identified by its rank, name and kingdom. Keys
// are minted from 1 the first time a taxon is seen and kept in an
// append-only log, so they are stable across re-ingests and never reused.
// A taxon keeps the parent it was first seen with. Keys depend on the
// order of the Match calls that mint them, so a parallel caller finds with
// Find and mints in input order (see Match).
//
// Match mints keys for new taxa in memory; Sync writes them to the log.
// Call Sync before committing records that carry new keys: a crash before
// Sync forgets keys that nothing stored yet. Safe for concurrent use.
type Derived struct {
	path string
	mu   sync.RWMutex
	f    *os.File
	w    *bufio.Writer
	taxa []derivedTaxon // key-1
	ids  map[string]int64
	// byName lists the keys of a rank and lower-case name (for records
	// that give no kingdom)
	byName  map[string][]int64
	pending int
	closed  bool
}

type derivedTaxon struct {
	name    string // canonical name
	sci     string // the first scientific name seen (with authorship)
	rank    Rank
	parent  int64
	kingdom string // GBIF's kingdom, or the given name upper-cased; "" unknown
}

// OpenDerived opens (or creates) the derived taxonomy of a taxonomy
// directory.
func OpenDerived(dir string) (*Derived, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("taxonomy: %w", err)
	}
	path := filepath.Join(dir, derivedName)
	d := &Derived{path: path, ids: map[string]int64{}, byName: map[string][]int64{}}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("taxonomy: derived taxonomy: %w", err)
	}
	good, err := d.read(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	// a torn last line (a crash while appending) is cut off
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, fmt.Errorf("taxonomy: derived taxonomy: %w", err)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	d.f, d.w = f, bufio.NewWriter(f)
	return d, nil
}

// read loads the log and returns the length of its whole lines. A line is
// "key TAB parent TAB rank TAB kingdom TAB name TAB scientificName".
func (d *Derived) read(f *os.File) (int64, error) {
	r := bufio.NewReader(f)
	var good int64
	line := 0
	for {
		s, err := r.ReadString('\n')
		if err == io.EOF {
			return good, nil // an incomplete last line is dropped
		}
		if err != nil {
			return 0, fmt.Errorf("taxonomy: %s: %w", d.path, err)
		}
		line++
		f := strings.Split(strings.TrimSuffix(s, "\n"), "\t")
		if len(f) != 6 {
			return 0, fmt.Errorf("taxonomy: %s line %d: %d fields, want 6", d.path, line, len(f))
		}
		key, err1 := strconv.ParseInt(f[0], 10, 64)
		parent, err2 := strconv.ParseInt(f[1], 10, 64)
		rank, ok := ParseRank(f[2])
		if err1 != nil || err2 != nil || !ok || key != int64(len(d.taxa))+1 || parent < 0 || parent >= key {
			return 0, fmt.Errorf("taxonomy: %s line %d: bad taxon %q", d.path, line, strings.TrimSpace(s))
		}
		d.add(derivedTaxon{name: f[4], sci: f[5], rank: rank, parent: parent, kingdom: f[3]})
		good += int64(len(s))
	}
}

// add appends a taxon in memory and returns its key.
func (d *Derived) add(t derivedTaxon) int64 {
	// The names are cut from a record's row or a log line: copied, a
	// taxon keeps its names alive and not the whole row (a 300,000-record
	// ingest kept ~25 MB of rows alive through its 50,000 taxa).
	t.name, t.sci, t.kingdom = strings.Clone(t.name), strings.Clone(t.sci), strings.Clone(t.kingdom)
	d.taxa = append(d.taxa, t)
	key := int64(len(d.taxa))
	d.ids[derivedID(t.rank, t.kingdom, t.name)] = key
	n := rankName(t.rank, t.name)
	d.byName[n] = append(d.byName[n], key)
	return key
}

func derivedID(r Rank, kingdom, name string) string {
	return string(appendID(nil, r, kingdom, name))
}

func rankName(r Rank, name string) string { return r.String() + "|" + strings.ToLower(name) }

// Sync writes the taxa minted since the last Sync to the log, durably.
func (d *Derived) Sync() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errors.New("taxonomy: derived taxonomy closed")
	}
	start := len(d.taxa) - d.pending
	for i := start; i < len(d.taxa); i++ {
		t := d.taxa[i]
		fmt.Fprintf(d.w, "%d\t%d\t%s\t%s\t%s\t%s\n", i+1, t.parent, t.rank, t.kingdom, clean1(t.name), clean1(t.sci))
	}
	if err := d.w.Flush(); err != nil {
		return fmt.Errorf("taxonomy: derived taxonomy: %w", err)
	}
	if err := d.f.Sync(); err != nil {
		return fmt.Errorf("taxonomy: derived taxonomy: %w", err)
	}
	d.pending = 0
	return nil
}

// clean1 keeps a log field on one line.
func clean1(s string) string { return strings.Join(strings.Fields(s), " ") }

// Close syncs and closes the log.
func (d *Derived) Close() error {
	err := d.Sync()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return err
	}
	d.closed = true
	if cerr := d.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Len is the number of taxa.
func (d *Derived) Len() int {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return len(d.taxa)
}

// level is a taxon a record names.
type level struct {
	rank Rank
	name string
	sci  string
}

// derivedLevels lists the taxa a query names, highest first.
func derivedLevels(q *Query) []level {
	cls := queryClassification(q)
	var out []level
	for i := range 6 {
		if cls[i] != "" {
			out = append(out, level{rank: linneanRanks[i], name: cls[i], sci: cls[i]})
		}
	}
	name := buildName(q)
	if name == "" {
		return out
	}
	rank, _ := ParseRank(q.Rank)
	pn := Parse(name, rank, CodeUnknown)
	if !pn.Parsed() || pn.Type == NamePlaceholder || pn.Type == NameNoName {
		return out
	}
	genus := pn.Genus
	if genus != "" && genus != "?" && !strings.HasSuffix(genus, ".") {
		if len(out) == 0 || out[len(out)-1].rank != RankGenus {
			out = append(out, level{rank: RankGenus, name: FoldASCII(genus), sci: genus})
		}
	}
	switch {
	case pn.SpecificEpithet != "" && genus != "" && genus != "?" && !strings.HasSuffix(genus, "."):
		sp := FoldASCII(genus + " " + pn.SpecificEpithet)
		spSci := name
		if pn.InfraspecificEpithet != "" {
			spSci = sp
		}
		out = append(out, level{rank: RankSpecies, name: sp, sci: spSci})
		if pn.InfraspecificEpithet != "" {
			r := pn.Rank
			if !r.IsInfraspecific() {
				r = RankInfraspecificName
			}
			out = append(out, level{rank: r, name: pn.CanonicalMinimal(), sci: name})
		}
	case pn.Uninomial != "":
		r := pn.Rank
		if !r.Known() {
			r = RankUnranked
		}
		for i := range out {
			if strings.EqualFold(out[i].name, pn.Uninomial) {
				out[i].sci = name
				return out[:i+1]
			}
		}
		out = append(out, level{rank: r, name: FoldASCII(pn.Uninomial), sci: name})
	}
	return out
}

// ErrUnminted is Find's answer for a query naming a taxon the derived
// taxonomy has no key for yet (an *UnmintedError).
var ErrUnminted = errors.New("taxonomy: taxon has no derived key yet")

// UnmintedError is Find's error for a query naming a taxon without a key:
// it matches ErrUnminted and keeps the query's levels (its parsed name),
// so that MatchUnminted mints them without parsing the name again.
type UnmintedError struct{ levels []level }

func (e *UnmintedError) Error() string        { return ErrUnminted.Error() }
func (e *UnmintedError) Is(target error) bool { return target == ErrUnminted }

// MatchUnminted is Match of the query Find answered e for.
func (d *Derived) MatchUnminted(ctx context.Context, e *UnmintedError) (Match, error) {
	return d.matchLevels(ctx, e.levels, true)
}

// Match returns the derived taxon of the lowest level a query names,
// minting keys for the taxa not seen before. It is MatchNone when the
// query names no taxon. Keys are minted in the order of the calls that
// first name their taxa: a caller that wants the same keys from the same
// input every time (ingest, whose workers run in parallel) calls Find on
// its parallel side and Match in input order for what Find did not know.
func (d *Derived) Match(ctx context.Context, q Query) (Match, error) {
	return d.match(ctx, q, true)
}

// Find is Match without minting: ErrUnminted when a taxon the query names
// has no key yet.
func (d *Derived) Find(ctx context.Context, q Query) (Match, error) {
	return d.match(ctx, q, false)
}

// Finder is d as a Matcher that never mints (its Match is Find).
func (d *Derived) Finder() Matcher { return derivedFinder{d} }

type derivedFinder struct{ d *Derived }

func (f derivedFinder) Match(ctx context.Context, q Query) (Match, error) { return f.d.Find(ctx, q) }

func (d *Derived) match(ctx context.Context, q Query, mint bool) (Match, error) {
	return d.matchLevels(ctx, derivedLevels(&q), mint)
}

func (d *Derived) matchLevels(ctx context.Context, levels []level, mint bool) (Match, error) {
	if err := ctx.Err(); err != nil {
		return Match{}, err
	}
	if len(levels) == 0 {
		return Match{Type: MatchNone, Confidence: 100, Issues: []string{IssueTaxonMatchNone}}, nil
	}
	keys, ok := d.lookup(levels, !mint)
	if !ok {
		if !mint {
			return Match{}, &UnmintedError{levels: levels}
		}
		d.mu.Lock()
		keys = d.mint(levels)
		d.mu.Unlock()
	}
	last := keys[len(keys)-1]
	u := d.Usage(last)
	return Match{Type: MatchExact, Confidence: 100, Usage: u, Accepted: u, Classification: d.Classification(last)}, nil
}

// kingdomName normalizes a kingdom for the derived identities.
func kingdomName(levels []level) string {
	if len(levels) > 0 && levels[0].rank == RankKingdom {
		return kingdomOf(levels[0].name)
	}
	return ""
}

// lookup finds the keys of all levels without minting (read lock). Exact
// resolves names only by rank, kingdom and name: a kingdom-less name taken
// as the only taxon of its rank and name depends on which homonyms have
// been minted so far, which Find must not (see Match).
func (d *Derived) lookup(levels []level, exact bool) ([]int64, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	keys := make([]int64, len(levels))
	k := kingdomName(levels)
	for i, l := range levels {
		key, ok := d.find(l, k, exact)
		if !ok {
			return nil, false
		}
		keys[i] = key
		if k == "" {
			k = d.taxa[key-1].kingdom
		}
	}
	return keys, true
}

// find resolves a level: by rank, name and kingdom; without a kingdom,
// unless exact, the only taxon of that rank and name.
func (d *Derived) find(l level, kingdom string, exact bool) (int64, bool) {
	// the identities built on the stack: a map lookup of string(bytes)
	// does not allocate
	var buf [128]byte
	if key, ok := d.ids[string(appendID(buf[:0], l.rank, kingdom, l.name))]; ok {
		return key, true
	}
	if kingdom == "" && !exact {
		if ks := d.byName[rankName(l.rank, l.name)]; len(ks) == 1 {
			return ks[0], true
		}
	}
	return 0, false
}

// appendID appends derivedID(r, kingdom, name).
func appendID(b []byte, r Rank, kingdom, name string) []byte {
	b = append(b, r.String()...)
	b = append(b, '|')
	b = append(b, kingdom...)
	b = append(b, '|')
	return appendLower(b, name)
}

// appendLower appends strings.ToLower(s).
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return append(b, strings.ToLower(s)...)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// mint resolves the levels, adding the missing taxa (write lock held).
func (d *Derived) mint(levels []level) []int64 {
	keys := make([]int64, len(levels))
	k := kingdomName(levels)
	parent := int64(0)
	for i, l := range levels {
		key, ok := d.find(l, k, false)
		if !ok {
			key = d.add(derivedTaxon{name: l.name, sci: l.sci, rank: l.rank, parent: parent, kingdom: k})
			d.pending++
		}
		keys[i] = key
		if k == "" {
			k = d.taxa[key-1].kingdom
		}
		parent = key
	}
	return keys
}

// Usage returns the derived usage of key, or nil.
func (d *Derived) Usage(key int64) *Usage {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.usage(key)
}

func (d *Derived) usage(key int64) *Usage {
	if key < 1 || key > int64(len(d.taxa)) {
		return nil
	}
	t := d.taxa[key-1]
	u := &Usage{Key: key, ScientificName: t.sci, CanonicalName: t.name, Rank: t.rank, Status: StatusAccepted,
		NameType: NameScientific, ParentKey: t.parent}
	if t.sci != t.name && strings.HasPrefix(t.sci, t.name+" ") {
		u.Authorship = strings.TrimPrefix(t.sci, t.name+" ")
	}
	return u
}

// Classification returns key's ancestors, root first, then the taxon.
func (d *Derived) Classification(key int64) []Taxon {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var out []Taxon
	for k := key; k >= 1 && k <= int64(len(d.taxa)) && len(out) < maxDepth; {
		t := d.taxa[k-1]
		out = append(out, Taxon{Key: k, Name: t.name, Rank: t.rank})
		k = t.parent
	}
	slices.Reverse(out)
	return out
}

// Children returns the taxa whose parent is key (a scan: the derived
// taxonomy is as large as the distinct names of the records).
func (d *Derived) Children(key int64) []*Usage {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var out []*Usage
	for i, t := range d.taxa {
		if t.parent == key {
			out = append(out, d.usage(int64(i+1)))
		}
	}
	return out
}

// Synonyms returns nothing: derived taxa have no synonyms.
func (d *Derived) Synonyms(int64) []*Usage { return nil }

// Suggest returns up to limit taxa whose name starts with prefix.
func (d *Derived) Suggest(prefix string, limit int) []*Usage {
	p := strings.ToLower(FoldASCII(strings.TrimSpace(prefix)))
	if p == "" || limit <= 0 {
		return nil
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	var out []*Usage
	for i, t := range d.taxa {
		if strings.HasPrefix(strings.ToLower(t.name), p) {
			out = append(out, d.usage(int64(i+1)))
		}
	}
	slices.SortFunc(out, func(a, b *Usage) int {
		if c := len(a.CanonicalName) - len(b.CanonicalName); c != 0 {
			return c
		}
		return strings.Compare(a.CanonicalName, b.CanonicalName)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
