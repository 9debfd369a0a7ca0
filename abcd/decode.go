package abcd

import "strings"

// Default caps; Options may lower or raise them (docs/limits.md lists
// every input limit).
const (
	DefaultMaxTokenBytes    = 16 << 20 // one text node, tag or comment
	DefaultMaxUnitBytes     = 64 << 20 // one Unit subtree, and a DataSet's metadata in all
	DefaultMaxDepth         = 256      // element nesting
	DefaultMaxDocumentBytes = 1 << 40  // one document (a file, an archive entry, a download)
	DefaultMaxResponseBytes = 256 << 20
	// MaxDiagnostics is how many diagnostics of a BioCASe response are
	// kept (the others are counted in ProtocolInfo.MoreDiagnostics).
	MaxDiagnostics = 100
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
