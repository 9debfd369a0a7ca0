package taxonomy

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
	"github.com/biodiversity-downloads/downloader/internal/tmpfile"
)

// maxHeap caps the string heap (offsets are 32-bit).
const maxHeap = 1<<32 - 1

// heapWriter appends the store's strings to a temporary file.
type heapWriter struct {
	f   *tmpfile.File // unlinked while open: a killed build leaves no heap
	w   *bufio.Writer
	off uint64
}

func newHeapWriter(dir string) (*heapWriter, error) {
	f, err := tmpfile.Create(dir, ".heap-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("taxonomy: heap file: %w", err)
	}
	return &heapWriter{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

// add writes s (cut to 65535 bytes) and returns where it is.
func (h *heapWriter) add(s string) (uint32, uint16, error) {
	if len(s) > 0xFFFF {
		s = s[:0xFFFF]
	}
	if h.off+uint64(len(s)) > maxHeap {
		return 0, 0, fmt.Errorf("taxonomy: checklist text exceeds %d bytes", uint64(maxHeap))
	}
	off := h.off
	h.w.WriteString(s)
	h.off += uint64(len(s))
	return uint32(off), uint16(len(s)), nil
}

func (h *heapWriter) close() {
	if h.f != nil {
		h.f.Close()
		h.f = nil
	}
}

// builder turns the loaded records and their heap into a store file.
type builder struct {
	heap *heapWriter
	recs []record
	data []byte // the mapped heap while building
}

func (b *builder) str(off uint32, n uint16) string {
	return string(b.data[off : int(off)+int(n)])
}

// strView returns the heap bytes without copying (valid while building).
func (b *builder) strView(off uint32, n uint16) []byte { return b.data[off : int(off)+int(n)] }

// build writes the store to path atomically. Each index is built,
// written and dropped before the next, so that the records and one index
// are what is in memory at a time; the header goes in last.
func (b *builder) build(ctx context.Context, path string, info ChecklistInfo) error {
	if err := b.heap.w.Flush(); err != nil {
		return fmt.Errorf("taxonomy: heap file: %w", err)
	}
	data, unmap, err := mapFile(b.heap.f.File)
	if err != nil {
		return err
	}
	defer unmap()
	b.data = data
	meta, err := json.Marshal(info)
	if err != nil {
		return err
	}
	out, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return fmt.Errorf("taxonomy: %w", err)
	}
	sw := &sectionWriter{w: bufio.NewWriterSize(out, 1<<20), pos: headerSize}
	sw.w.Write(make([]byte, headerSize))
	if err := b.writeSections(ctx, sw, meta); err != nil {
		out.Abort()
		return err
	}
	if err := sw.w.Flush(); err != nil {
		out.Abort()
		return fmt.Errorf("taxonomy: write store: %w", err)
	}
	if _, err := out.Temp().WriteAt(sw.header(), 0); err != nil {
		out.Abort()
		return fmt.Errorf("taxonomy: write store: %w", err)
	}
	return out.Commit()
}

// writeSections builds and writes the sections in file order.
func (b *builder) writeSections(ctx context.Context, sw *sectionWriter, meta []byte) error {
	le := binary.LittleEndian
	sw.bytes(secMeta, meta)
	sw.bytes(secHeap, b.data)
	b.sortByKey()
	words, posts := b.firstWords()
	heads := b.headIndex(words)
	children, synonyms := b.treeIndexes()
	b.depthFirst(children)
	if err := ctx.Err(); err != nil {
		return err
	}
	sw.begin(secUsages)
	var rec [recordSize]byte
	for i := range b.recs {
		b.recs[i].put(rec[:])
		sw.write(rec[:])
	}
	byNorm := b.normIndex()
	sw.pairs(secByNorm, byNorm)
	sw.begin(secWords)
	var e [16]byte
	for _, x := range words {
		le.PutUint32(e[0:], x.off)
		le.PutUint16(e[4:], x.n)
		le.PutUint16(e[6:], 0)
		le.PutUint32(e[8:], x.start)
		le.PutUint32(e[12:], x.count)
		sw.write(e[:wordEntrySize])
	}
	sw.u32s(secPosts, posts)
	sw.begin(secHeads)
	for _, h := range heads {
		le.PutUint32(e[0:], uint32(h>>32))
		le.PutUint32(e[4:], uint32(h))
		sw.write(e[:headEntrySize])
	}
	sw.u32s(secChildren, children)
	sw.u32s(secSynonyms, synonyms)
	if err := ctx.Err(); err != nil {
		return err
	}
	sw.u32s(secSuggest, b.suggestIndex())
	sw.pairs(secByID, b.idIndex())
	return ctx.Err()
}

// sectionWriter writes sections aligned to 8 bytes and remembers where.
type sectionWriter struct {
	w        *bufio.Writer
	pos      uint64
	off, len [numSections]uint64
	cur      int
	buf      [16]byte
}

func (s *sectionWriter) begin(sec int) {
	for s.pos%8 != 0 {
		s.w.WriteByte(0)
		s.pos++
	}
	s.cur, s.off[sec] = sec, s.pos
}

func (s *sectionWriter) write(p []byte) {
	s.w.Write(p)
	s.pos += uint64(len(p))
	s.len[s.cur] += uint64(len(p))
}

func (s *sectionWriter) bytes(sec int, p []byte) {
	s.begin(sec)
	s.write(p)
}

func (s *sectionWriter) u32s(sec int, v []uint32) {
	s.begin(sec)
	for _, x := range v {
		binary.LittleEndian.PutUint32(s.buf[:], x)
		s.write(s.buf[:4])
	}
}

func (s *sectionWriter) pairs(sec int, v []normEntry) {
	s.begin(sec)
	for _, x := range v {
		binary.LittleEndian.PutUint64(s.buf[:], x.hash)
		binary.LittleEndian.PutUint32(s.buf[8:], x.idx)
		s.write(s.buf[:normEntrySize])
	}
}

// header is the file header naming every section.
func (s *sectionWriter) header() []byte {
	h := make([]byte, headerSize)
	copy(h, storeMagic)
	le := binary.LittleEndian
	le.PutUint32(h[8:], storeVersion)
	le.PutUint32(h[12:], numSections)
	for i := range numSections {
		le.PutUint64(h[16+16*i:], s.off[i])
		le.PutUint64(h[24+16*i:], s.len[i])
	}
	return h
}

// sortByKey orders the records by key and renumbers their links.
func (b *builder) sortByKey() {
	if slices.IsSortedFunc(b.recs, func(x, y record) int { return cmp.Compare(x.key, y.key) }) {
		return
	}
	n := len(b.recs)
	perm := make([]uint32, n)
	for i := range perm {
		perm[i] = uint32(i)
	}
	slices.SortFunc(perm, func(x, y uint32) int { return cmp.Compare(b.recs[x].key, b.recs[y].key) })
	inv := make([]uint32, n)
	for newIdx, old := range perm {
		inv[old] = uint32(newIdx)
	}
	sorted := make([]record, n)
	for newIdx, old := range perm {
		r := b.recs[old]
		if r.parent != 0 {
			r.parent = inv[r.parent-1] + 1
		}
		if r.accepted != 0 {
			r.accepted = inv[r.accepted-1] + 1
		}
		sorted[newIdx] = r
	}
	b.recs = sorted
}

// wordEntry is a first word and its postings while building.
type wordEntry struct {
	off   uint32
	n     uint16
	start uint32
	count uint32
}

// firstWord is the first word of a canonical name, lower case.
func firstWord(canon []byte) []byte {
	if i := bytes.IndexByte(canon, ' '); i >= 0 {
		canon = canon[:i]
	}
	return canon
}

// firstWords builds the first-word dictionary and its postings.
func (b *builder) firstWords() ([]wordEntry, []uint32) {
	word := func(i uint32) []byte {
		r := &b.recs[i]
		return firstWord(b.strView(r.canonOff, r.canonLen))
	}
	posts := make([]uint32, 0, len(b.recs))
	for i := range b.recs {
		if b.recs[i].canonLen > 0 {
			posts = append(posts, uint32(i))
		}
	}
	slices.SortFunc(posts, func(x, y uint32) int {
		if c := compareFold(word(x), word(y)); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	var words []wordEntry
	for i, idx := range posts {
		w := word(idx)
		if i == 0 || compareFold(word(posts[i-1]), w) != 0 {
			words = append(words, wordEntry{off: b.recs[idx].canonOff, n: uint16(len(w)), start: uint32(i)})
		}
		words[len(words)-1].count++
		b.recs[idx].word = uint32(len(words))
	}
	return words, posts
}

// compareFold compares ASCII case-insensitively.
func compareFold(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := lowerASCII(a[i]), lowerASCII(b[i])
		if ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// headKeys are the fuzzy keys of a word: its first four letters (lower
// case) and each variant with one of the letters after the first removed.
// Two words whose heads are one edit apart share a key.
func headKeys(word string, keys []uint32) []uint32 {
	w := strings.ToLower(word)
	if len(w) > 4 {
		w = w[:4]
	}
	keys = append(keys[:0], fnv32(w))
	for i := 1; i < len(w); i++ {
		keys = append(keys, fnv32(w[:i]+w[i+1:]))
	}
	return keys
}

func fnv32(s string) uint32 {
	h := fnv64(s)
	return uint32(h) ^ uint32(h>>32)
}

// headIndex builds the fuzzy key -> word postings.
func (b *builder) headIndex(words []wordEntry) []uint64 {
	heads := make([]uint64, 0, len(words)*4)
	var keys []uint32
	for i, w := range words {
		keys = headKeys(b.str(w.off, w.n), keys)
		slices.Sort(keys)
		keys = slices.Compact(keys)
		for _, k := range keys {
			heads = append(heads, uint64(k)<<32|uint64(i))
		}
	}
	slices.Sort(heads)
	return heads
}

// normEntry is a normalized-name hash and its usage.
type normEntry struct {
	hash uint64
	idx  uint32
}

// normIndex builds the normalized canonical name -> usages index.
func (b *builder) normIndex() []normEntry {
	out := make([]normEntry, 0, len(b.recs))
	for i := range b.recs {
		r := &b.recs[i]
		if r.canonLen == 0 {
			continue
		}
		out = append(out, normEntry{fnv64(NormalizeName(b.str(r.canonOff, r.canonLen))), uint32(i)})
	}
	slices.SortFunc(out, func(x, y normEntry) int {
		switch {
		case x.hash < y.hash:
			return -1
		case x.hash > y.hash:
			return 1
		}
		return cmp.Compare(x.idx, y.idx)
	})
	return out
}

// idIndex builds the taxonID -> usage index.
func (b *builder) idIndex() []normEntry {
	out := make([]normEntry, 0, len(b.recs))
	for i := range b.recs {
		r := &b.recs[i]
		if r.idLen > 0 {
			out = append(out, normEntry{fnv64(b.str(r.idOff, r.idLen)), uint32(i)})
		}
	}
	slices.SortFunc(out, func(x, y normEntry) int { return cmp.Compare(x.hash, y.hash) })
	return out
}

// treeIndexes lists accepted usages by parent and synonyms by accepted.
func (b *builder) treeIndexes() (children, synonyms []uint32) {
	for i := range b.recs {
		r := &b.recs[i]
		if r.accepted != 0 {
			synonyms = append(synonyms, uint32(i))
		} else if r.parent != 0 {
			children = append(children, uint32(i))
		}
	}
	slices.SortFunc(children, func(x, y uint32) int {
		if c := cmp.Compare(b.recs[x].parent, b.recs[y].parent); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	slices.SortFunc(synonyms, func(x, y uint32) int {
		if c := cmp.Compare(b.recs[x].accepted, b.recs[y].accepted); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	return children, synonyms
}

// depthFirst numbers the accepted usages in a depth-first order (Lo, Hi)
// and sets their depth; synonyms take their accepted usage's numbers.
func (b *builder) depthFirst(children []uint32) {
	n := uint32(0)
	type frame struct {
		idx  uint32
		next int // position in children of the next child to visit
		end  int
	}
	childRange := func(parent uint32) (int, int) {
		lo, _ := slices.BinarySearchFunc(children, parent+1, func(c uint32, p uint32) int { return cmp.Compare(b.recs[c].parent, p) })
		hi := lo
		for hi < len(children) && b.recs[children[hi]].parent == parent+1 {
			hi++
		}
		return lo, hi
	}
	var stack []frame
	for i := range b.recs {
		r := &b.recs[i]
		if r.accepted != 0 || r.parent != 0 {
			continue
		}
		r.lo, r.depth = n, 0
		n++
		s, e := childRange(uint32(i))
		stack = append(stack[:0], frame{uint32(i), s, e})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == top.end {
				b.recs[top.idx].hi = n - 1
				stack = stack[:len(stack)-1]
				continue
			}
			c := children[top.next]
			top.next++
			cr := &b.recs[c]
			cr.lo, cr.depth = n, b.recs[top.idx].depth+1
			n++
			s, e := childRange(c)
			stack = append(stack, frame{c, s, e})
		}
	}
	for i := range b.recs {
		r := &b.recs[i]
		if r.accepted != 0 {
			a := &b.recs[r.accepted-1]
			r.lo, r.hi, r.depth = a.lo, a.hi, a.depth
		}
	}
}

// suggestIndex orders usages by their lower-case canonical name.
func (b *builder) suggestIndex() []uint32 {
	out := make([]uint32, 0, len(b.recs))
	for i := range b.recs {
		if b.recs[i].canonLen > 0 {
			out = append(out, uint32(i))
		}
	}
	slices.SortFunc(out, func(x, y uint32) int {
		rx, ry := &b.recs[x], &b.recs[y]
		if c := compareFold(b.strView(rx.canonOff, rx.canonLen), b.strView(ry.canonOff, ry.canonLen)); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	return out
}
