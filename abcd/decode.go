package abcd

import "strings"

// Default caps; Options may lower or raise them.
const (
	DefaultMaxTokenBytes = 16 << 20 // one text node, tag or comment
	DefaultMaxUnitBytes  = 64 << 20 // one Unit subtree (or the DataSet metadata)
	DefaultMaxDepth      = 256      // element nesting
)

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
