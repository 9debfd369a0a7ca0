package parquet

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/apache/arrow-go/v18/parquet/compress"
)

// page is one page of a column chunk: its header and its body decompressed
// (data pages v2: the levels, then the values).
type page struct {
	pageHeader
	data  []byte
	first int64 // the page's first row in the row group (data pages)
}

// chunkPages reads the pages of one column chunk straight from the file:
// page headers are parsed off the bytes (pageheader.go), bodies are
// decompressed into buffers reused from page to page and pooled across
// chunks, reads in chunk order go through a read-ahead window, and a seek
// reads exactly the page the offset index names. A page returned is valid
// until the next call; the dictionary page until close.
type chunkPages struct {
	r     io.ReaderAt
	where string // file, row group and column, for errors
	meta  chunkMeta
	codec compress.Codec // nil when uncompressed
	start int64          // the chunk's first page (the dictionary, if any)
	end   int64

	locs     []pageLoc // the offset index, once read
	locsRead bool

	pos     int64 // file offset of the next page in chunk order
	nextRow int64 // first row of that page

	*chunkBuffers
	col int // the table column's index (newChunkPages), -1 if none
}

// chunkBuffers are a chunk reader's buffers, kept across chunks (chunkFree).
type chunkBuffers struct {
	win  window // pages read in order or by seek
	aux  window // the dictionary page after a seek, the offset index
	out  []byte // the current data page, decompressed
	dict []byte // the dictionary page, decompressed
}

const (
	// readAhead is how much a read in chunk order fetches at once.
	readAhead = 128 << 10
	// maxPageHeader bounds a page header (statistics can make them long).
	maxPageHeader = 16 << 20
	// maxPageBytes bounds a page body: a larger claim is corrupt input,
	// not a reason to allocate.
	maxPageBytes = 256 << 20
	// maxSnappyRatio bounds how much snappy can expand its input (its
	// densest element, a 3-byte copy, yields 64 bytes): a page claiming more
	// is corrupt.
	maxSnappyRatio = 64
)

// newChunkPages reads the chunk m of r, a file of size bytes: the chunk and
// its offset index must lie within the file, which bounds every read and
// buffer by what the file holds. col is the chunk's table column (its
// index in occurrence.Columns, -1 for none), whose buffers come from and go
// back to chunkFree's list of col.
func newChunkPages(col int, r io.ReaderAt, size int64, m chunkMeta, where string) (*chunkPages, error) {
	c := &chunkPages{r: r, where: where, meta: m, start: m.dataAt, end: m.dataAt + m.size, col: col}
	if m.dictAt > 0 && m.dictAt < m.dataAt {
		c.start = m.dictAt
		c.end = m.dictAt + m.size
	}
	if m.size < 0 || c.start < 0 || c.end < c.start || c.end > size {
		return nil, c.errorf("chunk at %d of %d bytes in a file of %d", c.start, m.size, size)
	}
	if m.oiLen != 0 && (m.oiLen < 0 || m.oiAt < 0 || m.oiAt > size-int64(m.oiLen)) {
		return nil, c.errorf("offset index at %d of %d bytes in a file of %d", m.oiAt, m.oiLen, size)
	}
	if m.codec != int32(compress.Codecs.Uncompressed) {
		codec, err := compress.GetCodec(compress.Compression(m.codec))
		if err != nil {
			return nil, c.errorf("compression codec %d: %v", m.codec, err)
		}
		c.codec = codec
	}
	c.pos = c.start
	c.chunkBuffers = chunkFree.get(col)
	c.win.clear() // the windows held another chunk's bytes
	c.aux.clear()
	return c, nil
}

func (c *chunkPages) errorf(format string, args ...any) error {
	return fmt.Errorf("read %s: %s: %w", c.where, fmt.Sprintf(format, args...), errCorrupt)
}

// close gives the buffers back (chunkFree): no page may be used after it.
func (c *chunkPages) close() {
	if c.chunkBuffers != nil {
		chunkFree.put(c.col, c.chunkBuffers)
		c.chunkBuffers = nil
	}
}

// next returns the next page in chunk order (dictionary or data), io.EOF
// after the last. Index pages are passed over.
func (c *chunkPages) next() (*page, error) {
	for c.pos < c.end {
		h, off, err := c.nextHeader()
		if err != nil {
			return nil, err
		}
		switch h.typ {
		case pageDict:
			return c.body(&c.win, h, off, &c.dict, true)
		case pageData, pageDataV2:
			p, err := c.body(&c.win, h, off, &c.out, true)
			if err != nil {
				return nil, err
			}
			p.first = c.nextRow
			c.nextRow += h.rows()
			return p, nil
		}
	}
	return nil, io.EOF
}

