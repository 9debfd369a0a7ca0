package download

import (
	"math/bits"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/dwca"
)

// verbatimRow extracts chosen keys of a verbatim JSON object
// ({"country": "Denmark", "dcterms:modified": ...}, see
// occurrence.VerbatimKey) into values by index.
//
// The store writes these objects with encoding/json, flat and without
// spaces, keys sorted, and a dataset's records carry mostly the same keys
// (a record lacks some of them), so parse reads them with a scanner of its
// own: each key is first compared with the one that followed the previous
// key the last time that key was met, and is looked up in the index only
// when it differs. An object the scanner does not expect (escapes, spaces,
// non-string values) is read with gjson.
type verbatimRow struct {
	index  map[string]int // verbatim key -> column
	table  keyTable       // the same, faster for short keys
	keys   []string       // column -> verbatim key
	values []string
	// unknown, when set, is called for keys without a column.
	unknown func(key string)

	pending []string // keys without a column, reported once the object is read
	// set has bit col%64 of word col/64 set for the columns holding a
	// value: appendCells walks them in column order, with no sort of the
	// object's keys (which come in the JSON's sorted key order, not the
	// columns').
	set []uint64
	// next[p+1] is the key met after a key of column p the last time one
	// was (p = -1: the first key of an object; p = len(keys): a key
	// without a column), with its column (-1 none).
	next []keySlot
	prev int // the column of the object's previous key, as next's p
}

func newVerbatimRow(keys []string) *verbatimRow {
	v := &verbatimRow{index: make(map[string]int, len(keys)), keys: keys, values: make([]string, len(keys)),
		set: make([]uint64, (len(keys)+63)/64), next: make([]keySlot, len(keys)+2), prev: -1}
	for i := range v.next {
		v.next[i].col = unset
	}
	for i, k := range keys {
		v.index[k] = i
	}
	v.table = newKeyTable(keys)
	return v
}

// reset empties the values of the previous object.
func (v *verbatimRow) reset() {
	for w, word := range v.set {
		for ; word != 0; word &= word - 1 {
			v.values[w<<6|bits.TrailingZeros64(word)] = ""
		}
		v.set[w] = 0
	}
	v.pending = v.pending[:0]
	v.prev = -1
}

// put sets the value of the object's next key.
func (v *verbatimRow) put(key, val string) {
	s := &v.next[v.prev+1]
	c := s.col
	if s.col == unset || s.key != key {
		c = v.table.lookup(key)
		if c >= 0 {
			s.key = v.keys[c] // the index's copy, not the batch's bytes
		} else {
			s.key = strings.Clone(key)
		}
		s.col = c
	}
	if c < 0 {
		v.prev = len(v.keys)
		if v.unknown != nil && val != "" {
			v.pending = append(v.pending, key)
		}
		return
	}
	v.prev = c
	v.set[c>>6] |= 1 << (c & 63)
	v.values[c] = val
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

// scan reads a flat object of strings without spaces, {"k":"v",...},
// which parse has checked holds no backslash; false when js is not one.
func (v *verbatimRow) scan(js string) bool {
	if len(js) < 2 || js[0] != '{' {
		return false
	}
	p := 1
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
		v.put(key, val)
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
	res.ForEach(func(k, val gjson.Result) bool {
		v.put(k.Str, val.String())
		return true
	})
	return true
}

// appendCells appends the values to a row of clean text that has a cell
// already (TextWriter.Rows), each after its separator, in column order;
// the columns without a value are written as one run of separators each.
func (v *verbatimRow) appendCells(buf []byte) []byte {
	prev := -1
	for w, word := range v.set {
		for ; word != 0; word &= word - 1 {
			c := w<<6 | bits.TrailingZeros64(word)
			buf = dwca.AppendTabs(buf, c-prev)
			buf = dwca.AppendClean(buf, v.values[c])
			prev = c
		}
	}
	if n := len(v.values) - prev - 1; n > 0 {
		buf = dwca.AppendTabs(buf, n)
	}
	return buf
}

// appendAvro appends columns [from, to) as nullable Avro strings, each
// cleaned as the text formats clean it (null when nothing is left),
// walking the columns holding a value only.
func (v *verbatimRow) appendAvro(buf []byte, from, to int) []byte {
	next := from
	for w := from >> 6; w < len(v.set) && w<<6 < to; w++ {
		for word := v.set[w]; word != 0; word &= word - 1 {
			c := w<<6 | bits.TrailingZeros64(word)
			if c < from {
				continue
			}
			if c >= to {
				break
			}
			buf = appendNulls(buf, c-next)
			buf = appendAvroText(buf, dwca.CleanValue(v.values[c]))
			next = c + 1
		}
	}
	return appendNulls(buf, to-next)
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
	col int // -1: empty (next: no column)
}

// unset marks a slot of next never filled; the zero keySlot (col 0) is
// not that, so newVerbatimRow marks them.
const unset = -2

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
	_ = s[7] // one bounds check, and the compiler makes the eight loads one
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func load4(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
