package occurrence

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/internal/asciifold"
)

// Full-text search is GBIF's occurrence search parameter q: GBIF matches
// its words against an index field ("all") that holds every verbatim
// value of a record and its interpreted names, lineages and places
// (gbif/occurrence's Elasticsearch mapping: the verbatim.* template and
// the fields copied to "all"), analysed by Elasticsearch's standard
// analyser; a record matches when it holds any of the words.
//
// Here a FullText predicate matches a record holding at least MinWords of
// its words, each a whole word of one of FullTextColumns' values (the
// verbatim object's values, and the interpreted columns GBIF copies to
// "all"), compared without case. Words are cut as the standard analyser
// cuts them, closely enough for search (Unicode letters, digits and marks
// with "_"; "." and "'" inside a word of letters or of digits, ":" inside
// letters, "," and ";" inside digits: "u.s.a", "o'brien", "12.5"). The
// predicate is the search's alone: it has no GBIF predicate JSON, so a
// download request cannot carry it (GBIF downloads have no full-text
// search either), and it prunes nothing by statistics.

// TypeFullText is the type of a FullText predicate.
const TypeFullText = "fullText"

// MaxFullTextWords bounds the distinct words of one full-text search:
// the search ranks by how many words a record holds, one count per word.
const MaxFullTextWords = 10

// FullTextColumns are the columns a full-text search reads: the verbatim
// values and the interpreted columns GBIF copies to its full-text field
// (names and classification, vocabulary concepts, places, the dataset).
var FullTextColumns = []string{
	ColVerbatim, ColScientificName, "acceptedScientificName", ColKingdom, ColPhylum, ColClass, ColOrder, ColFamily,
	ColGenus, ColSpecies, ColDatasetName, ColCountryCode, "publishingCountry", "continent",
	"level0Name", "level1Name", "level2Name", "level3Name", ColOccurrenceStatus, ColTypeStatus,
	ColEstablishmentMeans, "sex", "lifeStage", "pathway", "degreeOfEstablishment", ColMediaType,
}

// FullTextWords cuts q into its distinct lower-case words, in order.
func FullTextWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range appendWords(nil, q) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// FullText returns the predicate matching records that hold at least
// minWords of words (FullTextWords' output: distinct, lower-case).
func FullText(words []string, minWords int) (*Predicate, error) {
	return fullText(words, minWords, len(words))
}

// FullTextExactly returns the predicate matching records that hold
// exactly k of words: one group of a ranked search's pages, read in one
// pass.
func FullTextExactly(words []string, k int) (*Predicate, error) { return fullText(words, k, k) }

func fullText(words []string, minWords, maxWords int) (*Predicate, error) {
	switch {
	case len(words) == 0:
		return nil, &PredicateError{Key: "q", Reason: "no words to search for", Err: ErrInvalidPredicate}
	case len(words) > MaxFullTextWords:
		return nil, &PredicateError{Key: "q", Reason: fmt.Sprintf("%d words, more than the %d a search takes", len(words), MaxFullTextWords),
			Err: ErrInvalidPredicate}
	case minWords < 1 || minWords > len(words):
		return nil, &PredicateError{Key: "q", Value: strconv.Itoa(minWords),
			Reason: fmt.Sprintf("at least %d of %d words", minWords, len(words)), Err: ErrInvalidPredicate}
	}
	for i, w := range words {
		if got := appendWords(nil, w); len(got) != 1 || got[0] != w {
			return nil, &PredicateError{Key: "q", Value: w, Reason: "not one lower-case word", Err: ErrInvalidPredicate}
		}
		if slices.Contains(words[:i], w) {
			return nil, &PredicateError{Key: "q", Value: w, Reason: "a repeated word", Err: ErrInvalidPredicate}
		}
	}
	p := &Predicate{Type: TypeFullText, Words: words, MinWords: minWords}
	if maxWords < len(words) {
		p.MaxWords = maxWords
	}
	c := &compiled{op: TypeFullText, words: words, minWords: minWords, maxWords: maxWords, asciiWord: make([]bool, len(words))}
	for i, w := range words {
		c.asciiWord[i] = asciifold.IsASCII(w)
	}
	p.c.Store(c)
	return p, nil
}

// isWordRune reports the runes words are made of.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r)
}

