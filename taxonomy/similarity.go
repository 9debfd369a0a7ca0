package taxonomy

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/biodiversity-downloads/downloader/internal/asciifold"
)

// authorReplacer separates authors by commas and reduces transliterated
// umlauts (ae, oe, ue) to their vowel.
var authorReplacer = strings.NewReplacer(" et ", ",", " and ", ",", "&", ",", "ae", "a", "oe", "o", "ue", "u")

// filiusRE finds "f." and "fil." after a capitalized name ("Rech. f.").
var filiusRE = regexp.MustCompile(`([A-Z][a-z]*)[. ]\s*f(?:il)?\.?\b`)

// editDistance is the optimal string alignment distance (Levenshtein with
// adjacent transpositions) of a and b, counted in runes; it stops early
// and returns max+1 once the distance exceeds max.
func editDistance(a, b string, max int) int {
	if a == b {
		return 0
	}
	if asciifold.IsASCII(a) && asciifold.IsASCII(b) {
		return osa([]byte(a), []byte(b), max)
	}
	return osa([]rune(a), []rune(b), max)
}

// osa computes editDistance over bytes or runes; rows of short strings
// live on the stack.
func osa[E byte | rune](a, b []E, max int) int {
	if d := len(a) - len(b); d > max || -d > max {
		return max + 1
	}
	var stack [3][64]int
	var prev2, prev, cur []int
	if len(b) < 64 {
		prev2, prev, cur = stack[0][:len(b)+1], stack[1][:len(b)+1], stack[2][:len(b)+1]
	} else {
		prev2, prev, cur = make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	}
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// nameSimilarity rates how alike two canonical names are, 0 to 100, with
// the rules of GBIF's ScientificNameSimilarity: names are normalized
// (epithets strongly, see NormalizeName); names of different lengths in
// words are compared whole; otherwise word by word, where the first
// letters must agree, words under four letters must be equal, the first
// four letters may differ by one edit and the word by two (100, 90, 80);
// the genus counts only above 50 and any word that does not match makes
// the name unlike (at most 5).
func nameSimilarity(x1, x2 string) int {
	if x1 == x2 {
		return 100
	}
	x1, x2 = normalizeName(x1, false), normalizeName(x2, false)
	w1, w2 := strings.Fields(x1), strings.Fields(x2)
	if len(w1) != len(w2) || len(w1) == 0 {
		return wholeSimilarity(x1, x2)
	}
	total, bad := 0, false
	for i := range w1 {
		sim := wordSimilarity(w1[i], w2[i])
		if i == 0 {
			sim = max(0, 2*sim-100)
		}
		total += sim
		if sim == 0 {
			bad = true
		}
	}
	total /= len(w1)
	if bad && total > 5 {
		total = 5
	}
	return total
}

// wordSimilarity compares two normalized words (100, 90, 80 or 0).
func wordSimilarity(a, b string) int {
	if a == "" || b == "" || a[0] != b[0] {
		return 0
	}
	const mustMatch = 4
	if utf8.RuneCountInString(a) < mustMatch || utf8.RuneCountInString(b) < mustMatch {
		if a == b {
			return 100
		}
		return 0
	}
	if editDistance(a[:mustMatch], b[:mustMatch], 1) > 1 {
		return 0
	}
	switch editDistance(a, b, 2) {
	case 0:
		return 100
	case 1:
		return 90
	case 2:
		return 80
	}
	return 0
}

// wholeSimilarity rates two strings by their edit distance relative to
// the longer one (0 to 100).
func wholeSimilarity(a, b string) int {
	n := max(utf8.RuneCountInString(a), utf8.RuneCountInString(b))
	if n == 0 {
		return 100
	}
	d := editDistance(a, b, n)
	return max(0, 100-100*d/n)
}

// equality is the outcome of comparing authorships.
type equality int8

const (
	eqUnknown equality = iota
	eqEqual
	eqDifferent
)

// authorAbbreviations expand the standard abbreviations of a few of the
// most cited authors (GBIF uses IPNI's full list; see docs/taxonomy.md).
var authorAbbreviations = map[string]string{
	"l": "linnaeus", "linn": "linnaeus", "linne": "linnaeus", "lin": "linnaeus", "l f": "linnaeus filius",
	"dc": "candolle", "mill": "miller", "willd": "willdenow", "lam": "lamarck", "pers": "persoon", "fr": "fries",
	"thunb": "thunberg", "benth": "bentham", "hook": "hooker", "juss": "jussieu", "spreng": "sprengel",
	"desf": "desfontaines", "michx": "michaux", "poir": "poiret", "sm": "smith", "kunth": "kunth",
	"schltr": "schlechter", "rchb": "reichenbach", "sw": "swartz", "vahl": "vahl", "wall": "wallich",
	"gaertn": "gaertner", "scop": "scopoli", "huds": "hudson", "ait": "aiton", "roxb": "roxburgh",
	"hemsl": "hemsley", "nees": "nees", "maxim": "maximowicz", "turcz": "turczaninow", "ledeb": "ledebour",
	"steud": "steudel", "bl": "blume", "mull arg": "muller argoviensis", "muell arg": "muller argoviensis",
}

// normalizeAuthors prepares an author team for comparison: ASCII, lower
// case, without "in ..." references, sanctioning authors, the authors
// before "ex" and punctuation; "f." and "fil." as "filius"; ae, oe, ue as
// a, o, u; authors separated by commas.
func normalizeAuthors(s string) []string {
	s = strings.TrimSpace(FoldASCII(s))
	if s == "" {
		return nil
	}
	low := strings.ToLower(s)
	if i := strings.Index(low, " in "); i > 0 {
		s, low = s[:i], low[:i]
	}
	if i := strings.LastIndex(low, " ex "); i >= 0 {
		s = s[i+4:]
	}
	if i := strings.LastIndex(s, ":"); i > 0 {
		s = s[:i]
	}
	if strings.Contains(s, "f") {
		s = filiusRE.ReplaceAllString(s, "$1 filius")
	}
	low = strings.ToLower(s)
	low = authorReplacer.Replace(low)
	var b strings.Builder
	for _, r := range low {
		switch {
		case r >= 'a' && r <= 'z', r == ',':
			b.WriteRune(r)
		default:
			b.WriteByte(' ')
		}
	}
	var out []string
	for _, a := range strings.Split(b.String(), ",") {
		a = strings.Join(strings.Fields(a), " ")
		if a == "" {
			continue
		}
		if x, ok := authorAbbreviations[a]; ok {
			a = x
		}
		out = append(out, a)
	}
	return out
}

// compareAuthorship compares two authorships (authors and year) the way
// GBIF's AuthorComparator does: authors first (the same surname, or a
// common start of at least four letters, with initials that do not
// conflict); if they do not show equal, a year equal within one year
// makes them equal and a different year different.
func compareAuthorship(a1, y1, a2, y2 string) equality {
	res := compareTeams(normalizeAuthors(a1), normalizeAuthors(a2))
	if res == eqEqual {
		return res
	}
	if yr := compareYears(y1, y2); yr != eqUnknown {
		if yr == eqDifferent || a1 == "" || a2 == "" || sharesCapital(a1, a2) {
			return yr
		}
	}
	return res
}

func sharesCapital(a, b string) bool {
	for _, r := range a {
		if r >= 'A' && r <= 'Z' && strings.ContainsRune(b, r) {
			return true
		}
	}
	return false
}

func compareYears(y1, y2 string) equality {
	y1, y2 = yearDigits(y1), yearDigits(y2)
	if y1 == "" || y2 == "" {
		return eqUnknown
	}
	if y1 == y2 {
		return eqEqual
	}
	d := 0
	for i := range 4 {
		d = d*10 + int(y1[i]) - int(y2[i])
	}
	if d == 1 || d == -1 {
		return eqEqual
	}
	return eqDifferent
}

func yearDigits(y string) string {
	for i := 0; i+4 <= len(y); i++ {
		if isDigits(y[i : i+4]) {
			return y[i : i+4]
		}
	}
	return ""
}

func compareTeams(t1, t2 []string) equality {
	if len(t1) == 0 || len(t2) == 0 {
		return eqUnknown
	}
	for _, a1 := range t1 {
		for _, a2 := range t2 {
			if sameAuthor(a1, a2) {
				return eqEqual
			}
		}
	}
	return eqDifferent
}

// sameAuthor compares two normalized authors: "initials surname".
func sameAuthor(a, b string) bool {
	if a == b {
		return true
	}
	ia, sa := splitAuthor(a)
	ib, sb := splitAuthor(b)
	common := commonPrefix(sa, sb)
	if sa == sb || len(common) >= 4 {
		return !initialsDiffer(ia, ib)
	}
	if !initialsDiffer(ia, ib) && (sa == common && strings.HasPrefix(sb, common) || sb == common && strings.HasPrefix(sa, common)) && common != "" {
		return true
	}
	return len(strings.ReplaceAll(commonPrefix(a, b), " ", "")) > 4
}

// splitAuthor splits "c f p von martius" into initials ("c f p") and the
// surname (the last word; "filius" stays with it).
func splitAuthor(a string) (initials, surname string) {
	w := strings.Fields(a)
	if len(w) == 0 {
		return "", ""
	}
	last := len(w) - 1
	if w[last] == "filius" && last > 0 {
		last--
	}
	surname = w[last]
	var in []string
	for _, x := range w[:last] {
		if len(x) == 1 {
			in = append(in, x)
		}
	}
	return strings.Join(in, ""), surname
}

// initialsDiffer reports initials of both authors where neither set
// contains the other.
func initialsDiffer(a, b string) bool {
	if a == "" || b == "" || a == b {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	for _, c := range a {
		if !strings.ContainsRune(b, c) {
			return true
		}
	}
	return false
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}
