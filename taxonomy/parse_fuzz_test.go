package taxonomy

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that any input parses without panicking, that parsed
// names print a canonical form, and that a scientific name's canonical form
// parses back to the same name.
func FuzzParse(f *testing.F) {
	for _, c := range gbifNames {
		f.Add(c.in)
	}
	for _, c := range gbifUnparsable {
		f.Add(c.in)
	}
	f.Add("Abies alba Mill. subsp. ×alpina (L.) Koch, 1890 sensu lato [sic] nom. nud. in Koch, 1890")
	f.Fuzz(func(t *testing.T, s string) {
		n := Parse(s, RankUnknown, CodeUnknown)
		if n.Parsed() {
			canon := n.CanonicalName()
			if canon == "" {
				t.Fatalf("%q: parsed but no canonical name: %s", s, dumpName(n))
			}
			if !utf8.ValidString(canon) || !utf8.ValidString(n.CanonicalMinimal()) {
				t.Fatalf("%q: invalid UTF-8 in canonical names", s)
			}
			if n.Type == NameScientific && n.Notho == PartNone && n.CultivarEpithet == "" && !n.Candidatus &&
				!strings.ContainsAny(canon, "()[]'\"") {
				back := Parse(canon, n.Rank, n.Code)
				if back.CanonicalMinimal() != n.CanonicalMinimal() {
					t.Fatalf("%q: canonical %q parses back to %q, want %q\n%s\n%s", s, canon,
						back.CanonicalMinimal(), n.CanonicalMinimal(), dumpName(n), dumpName(back))
				}
			}
		}
		_ = NormalizeName(n.CanonicalMinimal())
		_ = ParseAuthorship(s).AuthorshipString()
	})
}
