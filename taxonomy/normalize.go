package taxonomy

import (
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/biodiversity-downloads/downloader/internal/asciifold"
)

// FoldASCII replaces accented and other non-ASCII Latin letters by their
// ASCII letters (é -> e, ø -> o, æ -> ae) and drops combining marks; other
// characters are kept.
func FoldASCII(s string) string {
	if asciifold.IsASCII(s) {
		return s
	}
	return norm.NFC.String(asciifold.Fold(s, norm.NFD))
}

// decomposeLigatures spells out æ and œ as GBIF's canonical names do.
func decomposeLigatures(s string) string {
	if asciifold.IsASCII(s) || !strings.ContainsAny(s, "æÆœŒ") {
		return s
	}
	return strings.NewReplacer("æ", "ae", "Æ", "Ae", "œ", "oe", "Œ", "Oe").Replace(s)
}

// NormalizeName is the key names are looked up by: a canonical name folded
// to lower-case ASCII with the spelling variants that do not make a
// different name evened out, the rules of GBIF's backbone index
// (checklistbank's SciNameNormalizer, applied to the whole name):
//
//   - hybrid markers, apostrophes, hyphens and underscores are dropped, and
//     whitespace collapsed;
//   - a letter repeated is one letter (perrieri = perieri);
//   - j, y and runs of i inside a word are one i (platyrachis = platirachis);
//   - th and rh are t and r (platyrhachis = platirachis);
//   - the last word's Latin gender ending -us, -um, -on, -a is -a (albus =
//     alba) and its ending -ei is -i (brownei = brownii = browni).
//
// Two names with the same key that differ otherwise match as FUZZY.
func NormalizeName(s string) string { return normalizeName(s, true) }

// normalizeName applies the rules of NormalizeName; strongFirst also
// applies the letter rules to the first word (GBIF's normalizeAll, used
// for the index) rather than only folding it (GBIF's normalize, used to
// score similarity).
func normalizeName(s string, strongFirst bool) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	s = FoldASCII(s)
	// hybrid markers: a leading x/X/× before the genus, × anywhere, a
	// lone x before a lower-case epithet
	var words []string
	for i, w := range strings.Fields(s) {
		switch {
		case w == "×" || (w == "x" || w == "X") && i > 0:
			continue
		case strings.HasPrefix(w, "×"):
			w = w[len("×"):]
		case i == 0 && len(w) > 1 && (w[0] == 'x' || w[0] == 'X') && w[1] >= 'A' && w[1] <= 'Z':
			w = w[1:]
		}
		if w != "" {
			words = append(words, w)
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	for wi, w := range words {
		if wi > 0 {
			b.WriteByte(' ')
		}
		strong := wi > 0 || strongFirst
		start := b.Len()
		var prev byte
		for i := 0; i < len(w); i++ {
			c := w[i]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			switch c {
			case '\'', '-', '_':
				continue
			}
			if strong {
				switch c {
				case 'j', 'y':
					if b.Len() > start {
						c = 'i'
					}
				case 'h':
					if prev == 't' || prev == 'r' {
						continue
					}
				}
				if c == prev && isLetter(c) {
					continue
				}
			}
			b.WriteByte(c)
			prev = c
		}
	}
	out := b.String()
	last := strings.LastIndexByte(out, ' ') + 1
	if (last > 0 || strongFirst) && len(out)-last > 3 {
		switch {
		case strings.HasSuffix(out, "us"), strings.HasSuffix(out, "um"), strings.HasSuffix(out, "on"):
			out = out[:len(out)-2] + "a"
		case strings.HasSuffix(out, "ei"):
			out = out[:len(out)-2] + "i"
		}
	}
	return out
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' }
