package dwca

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/biodiversity-downloads/downloader/internal/charset"
)

// Kinds of broken rows, wrapped in *RowError.
var (
	ErrUnclosedQuote  = errors.New("quoted value not closed")
	ErrInvalidUTF8    = errors.New("invalid UTF-8")
	ErrTooManyColumns = errors.New("more columns than the header")
	ErrRowTooLong     = errors.New("row too long")
)

// MaxRowBytes caps the bytes of one row (all lines of a row with quoted line
// breaks). A quote that is never closed would otherwise swallow the file.
const MaxRowBytes = 8 << 20

// scanBufSize is the read buffer of a data file.
const scanBufSize = 256 << 10

// lineMode says how physical lines end.
type lineMode int

const (
	modeLF     lineMode = iota // "\n", a preceding "\r" is dropped (CRLF)
	modeCR                     // lone "\r" (old Mac files)
	modeCustom                 // any other declared terminator
)

// rawLine is one physical line without its terminator.
type rawLine struct {
	b    []byte
	line int
}

// scanner splits one data file into rows of cells. It holds at most one row
// (bounded by MaxRowBytes) in memory.
type scanner struct {
	br      *bufio.Reader
	mode    lineMode
	term    []byte
	sep     []byte
	quote   []byte
	utf8    bool
	maxRow  int       // MaxRowBytes, smaller in tests
	line    int       // physical lines read from br
	pending []rawLine // lines pushed back after an unclosed quote
	acc     []byte    // accumulator for lines longer than the buffer
	eof     bool

	// current row
	arena   []byte
	ends    []int
	inQuote bool
	stray   bool      // a quote inside a quoted value was not followed by a separator
	lines   []rawLine // raw lines of a row spanning several lines
	slab    []string  // unused cell headers (see cells)
}

func newScanner(r io.Reader, spec *FileSpec) *scanner {
	br := bufio.NewReaderSize(r, scanBufSize)
	s := &scanner{br: br, sep: []byte(spec.FieldsTerminatedBy), quote: []byte(spec.FieldsEnclosedBy),
		utf8: charset.IsUTF8(spec.Encoding), maxRow: MaxRowBytes}
	switch spec.LinesTerminatedBy {
	case "\n", "\r\n", "\r", "":
		s.mode = detectLineMode(br)
	default:
		s.mode, s.term = modeCustom, []byte(spec.LinesTerminatedBy)
	}
	return s
}

// detectLineMode looks at the start of the file: files whose lines end in a
// lone CR are read in CR mode, all others split at LF (dropping a CR before it).
func detectLineMode(br *bufio.Reader) lineMode {
	head, _ := br.Peek(64 << 10)
	if bytes.IndexByte(head, '\n') < 0 && bytes.IndexByte(head, '\r') >= 0 {
		return modeCR
	}
	return modeLF
}

// physLine returns the next physical line. The returned slice is valid until
// the next call.
func (s *scanner) physLine() (rawLine, error) {
	if n := len(s.pending); n > 0 {
		l := s.pending[0]
		s.pending = s.pending[1:]
		return l, nil
	}
	if s.eof {
		return rawLine{}, io.EOF
	}
	delim := byte('\n')
	switch s.mode {
	case modeCR:
		delim = '\r'
	case modeCustom:
		delim = s.term[len(s.term)-1]
	}
	s.acc = s.acc[:0]
	for {
		chunk, err := s.br.ReadSlice(delim)
		if err == bufio.ErrBufferFull {
			if len(s.acc)+len(chunk) > s.maxRow {
				return rawLine{}, s.skipLine(delim)
			}
			s.acc = append(s.acc, chunk...)
			continue
		}
		b := chunk
		if len(s.acc) > 0 {
			s.acc = append(s.acc, chunk...)
			b = s.acc
		}
		if err == io.EOF {
			s.eof = true
			if s.mode == modeLF && len(b) > 0 && b[len(b)-1] == '\r' {
				b = b[:len(b)-1] // a last line ending in a lone CR
			}
			if len(b) == 0 {
				return rawLine{}, io.EOF
			}
			s.line++
			return rawLine{b: b, line: s.line}, nil
		}
		if err != nil {
			return rawLine{}, err
		}
		if s.mode == modeCustom && !bytes.HasSuffix(b, s.term) {
			// the last byte of the terminator inside a line: keep reading
			if len(s.acc) == 0 {
				s.acc = append(s.acc, chunk...)
			}
			continue
		}
		s.line++
		return rawLine{b: s.trimTerm(b), line: s.line}, nil
	}
}

