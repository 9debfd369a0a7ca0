package abcd

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// Default caps; Options may lower or raise them.
const (
	DefaultMaxTokenBytes = 16 << 20 // one text node, tag or comment
	DefaultMaxUnitBytes  = 64 << 20 // one Unit subtree (or the DataSet metadata)
	DefaultMaxDepth      = 256      // element nesting
)

// errTokenCap is returned by guardReader when one token grows past the cap;
// the decoder hands it back from RawToken unchanged.
var errTokenCap = errors.New("token cap reached")

// guardReader counts bytes and refuses to deliver more than max bytes
// between two calls of mark, so encoding/xml never buffers one huge text node
// or tag (a 2 GB element) before we can stop it.
type guardReader struct {
	br   *bufio.Reader
	n    int64
	from int64
	max  int64
}

func newGuardReader(r io.Reader, max int64) *guardReader {
	return &guardReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

func (g *guardReader) ReadByte() (byte, error) {
	if g.n-g.from >= g.max {
		return 0, errTokenCap
	}
	b, err := g.br.ReadByte()
	if err == nil {
		g.n++
	}
	return b, err
}

func (g *guardReader) Read(p []byte) (int, error) {
	if left := g.max - (g.n - g.from); int64(len(p)) > left {
		if left <= 0 {
			return 0, errTokenCap
		}
		p = p[:left]
	}
	n, err := g.br.Read(p)
	g.n += int64(n)
	return n, err
}

func (g *guardReader) mark() { g.from = g.n }

// newDecoder returns a non-strict-entity, namespace-agnostic decoder reading
// through g. Only the five predefined entities are known: a reference to any
// other entity is a syntax error, and DOCTYPE entity declarations are refused
// by the Reader before they could matter.
func newDecoder(g *guardReader) *xml.Decoder {
	d := xml.NewDecoder(g)
	d.Strict = true
	d.CharsetReader = charsetReader
	return d
}

// charsetReader accepts the encodings BioCASe providers declare.
func charsetReader(label string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return input, nil
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1":
		return charmap.ISO8859_1.NewDecoder().Reader(input), nil
	case "iso-8859-15", "latin9", "latin-9":
		return charmap.ISO8859_15.NewDecoder().Reader(input), nil
	case "windows-1252", "cp1252":
		return charmap.Windows1252.NewDecoder().Reader(input), nil
	}
	return nil, fmt.Errorf("unsupported encoding %q (want UTF-8, ISO-8859-1/15 or windows-1252)", label)
}

// declaresEntities reports whether a <!DOCTYPE ...> directive declares
// entities (internal subset) — the building block of "billion laughs".
func declaresEntities(dir xml.Directive) bool {
	return bytes.Contains(dir, []byte("<!ENTITY")) || bytes.Contains(dir, []byte("ENTITY "))
}

// clean trims a text value and folds line breaks and tabs (with the
// indentation around them) into single spaces; other spacing is kept.
func clean(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\n\r\t\v\f") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	ws := false
	brk := false
	var run strings.Builder
	flush := func() {
		if brk {
			b.WriteByte(' ')
		} else {
			b.WriteString(run.String())
		}
		run.Reset()
		ws, brk = false, false
	}
	for _, r := range s {
		switch r {
		case ' ', '\n', '\r', '\t', '\v', '\f':
			ws = true
			if r != ' ' {
				brk = true
			}
			run.WriteRune(r)
			continue
		}
		if ws {
			flush()
		}
		b.WriteRune(r)
	}
	return b.String()
}
