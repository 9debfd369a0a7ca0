package taxonomy

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// ChecklistInfo describes a loaded checklist (the store's metadata).
type ChecklistInfo struct {
	// Key is the checklist's dataset key: the UUID in its EML, else what
	// LoadOptions.Key gave, else the archive's file name.
	Key    string    `json:"key"`
	Title  string    `json:"title,omitempty"`
	Source string    `json:"source,omitempty"`
	Loaded time.Time `json:"loaded"`
	// Version counts the loads of this taxonomy directory.
	Version int `json:"version"`
	// KeyMode is how keys were assigned: "taxonID" (the checklist's numeric
	// taxonIDs) or "lookup" (minted through the persistent lookup).
	KeyMode  string `json:"keyMode"`
	Usages   int    `json:"usages"`
	Accepted int    `json:"accepted"`
	Synonyms int    `json:"synonyms"`
	Implicit int    `json:"implicit"`
	Issues   int    `json:"issues"`
}

// Checklist is a loaded checklist, read from its store file through a
// memory map: lookups are lock-free and safe for concurrent use, and the
// process keeps the version it opened even after a new one is published.
// Close it when done.
type Checklist struct {
	info     ChecklistInfo
	path     string
	data     []byte
	unmap    func() error
	heap     []byte
	usages   []byte
	byNorm   []byte
	words    []byte
	posts    []byte
	heads    []byte
	children []byte
	synonyms []byte
	suggest  []byte
	byID     []byte
	n        int
	closeMu  sync.Mutex
	// fuzzyHeads remembers the fuzzy first words of queries (match_checklist.go).
	fuzzyHeads fuzzyHeadCache
	// masks are the first words' letter sets (wordMasks), built once.
	masksOnce sync.Once
	masks     []uint32
}

// OpenChecklistFile opens a store file (Open reads a taxonomy directory).
func OpenChecklistFile(path string) (*Checklist, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("taxonomy: open store: %w", err)
	}
	defer f.Close()
	data, unmap, err := mapFile(f)
	if err != nil {
		return nil, err
	}
	c, err := newChecklist(path, data)
	if err != nil {
		unmap()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.unmap = unmap
	return c, nil
}

