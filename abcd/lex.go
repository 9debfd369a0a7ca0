package abcd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"unicode/utf8"

	"github.com/orisano/gosax"

	"github.com/biodiversity-downloads/downloader/internal/charset"
)

// Token kinds of the lexer.
const (
	tokStart = iota + 1
	tokEnd
	tokText
	tokEOF
)

// qname is an element or attribute name; prefix is kept only for matching
// end tags (elements are matched by local name everywhere else).
type qname struct{ prefix, local string }

func (n qname) String() string {
	if n.prefix == "" {
		return n.local
	}
	return n.prefix + ":" + n.local
}

// knownName is a validated name with the full name it was parsed from.
type knownName struct {
	full string
	q    qname
}

type lexAttr struct {
	name  qname
	value string
}

// lexer turns the event stream of gosax (a fast SAX lexer that only cuts
// the input into markup and text) into checked tokens: names and attributes
// parsed and validated, entities decoded (only the predefined ones and
// character references; anything else is an error), line numbers counted,
// DOCTYPE entity declarations refused, and every token capped in size by
// capReader. Namespaces are not resolved: prefixes are kept as written, so
// declared, default and undeclared prefixes all work.
type lexer struct {
	sr     *gosax.Reader
	cr     *capReader
	buf    *[]byte
	line   int                  // line where the current token starts
	after  int                  // line after the current token
	names  map[string]string    // interned prefixes and local names
	qcache [256]knownName       // direct-mapped front of qnames
	qnames map[string]knownName // names already validated, by full name
	kind   int
	name   qname
	attrs  []lexAttr
	text   []byte
	closes bool // the start tag was self-closing: an end token follows
}

func newLexer(r io.Reader, maxToken, maxDocument int64) (*lexer, error) {
	r, err := sniffEncoding(r)
	if err != nil {
		return nil, err
	}
	cr := &capReader{r: r, max: maxToken, total: maxDocument}
	buf := lexBuffers.Get().(*[]byte)
	sr := gosax.NewReaderBuf(cr, (*buf)[:0])
	sr.EmitSelfClosingTag = true
	return &lexer{sr: sr, cr: cr, buf: buf, line: 1, after: 1, names: map[string]string{}, qnames: map[string]knownName{}}, nil
}

// lexBuffers recycles the lexers' read windows between documents.
var lexBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 128<<10); return &b }}

// release returns the read window once the document is finished; the lexer
// must not be used afterwards.
func (l *lexer) release() {
	if l.buf != nil && cap(*l.buf) <= 4<<20 {
		lexBuffers.Put(l.buf)
	}
	l.buf, l.sr = nil, nil
}

// next reads the next token (comments and processing instructions are
// skipped); open is the innermost open element.
func (l *lexer) next(open qname) error {
	for {
		l.line = l.after
		l.cr.mark()
		ev, err := l.sr.Event()
		if err != nil {
			if errors.Is(err, errTokenCap) || errors.Is(err, errDocumentCap) {
				return err
			}
			if l.cr.err != nil && err == l.cr.err {
				return err // the input failed (a cap, a broken download): not a syntax error
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return fmt.Errorf("%w: unexpected end of document inside markup", ErrSyntax)
			}
			return fmt.Errorf("%w: %v", ErrSyntax, err)
		}
		b := ev.Bytes
		switch ev.Type() {
		case gosax.EventEOF:
			l.kind = tokEOF
			return nil
		case gosax.EventStart:
			l.after += bytes.Count(b, nl)
			return l.start(b)
		case gosax.EventEnd:
			if l.closes { // synthetic end of <a/>: same bytes as the start
				l.closes = false
				l.kind = tokEnd
				return nil
			}
			l.after += bytes.Count(b, nl)
			return l.end(b, open)
		case gosax.EventText:
			l.after += bytes.Count(b, nl)
			return l.setText(b)
		case gosax.EventCData:
			l.after += bytes.Count(b, nl)
			if !bytes.HasPrefix(b, []byte("<![CDATA[")) {
				return fmt.Errorf("%w: malformed CDATA section", ErrSyntax)
			}
			l.kind, l.text = tokText, b[9:len(b)-3]
			if !utf8.Valid(l.text) {
				return fmt.Errorf("%w: invalid UTF-8 in CDATA", ErrSyntax)
			}
			return nil
		case gosax.EventDocType:
			l.after += bytes.Count(b, nl)
			if bytes.Contains(b, []byte("<!ENTITY")) {
				return fmt.Errorf("%w: the DOCTYPE declares entities", ErrEntity)
			}
		case gosax.EventComment, gosax.EventProcessingInstruction:
			l.after += bytes.Count(b, nl)
		default:
			return fmt.Errorf("%w: unreadable markup", ErrSyntax)
		}
	}
}

