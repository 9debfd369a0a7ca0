package occurrence

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// The verbatim column holds a record's terms as json.Marshal writes a
// map[string]string of their verbatim keys (VerbatimKey): keys sorted. A
// source's rows carry the same few hundred terms record after record, so
// instead of building that map and sorting its keys for every record, the
// encoder keeps every term it has met in a slot table ordered by verbatim
// key, with each key already JSON-quoted: a record's values are dropped
// into their slots and written out in slot order.

// verbatimSlots is an immutable slot table; a new term makes a new one.
type verbatimSlots struct {
	term   map[string]termEntry
	quoted [][]byte // by slot: the verbatim key as a JSON string, then ':'
}

// termEntry is what the encoder and Interpret know of a term: its slot and
// the Passed column it fills, if any (passedByTerm).
type termEntry struct {
	slot   int32
	passed bool
	pass   passedColumn
}

// maxVerbatimSlots bounds the table in a long-running process that meets
// many sources with made-up terms; past it, records with unknown terms
// are encoded the slow way (a map, keys sorted).
var maxVerbatimSlots = 1 << 14 // a variable for the tests

var (
	verbatimTable atomic.Pointer[verbatimSlots]
	verbatimMu    sync.Mutex // serializes growing the table
)

func init() { verbatimTable.Store(&verbatimSlots{term: map[string]termEntry{}}) }

// withTerms returns the table with every term of t and of c (either may
// be nil) that has a value; nil when that would grow it past
// maxVerbatimSlots.
func withTerms(t Terms, c *Cells) *verbatimSlots {
	verbatimMu.Lock()
	defer verbatimMu.Unlock()
	cur := verbatimTable.Load()
	added := 0
	eachNewTerm(cur, t, c, func(string) { added++ })
	if added == 0 {
		return cur
	}
	// Once the table is full this is every record with a term it lacks:
	// say so before copying the table (or allocating at all).
	if len(cur.term)+added > maxVerbatimSlots {
		return nil
	}
	terms := make([]string, 0, len(cur.term)+added)
	for term := range cur.term {
		terms = append(terms, term)
	}
	eachNewTerm(cur, t, c, func(term string) { terms = append(terms, term) })
	// Terms with the same verbatim key share a slot (as they shared the
	// map entry), slots in key order.
	keys := make([]string, len(terms))
	for i, term := range terms {
		keys[i] = VerbatimKey(term)
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	next := &verbatimSlots{term: make(map[string]termEntry, len(terms)), quoted: make([][]byte, len(sorted))}
	for i, k := range sorted {
		next.quoted[i] = append(appendJSONString(nil, k), ':')
	}
	for i, term := range terms {
		s, _ := slices.BinarySearch(sorted, keys[i])
		p, passed := passedByTerm[term]
		next.term[term] = termEntry{slot: int32(s), passed: passed, pass: p}
	}
	verbatimTable.Store(next)
	return next
}

// eachNewTerm calls f with every term of t and of c (either may be nil)
// that has a value and no entry in cur.
func eachNewTerm(cur *verbatimSlots, t Terms, c *Cells, f func(term string)) {
	for term, v := range t {
		if _, ok := cur.term[term]; !ok && v != "" {
			f(term)
		}
	}
	if c != nil {
		for i, v := range c.Vals {
			if _, ok := cur.term[c.Layout.terms[i]]; !ok && v != "" {
				f(c.Layout.terms[i])
			}
		}
	}
}

// verbatimScratch is one encoder's reusable state.
type verbatimScratch struct {
	vals  []string // by slot; "" for none
	terms []string // by slot: the term whose value vals holds
	used  []int32  // the slots set, when the table is much larger than a row
	buf   []byte
}

var verbatimPool = sync.Pool{New: func() any { return new(verbatimScratch) }}

// appendVerbatim appends t's non-empty values as a JSON object keyed by
// their verbatim keys, byte for byte as appendJSONObject of that map.
func (s *verbatimScratch) appendVerbatim(buf []byte, t Terms) []byte {
	tab := s.collect(t, nil)
	if tab == nil {
		return appendVerbatimMap(buf, t)
	}
	return s.write(buf, tab)
}

// collect puts t's non-empty values into their slots, calling each (when
// not nil) for every one of them, and returns the table that gives their
// slots; nil when the table is full and t has a term it lacks (nothing is
// collected then). Terms sharing a verbatim key (a bare "country" beside
// dwc:country) share a slot, and the value kept is preferTerm's, whatever
// order the map gives.
func (s *verbatimScratch) collect(t Terms, each func(e termEntry, v string)) *verbatimSlots {
	tab := verbatimTable.Load()
	for {
		s.start(tab)
		missing := false
		for term, v := range t {
			if v == "" {
				continue
			}
			e, ok := tab.term[term]
			if !ok {
				missing = true
				break
			}
			if each != nil {
				each(e, v)
			}
			s.put(e, term, v)
		}
		if !missing {
			return tab
		}
		s.drop()
		if tab = withTerms(t, nil); tab == nil {
			return nil
		}
	}
}

// start readies the slots for a record encoded with tab.
func (s *verbatimScratch) start(tab *verbatimSlots) {
	if len(s.vals) < len(tab.quoted) {
		s.vals = make([]string, len(tab.quoted))
		s.terms = make([]string, len(tab.quoted))
	}
	s.used = s.used[:0]
}

// put drops term's value v into its slot e, unless the slot holds the
// value of a term preferTerm keeps over term.
func (s *verbatimScratch) put(e termEntry, term, v string) {
	if s.vals[e.slot] == "" {
		s.used = append(s.used, e.slot)
	} else if !preferTerm(term, s.terms[e.slot]) {
		return
	}
	s.vals[e.slot], s.terms[e.slot] = v, term
}

// drop empties the slots put filled, for a record collected again.
func (s *verbatimScratch) drop() {
	for _, i := range s.used {
		s.vals[i] = ""
	}
}

// collectCells is collect for a record whose core is Cells: each field's
// slot was resolved once for its Layout, so no term is hashed here.
func (s *verbatimScratch) collectCells(raw RawRecord, each func(e termEntry, v string)) *verbatimSlots {
	c := raw.Cells
	for {
		ls := c.Layout.slots()
		s.start(ls.tab)
		missing := false
		for i, v := range c.Vals {
			if v == "" {
				continue
			}
			if !ls.known[i] {
				missing = true
				break
			}
			e := ls.entries[i]
			if each != nil {
				each(e, v)
			}
			s.put(e, c.Layout.terms[i], v)
		}
		if !missing {
			return ls.tab
		}
		s.drop()
		if withTerms(nil, c) == nil {
			return nil
		}
	}
}

// write appends the values collect put into tab's slots as a JSON object
// in slot (verbatim key) order, and empties the slots.
func (s *verbatimScratch) write(buf []byte, tab *verbatimSlots) []byte {
	// Walking every slot costs less than sorting the used ones while the
	// table is not much larger than the row.
	if len(tab.quoted) > 4*len(s.used)+64 {
		slices.Sort(s.used)
	} else {
		s.used = s.used[:0]
		for i := range tab.quoted {
			if s.vals[i] != "" {
				s.used = append(s.used, int32(i))
			}
		}
	}
	buf = append(buf, '{')
	for n, i := range s.used {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, tab.quoted[i]...)
		buf = appendJSONString(buf, s.vals[i])
		s.vals[i] = ""
	}
	return append(buf, '}')
}