// joins reports whether r, between runes a and b of words, keeps them
// one word (Unicode's word-break rules MidLetter, MidNum and MidNumLet).
func joins(a, r, b rune) bool {
	letters := unicode.IsLetter(a) && unicode.IsLetter(b)
	digits := unicode.IsDigit(a) && unicode.IsDigit(b)
	switch r {
	case '.', '\'', '\u2019':
		return letters || digits
	case ':', '\u00b7':
		return letters
	case ',', ';':
		return digits
	}
	return false
}

// appendWords appends the lower-case words of s.
func appendWords(dst []string, s string) []string {
	start := -1
	var prev rune
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case isWordRune(r):
			if start < 0 {
				start = i
			}
		case start >= 0 && i+n < len(s):
			next, _ := utf8.DecodeRuneInString(s[i+n:])
			if isWordRune(next) && joins(prev, r, next) {
				break
			}
			dst = append(dst, strings.ToLower(s[start:i]))
			start = -1
		case start >= 0:
			dst = append(dst, strings.ToLower(s[start:i]))
			start = -1
		}
		prev = r
		i += n
	}
	if start >= 0 {
		dst = append(dst, strings.ToLower(s[start:]))
	}
	return dst
}

// textMatcher finds a record's words; one per evaluation, not shared.
type textMatcher struct {
	c     *compiled
	found uint32 // bit i: words[i] seen in the record
	lower []byte
	toks  []string
}

func (c *compiled) newTextMatcher() *textMatcher { return &textMatcher{c: c} }

// decided reports whether the words found so far settle the record:
// enough of them when no more may be found, or too many.
func (m *textMatcher) decided() bool {
	n := bits.OnesCount32(m.found)
	return n > m.c.maxWords || n >= m.c.minWords && m.c.maxWords == len(m.c.words)
}

// matches reports whether the record's words are within the bounds.
func (m *textMatcher) matches() bool {
	n := bits.OnesCount32(m.found)
	return n >= m.c.minWords && n <= m.c.maxWords
}

// value notes the words value v holds; a verbatim object's values are
// read one by one.
func (m *textMatcher) value(col, v string) {
	if v == "" || !m.mayHold(v) {
		return
	}
	if col != ColVerbatim {
		m.words(v)
		return
	}
	gjson.Parse(v).ForEach(func(_, val gjson.Result) bool {
		if val.Type == gjson.String && m.mayHold(val.Str) {
			m.words(val.Str)
		}
		return !m.decided()
	})
}

// mayHold reports whether v holds one of the words not yet found as text,
// ignoring case (a word inside a longer word too: words checks). An
// ASCII word is looked for in v as it is: in UTF-8 only ASCII bytes can
// match it, and of the other characters only two lower-case to ASCII
// (unicode.ToLower: the Kelvin sign to k, the dotted capital I to i), so
// v is lower-cased when it holds one. Other words are looked for in v
// lower-cased.
func (m *textMatcher) mayHold(v string) bool {
	lower, lowered := "", false
	toASCII := strings.Contains(v, "\u212a") || strings.Contains(v, "\u0130")
	for i, w := range m.c.words {
		if m.found&(1<<i) != 0 {
			continue
		}
		if m.c.asciiWord[i] && !toASCII {
			if containsFoldASCII(v, w) {
				return true
			}
			continue
		}
		if !lowered {
			lower, lowered = foldInto(v, &m.lower), true
		}
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// words marks the words v holds as whole words.
func (m *textMatcher) words(v string) {
	m.toks = appendWords(m.toks[:0], v)
	for i, w := range m.c.words {
		if m.found&(1<<i) == 0 && slices.Contains(m.toks, w) {
			m.found |= 1 << i
		}
	}
}

// containsFoldASCII reports whether h holds the lower-case ASCII w with
// its letters in any case: it visits the places of w's first byte in either case, in
// order, each found once by IndexByte.
func containsFoldASCII(h, w string) bool {
	if len(w) == 0 || len(w) > len(h) {
		return len(w) == 0
	}
	lo, up := w[0], w[0]
	if 'a' <= lo && lo <= 'z' {
		up = lo - 'a' + 'A'
	}
	last := len(h) - len(w) // the last place w can start
	nl, nu := indexFrom(h, lo, 0, last), indexFrom(h, up, 0, last)
	for nl >= 0 || nu >= 0 {
		i := nl
		if i < 0 || nu >= 0 && nu < i {
			i = nu
		}
		if equalFoldASCII(h[i+1:i+len(w)], w[1:]) {
			return true
		}
		if i == nl {
			nl = indexFrom(h, lo, i+1, last)
		}
		if i == nu {
			nu = indexFrom(h, up, i+1, last)
		}
	}
	return false
}

// indexFrom is the first index of c in h[from:last+1], -1 if none.
func indexFrom(h string, c byte, from, last int) int {
	if from > last {
		return -1
	}
	j := strings.IndexByte(h[from:last+1], c)
	if j < 0 {
		return -1
	}
	return from + j
}

// equalFoldASCII reports whether ASCII a lower-cased is the lower-case b.
func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(b); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != b[i] {
			return false
		}
	}
	return true
}

