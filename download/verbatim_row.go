package download

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/dwca"
)

// verbatimRow extracts chosen keys of a verbatim JSON object
// ({"country": "Denmark", "dcterms:modified": ...}, see
// occurrence.VerbatimKey) into values by index.
//
// The store writes these objects with encoding/json, flat and without
// spaces, and a dataset's records carry the same keys in the same order,
// so parse reads them with a scanner of its own: each key is first
// compared with the one at the same place in the previous object, and is
// looked up in the index only when it differs. An object the scanner does
// not expect (escapes, spaces, non-string values) is read with gjson.
type verbatimRow struct {
	index  map[string]int // verbatim key -> column
	table  keyTable       // the same, faster for short keys
	keys   []string       // column -> verbatim key
	values []string
	// unknown, when set, is called for keys without a column.
	unknown func(key string)

	pending []string // keys without a column, reported once the object is read
	set     []int    // the columns holding a value, in the order met
	seen    []uint32 // seen[col] == gen: col is in set
	gen     uint32
	order   []int // the column of the previous object's n-th key (-1 unknown)
	okeys   []string
}

func newVerbatimRow(keys []string) *verbatimRow {
	v := &verbatimRow{index: make(map[string]int, len(keys)), keys: keys, values: make([]string, len(keys)),
		seen: make([]uint32, len(keys))}
	for i, k := range keys {
		v.index[k] = i
	}
	v.table = newKeyTable(keys)
	return v
}

// reset empties the values of the previous object.
func (v *verbatimRow) reset() {
	for _, c := range v.set {
		v.values[c] = ""
	}
	v.set, v.pending = v.set[:0], v.pending[:0]
	v.gen++
	if v.gen == 0 { // wrapped: old marks could collide
		clear(v.seen)
		v.gen = 1
	}
}

// put sets the value of the n-th key of the object.
func (v *verbatimRow) put(n int, key, val string) {
	c := -1
	if n < len(v.order) && v.okeys[n] == key {
		c = v.order[n]
	} else {
		c = v.table.lookup(key)
		v.remember(n, c, key)
	}
	if c < 0 {
		if v.unknown != nil && val != "" {
			v.pending = append(v.pending, key)
		}
		return
	}
	if v.seen[c] != v.gen {
		v.seen[c] = v.gen
		v.set = append(v.set, c)
	}
	v.values[c] = val
}

// remember records that the n-th key of objects is key, in column c.
func (v *verbatimRow) remember(n, c int, key string) {
	if n > len(v.order) {
		return
	}
	if c >= 0 {
		key = v.keys[c] // the index's copy, not the batch's bytes
	} else {
		key = strings.Clone(key)
	}
	if n == len(v.order) {
		v.order, v.okeys = append(v.order, c), append(v.okeys, key)
		return
	}
	v.order[n], v.okeys[n] = c, key
}

// parse fills values from one JSON object; anything but an object leaves
// them empty and returns false.
func (v *verbatimRow) parse(js string) bool {
	v.reset()
	if js == "" {
		return true
	}
	ok := strings.IndexByte(js, '\\') < 0 && v.scan(js)
	if !ok {
		v.reset()
		ok = v.parseGJSON(js)
	}
	for _, k := range v.pending {
		v.unknown(k)
	}
	return ok
}

// scan reads a flat object of strings without escapes or spaces,
// {"k":"v",...}; false when js is not one.
func (v *verbatimRow) scan(js string) bool {
	if len(js) < 2 || js[0] != '{' {
		return false
	}
	p, n := 1, 0
	if js[p] == '}' {
		return p+1 == len(js)
	}
	for {
		key, q, ok := quoted(js, p)
		if !ok || q >= len(js) || js[q] != ':' {
			return false
		}
		val, r, ok := quoted(js, q+1)
		if !ok || r >= len(js) {
			return false
		}
		v.put(n, key, val)
		n++
		switch js[r] {
		case ',':
			p = r + 1
		case '}':
			return r+1 == len(js)
		default:
			return false
		}
	}
}

// quoted reads the string starting at js[p] == '"' (without escapes) and
// returns it and the index after its closing quote.
func quoted(js string, p int) (string, int, bool) {
	if p >= len(js) || js[p] != '"' {
		return "", 0, false
	}
	end := strings.IndexByte(js[p+1:], '"')
	if end < 0 {
		return "", 0, false
	}
	return js[p+1 : p+1+end], p + end + 2, true
}

// parseGJSON is parse for any JSON object.
func (v *verbatimRow) parseGJSON(js string) bool {
	res := gjson.Parse(js)
	if !res.IsObject() {
		return false
	}
	n := 0
	res.ForEach(func(k, val gjson.Result) bool {
		v.put(n, k.Str, val.String())
		n++
		return true
	})
	return true
}

// appendCells appends the values to a row of clean text that has a cell
// already (TextWriter.Rows), each after its separator, in column order;
// the columns without a value are written as one run of separators each.
func (v *verbatimRow) appendCells(buf []byte) []byte {
	prev := -1
	for _, c := range v.sortedSet() {
		buf = dwca.AppendTabs(buf, c-prev)
		buf = dwca.AppendClean(buf, v.values[c])
		prev = c
	}
	if n := len(v.values) - prev - 1; n > 0 {
		buf = dwca.AppendTabs(buf, n)
	}
	return buf
}

// sortedSet sorts the columns holding a value.
func (v *verbatimRow) sortedSet() []int {
	set := v.set
	for i := 1; i < len(set); i++ { // insertion sort: short, nearly sorted
		for j := i; j > 0 && set[j] < set[j-1]; j-- {
			set[j], set[j-1] = set[j-1], set[j]
		}
	}
	return set
}

// keyTable maps keys to columns by open addressing on a hash of a key's
// length and its first and last eight bytes: a verbatim key is looked up
// for most values an export writes, and this is several times cheaper
// than a Go map's string hashing.
type keyTable struct {
	slots []keySlot
	mask  uint64
}

type keySlot struct {
	key string
	col int // -1: empty
}

func newKeyTable(keys []string) keyTable {
	size := 8
	for size < 4*len(keys) {
		size *= 2
	}
	t := keyTable{slots: make([]keySlot, size), mask: uint64(size - 1)}
	for i := range t.slots {
		t.slots[i].col = -1
	}
	for c, k := range keys {
		i := keyHash(k) & t.mask
		for t.slots[i].col >= 0 && t.slots[i].key != k {
			i = (i + 1) & t.mask
		}
		if t.slots[i].col < 0 {
			t.slots[i] = keySlot{key: k, col: c}
		}
	}
	return t
}

// lookup returns key's column, -1 when it has none.
func (t keyTable) lookup(key string) int {
	for i := keyHash(key) & t.mask; ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.col < 0 || s.key == key {
			return s.col
		}
	}
}

func keyHash(k string) uint64 {
	var a, b uint64
	switch n := len(k); {
	case n >= 8:
		a, b = load8(k), load8(k[n-8:])
	case n >= 4:
		a, b = uint64(load4(k)), uint64(load4(k[n-4:]))
	case n > 0:
		a = uint64(k[0]) | uint64(k[n/2])<<8 | uint64(k[n-1])<<16
	}
	h := (a ^ uint64(len(k))*0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
	h ^= b * 0x94d049bb133111eb
	return h ^ h>>31
}

func load8(s string) uint64 {
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func load4(s string) uint32 {
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