// skipLine discards the rest of an overlong line and reports it.
func (s *scanner) skipLine(delim byte) error {
	s.acc = s.acc[:0]
	for {
		_, err := s.br.ReadSlice(delim)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			return err
		}
		s.line++
		return ErrRowTooLong
	}
}

func (s *scanner) trimTerm(b []byte) []byte {
	switch s.mode {
	case modeLF:
		b = b[:len(b)-1]
		if len(b) > 0 && b[len(b)-1] == '\r' {
			b = b[:len(b)-1]
		}
	case modeCR:
		b = b[:len(b)-1]
	case modeCustom:
		b = b[:len(b)-len(s.term)]
	}
	return b
}

// next reads the next row into the arena. It returns the line number where
// the row starts. Blank lines are skipped. A broken row is returned as an
// error wrapped with its line (by the caller) and the scanner stays usable.
func (s *scanner) next() (line int, err error) {
	for {
		l, err := s.physLine()
		if err != nil {
			return 0, err
		}
		if len(l.b) == 0 {
			continue
		}
		return l.line, s.row(l)
	}
}

// row parses a row starting with physical line l, reading further lines while
// a quoted value spans line breaks.
func (s *scanner) row(first rawLine) error {
	s.arena, s.ends, s.inQuote, s.stray, s.lines = s.arena[:0], s.ends[:0], false, false, s.lines[:0]
	s.parseLine(first.b)
	if !s.inQuote {
		return s.checkUTF8()
	}
	s.lines = append(s.lines, rawLine{b: bytes.Clone(first.b), line: first.line})
	size := len(first.b)
	for s.inQuote {
		l, err := s.physLine()
		if err == io.EOF || (err == nil && size+len(l.b) > s.maxRow) {
			if err == nil {
				s.lines = append(s.lines, rawLine{b: bytes.Clone(l.b), line: l.line})
			}
			return s.unclosed()
		}
		if err != nil {
			return err
		}
		s.lines = append(s.lines, rawLine{b: bytes.Clone(l.b), line: l.line})
		size += len(l.b) + 1
		s.arena = append(s.arena, '\n')
		s.parseLine(l.b)
		if s.stray {
			// The value "closed" with a quote not followed by a separator: the
			// quote that opened it on the first line was not meant as one.
			return s.unclosed()
		}
	}
	return s.checkUTF8()
}

// unclosed gives the lines after the first back, so that the rows after a
// stray opening quote are read again, and reports the first line as broken.
func (s *scanner) unclosed() error {
	s.pending = append(append([]rawLine(nil), s.lines[1:]...), s.pending...)
	s.inQuote = false
	return ErrUnclosedQuote
}

// checkUTF8 checks the row's cells: the arena holds them without their
// separators, so it is valid UTF-8 and no cell starts with a continuation
// byte exactly when every cell is valid ("\xd2" and "\xa4" are two broken
// cells, though the arena's "\xd2\xa4" is one rune).
func (s *scanner) checkUTF8() error {
	if !s.utf8 {
		return nil
	}
	if !utf8.Valid(s.arena) {
		return ErrInvalidUTF8
	}
	for _, end := range s.ends {
		if end < len(s.arena) && !utf8.RuneStart(s.arena[end]) {
			return ErrInvalidUTF8
		}
	}
	return nil
}

