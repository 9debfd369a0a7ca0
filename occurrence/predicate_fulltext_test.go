package occurrence

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestFullTextWords(t *testing.T) {
	cases := map[string][]string{
		"Puma concolor (Linnaeus, 1771)": {"puma", "concolor", "linnaeus", "1771"},
		"puma PUMA Puma":                 {"puma"},
		"U.S.A. and O'Brien's":           {"u.s.a", "and", "o'brien's"},
		"12.5, 13,000 m; 4;5":            {"12.5", "13,000", "m", "4;5"},
		"PAPS5-560/a":                    {"paps5", "560", "a"},
		"MÜLLER, Ærø":                    {"müller", "ærø"},
		"snake_case x:y 1:2 end.":        {"snake_case", "x:y", "1", "2", "end"},
		"  ..,;  ":                       nil,
		"":                               nil,
	}
	for in, want := range cases {
		if got := FullTextWords(in); !slices.Equal(got, want) {
			t.Errorf("FullTextWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// fullTextRows: a verbatim object with a term holding the word as a key
// only, names in interpreted columns, words inside longer words, upper
// case beyond ASCII.
func fullTextRows() []row {
	return []row{
		0: {ColScientificName: "Puma concolor (Linnaeus, 1771)", ColCountryCode: "DK",
			ColVerbatim: `{"locality":"Near the Tjele river","recordedBy":"MÜLLER, J."}`},
		1: {ColScientificName: "Pumas", ColVerbatim: `{"habitat":"puma-den, concolorous rock"}`},
		2: {ColFamily: "Felidae", ColVerbatim: `{"occurrenceRemarks":"seen with a \"concolor\" cub"}`},
		3: {ColVerbatim: `{"locality":"x","eventRemarks":"nothing"}`, "level1Name": "Midtjylland"},
		4: {},
	}
}

func TestFullTextMatches(t *testing.T) {
	for _, col := range FullTextColumns {
		if c, _, ok := ColumnByName(col); !ok || c.Kind != KindString && c.Kind != KindMulti {
			t.Errorf("full-text column %q: %+v, %v", col, c, ok)
		}
	}
	cols := append(allColumns(), FullTextColumns...)
	slices.Sort(cols)
	cols = slices.Compact(cols)
	batch := buildBatch(t, cols, fullTextRows())
	defer batch.Release()
	cases := []struct {
		q    string
		min  int
		want []int
	}{
		{"puma", 1, []int{0, 1}},                // "puma-den" holds it, "Pumas" does not
		{"concolor", 1, []int{0, 2}},            // in an escaped value; "concolorous" is another word
		{"Puma concolor", 2, []int{0}},          // both words
		{"river müller", 2, []int{0}},           // verbatim values, Unicode case
		{"locality", 1, nil},                    // a key, not a value
		{"midtjylland felidae", 1, []int{2, 3}}, // interpreted places and ranks
		{"dk", 1, []int{0}},
		{"conc", 1, nil},
		{"tjele puma felidae", 3, nil},
		{"puma concolor", -1, []int{1, 2}}, // exactly one of them
		{"puma concolor", -2, []int{0}},    // exactly both
	}
	for _, c := range cases {
		p, err := FullText(FullTextWords(c.q), c.min)
		if c.min < 0 { // exactly -min of the words
			p, err = FullTextExactly(FullTextWords(c.q), -c.min)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := matchingRows(t, p, batch); !slices.Equal(got, c.want) {
			t.Errorf("%q, at least %d: rows %v, want %v", c.q, c.min, got, c.want)
		}
		if !slices.Contains(p.Columns(), ColVerbatim) || !p.MayMatch(mapStats{}) {
			t.Errorf("%q: columns %v", c.q, p.Columns())
		}
		// Under an and, Eval hands the leaf its sibling's matches as the
		// mask, in place.
		named := mustParse(t, `{"type":"isNotNull","parameter":"SCIENTIFIC_NAME"}`)
		var want []int
		for _, i := range c.want {
			if i <= 1 {
				want = append(want, i)
			}
		}
		for _, and := range []*Predicate{{Type: TypeAnd, Predicates: []*Predicate{named, p}}, {Type: TypeAnd, Predicates: []*Predicate{p, named}}} {
			if got := matchingRows(t, and, batch); !slices.Equal(got, want) {
				t.Errorf("%s: rows %v, want %v", and, got, want)
			}
		}
	}
}

// TestFullTextDictionaryColumns: with the name columns dictionary-encoded
// (as Parquet scans give them), where Eval keeps each entry's words, Eval
// agrees with itself on plain columns and with MatchRow, for at-least and
// exactly-k predicates, over records whose words come from names, places
// and verbatim values alike.
func TestFullTextDictionaryColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pick := func(vs ...string) string { return vs[rng.IntN(len(vs))] }
	rows := make([]row, 400)
	for i := range rows {
		rows[i] = row{ColScientificName: pick("Puma concolor", "Quercus robur L.", "Puma", ""), ColFamily: pick("Felidae", "Fagaceae"),
			"level1Name": pick("Midtjylland", "Skåne", "Texas"), ColVerbatim: pick(`{"habitat":"oak forest"}`, `{"locality":"near Texas"}`, `{}`, `{"x":"puma robur"}`)}
		if rows[i][ColScientificName] == "" {
			delete(rows[i], ColScientificName)
		}
	}
	cols := append(allColumns(), FullTextColumns...)
	slices.Sort(cols)
	cols = slices.Compact(cols)
	plain := buildBatch(t, cols, rows)
	defer plain.Release()
	dict := dictEncoded(t, plain, ColScientificName, ColFamily, "level1Name")
	defer dict.Release()
	words := FullTextWords("puma robur texas forest")
	for k := 1; k <= len(words); k++ {
		for _, exact := range []bool{false, true} {
			p, err := FullText(words, k)
			if exact {
				p, err = FullTextExactly(words, k)
			}
			if err != nil {
				t.Fatal(err)
			}
			a := matchingRows(t, p, plain)
			if b := matchingRows(t, p, dict); !slices.Equal(a, b) || len(a) == 0 && k < 3 {
				t.Fatalf("%s: plain columns match %d rows, dictionary ones %d", p, len(a), len(b))
			}
		}
	}
}

// TestFullTextHasNoJSON: a fullText predicate is the search's; predicate
// JSON (a download request) cannot carry one.
func TestFullTextHasNoJSON(t *testing.T) {
	p, err := FullText([]string{"puma", "concolor"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.String(); !strings.Contains(s, `"words":["puma","concolor"]`) || !strings.Contains(s, `"minWords":2`) {
		t.Errorf("String %s", s)
	}
	if d := p.Describe(); d != `Text has 2 of the words "puma", "concolor"` {
		t.Errorf("Describe %q", d)
	}
	if _, err := ParsePredicateJSON([]byte(p.String()), DefaultLimits()); !errors.Is(err, ErrInvalidPredicate) {
		t.Errorf("parsed back: %v", err)
	}
	// GBIF's own full-text predicate, which GBIF's downloads refuse too.
	if _, err := ParsePredicateJSON([]byte(`{"type":"fullTextSearch","q":"puma"}`), DefaultLimits()); err == nil ||
		!strings.Contains(err.Error(), "full-text search is not supported in downloads") {
		t.Errorf("fullTextSearch: %v", err)
	}
	for _, bad := range []struct {
		words []string
		min   int
	}{{nil, 1}, {[]string{"a"}, 2}, {[]string{"a"}, 0}, {[]string{"Puma"}, 1}, {[]string{"a b"}, 1}, {[]string{"a", "b", "a"}, 1},
		{strings.Fields("a b c d e f g h i j k"), 1}} {
		if _, err := FullText(bad.words, bad.min); !errors.Is(err, ErrInvalidPredicate) {
			t.Errorf("FullText(%q, %d): %v", bad.words, bad.min, err)
		}
	}
}

// FuzzFullTextWords: any text is cut without panic into distinct words,
// each lower case and cut again into itself alone (so FullText takes
// them), and a word found in the text is found in the text's words.
func FuzzFullTextWords(f *testing.F) {
	for _, s := range []string{"Puma concolor (Linnaeus, 1771)", "U.S.A. O'Brien 12.5,3", "MÜLLER_x:y", "a.'b", "İstanbul ǅ", "\xff\xfe.", "5 \u212a; STRAßE", "ÀB àb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words := FullTextWords(s)
		if len(words) > 0 && len(words) <= MaxFullTextWords {
			if _, err := FullText(words, len(words)); err != nil {
				t.Fatalf("%q: words %q refused: %v", s, words, err)
			}
		}
		seen := map[string]bool{}
		for _, w := range words {
			if seen[w] || w == "" || w != strings.ToLower(w) {
				t.Fatalf("%q: word %q repeated, empty or not lower case", s, w)
			}
			seen[w] = true
			if again := FullTextWords(w); len(again) != 1 || again[0] != w {
				t.Fatalf("%q: word %q cuts into %q", s, w, again)
			}
			// the matcher's quick look never misses a word the text has
			p, err := FullText([]string{w}, 1)
			if err != nil {
				t.Fatal(err)
			}
			m := p.comp().newTextMatcher()
			if m.value(ColLocality, s); !m.matches() {
				t.Fatalf("%q: the word %q is not found in it", s, w)
			}
		}
	})
}
