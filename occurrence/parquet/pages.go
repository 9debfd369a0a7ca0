package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/apache/arrow-go/v18/parquet"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// flatColumn decodes one flat (non-list) column chunk page by page into
// arrays over buffers it reuses: an array next returns is valid until the
// following call. No builders, no allocation per batch; strings and
// integers stay dictionary indices as long as their pages are
// dictionary-encoded; seek jumps through the page index. pqarrow remains
// the reader of the list columns.
type flatColumn struct {
	pr     pageSource
	kind   occurrence.Kind
	maxDef int16
	where  string // file, row group and column, for errors
	width  int    // bytes per value of fixed-width kinds

	dictStr   *array.String // the chunk's dictionary, string kinds
	dictFixed []byte        // the chunk's dictionary, fixed-width kinds
	dictArr   arrow.Array   // the dictionary batches carry (strings, integers)
	dictLen   int
	hasDict   bool

	// the current data page
	cur       *page
	pageLeft  int // rows of the page not yet decoded
	pageFirst int64
	pageRows  int
	dictTried bool // the dictionary page was looked for (lazyDict)
	defs      rleDecoder
	useDict   bool // values are dictionary indices
	idx       rleDecoder
	plain     []byte // PLAIN values not yet decoded
	plainBit  uint64 // PLAIN booleans: bit position in plain
	boolRLE   bool

	// output of the current batch
	*flatBuffers
	nulls  int
	asDict bool // every row of the batch so far is a dictionary index

	// absent marks a column the file does not have (written before the
	// column was added to the schema): every row is null.
	absent bool
	// col is the table column's index (newFlatColumn), -1 if none.
	col int
}

// flatBuffers are a column's decoding buffers, kept across row groups (flatFree).
type flatBuffers struct {
	valid   []byte
	defBuf  []uint32
	idxBuf  []uint32
	idxOut  []int32
	offsets []int32
	strData []byte
	// offsCap and dataCap are the capacities of the last string buffers
	// given away (handOver): their replacements are made as large, from
	// handedMem (nil: Go memory). They stay with the buffers, which the
	// column's next chunk takes (flatFree): a consumer that names its
	// columns transient has every chunk's replacements recycled.
	offsCap, dataCap int
	handedMem        memory.Allocator
	fixed            []byte // fixed-width values and boolean bitmaps
	// the string dictionary's offsets
	dictOffsets []int32
}

// flatFree keeps the decoding buffers of each table column
// (occurrence.Columns' index) across row groups, a few per column (chunkFree
// the same for the page buffers). A sync.Pool's do not survive
// collections, which an export under its soft memory limit runs every
// ~100 ms (the buffers were then grown again: about a quarter of a DWCA
// export's allocations), and a shared pool passes a buffer from column to
// column, so that in time each pooled one is the size of the largest
// column's (the verbatim JSON's pages). Kept per column, a column's
// buffers are about its own size.
var (
	flatFree  = newFreeLists[flatBuffers](occurrence.NumColumns(), 2)
	chunkFree = newFreeLists[chunkBuffers](occurrence.NumColumns(), 2)
)

// freeLists are per-column stacks of at most max buffers each.
type freeLists[T any] struct {
	mu    sync.Mutex
	lists [][]*T
	max   int
}

func newFreeLists[T any](n, max int) *freeLists[T] {
	return &freeLists[T]{lists: make([][]*T, n), max: max}
}

// get returns column col's last buffers put back, or new ones (always for
// col < 0: a reader of no table column, a test's).
func (f *freeLists[T]) get(col int) *T {
	if col < 0 {
		return new(T)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	l := f.lists[col]
	if len(l) == 0 {
		return new(T)
	}
	b := l[len(l)-1]
	l[len(l)-1] = nil
	f.lists[col] = l[:len(l)-1]
	return b
}

// put keeps b for column col, unless col has max already or is < 0.
func (f *freeLists[T]) put(col int, b *T) {
	if col < 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.lists[col]) < f.max {
		f.lists[col] = append(f.lists[col], b)
	}
}

// dictKind reports whether batches of kind k stay dictionary-encoded while
// the pages are: the predicate then matches each distinct value once.
// Floats and timestamps are read as values (geometry and date kernels).
func dictKind(k occurrence.Kind) bool {
	return k == occurrence.KindString || k == occurrence.KindInt32 || k == occurrence.KindInt64
}