// parseLine adds the cells of one physical line to the current row. When a
// quoted value is open (s.inQuote) the line continues it.
func (s *scanner) parseLine(b []byte) {
	i := 0
	if s.inQuote {
		i = s.quoted(b, 0)
		if s.inQuote || i < 0 {
			return
		}
	}
	for {
		if len(s.quote) > 0 && bytes.HasPrefix(b[i:], s.quote) {
			s.inQuote = true
			i = s.quoted(b, i+len(s.quote))
			if s.inQuote || i < 0 {
				return
			}
			continue
		}
		j := bytes.Index(b[i:], s.sep)
		if j < 0 {
			s.arena = append(s.arena, b[i:]...)
			s.ends = append(s.ends, len(s.arena))
			return
		}
		s.arena = append(s.arena, b[i:i+j]...)
		s.ends = append(s.ends, len(s.arena))
		i += j + len(s.sep)
	}
}

// quoted scans a quoted value from b[i:]. It returns the index after the
// separator that ends the value, or -1 when the line ended the row; s.inQuote
// stays set when the value continues on the next line.
func (s *scanner) quoted(b []byte, i int) int {
	for {
		k := bytes.Index(b[i:], s.quote)
		if k < 0 {
			s.arena = append(s.arena, b[i:]...)
			return -1
		}
		s.arena = append(s.arena, b[i:i+k]...)
		i += k + len(s.quote)
		if bytes.HasPrefix(b[i:], s.quote) { // doubled quote: a literal one
			s.arena = append(s.arena, s.quote...)
			i += len(s.quote)
			continue
		}
		s.inQuote = false
		if i == len(b) {
			s.ends = append(s.ends, len(s.arena))
			return -1
		}
		if bytes.HasPrefix(b[i:], s.sep) {
			s.ends = append(s.ends, len(s.arena))
			return i + len(s.sep)
		}
		// A stray quote inside a quoted value ("a"b,): keep it and read the
		// rest of the value unquoted up to the next separator.
		s.stray = true
		s.arena = append(s.arena, s.quote...)
		j := bytes.Index(b[i:], s.sep)
		if j < 0 {
			s.arena = append(s.arena, b[i:]...)
			s.ends = append(s.ends, len(s.arena))
			return -1
		}
		s.arena = append(s.arena, b[i:i+j]...)
		s.ends = append(s.ends, len(s.arena))
		return i + j + len(s.sep)
	}
}

// cellSlab is how many cell headers cells cuts from one allocation.
const cellSlab = 1024

// cells returns the cells of the current row, sharing one string. The slice
// is cut from a slab shared with the rows before and after it (capacity
// capped: appending to it copies), so that a row costs one allocation, its
// string, instead of two.
func (s *scanner) cells() []string {
	all := string(s.arena)
	n := len(s.ends)
	if len(s.slab) < n {
		s.slab = make([]string, max(n, cellSlab))
	}
	out := s.slab[:n:n]
	s.slab = s.slab[n:]
	start := 0
	for k, end := range s.ends {
		out[k] = all[start:end]
		start = end
	}
	return out
}

// cellsInto is cells appending to buf instead of a slice of the slab.
func (s *scanner) cellsInto(buf []string) []string {
	all := string(s.arena)
	start := 0
	for _, end := range s.ends {
		buf = append(buf, all[start:end])
		start = end
	}
	return buf
}

// cellCount is the number of cells of the current row.
func (s *scanner) cellCount() int { return len(s.ends) }

// cellEmpty reports whether cell i of the current row is empty.
func (s *scanner) cellEmpty(i int) bool {
	start := 0
	if i > 0 {
		start = s.ends[i-1]
	}
	return s.ends[i] == start
}

// idCellInto appends to buf the current row's cells up to cell id, all
// empty but cell id itself (a copy): a row as a reader of ids only needs
// it, without a string of the whole row.
func (s *scanner) idCellInto(buf []string, id int) []string {
	n := min(id+1, len(s.ends))
	for range n {
		buf = append(buf, "")
	}
	if id >= 0 && id < len(s.ends) {
		start := 0
		if id > 0 {
			start = s.ends[id-1]
		}
		buf[id] = string(s.arena[start:s.ends[id]])
	}
	return buf
}