// nextHeader reads the header of the page at c.pos and moves c.pos past
// the page; off is where its body starts.
func (c *chunkPages) nextHeader() (h pageHeader, off int64, err error) {
	h, err = c.header(&c.win, c.pos, c.end, true)
	if err != nil {
		return h, 0, err
	}
	off = c.pos + int64(h.size)
	c.pos = off + int64(h.compressed)
	return h, off, nil
}

// seek returns the data page that holds row, read through the offset index
// when the chunk has one, else by passing over page headers from the chunk
// start or the page reached so far.
func (c *chunkPages) seek(row int64) (*page, error) {
	locs, err := c.offsetIndex()
	if err != nil {
		return nil, err
	}
	if locs == nil {
		return c.scanTo(row)
	}
	i := sort.Search(len(locs), func(i int) bool { return locs[i].firstRow > row }) - 1
	if i < 0 {
		return nil, c.errorf("no page holds row %d", row)
	}
	l := locs[i]
	limit := l.offset + int64(l.size)
	if _, err := c.win.fetch(c, l.offset, int(l.size), false); err != nil {
		return nil, err
	}
	h, err := c.header(&c.win, l.offset, limit, false)
	if err != nil {
		return nil, err
	}
	if h.typ != pageData && h.typ != pageDataV2 {
		return nil, c.errorf("offset index names a page of type %d at %d", h.typ, l.offset)
	}
	p, err := c.body(&c.win, h, l.offset+int64(h.size), &c.out, false)
	if err != nil {
		return nil, err
	}
	p.first = l.firstRow
	c.pos, c.nextRow = limit, l.firstRow+h.rows()
	return p, nil
}

// scanTo reads headers in chunk order up to the data page holding row and
// returns that page, decompressing none of the pages before it.
func (c *chunkPages) scanTo(row int64) (*page, error) {
	if row < c.nextRow {
		c.pos, c.nextRow = c.start, 0
	}
	for c.pos < c.end {
		h, off, err := c.nextHeader()
		if err != nil {
			return nil, err
		}
		if h.typ != pageData && h.typ != pageDataV2 {
			continue
		}
		first := c.nextRow
		c.nextRow += h.rows()
		if row < c.nextRow {
			p, err := c.body(&c.win, h, off, &c.out, true)
			if err != nil {
				return nil, err
			}
			p.first = first
			return p, nil
		}
	}
	return nil, c.errorf("no page holds row %d", row)
}

// dictionary reads the chunk's dictionary page (nil if it has none) without
// disturbing the current data page: it has its own read window and buffer.
func (c *chunkPages) dictionary() (*page, error) {
	if c.start >= c.end {
		return nil, nil
	}
	h, err := c.header(&c.aux, c.start, c.end, false)
	if err != nil {
		return nil, err
	}
	if h.typ != pageDict {
		return nil, nil
	}
	return c.body(&c.aux, h, c.start+int64(h.size), &c.dict, false)
}

// offsetIndex reads the chunk's offset index once; nil when it has none.
func (c *chunkPages) offsetIndex() ([]pageLoc, error) {
	if c.locsRead || c.meta.oiLen <= 0 {
		return c.locs, nil
	}
	c.locsRead = true
	if c.meta.oiLen > maxPageHeader {
		return nil, c.errorf("offset index of %d bytes", c.meta.oiLen)
	}
	b, err := c.aux.fetch(c, c.meta.oiAt, int(c.meta.oiLen), false)
	if err != nil {
		return nil, err
	}
	locs, err := parseOffsetIndex(b)
	if err != nil {
		return nil, fmt.Errorf("read %s: offset index: %w (%w)", c.where, err, errCorrupt)
	}
	for i, l := range locs {
		if l.offset < c.start || l.size <= 0 || l.offset+int64(l.size) > c.end ||
			(i == 0 && l.firstRow != 0) || (i > 0 && l.firstRow <= locs[i-1].firstRow) {
			return nil, c.errorf("offset index entry %d (offset %d, %d bytes, row %d) outside the chunk or out of order", i, l.offset, l.size, l.firstRow)
		}
	}
	if len(locs) == 0 {
		return nil, nil
	}
	c.locs = locs
	return locs, nil
}

