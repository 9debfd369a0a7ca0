package dwca

import (
	"io"
	"unicode/utf8"
)

// TextWriter writes the data files of a download the way GBIF does and
// python-dwca-reader, R and spreadsheet tools read them: UTF-8, tab separated,
// no quote character, "\n" line ends. Characters that would break a row apart
// (see CleanValue) become a space. TextWriter buffers; call Flush at the end.
// It does not own the underlying writer. It is the exported face of the
// download formats' rowWriter.
type TextWriter struct {
	rw *rowWriter
}

// NewTextWriter returns a TextWriter on w.
func NewTextWriter(w io.Writer) *TextWriter {
	// Rows are built in the rowWriter's own buffer, never in w's free space
	// (newRowWriter's AvailableBuffer mode): w is not the TextWriter's, and
	// bytes written to it directly would land where pending rows are built.
	rw := &rowWriter{w: w}
	rw.reset()
	return &TextWriter{rw: rw}
}

// WriteHeader writes the header row (the term names).
func (t *TextWriter) WriteHeader(names []string) error { return t.WriteRow(names) }

// WriteRow writes one row. Values are cleaned with the rules of CleanValue
// without allocating.
func (t *TextWriter) WriteRow(values []string) error {
	if t.rw.err != nil {
		return t.rw.err
	}
	return t.rw.row(values)
}

// Flush writes buffered data to the underlying writer.
func (t *TextWriter) Flush() error { return t.rw.flush() }

// Error returns the first error met while writing, if any.
func (t *TextWriter) Error() error { return t.rw.err }

// CleanValue applies the DwC-A download text rules to one value: tab, CR, LF,
// U+000B, U+000C, U+0085, U+2028, U+2029 and NUL become a space; invalid UTF-8
// bytes become U+FFFD. Values needing no change are returned as they are.
func CleanValue(s string) string {
	if !needsCleaning(s) {
		return s
	}
	return string(appendCleaned(make([]byte, 0, len(s)+8), s))
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
