package dwca

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/biodiversity-downloads/downloader/internal/tmpfile"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// sortItem is one entry of an external sort, ordered by (key, seq).
type sortItem struct {
	key string
	seq uint64
	val []byte
}

func itemLess(a, b *sortItem) bool {
	if a.key != b.key {
		return a.key < b.key
	}
	return a.seq < b.seq
}

// extSorter sorts items with bounded memory: items are collected up to the
// byte budget, sorted and written to a temporary run file; reading merges the
// runs (k-way, with a heap). Nothing is written when everything fits.
type extSorter struct {
	dir    string
	budget int64
	buf    []sortItem
	size   int64
	runs   []*tmpfile.File // unlinked while open: a killed join leaves none
	// disk, when set, is the allowance of bytes a join's sorters share.
	disk *spillBudget
}

func newExtSorter(dir string, budget int64) *extSorter {
	return &extSorter{dir: dir, budget: max(budget, 16<<10)}
}

// spillBudget is what a join may write to temporary files (Limits.SpillBytes).
type spillBudget struct {
	left  int64
	limit int64
	name  string // the archive, for the error
}

// take counts n bytes written, failing once the allowance is spent.
func (b *spillBudget) take(n int64) error {
	if b == nil {
		return nil
	}
	b.left -= n
	if b.left < 0 {
		return &TooLargeError{Name: b.name, What: "star join's temporary files", Limit: b.limit}
	}
	return nil
}

func (s *extSorter) add(key string, seq uint64, val []byte) error {
	s.buf = append(s.buf, sortItem{key, seq, val})
	s.size += int64(len(key)+len(val)) + 48
	if s.size >= s.budget {
		return s.spill()
	}
	return nil
}

func (s *extSorter) sortBuf() {
	sort.Slice(s.buf, func(i, j int) bool { return itemLess(&s.buf[i], &s.buf[j]) })
}

func (s *extSorter) spill() error {
	s.sortBuf()
	f, err := tmpfile.Create(s.dir, "dwca-join-*.run")
	if err != nil {
		return fmt.Errorf("dwca: join spill: %w", err)
	}
	s.runs = append(s.runs, f)
	w := bufio.NewWriterSize(f, 256<<10)
	var tmp [binary.MaxVarintLen64]byte
	for i := range s.buf {
		it := &s.buf[i]
		// the bytes written: the spill cap counts what is on disk
		n := uvarintLen(uint64(len(it.key))) + len(it.key) + uvarintLen(it.seq) + uvarintLen(uint64(len(it.val))) + len(it.val)
		if err := s.disk.take(int64(n)); err != nil {
			f.Close()
			return fmt.Errorf("dwca: join spill: %w", err)
		}
		w.Write(binary.AppendUvarint(tmp[:0], uint64(len(it.key))))
		w.WriteString(it.key)
		w.Write(binary.AppendUvarint(tmp[:0], it.seq))
		w.Write(binary.AppendUvarint(tmp[:0], uint64(len(it.val))))
		w.Write(it.val)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("dwca: join spill: %w", err)
	}
	// the spilled values must not stay reachable through the buffer's array
	clear(s.buf)
	s.buf, s.size = s.buf[:0], 0
	return nil
}

// iter returns the items in order. The sorter must not be added to afterwards.
func (s *extSorter) iter() (*sortIter, error) {
	if len(s.runs) == 0 {
		s.sortBuf()
		return &sortIter{mem: s.buf}, nil
	}
	if len(s.buf) > 0 {
		if err := s.spill(); err != nil {
			return nil, err
		}
	}
	s.buf = nil // nothing is added any more
	it := &sortIter{}
	for _, run := range s.runs {
		f := run.File
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			it.close()
			return nil, fmt.Errorf("dwca: join merge: %w", err)
		}
		r := &runReader{f: f, br: bufio.NewReaderSize(f, 64<<10)}
		it.files = append(it.files, f)
		if err := r.advance(); err != nil {
			if err == io.EOF {
				continue
			}
			it.close()
			return nil, err
		}
		it.h = append(it.h, r)
	}
	heap.Init(&it.h)
	return it, nil
}

// close closes, and so removes, the run files.
func (s *extSorter) close() {
	for _, f := range s.runs {
		f.Close()
	}
	s.runs, s.buf = nil, nil
}

// maxRunItem bounds a length read back from a run file: nothing the join
// writes comes near it (a record is capped by Limits.RecordBytes), so a
// larger one is a damaged file, not an allocation to make.
const maxRunItem = 4 << 30

type runReader struct {
	f   *os.File
	br  *bufio.Reader
	cur sortItem
}

func (r *runReader) advance() error {
	klen, err := binary.ReadUvarint(r.br)
	if err != nil {
		return err // io.EOF at a clean end
	}
	if klen > maxRunItem {
		return corrupt(errors.New("key length out of range"))
	}
	key := make([]byte, klen)
	if _, err := io.ReadFull(r.br, key); err != nil {
		return corrupt(err)
	}
	seq, err := binary.ReadUvarint(r.br)
	if err != nil {
		return corrupt(err)
	}
	vlen, err := binary.ReadUvarint(r.br)
	if err != nil {
		return corrupt(err)
	}
	if vlen > maxRunItem {
		return corrupt(errors.New("value length out of range"))
	}
	val := make([]byte, vlen)
	if _, err := io.ReadFull(r.br, val); err != nil {
		return corrupt(err)
	}
	r.cur = sortItem{string(key), seq, val}
	return nil
}

func corrupt(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("dwca: join run file: %w", err)
}

type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return itemLess(&h[i].cur, &h[j].cur) }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// sortIter yields sorted items from memory or merged runs.
type sortIter struct {
	mem    []sortItem
	h      runHeap
	files  []*os.File
	peeked *sortItem
}

// next returns the next item; ok is false at the end.
func (it *sortIter) next() (sortItem, bool, error) {
	if it.peeked != nil {
		p := *it.peeked
		it.peeked = nil
		return p, true, nil
	}
	if it.files == nil {
		if len(it.mem) == 0 {
			return sortItem{}, false, nil
		}
		x := it.mem[0]
		it.mem[0] = sortItem{}
		it.mem = it.mem[1:]
		return x, true, nil
	}
	if len(it.h) == 0 {
		return sortItem{}, false, nil
	}
	r := it.h[0]
	x := r.cur
	if err := r.advance(); err != nil {
		if err != io.EOF {
			return sortItem{}, false, err
		}
		heap.Pop(&it.h)
	} else {
		heap.Fix(&it.h, 0)
	}
	return x, true, nil
}

// peek returns the next item without consuming it.
func (it *sortIter) peek() (sortItem, bool, error) {
	x, ok, err := it.next()
	if ok {
		it.peeked = &x
	}
	return x, ok, err
}

func (it *sortIter) close() {
	for _, f := range it.files {
		f.Close()
	}
	it.files, it.h, it.mem = nil, nil, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decoder reads what appendRow and appendString wrote.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("dwca: join: corrupt record")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errors.New("dwca: join: corrupt record")
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// terms reads appendRow's values of a row of fields' FileSpec.
func (d *decoder) terms(fields []Field) occurrence.Terms {
	n := d.uvarint()
	t := make(occurrence.Terms, min(n, 256))
	for i := uint64(0); i < n && d.err == nil; i++ {
		f := d.uvarint()
		if f >= uint64(len(fields)) {
			if d.err == nil {
				d.err = errors.New("dwca: join: corrupt record")
			}
			return t
		}
		t[fields[f].Term] = d.string()
	}
	return t
}