// pageSource yields the pages of one column chunk (chunkPages). A data page
// is valid until the next call, the dictionary page until close.
type pageSource interface {
	// next returns the next page in chunk order, io.EOF after the last.
	next() (*page, error)
	// seek returns the data page that holds row.
	seek(row int64) (*page, error)
	// dictionary returns the chunk's dictionary page, nil if it has none.
	dictionary() (*page, error)
	close()
}

// newFlatColumn decodes the pages of pr, a chunk of the table's column col
// (its index in occurrence.Columns, -1 for none), with buffers from and
// back to flatFree's list of col.
func newFlatColumn(col int, pr pageSource, kind occurrence.Kind, maxDef int16, where string) *flatColumn {
	c := &flatColumn{pr: pr, kind: kind, maxDef: maxDef, where: where, col: col, flatBuffers: flatFree.get(col)}
	switch kind {
	case occurrence.KindInt32:
		c.width = 4
	case occurrence.KindInt64, occurrence.KindTimestamp, occurrence.KindFloat64:
		c.width = 8
	}
	return c
}

// errCorrupt is the kind of every column chunk the fast reader cannot decode.
var errCorrupt = errors.New("parquet: corrupt column chunk")

func (c *flatColumn) errorf(format string, args ...any) error {
	return fmt.Errorf("read %s: %s: %w", c.where, fmt.Sprintf(format, args...), errCorrupt)
}

// close ends the column: arrays it returned are invalid from here on.
func (c *flatColumn) close() error {
	if c.flatBuffers != nil {
		flatFree.put(c.col, c.flatBuffers)
		c.flatBuffers = nil
	}
	if c.pr != nil {
		c.pr.close()
	}
	return nil
}

// newAbsentColumn reads a column the file does not have as nulls.
func newAbsentColumn(col int, kind occurrence.Kind, where string) *flatColumn {
	c := newFlatColumn(col, nil, kind, 0, where)
	c.absent = true
	return c
}

// nextPage moves to the next data page, loading a dictionary page on the way.
func (c *flatColumn) nextPage() error {
	for {
		p, err := c.pr.next()
		if err == io.EOF {
			return c.errorf("column chunk ended before its rows did")
		}
		if err != nil {
			return err
		}
		ok, err := c.startPage(p)
		if ok || err != nil {
			return err
		}
	}
}

// startPage prepares a data page for decoding (ok), or loads a dictionary
// page, or passes over a page of another kind.
func (c *flatColumn) startPage(p *page) (ok bool, err error) {
	switch p.typ {
	case pageDict:
		return false, c.loadDict(p)
	case pageData:
		data := p.data
		if c.maxDef > 0 {
			if p.defEncoding != pq.Encodings.RLE {
				return false, c.errorf("definition levels encoded as %s", p.defEncoding)
			}
			if len(data) < 4 {
				return false, c.errorf("truncated definition levels")
			}
			n := int(binary.LittleEndian.Uint32(data))
			if n > len(data)-4 {
				return false, c.errorf("definition levels of %d bytes in a page of %d", n, len(data))
			}
			if err := c.defs.reset(data[4:4+n], bits.Len16(uint16(c.maxDef))); err != nil {
				return false, err
			}
			data = data[4+n:]
		}
		return true, c.startValues(p, data)
	case pageDataV2:
		data := p.data
		rl, dl := int(p.repLen), int(p.defLen)
		if rl < 0 || dl < 0 || rl+dl > len(data) {
			return false, c.errorf("level lengths %d+%d in a page of %d bytes", rl, dl, len(data))
		}
		if c.maxDef > 0 {
			if err := c.defs.reset(data[rl:rl+dl], bits.Len16(uint16(c.maxDef))); err != nil {
				return false, err
			}
		}
		return true, c.startValues(p, data[rl+dl:])
	}
	return false, nil
}