// header parses the page header at off; the page must end by limit.
func (c *chunkPages) header(w *window, off, limit int64, ahead bool) (pageHeader, error) {
	n := int(min(256, limit-off))
	for {
		b, err := w.fetch(c, off, n, ahead)
		if err != nil {
			return pageHeader{}, err
		}
		h, err := parsePageHeader(b)
		if errors.Is(err, errShort) && int64(n) < limit-off && n < maxPageHeader {
			n = int(min(int64(n)*8, limit-off, maxPageHeader))
			continue
		}
		if err != nil {
			return h, fmt.Errorf("read %s: page header at %d: %w (%w)", c.where, off, err, errCorrupt)
		}
		if end := off + int64(h.size) + int64(h.compressed); end > limit {
			return h, c.errorf("page at %d of %d bytes runs past its chunk or index entry (ends %d)", off, h.compressed, limit)
		}
		if h.uncompressed > maxPageBytes ||
			(c.meta.codec == int32(compress.Codecs.Snappy) && int64(h.uncompressed) > int64(h.compressed)*maxSnappyRatio+64) {
			return h, c.errorf("page at %d of %d bytes claims %d uncompressed", off, h.compressed, h.uncompressed)
		}
		return h, nil
	}
}

// body reads and decompresses the body of page h, which starts at off;
// decompressed bytes go to *dst. Uncompressed bodies stay in the read
// window, except dictionaries, which must outlive it (and are decoded in
// place).
func (c *chunkPages) body(w *window, h pageHeader, off int64, dst *[]byte, ahead bool) (*page, error) {
	raw, err := w.fetch(c, off, int(h.compressed), ahead)
	if err != nil {
		return nil, err
	}
	p := &page{pageHeader: h}
	levels := 0
	if h.typ == pageDataV2 {
		levels = int(h.defLen) + int(h.repLen)
		if levels > len(raw) || levels > int(h.uncompressed) {
			return nil, c.errorf("page at %d: %d bytes of levels in a page of %d", off, levels, len(raw))
		}
	}
	compressed := c.codec != nil && (h.typ != pageDataV2 || h.compressedV2)
	if !compressed {
		if h.typ != pageDict {
			p.data = raw
			return p, nil
		}
		if len(raw) != int(h.uncompressed) {
			return nil, c.errorf("uncompressed page at %d of %d bytes, header says %d", off, len(raw), h.uncompressed)
		}
		*dst = append((*dst)[:0], raw...)
		p.data = *dst
		return p, nil
	}
	*dst = grow(*dst, int(h.uncompressed))
	out := *dst
	copy(out, raw[:levels])
	got, err := compress.Decode(c.codec, out[levels:], raw[levels:])
	if err != nil {
		return nil, fmt.Errorf("read %s: page at %d: %w (%w)", c.where, off, err, errCorrupt)
	}
	if len(got) != len(out)-levels || (len(got) > 0 && &got[0] != &out[levels]) {
		return nil, c.errorf("page at %d decompressed to %d bytes, header says %d", off, len(got), len(out)-levels)
	}
	p.data = out
	return p, nil
}

// window is a buffer holding file bytes [off, off+len(buf)).
type window struct {
	buf []byte
	off int64
}

func (w *window) clear() { w.buf, w.off = w.buf[:0], 0 }

// fetch returns file bytes [off, off+n) of c's chunk area, reading them
// unless the window holds them; with ahead it reads up to readAhead bytes
// (not past the chunk) so that the pages after it come from the same read.
func (w *window) fetch(c *chunkPages, off int64, n int, ahead bool) ([]byte, error) {
	if n < 0 {
		return nil, c.errorf("read of %d bytes at %d", n, off)
	}
	if len(w.buf) > 0 && off >= w.off && off+int64(n) <= w.off+int64(len(w.buf)) {
		return w.buf[off-w.off:][:n], nil
	}
	size := n
	if ahead && size < readAhead {
		size = int(min(int64(readAhead), max(c.end-off, int64(n))))
	}
	w.buf = grow(w.buf, size)
	got, err := c.r.ReadAt(w.buf, off)
	if got < n {
		w.clear()
		if err == nil || errors.Is(err, io.EOF) {
			return nil, c.errorf("%d bytes at %d, file ends after %d", n, off, got)
		}
		return nil, fmt.Errorf("read %s: %w", c.where, err)
	}
	w.buf, w.off = w.buf[:got], off
	return w.buf[:n], nil
}