func newChecklist(path string, data []byte) (*Checklist, error) {
	s, err := sections(data)
	if err != nil {
		return nil, err
	}
	c := &Checklist{path: path, data: data, heap: s[secHeap], usages: s[secUsages], byNorm: s[secByNorm],
		words: s[secWords], posts: s[secPosts], heads: s[secHeads], children: s[secChildren],
		synonyms: s[secSynonyms], suggest: s[secSuggest], byID: s[secByID]}
	if err := json.Unmarshal(s[secMeta], &c.info); err != nil {
		return nil, fmt.Errorf("%w: metadata: %v", ErrCorruptStore, err)
	}
	c.n = len(c.usages) / recordSize
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// validate checks every reference in the file once, so that lookups can
// trust them.
func (c *Checklist) validate() error {
	bad := func(what string, i int) error {
		return fmt.Errorf("%w: %s %d out of range", ErrCorruptStore, what, i)
	}
	heap := uint64(len(c.heap))
	for i := range c.n {
		r := c.rec(i)
		if uint64(r.parent) > uint64(c.n) || uint64(r.accepted) > uint64(c.n) || uint64(r.word) > uint64(len(c.words)/wordEntrySize) {
			return bad("usage link", i)
		}
		for _, s := range [...][2]uint64{{uint64(r.sciOff), uint64(r.sciLen)}, {uint64(r.canonOff), uint64(r.canonLen)},
			{uint64(r.authOff), uint64(r.authLen)}, {uint64(r.idOff), uint64(r.idLen)}} {
			if s[0]+s[1] > heap {
				return bad("usage string", i)
			}
		}
		if i > 0 && binary.LittleEndian.Uint32(c.usages[(i-1)*recordSize:]) >= r.key {
			return bad("usage key order", i)
		}
	}
	for _, list := range [...][]byte{c.posts, c.children, c.synonyms, c.suggest} {
		for j := 0; j+4 <= len(list); j += 4 {
			if int(binary.LittleEndian.Uint32(list[j:])) >= c.n {
				return bad("index entry", j/4)
			}
		}
	}
	for _, list := range [...][]byte{c.byNorm, c.byID} {
		for j := 0; j+normEntrySize <= len(list); j += normEntrySize {
			if int(binary.LittleEndian.Uint32(list[j+8:])) >= c.n {
				return bad("index entry", j/normEntrySize)
			}
		}
	}
	nw := len(c.words) / wordEntrySize
	for j := 0; j+headEntrySize <= len(c.heads); j += headEntrySize {
		if int(binary.LittleEndian.Uint32(c.heads[j+4:])) >= nw {
			return bad("fuzzy key", j/headEntrySize)
		}
	}
	for j := range nw {
		e := c.words[j*wordEntrySize:]
		off, n := uint64(binary.LittleEndian.Uint32(e)), uint64(binary.LittleEndian.Uint16(e[4:]))
		start, count := uint64(binary.LittleEndian.Uint32(e[8:])), uint64(binary.LittleEndian.Uint32(e[12:]))
		if off+n > heap || start+count > uint64(len(c.posts)/4) {
			return bad("word", j)
		}
	}
	return nil
}

// Close releases the store's memory map. Usages already returned stay
// valid (they hold copies).
func (c *Checklist) Close() error {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if c.unmap == nil {
		return nil
	}
	err := c.unmap()
	c.unmap = nil
	return err
}

// Info describes the checklist.
func (c *Checklist) Info() ChecklistInfo { return c.info }

// Len is the number of usages.
func (c *Checklist) Len() int { return c.n }

// Path is the store file.
func (c *Checklist) Path() string { return c.path }

func (c *Checklist) rec(i int) record { return getRecord(c.usages[i*recordSize:]) }

func (c *Checklist) str(off uint32, n uint16) string {
	end := int(off) + int(n)
	if end > len(c.heap) {
		return ""
	}
	return string(c.heap[off:end])
}

// canon returns a usage's canonical name without copying (only for
// comparisons inside the package).
func (c *Checklist) canonBytes(r *record) []byte {
	end := int(r.canonOff) + int(r.canonLen)
	if end > len(c.heap) {
		return nil
	}
	return c.heap[r.canonOff:end]
}

// usage builds the Usage of record i.
func (c *Checklist) usage(i int) *Usage {
	r := c.rec(i)
	u := &Usage{
		Key: int64(r.key), TaxonID: c.str(r.idOff, r.idLen), ScientificName: c.str(r.sciOff, r.sciLen),
		CanonicalName: c.str(r.canonOff, r.canonLen), Authorship: c.str(r.authOff, r.authLen),
		Rank: r.rank, Status: r.status, NameType: r.nameType, Implicit: r.flags&flagImplicit != 0, Lo: r.lo, Hi: r.hi,
	}
	if r.parent != 0 {
		u.ParentKey = int64(c.rec(int(r.parent - 1)).key)
	}
	if r.accepted != 0 {
		u.AcceptedKey = int64(c.rec(int(r.accepted - 1)).key)
	}
	return u
}

// index returns the record index of key, or -1.
func (c *Checklist) index(key int64) int {
	if key <= 0 || key > 0xFFFFFFFF {
		return -1
	}
	k := uint32(key)
	i := sort.Search(c.n, func(i int) bool { return binary.LittleEndian.Uint32(c.usages[i*recordSize:]) >= k })
	if i < c.n && binary.LittleEndian.Uint32(c.usages[i*recordSize:]) == k {
		return i
	}
	return -1
}

// Usage returns the usage of key, or nil.
func (c *Checklist) Usage(key int64) *Usage {
	if i := c.index(key); i >= 0 {
		return c.usage(i)
	}
	return nil
}

// Classification returns the accepted usage's ancestors from the root
// down, then the usage itself (for a synonym: its accepted usage's
// classification, ending with the accepted usage).
func (c *Checklist) Classification(key int64) []Taxon {
	i := c.index(key)
	if i < 0 {
		return nil
	}
	return c.classification(i, nil)
}

func (c *Checklist) classification(i int, out []Taxon) []Taxon {
	r := c.rec(i)
	if r.accepted != 0 {
		r = c.rec(int(r.accepted - 1))
	}
	start := len(out)
	for range maxDepth {
		out = append(out, Taxon{Key: int64(r.key), Name: c.str(r.canonOff, r.canonLen), Rank: r.rank})
		if r.parent == 0 {
			break
		}
		r = c.rec(int(r.parent - 1))
	}
	slices.Reverse(out[start:])
	return out
}

// maxDepth bounds a walk up the tree (the loader cuts cycles; this guards
// against a damaged file).
const maxDepth = 1000

// Parents returns the ancestors of key's (accepted) usage, root first,
// without the usage itself.
func (c *Checklist) Parents(key int64) []Taxon {
	cl := c.Classification(key)
	i := c.index(key)
	if i < 0 || len(cl) == 0 {
		return nil
	}
	if c.rec(i).accepted != 0 {
		return cl
	}
	return cl[:len(cl)-1]
}

// Children returns the accepted usages whose parent is key, in key order.
func (c *Checklist) Children(key int64) []*Usage {
	return c.linked(c.children, key, func(r *record) uint32 { return r.parent })
}

// Synonyms returns the synonyms of key, in key order.
func (c *Checklist) Synonyms(key int64) []*Usage {
	return c.linked(c.synonyms, key, func(r *record) uint32 { return r.accepted })
}

func (c *Checklist) linked(list []byte, key int64, link func(*record) uint32) []*Usage {
	i := c.index(key)
	if i < 0 {
		return nil
	}
	target := uint32(i + 1)
	n := len(list) / 4
	at := func(j int) uint32 {
		r := c.rec(int(binary.LittleEndian.Uint32(list[j*4:])))
		return link(&r)
	}
	lo := sort.Search(n, func(j int) bool { return at(j) >= target })
	var out []*Usage
	for j := lo; j < n && at(j) == target; j++ {
		out = append(out, c.usage(int(binary.LittleEndian.Uint32(list[j*4:]))))
	}
	return out
}

// Suggest returns up to limit usages whose canonical name starts with
// prefix (case-insensitive, accents ignored), in alphabetical order.
func (c *Checklist) Suggest(prefix string, limit int) []*Usage {
	p := []byte(strings.ToLower(FoldASCII(strings.TrimSpace(prefix))))
	if len(p) == 0 || limit <= 0 {
		return nil
	}
	n := len(c.suggest) / 4
	nameAt := func(j int) []byte {
		r := c.rec(int(binary.LittleEndian.Uint32(c.suggest[j*4:])))
		return c.canonBytes(&r)
	}
	lo := sort.Search(n, func(j int) bool { return compareFold(nameAt(j), p) >= 0 })
	var out []*Usage
	for j := lo; j < n && len(out) < limit; j++ {
		name := nameAt(j)
		if len(name) < len(p) || compareFold(name[:len(p)], p) != 0 {
			break
		}
		out = append(out, c.usage(int(binary.LittleEndian.Uint32(c.suggest[j*4:]))))
	}
	return out
}

// byName returns the record indexes whose normalized canonical name is
// norm (see NormalizeName).
func (c *Checklist) byName(norm string, out []int) []int {
	h := fnv64(norm)
	n := len(c.byNorm) / normEntrySize
	lo := sort.Search(n, func(j int) bool { return binary.LittleEndian.Uint64(c.byNorm[j*normEntrySize:]) >= h })
	for j := lo; j < n && binary.LittleEndian.Uint64(c.byNorm[j*normEntrySize:]) == h; j++ {
		out = append(out, int(binary.LittleEndian.Uint32(c.byNorm[j*normEntrySize+8:])))
	}
	return out
}

// ByTaxonID returns the usage with a checklist taxonID, or nil.
func (c *Checklist) ByTaxonID(id string) *Usage {
	if i := c.indexByTaxonID(id); i >= 0 {
		return c.usage(i)
	}
	return nil
}

func (c *Checklist) indexByTaxonID(id string) int {
	h := fnv64(id)
	n := len(c.byID) / normEntrySize
	lo := sort.Search(n, func(j int) bool { return binary.LittleEndian.Uint64(c.byID[j*normEntrySize:]) >= h })
	for j := lo; j < n && binary.LittleEndian.Uint64(c.byID[j*normEntrySize:]) == h; j++ {
		i := int(binary.LittleEndian.Uint32(c.byID[j*normEntrySize+8:]))
		if r := c.rec(i); c.str(r.idOff, r.idLen) == id {
			return i
		}
	}
	return -1
}

// wordAt returns first word j and its postings range.
func (c *Checklist) wordAt(j int) (word []byte, start, count int) {
	e := c.words[j*wordEntrySize:]
	off, n := binary.LittleEndian.Uint32(e), binary.LittleEndian.Uint16(e[4:])
	end := int(off) + int(n)
	if end > len(c.heap) {
		return nil, 0, 0
	}
	return c.heap[off:end], int(binary.LittleEndian.Uint32(e[8:])), int(binary.LittleEndian.Uint32(e[12:]))
}

// wordIndex finds a first word (case-insensitive), or -1.
func (c *Checklist) wordIndex(w []byte) int {
	n := len(c.words) / wordEntrySize
	j := sort.Search(n, func(j int) bool { x, _, _ := c.wordAt(j); return compareFold(x, w) >= 0 })
	if j < n {
		if x, _, _ := c.wordAt(j); compareFold(x, w) == 0 {
			return j
		}
	}
	return -1
}

// post returns posting p.
func (c *Checklist) post(p int) int { return int(binary.LittleEndian.Uint32(c.posts[p*4:])) }

// headWords appends the words sharing a fuzzy head key with w (at most
// limit; a word may come more than once).
func (c *Checklist) headWords(w string, limit int, out []int) []int {
	var keys [5]uint32
	n := len(c.heads) / headEntrySize
	start := len(out)
	for _, k := range headKeys(w, keys[:0]) {
		lo := sort.Search(n, func(j int) bool { return binary.LittleEndian.Uint32(c.heads[j*headEntrySize:]) >= k })
		for j := lo; j < n && binary.LittleEndian.Uint32(c.heads[j*headEntrySize:]) == k; j++ {
			out = append(out, int(binary.LittleEndian.Uint32(c.heads[j*headEntrySize+4:])))
			if len(out)-start >= limit {
				return out
			}
		}
	}
	return out
}
