package taxonomy

import (
	"strings"
	"testing"
)

// FuzzLetterMask: the letter-set filter of fuzzy first words never passes
// over a word within the edit budget of the query (the distance the
// search then computes). TestLetterMaskSetsWordsApart shows it does pass
// over some.
func FuzzLetterMask(f *testing.F) {
	for _, s := range [][2]string{{"puma", "pumma"}, {"abies", "abeis"}, {"quercus", "qurecus"},
		{"Pinus", "pinus"}, {"x-ray", "xray"}, {"Sorbus", "sorbús"}, {"aaaa", "bbbb"}, {"", "a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		a, b = strings.ToLower(a), strings.ToLower(b)
		d := editDistance(a, b, 3)
		for budget := 1; budget <= 2; budget++ {
			if d <= budget && farByLetters(letterMask([]byte(a)), letterMask([]byte(b)), budget) {
				t.Fatalf("%q and %q are %d edits apart but the masks %032b and %032b set them more than %d apart",
					a, b, d, letterMask([]byte(a)), letterMask([]byte(b)), budget)
			}
		}
	})
}

func TestLetterMaskSetsWordsApart(t *testing.T) {
	for _, c := range []struct {
		a, b   string
		budget int
		far    bool
	}{
		{"puma", "pumma", 1, false},
		{"quercus", "qurecus", 1, false},
		{"puma", "pima", 1, false}, // a substitution: two members differ
		{"abcd", "wxyz", 2, true},
		{"quercus", "quokka", 1, true},
		{"sorbus", "sorbús", 1, false}, // not ASCII: never set apart
	} {
		if got := farByLetters(letterMask([]byte(c.a)), letterMask([]byte(c.b)), c.budget); got != c.far {
			t.Errorf("farByLetters(%q, %q, %d) = %v, want %v", c.a, c.b, c.budget, got, c.far)
		}
	}
}