// matchFullText is the reference (MatchRow) full-text test of one record.
func (c *compiled) matchFullText(batch arrow.RecordBatch, row int) bool {
	m := c.newTextMatcher()
	for _, col := range FullTextColumns {
		if s, ok := cell(batch, col, row).(string); ok {
			if m.value(col, s); m.decided() {
				break
			}
		}
	}
	return m.matches()
}

// textColumn is one full-text column of a batch. A dictionary-encoded
// one (the names, places and vocabularies: few distinct values) keeps the
// words of each dictionary entry once found.
type textColumn struct {
	name  string
	arr   arrow.Array
	dict  *array.Dictionary
	words []uint32 // dictionary entry -> its words' bits, with wordsKnown once set
}

// wordsKnown marks a dictionary entry's words as found (bits above
// MaxFullTextWords' are never a word's).
const wordsKnown = 1 << 31

// evalFullText is Eval's full-text test. The dictionary-encoded columns
// are read first: a record their words settle skips the verbatim object.
func (c *compiled) evalFullText(ev *evaluator, out, mask []bool) {
	var cols, plain []textColumn
	for _, name := range FullTextColumns {
		tc := textColumn{name: name, arr: ev.column(name)}
		if d, ok := tc.arr.(*array.Dictionary); ok && name != ColVerbatim {
			tc.dict, tc.words = d, make([]uint32, d.Dictionary().Len())
			cols = append(cols, tc)
		} else {
			plain = append(plain, tc)
		}
	}
	cols = append(cols, plain...)
	m := c.newTextMatcher()
	for i := range out {
		// mask may be out itself (an and evaluates in place): read it first
		if mask != nil && !mask[i] {
			out[i] = false
			continue
		}
		out[i] = m.row(cols, i)
	}
}

// row reports whether row i of the full-text columns holds the words.
func (m *textMatcher) row(cols []textColumn, i int) bool {
	m.found = 0
	for k := range cols {
		tc := &cols[k]
		if tc.arr.IsNull(i) {
			continue
		}
		if tc.dict != nil {
			e := tc.dict.GetValueIndex(i)
			if tc.words[e] == 0 {
				s, _ := stringAt(tc.dict.Dictionary(), e)
				tc.words[e] = m.wordsOf(tc.name, s) | wordsKnown
			}
			m.found |= tc.words[e] &^ wordsKnown
		} else if s, ok := stringAt(tc.arr, i); ok {
			m.value(tc.name, s)
		}
		if m.decided() {
			break
		}
	}
	return m.matches()
}

// wordsOf returns the bits of every word v (a value of column col, not
// the verbatim object) holds, whatever the record has shown so far.
func (m *textMatcher) wordsOf(col, v string) uint32 {
	saved := m.found
	m.found = 0
	m.value(col, v)
	got := m.found
	m.found = saved
	return got
}

// stringAt returns row i of a string column (plain or dictionary-encoded).
func stringAt(a arrow.Array, i int) (string, bool) {
	if a.IsNull(i) {
		return "", false
	}
	switch a := a.(type) {
	case *array.Dictionary:
		return stringAt(a.Dictionary(), a.GetValueIndex(i))
	case stringValuer:
		return a.Value(i), true
	}
	return "", false
}

// describeFullText is Describe's words for a FullText predicate.
func (p *Predicate) describeFullText() string {
	q := make([]string, len(p.Words))
	for i, w := range p.Words {
		q[i] = strconv.Quote(w)
	}
	switch {
	case len(p.Words) == 1:
		return "Text has the word " + q[0]
	case p.MaxWords > 0:
		return fmt.Sprintf("Text has exactly %d of the words %s", p.MinWords, strings.Join(q, ", "))
	}
	return fmt.Sprintf("Text has %d of the words %s", p.MinWords, strings.Join(q, ", "))
}