var nl = []byte{'\n'}

func (l *lexer) setText(b []byte) error {
	if bytes.IndexByte(b, '>') >= 0 && bytes.Contains(b, []byte("]]>")) {
		return fmt.Errorf("%w: ']]>' in text", ErrSyntax)
	}
	t, err := gosax.Unescape(b)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	if !utf8.Valid(t) {
		return fmt.Errorf("%w: invalid UTF-8 in text", ErrSyntax)
	}
	l.kind, l.text = tokText, t
	return nil
}

// start parses "<name attr='v' ...>" or "<name .../>".
func (l *lexer) start(b []byte) error {
	body := b[1 : len(b)-1]
	l.closes = len(body) > 0 && body[len(body)-1] == '/'
	if l.closes {
		body = body[:len(body)-1]
	}
	n := nameEnd(body)
	name, err := l.qname(body[:n])
	if err != nil {
		return err
	}
	l.kind, l.name, l.attrs = tokStart, name, l.attrs[:0]
	rest := body[n:]
	for {
		i := skipSpace(rest)
		if i == len(rest) {
			return nil
		}
		if i == 0 {
			return fmt.Errorf("%w: expected space before attribute in <%s>", ErrSyntax, name)
		}
		rest = rest[i:]
		a, r, err := l.attr(rest)
		if err != nil {
			return fmt.Errorf("%w in <%s>", err, name)
		}
		l.attrs = append(l.attrs, a)
		rest = r
	}
}

func (l *lexer) attr(b []byte) (lexAttr, []byte, error) {
	n := nameEnd(b)
	name, err := l.qname(b[:n])
	if err != nil {
		return lexAttr{}, nil, err
	}
	b = b[n:]
	b = b[skipSpace(b):]
	if len(b) == 0 || b[0] != '=' {
		return lexAttr{}, nil, fmt.Errorf("%w: attribute %s without value", ErrSyntax, name)
	}
	b = b[1:]
	b = b[skipSpace(b):]
	if len(b) == 0 || (b[0] != '"' && b[0] != '\'') {
		return lexAttr{}, nil, fmt.Errorf("%w: attribute %s value not quoted", ErrSyntax, name)
	}
	end := bytes.IndexByte(b[1:], b[0])
	if end < 0 {
		return lexAttr{}, nil, fmt.Errorf("%w: attribute %s value not closed", ErrSyntax, name)
	}
	raw := b[1 : 1+end]
	if bytes.IndexByte(raw, '<') >= 0 {
		return lexAttr{}, nil, fmt.Errorf("%w: '<' in attribute %s", ErrSyntax, name)
	}
	v, err := gosax.Unescape(raw)
	if err != nil {
		return lexAttr{}, nil, fmt.Errorf("%w: attribute %s: %v", ErrSyntax, name, err)
	}
	if !utf8.Valid(v) {
		return lexAttr{}, nil, fmt.Errorf("%w: invalid UTF-8 in attribute %s", ErrSyntax, name)
	}
	return lexAttr{name: name, value: string(v)}, b[2+end:], nil
}

// end parses "</name>" or "</name >". want is the open element: when the
// name matches it, no further checks are needed.
func (l *lexer) end(b []byte, want qname) error {
	if len(b) < 3 || b[1] != '/' {
		return fmt.Errorf("%w: malformed end tag", ErrSyntax)
	}
	body := b[2 : len(b)-1]
	n := nameEnd(body)
	if skipSpace(body[n:]) != len(body)-n {
		return fmt.Errorf("%w: malformed end tag </%s", ErrSyntax, body)
	}
	raw := body[:n]
	if want.prefix == "" && string(raw) == want.local ||
		want.prefix != "" && len(raw) == len(want.prefix)+1+len(want.local) && string(raw[:len(want.prefix)]) == want.prefix &&
			raw[len(want.prefix)] == ':' && string(raw[len(want.prefix)+1:]) == want.local {
		l.kind, l.name = tokEnd, want
		return nil
	}
	name, err := l.qname(raw)
	if err != nil {
		return err
	}
	l.kind, l.name = tokEnd, name
	return nil
}

