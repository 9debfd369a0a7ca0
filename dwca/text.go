package dwca

import (
	"encoding/binary"
	"io"
	"unicode/utf8"
)

// TextWriter writes the data files of an archive the way GBIF's downloads
// do and python-dwca-reader, R and spreadsheet tools read them: UTF-8, tab
// separated, no quote character, "\n" line ends. Characters that would
// break a row apart (see CleanValue) become a space, and a value's edges
// are trimmed. It does not own the
// underlying writer; call Flush at the end.
//
// Rows are built in one buffer handed to the writer in large writes: a
// download's hot path. Cells that are printable ASCII, nearly all of them,
// are checked eight bytes at a time and copied once. Besides whole rows
// (WriteRow, or Value per cell then EndRow), a caller may build rows of
// clean text itself and hand them over (Rows and SetRows, AppendRows):
// that is how the download formats write Arrow columns without a string
// per cell, cleaning formatted text in place with CleanFrom.
type TextWriter struct {
	w     io.Writer
	buf   []byte
	cells int // cells in the current row
	err   error
	// direct is w's AvailableBuffer when it has one (the zip writer's
	// entries): rows are then built in the free space of the chunk being
	// deflated and handed over without a copy.
	direct func() []byte
	own    []byte // the buffer otherwise
	limit  int    // flush once buf is this long
}

const (
	rowFlushBytes = 256 << 10
	// rowMargin is the room a direct buffer keeps for the row being built;
	// a longer row outgrows the buffer and is copied.
	rowMargin = 64 << 10
)

// NewTextWriter returns a TextWriter on w. Rows are built in the
// TextWriter's own buffer, so w may also be written to directly between
// Flushes.
func NewTextWriter(w io.Writer) *TextWriter {
	t := &TextWriter{w: w}
	t.reset()
	return t
}

// NewExclusiveTextWriter returns a TextWriter on w that builds rows in w's
// free space when w offers it (an AvailableBuffer method, as zip entries and
// spools of internal/pzip have): no copy between the row buffer and the
// compressor. w must then be written through the TextWriter only: bytes
// written to w directly would land where pending rows are built.
func NewExclusiveTextWriter(w io.Writer) *TextWriter {
	t := &TextWriter{w: w}
	if ab, ok := w.(interface{ AvailableBuffer() []byte }); ok {
		t.direct = ab.AvailableBuffer
	}
	t.reset()
	return t
}

// WriteHeader writes the header row (the term names).
func (t *TextWriter) WriteHeader(names []string) error { return t.WriteRow(names) }

// WriteRow writes one row. Values are cleaned with the rules of CleanValue
// without allocating.
func (t *TextWriter) WriteRow(values []string) error {
	if t.err != nil {
		return t.err
	}
	for _, v := range values {
		t.Value(v)
	}
	return t.EndRow()
}

// Error returns the first error met while writing, if any.
func (t *TextWriter) Error() error { return t.err }

// reset starts an empty buffer: the writer's free space when it offers
// enough, else the TextWriter's own.
func (t *TextWriter) reset() {
	if t.direct != nil {
		if b := t.direct(); cap(b) >= 2*rowMargin {
			t.buf, t.limit = b, cap(b)-rowMargin
			return
		}
	}
	if t.own == nil {
		t.own = make([]byte, 0, rowFlushBytes+rowMargin)
	}
	t.buf, t.limit = t.own[:0], rowFlushBytes
}

func (t *TextWriter) sep() {
	if t.cells > 0 {
		t.buf = append(t.buf, '\t')
	}
	t.cells++
}

// AppendTabs appends n separators (none for n <= 0), for a caller that
// builds rows itself (Rows): a run of empty cells. Like
// wordcopy.Append, it may write up to 16 bytes past the returned length
// within dst's capacity: bytes there are free space, not data.
func AppendTabs(dst []byte, n int) []byte {
	if n == 1 {
		return append(dst, '\t')
	}
	if l := len(dst); n > 0 && n <= 16 && cap(dst)-l >= 16 {
		// A short run (the usual one) as two 8-byte words of tabs, with
		// no call: what lies past the n written is overwritten next.
		// (wordcopy.Append over a slice of tabs does the same, but then
		// AppendTabs no longer inlines: +1.8% instructions on a DWCA.)
		w := dst[l : l+16]
		binary.LittleEndian.PutUint64(w, tabWord)
		binary.LittleEndian.PutUint64(w[8:], tabWord)
		return dst[:l+n]
	}
	for n > len(tabs) {
		dst = append(dst, tabs...)
		n -= len(tabs)
	}
	return append(dst, tabs[:max(n, 0)]...)
}

// tabWord is eight separators.
const tabWord = 0x0909090909090909

// tabs are separators for AppendTabs to copy.
const tabs = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t" +
	"\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"

// Value appends s as the next cell of the row.
func (t *TextWriter) Value(s string) {
	t.sep()
	t.buf = AppendClean(t.buf, s)
}

// CleanFrom applies the CleanValue rules to dst[start:], text a caller
// has just appended (a formatted cell), in place of it: dst as it is when
// nothing needs replacing, nearly always.
func CleanFrom(dst []byte, start int) []byte {
	if v := dst[start:]; !PlainASCII(v) && needsCleaning(v) {
		dst = appendCleaned(dst[:start], string(v))
	}
	return trimFrom(dst, start)
}

// AppendClean appends s to dst with the CleanValue rules applied: as it is
// when nothing needs replacing, nearly always (printable ASCII is checked
// eight bytes at a time).
func AppendClean(dst []byte, s string) []byte {
	if PlainASCII([]byte(s)) || !needsCleaning(s) {
		if trimmed(s) {
			return append(dst, s...)
		}
		return trimFrom(append(dst, s...), len(dst))
	}
	return trimFrom(appendCleaned(dst, s), len(dst))
}