// seek positions the column at row (of the row group), at or after the
// next row to decode: rows in the current page are skipped by decoding their
// levels and passing over their values; farther rows are reached through the
// page index without reading the pages in between.
func (c *flatColumn) seek(row int64) error {
	if c.absent {
		return nil
	}
	if c.cur == nil && row == 0 {
		return nil // next reads the chunk from its start, dictionary page first
	}
	next := c.pageFirst + int64(c.pageRows-c.pageLeft)
	if c.cur != nil && row == next {
		return nil
	}
	if c.cur == nil || row < next || row >= c.pageFirst+int64(c.pageRows) {
		p, err := c.pr.seek(row)
		if err != nil {
			return err
		}
		ok, err := c.startPage(p)
		if err != nil {
			return err
		}
		if !ok || row < c.pageFirst || row >= c.pageFirst+int64(c.pageRows) {
			return c.errorf("seek to row %d landed on rows %d+%d", row, c.pageFirst, c.pageRows)
		}
		next = c.pageFirst
	}
	return c.skip(int(row - next))
}

// skip passes over the next k rows of the current page.
func (c *flatColumn) skip(k int) error {
	if k == 0 {
		return nil
	}
	present := k
	if c.maxDef > 0 {
		ok, err := c.defs.skipRun(k, uint32(c.maxDef))
		if err != nil {
			return c.errorf("definition levels: %v", err)
		}
		if !ok {
			c.defBuf = grow(c.defBuf, k)
			if err := c.defs.read(c.defBuf[:k]); err != nil {
				return c.errorf("definition levels: %v", err)
			}
			present = 0
			for _, d := range c.defBuf[:k] {
				if d == uint32(c.maxDef) {
					present++
				}
			}
		}
	}
	c.pageLeft -= k
	switch {
	case c.useDict || c.boolRLE:
		if err := c.idx.skip(present); err != nil {
			return c.errorf("values: %v", err)
		}
	case c.kind == occurrence.KindBool:
		c.plainBit += uint64(present)
	case c.kind == occurrence.KindString:
		for range present {
			if len(c.plain) < 4 || int(binary.LittleEndian.Uint32(c.plain)) > len(c.plain)-4 {
				return c.errorf("truncated PLAIN string")
			}
			c.plain = c.plain[4+int(binary.LittleEndian.Uint32(c.plain)):]
		}
	default:
		if len(c.plain) < present*c.width {
			return c.errorf("%d PLAIN values in %d bytes", present, len(c.plain))
		}
		c.plain = c.plain[present*c.width:]
	}
	return nil
}

func (c *flatColumn) startValues(p *page, data []byte) error {
	c.cur = p
	c.pageLeft = int(p.numValues)
	if c.pageLeft < 0 {
		return c.errorf("page of %d values", c.pageLeft)
	}
	c.pageFirst, c.pageRows = p.first, c.pageLeft
	c.useDict, c.boolRLE, c.plain, c.plainBit = false, false, nil, 0
	switch enc := p.encoding; {
	case enc == pq.Encodings.RLEDict || enc == pq.Encodings.PlainDict:
		if err := c.lazyDict(); err != nil {
			return err
		}
		if !c.hasDict {
			return c.errorf("dictionary-encoded page without a dictionary")
		}
		if len(data) < 1 {
			return c.errorf("truncated dictionary indices")
		}
		c.useDict = true
		return c.idx.reset(data[1:], int(data[0]))
	case enc == pq.Encodings.Plain:
		c.plain = data
	case enc == pq.Encodings.RLE && c.kind == occurrence.KindBool:
		if len(data) < 4 || int(binary.LittleEndian.Uint32(data)) > len(data)-4 {
			return c.errorf("truncated RLE booleans")
		}
		c.boolRLE = true
		return c.idx.reset(data[4:4+binary.LittleEndian.Uint32(data)], 1)
	default:
		return c.errorf("unsupported value encoding %s", enc)
	}
	return nil
}

// lazyDict loads the dictionary of a chunk entered by a seek, when its first
// dictionary-encoded page is met: the pages a seek lands on after a fallback
// to PLAIN never need it. The dictionary page has its own buffer in the page
// reader, so loading it leaves the current data page intact.
func (c *flatColumn) lazyDict() error {
	if c.dictTried {
		return nil
	}
	c.dictTried = true
	dp, err := c.pr.dictionary()
	if err != nil {
		return err
	}
	if dp == nil {
		return nil
	}
	return c.loadDict(dp)
}