// appendVerbatimMap is appendVerbatim without the slot table.
func appendVerbatimMap(buf []byte, t Terms) []byte {
	return appendJSONObject(buf, verbatimKeyed(t))
}

// verbatimKeyed returns t's non-empty values by verbatim key, the value of
// terms sharing a key being preferTerm's.
func verbatimKeyed(t Terms) map[string]string {
	m := make(map[string]string, len(t))
	by := make(map[string]string, len(t)) // verbatim key -> the term kept
	for term, v := range t {
		if v == "" {
			continue
		}
		k := VerbatimKey(term)
		if old, ok := by[k]; ok && !preferTerm(term, old) {
			continue
		}
		m[k], by[k] = v, term
	}
	return m
}

// preferTerm reports whether term's value is kept over old's when both
// have the same verbatim key: a namespaced URI over a bare name, else the
// smaller name, so that a document never depends on map order.
func preferTerm(term, old string) bool {
	tu, ou := strings.Contains(term, "://"), strings.Contains(old, "://")
	if tu != ou {
		return tu
	}
	return term < old
}

// extensionsDoc returns the extensions column's document of ext ("" when
// it has no rows): the rows as published, by row type (sorted), media rows
// too (the multimedia column holds their interpretation), for the verbatim
// extension files of a DWCA.
func (s *verbatimScratch) extensionsDoc(ext map[string][]Terms) string {
	var rowTypes []string
	for rt, rows := range ext {
		if len(rows) > 0 {
			rowTypes = append(rowTypes, rt)
		}
	}
	if len(rowTypes) == 0 {
		return ""
	}
	slices.Sort(rowTypes)
	buf := append(s.buf[:0], '{')
	for n, rt := range rowTypes {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, rt)
		buf = append(buf, ':', '[')
		for j, t := range ext[rt] {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = s.appendVerbatim(buf, t)
		}
		buf = append(buf, ']')
	}
	s.buf = append(buf, '}')
	return string(s.buf)
}