// trimmed reports whether s neither starts nor ends with a byte the text
// rules trim (at most U+0020, as Java's String.trim).
func trimmed[S string | []byte](s S) bool {
	return len(s) == 0 || (s[0] > ' ' && s[len(s)-1] > ' ')
}

// trimFrom trims dst[start:], a cell just appended, of its leading and
// trailing bytes up to U+0020 (cleaned breaks are spaces by then).
func trimFrom(dst []byte, start int) []byte {
	v := dst[start:]
	if trimmed(v) {
		return dst
	}
	i, j := 0, len(v)
	for i < j && v[i] <= ' ' {
		i++
	}
	for j > i && v[j-1] <= ' ' {
		j--
	}
	copy(v, v[i:j])
	return dst[:start+j-i]
}

// Rows returns the buffer of rows not yet written out, for a caller that
// builds whole rows itself (a download's formats, column by column plan):
// append complete rows of clean text, each ended by "\n", and hand the
// buffer back with SetRows. No row may be in progress (Value, Cell without
// EndRow).
func (t *TextWriter) Rows() []byte { return t.buf }

// SetRows takes back the buffer Rows returned, extended by complete rows,
// writes them out when they are many, and returns the buffer the next
// rows are appended to.
func (t *TextWriter) SetRows(b []byte) ([]byte, error) {
	t.buf = b
	if len(b) >= t.limit {
		t.Flush()
	}
	return t.buf, t.err
}

// AppendRows appends complete rows built elsewhere (clean text, each
// ended by "\n", as Rows describes), for a caller that formats some rows
// on another goroutine: they go out after the rows already buffered,
// written at once when they are many. No row may be in progress.
func (t *TextWriter) AppendRows(p []byte) error {
	if t.err != nil {
		return t.err
	}
	if len(t.buf)+len(p) > cap(t.buf) {
		if err := t.Flush(); err != nil {
			return err
		}
		if len(p) >= t.limit {
			_, t.err = t.w.Write(p)
			// p landed in w's free space, where an exclusive writer's
			// next rows would have been built: build them after it.
			t.reset()
			return t.err
		}
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) >= t.limit {
		return t.Flush()
	}
	return t.err
}

// EndRow finishes the row, writing the buffer out when it is large.
func (t *TextWriter) EndRow() error {
	t.buf = append(t.buf, '\n')
	t.cells = 0
	if len(t.buf) >= t.limit {
		return t.Flush()
	}
	return t.err
}

// Flush writes buffered rows to the underlying writer.
func (t *TextWriter) Flush() error {
	if t.err == nil && len(t.buf) > 0 {
		_, t.err = t.w.Write(t.buf)
	}
	t.reset()
	return t.err
}

// PlainASCII reports whether b holds only bytes 0x20..0x7f, eight at a time:
// (x - 0x20..) | x has a high bit set exactly where some byte is below 0x20
// (borrow) or at least 0x80.
func PlainASCII(b []byte) bool {
	const lo, hi = 0x2020202020202020, 0x8080808080808080
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if ((x-lo)|x)&hi != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}

// CleanValue applies the DwC-A download text rules to one value: tab, CR, LF,
// U+000B, U+000C, U+0085, U+2028, U+2029 and NUL become a space; invalid UTF-8
// bytes become U+FFFD; then leading and trailing spaces and control
// characters are trimmed. These are GBIF's rules (occurrence-spark-udf
// CleanDelimiters, which gbif/pipelines' table build applies to every text
// column, verbatim ones too: each such character becomes a space, then
// Java's String.trim). Values needing no change are returned as they are.
func CleanValue(s string) string {
	if !needsCleaning(s) && trimmed(s) {
		return s
	}
	return string(AppendClean(make([]byte, 0, len(s)+8), s))
}

// appendCleaned appends s with the CleanValue rules applied.
func appendCleaned(b []byte, s string) []byte {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
				continue
			}
		}
		if isBreaking(r) {
			b = append(b, ' ')
		} else {
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}

// byteClass sorts bytes for needsCleaning: 0 plain, 1 a control character
// that becomes a space, 2 the lead byte of U+0085 (C2), 3 the lead byte of
// U+2028/U+2029 (E2), 4 another non-ASCII byte.
var byteClass = func() (t [256]byte) {
	for _, c := range []byte{0, '\t', '\n', '\v', '\f', '\r'} {
		t[c] = 1
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = 4
	}
	t[0xC2], t[0xE2] = 2, 3
	return t
}()

// needsCleaning reports whether s holds a character CleanValue replaces. It
// is one table lookup per byte; strings with non-ASCII bytes are also
// checked for invalid UTF-8. It takes bytes too, so that a cell formatted
// into a row buffer is checked in place.
func needsCleaning[S string | []byte](s S) bool {
	nonASCII := false
	for i := 0; i < len(s); i++ {
		switch byteClass[s[i]] {
		case 0:
		case 1:
			return true
		case 2:
			if i+1 < len(s) && s[i+1] == 0x85 {
				return true
			}
			nonASCII = true
		case 3:
			if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
				return true
			}
			nonASCII = true
		default:
			nonASCII = true
		}
	}
	return nonASCII && !validUTF8(s)
}

func validUTF8[S string | []byte](s S) bool {
	if b, ok := any(s).([]byte); ok {
		return utf8.Valid(b)
	}
	return utf8.ValidString(string(s))
}

func isBreaking(r rune) bool {
	switch r {
	case 0, '\t', '\n', '\v', '\f', '\r', 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}