// qname validates and interns a name; names seen before skip validation
// and allocate nothing.
func (l *lexer) qname(b []byte) (qname, error) {
	if len(b) == 0 {
		return qname{}, fmt.Errorf("%w: missing name", ErrSyntax)
	}
	slot := &l.qcache[(len(b)*31+int(b[0])*7+int(b[len(b)-1])*13+int(b[len(b)/2]))&255]
	if slot.full == string(b) {
		return slot.q, nil
	}
	k, ok := l.qnames[string(b)]
	if !ok {
		q, err := l.parseName(b)
		if err != nil {
			return qname{}, err
		}
		k = knownName{full: string(b), q: q}
		if len(l.qnames) < 4096 {
			l.qnames[k.full] = k
		}
	}
	*slot = k
	return k.q, nil
}

func (l *lexer) parseName(b []byte) (qname, error) {
	if c := b[0]; c == '-' || c == '.' || (c >= '0' && c <= '9') || c == ':' {
		return qname{}, fmt.Errorf("%w: invalid name %q", ErrSyntax, b)
	}
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
		} else if !nameByte[c] {
			return qname{}, fmt.Errorf("%w: invalid name %q", ErrSyntax, b)
		}
	}
	if !ascii && !utf8.Valid(b) {
		return qname{}, fmt.Errorf("%w: invalid UTF-8 in name", ErrSyntax)
	}
	var q qname
	if i := bytes.IndexByte(b, ':'); i >= 0 {
		q.prefix, q.local = l.intern(b[:i]), l.intern(b[i+1:])
		if q.local == "" {
			return qname{}, fmt.Errorf("%w: invalid name %q", ErrSyntax, b)
		}
	} else {
		q.local = l.intern(b)
	}
	return q, nil
}

func (l *lexer) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := l.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(l.names) < 4096 {
		l.names[s] = s
	}
	return s
}

var nameByte = func() (t [128]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	t['_'], t['-'], t['.'], t[':'] = true, true, true, true
	return t
}()

func nameEnd(b []byte) int {
	for i, c := range b {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '=' || c == '/' {
			return i
		}
	}
	return len(b)
}

func skipSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return len(b)
}

// capReader refuses to deliver more than max bytes between two marks, so
// one huge text node or tag (a 2 GB element) is stopped before it is
// buffered, and more than total bytes in all (the document cap). The lexer
// marks before each token.
type capReader struct {
	r     io.Reader
	n     int64
	from  int64
	max   int64
	total int64
	err   error // the last error of r other than io.EOF
}

// errTokenCap is returned by capReader when one token grows past the cap,
// errDocumentCap when the document does.
var (
	errTokenCap    = errors.New("token cap reached")
	errDocumentCap = errors.New("document cap reached")
)

func (c *capReader) Read(p []byte) (int, error) {
	if c.n-c.from >= c.max {
		return 0, errTokenCap
	}
	if c.total > 0 {
		if c.n >= c.total {
			// one byte more decides whether the document ends at the cap
			var b [1]byte
			n, err := c.r.Read(b[:])
			if n > 0 {
				return 0, errDocumentCap
			}
			return 0, err
		}
		if left := c.total - c.n; int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

func (c *capReader) mark() { c.from = c.n }

var (
	xmlDecl = regexp.MustCompile(`^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']`)
)

// sniffEncoding skips a UTF-8 byte order mark, decodes a text starting with
// a UTF-16 one and, when the XML declaration names another encoding,
// transcodes to UTF-8.
func sniffEncoding(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 4096)
	switch charset.PeekBOM(br) {
	case charset.BOMUTF8:
		br.Discard(3)
	case charset.BOMUTF16:
		// The byte-order mark says all: the declaration's encoding (UTF-16)
		// names what is already decoded.
		return charset.NewReader(br, charset.BOMUTF16)
	}
	head, _ := br.Peek(1024)
	m := xmlDecl.FindSubmatch(head)
	if m == nil {
		return br, nil
	}
	tr, err := charset.XMLReader(string(m[1]), br)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	return tr, nil
}
