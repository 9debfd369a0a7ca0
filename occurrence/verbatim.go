package occurrence

import (
	"slices"
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
	slot   map[string]int32 // term URI -> slot
	quoted [][]byte         // by slot: the verbatim key as a JSON string, then ':'
}

// maxVerbatimSlots bounds the table in a long-running process that meets
// many sources with made-up terms; past it, records with unknown terms
// are encoded the slow way (a map, keys sorted).
const maxVerbatimSlots = 1 << 14

var (
	verbatimTable atomic.Pointer[verbatimSlots]
	verbatimMu    sync.Mutex // serializes growing the table
)

func init() { verbatimTable.Store(&verbatimSlots{slot: map[string]int32{}}) }

// withTerms returns the table with every term of t that has a value; nil
// when that would grow it past maxVerbatimSlots.
func withTerms(t Terms) *verbatimSlots {
	verbatimMu.Lock()
	defer verbatimMu.Unlock()
	cur := verbatimTable.Load()
	terms := make([]string, 0, len(cur.slot)+len(t))
	for term := range cur.slot {
		terms = append(terms, term)
	}
	for term, v := range t {
		if _, ok := cur.slot[term]; !ok && v != "" {
			terms = append(terms, term)
		}
	}
	if len(terms) == len(cur.slot) {
		return cur
	}
	if len(terms) > maxVerbatimSlots {
		return nil
	}
	// Terms with the same verbatim key share a slot (as they shared the
	// map entry), slots in key order.
	keys := make([]string, len(terms))
	for i, term := range terms {
		keys[i] = VerbatimKey(term)
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	next := &verbatimSlots{slot: make(map[string]int32, len(terms)), quoted: make([][]byte, len(sorted))}
	for i, k := range sorted {
		next.quoted[i] = append(appendJSONString(nil, k), ':')
	}
	for i, term := range terms {
		s, _ := slices.BinarySearch(sorted, keys[i])
		next.slot[term] = int32(s)
	}
	verbatimTable.Store(next)
	return next
}

// verbatimScratch is one encoder's reusable state.
type verbatimScratch struct {
	vals []string // by slot; "" for none
	used []int32  // the slots set, when the table is much larger than a row
	buf  []byte
}

var verbatimPool = sync.Pool{New: func() any { return new(verbatimScratch) }}

// appendVerbatim appends t's non-empty values as a JSON object keyed by
// their verbatim keys, byte for byte as appendJSONObject of that map.
func (s *verbatimScratch) appendVerbatim(buf []byte, t Terms) []byte {
	tab := verbatimTable.Load()
	for {
		if len(s.vals) < len(tab.quoted) {
			s.vals = make([]string, len(tab.quoted))
		}
		s.used = s.used[:0]
		missing := false
		for term, v := range t {
			if v == "" {
				continue
			}
			i, ok := tab.slot[term]
			if !ok {
				missing = true
				break
			}
			if s.vals[i] == "" {
				s.used = append(s.used, i)
			}
			s.vals[i] = v
		}
		if !missing {
			break
		}
		for _, i := range s.used {
			s.vals[i] = ""
		}
		if tab = withTerms(t); tab == nil {
			return appendVerbatimMap(buf, t)
		}
	}
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
	m := make(map[string]string, len(t))
	for term, v := range t {
		if v != "" {
			m[VerbatimKey(term)] = v
		}
	}
	return appendJSONObject(buf, m)
}

// verbatimDocs returns the verbatim column's document of raw's core and
// the extensions column's document of its extension rows ("" when it has
// none): the rows as published, by row type (sorted), media rows too (the
// multimedia column holds their interpretation), for the verbatim
// extension files of a DWCA.
func verbatimDocs(raw RawRecord) (core, ext string) {
	s := verbatimPool.Get().(*verbatimScratch)
	defer verbatimPool.Put(s)
	s.buf = s.appendVerbatim(s.buf[:0], raw.Core)
	core = string(s.buf)
	var rowTypes []string
	for rt, rows := range raw.Extensions {
		if len(rows) > 0 {
			rowTypes = append(rowTypes, rt)
		}
	}
	if len(rowTypes) == 0 {
		return core, ""
	}
	slices.Sort(rowTypes)
	buf := append(s.buf[:0], '{')
	for n, rt := range rowTypes {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, rt)
		buf = append(buf, ':', '[')
		for j, t := range raw.Extensions[rt] {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = s.appendVerbatim(buf, t)
		}
		buf = append(buf, ']')
	}
	s.buf = append(buf, '}')
	return core, string(s.buf)
}