// loadDict takes the chunk's dictionary. It decodes in place: the page
// reader keeps a dictionary page's buffer for the whole column chunk and
// reads nothing else into it, so the values stay where they are (strings
// shifted over their length prefixes) until the column is closed.
func (c *flatColumn) loadDict(p *page) error {
	data := p.data
	n := int(p.numValues)
	if n < 0 {
		return c.errorf("dictionary of %d values", n)
	}
	c.dictLen, c.hasDict, c.dictTried = n, true, true
	switch c.kind {
	case occurrence.KindString:
		offsets := append(c.dictOffsets[:0], 0)
		buf := data[:0]
		for i := 0; i < n; i++ {
			if len(data) < 4 {
				return c.errorf("dictionary truncated at value %d of %d", i, n)
			}
			l := int(binary.LittleEndian.Uint32(data))
			if l > len(data)-4 {
				return c.errorf("dictionary value %d of %d bytes, %d left", i, l, len(data)-4)
			}
			buf = append(buf, data[4:4+l]...) // never past the bytes it reads
			offsets = append(offsets, int32(len(buf)))
			data = data[4+l:]
		}
		c.dictOffsets = offsets
		c.dictStr = array.NewStringData(array.NewData(arrow.BinaryTypes.String, n,
			[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)), memory.NewBufferBytes(buf)}, nil, 0, 0))
		c.dictArr = c.dictStr
	case occurrence.KindBool:
		return c.errorf("dictionary for a boolean column")
	default:
		if len(data) < n*c.width {
			return c.errorf("dictionary of %d values in %d bytes", n, len(data))
		}
		// No capacity past the values: arrow reinterprets a buffer's whole
		// capacity as values, and an empty dictionary in the last bytes of
		// the page buffer would make an int64 pointer reach past the
		// allocation (checkptr, on in race builds, aborts on that).
		c.dictFixed = data[: n*c.width : n*c.width]
		if dictKind(c.kind) {
			c.dictArr = array.MakeFromData(array.NewData(c.kind.ArrowType(), n,
				[]*memory.Buffer{nil, memory.NewBufferBytes(c.dictFixed)}, nil, 0, 0))
		}
	}
	return nil
}

// next decodes the next n rows.
func (c *flatColumn) next(n int) (arrow.Array, error) {
	if c.absent {
		return occurrence.NullArray(c.kind.ArrowType(), n), nil
	}
	if c.pageLeft == 0 {
		// Load the dictionary first: a batch starts as indices only if it has one.
		if err := c.nextPage(); err != nil {
			return nil, err
		}
	}
	c.begin(n)
	for row := 0; row < n; {
		if c.pageLeft == 0 {
			if err := c.nextPage(); err != nil {
				return nil, err
			}
			continue
		}
		k := min(n-row, c.pageLeft)
		present, err := c.levels(row, k)
		if err != nil {
			return nil, err
		}
		if err := c.values(row, k, present); err != nil {
			return nil, err
		}
		c.pageLeft -= k
		row += k
	}
	return c.array(n), nil
}

func (c *flatColumn) begin(n int) {
	c.valid = grow(c.valid, (n+7)/8)
	for i := range c.valid {
		c.valid[i] = 0xff
	}
	c.nulls = 0
	c.asDict = c.dictArr != nil
	if c.asDict {
		c.idxOut = grow(c.idxOut, n)
	}
	switch c.kind {
	case occurrence.KindString:
		if c.offsets == nil {
			c.newStringBuffers(n)
		}
		c.offsets = append(c.offsets[:0], 0)
		c.strData = c.strData[:0]
	case occurrence.KindBool:
		c.fixed = grow(c.fixed, (n+7)/8)
		clear(c.fixed)
	default:
		c.fixed = grow(c.fixed, n*c.width)
	}
}

// levels decodes the definition levels of rows [row, row+k) into the
// validity bitmap and returns how many hold a value.
func (c *flatColumn) levels(row, k int) (int, error) {
	if c.maxDef == 0 {
		return k, nil
	}
	if ok, err := c.defs.skipRun(k, uint32(c.maxDef)); err != nil {
		return 0, c.errorf("definition levels: %v", err)
	} else if ok {
		return k, nil
	}
	c.defBuf = grow(c.defBuf, k)
	if err := c.defs.read(c.defBuf[:k]); err != nil {
		return 0, c.errorf("definition levels: %v", err)
	}
	present := 0
	for i, d := range c.defBuf[:k] {
		if d == uint32(c.maxDef) {
			present++
			continue
		}
		r := row + i
		c.valid[r>>3] &^= 1 << (r & 7)
	}
	c.nulls += k - present
	return present, nil
}
