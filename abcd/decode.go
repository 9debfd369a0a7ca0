package abcd

import (
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
