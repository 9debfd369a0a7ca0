// Package asciifold folds Latin letters to ASCII (é -> e, ø -> o, æ -> ae),
// as GBIF's name and vocabulary matching compare text. Hand-written around
// golang.org/x/text's decompositions: transliteration libraries turn every
// script into ASCII, where GBIF's folding keeps what is not a Latin letter.
package asciifold

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// letters are the letters that do not decompose into an ASCII letter and
// combining marks.
var letters = map[rune]string{
	'æ': "ae", 'Æ': "AE", 'œ': "oe", 'Œ': "OE", 'ß': "ss", 'ø': "o", 'Ø': "O",
	'đ': "d", 'Đ': "D", 'ł': "l", 'Ł': "L", 'þ': "th", 'Þ': "Th", 'ð': "d", 'Ð': "D",
	'ı': "i", 'ħ': "h", 'Ħ': "H", 'ŀ': "l", 'Ŀ': "L", 'ŉ': "n", 'ŋ': "n", 'Ŋ': "N",
	'ſ': "s", 'ƒ': "f", 'ĸ': "k", 'ǆ': "dz", 'ǌ': "nj", 'ǉ': "lj",
}

// Fold decomposes s in form (norm.NFD keeps compatibility characters such
// as fullwidth letters and ligatures, norm.NFKD folds them too), drops
// combining marks and replaces the letters that do not decompose to ASCII;
// other characters are kept, and invalid UTF-8 becomes U+FFFD. ASCII text
// is returned as it is.
func Fold(s string, form norm.Form) string {
	if IsASCII(s) {
		return s
	}
	if !utf8.ValidString(s) {
		// Decomposition stops at a broken byte; a replacement character
		// lets it go on, so that folding twice changes nothing.
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range form.String(s) {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case unicode.Is(unicode.Mn, r):
		default:
			if a, ok := letters[r]; ok {
				b.WriteString(a)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// IsASCII reports whether s has only ASCII bytes.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
