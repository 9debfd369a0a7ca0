package taxonomy

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// recordCases are occurrence records with the mess real data has, matched
// against the GBIF backbone cut (testdata/gbif-backbone-cut.zip): each
// asserts the usage, the accepted usage and the issues GBIF would give.
var recordCases = []struct {
	what     string
	q        Query
	typ      MatchType
	key      int64 // usage
	accepted int64
	family   int64 // the classification's family (0: not checked)
	issues   []string
}{
	{what: "name with authorship", q: Query{ScientificName: "Puma concolor (Linnaeus, 1771)", Kingdom: "Animalia"},
		typ: MatchExact, key: 2435099, accepted: 2435099, family: 9703},
	{what: "authorship variant", q: Query{ScientificName: "Puma concolor Linnaeus", Kingdom: "Animalia", Family: "Felidae"},
		typ: MatchExact, key: 2435099, accepted: 2435099, family: 9703},
	{what: "authorship in its own term", q: Query{ScientificName: "Puma concolor", Authorship: "(L., 1771)", Class: "Mammalia"},
		typ: MatchExact, key: 2435099, accepted: 2435099},
	{what: "name from genus and epithet terms", q: Query{GenericName: "Puma", SpecificEpithet: "concolor", Kingdom: "Animalia"},
		typ: MatchExact, key: 2435099, accepted: 2435099},
	{what: "misspelt epithet", q: Query{ScientificName: "Puma concolour", Kingdom: "Animalia", Family: "Felidae"},
		typ: MatchFuzzy, key: 2435099, accepted: 2435099, family: 9703, issues: []string{IssueTaxonMatchFuzzy}},
	{what: "misspelt, no higher taxa, as a record", q: Query{ScientificName: "Puma concolour", Occurrence: true},
		typ: MatchNone, issues: []string{IssueTaxonMatchNone}},
	{what: "all lower case", q: Query{ScientificName: "puma concolor"}, typ: MatchExact, key: 2435099, accepted: 2435099},
	{what: "cf. qualifier", q: Query{ScientificName: "Puma cf. concolor", Kingdom: "Animalia"},
		typ: MatchExact, key: 2435099, accepted: 2435099},
	{what: "synonym", q: Query{ScientificName: "Felis concolor Linnaeus, 1771", Kingdom: "Animalia"},
		typ: MatchExact, key: 2435104, accepted: 2435099, family: 9703},
	{what: "infraspecific synonym", q: Query{ScientificName: "Zea mays var. hirta", Kingdom: "Plantae"},
		typ: MatchExact, key: 5945560, accepted: 5290052},
	{what: "homonym by authorship: the accepted fir", q: Query{ScientificName: "Abies alba Mill.", Kingdom: "Plantae"},
		typ: MatchExact, key: 2685484, accepted: 2685484},
	{what: "homonym by authorship: the spruce synonym", q: Query{ScientificName: "Abies alba (Münchh.) Michx.", Kingdom: "Plantae"},
		typ: MatchExact, key: 7906030, accepted: 5284745},
	{what: "homonym across kingdoms: the plant", q: Query{ScientificName: "Oenanthe", Kingdom: "Plantae"},
		typ: MatchExact, key: 3034893, accepted: 3034893},
	{what: "homonym across kingdoms: the bird", q: Query{ScientificName: "Oenanthe", Kingdom: "Animalia", Class: "Aves"},
		typ: MatchExact, key: 2492483, accepted: 2492483},
	{what: "homonym without kingdom", q: Query{ScientificName: "Oenanthe"}, typ: MatchNone, issues: []string{IssueTaxonMatchNone}},
	{what: "a family", q: Query{ScientificName: "Felidae", Kingdom: "Animalia"}, typ: MatchExact, key: 9703, accepted: 9703},
	{what: "unknown species of a known genus", q: Query{ScientificName: "Puma fantastica", Kingdom: "Animalia", Family: "Felidae"},
		typ: MatchHigherRank, key: 2435098, accepted: 2435098, family: 9703, issues: []string{IssueTaxonMatchHigherRank}},
	{what: "indeterminate species", q: Query{ScientificName: "Puma sp.", Kingdom: "Animalia"},
		typ: MatchHigherRank, key: 2435098, accepted: 2435098, issues: []string{IssueTaxonMatchHigherRank}},
	{what: "only a family given", q: Query{Kingdom: "Animalia", Family: "Felidae"}, typ: MatchExact, key: 9703, accepted: 9703},
	{what: "hybrid marker", q: Query{ScientificName: "Abies × alba Mill.", Kingdom: "Plantae"},
		typ: MatchExact, key: 2685484, accepted: 2685484},
	{what: "hybrid formula", q: Query{ScientificName: "Puma concolor × Felis catus"}, typ: MatchNone, issues: []string{IssueTaxonMatchNone}},
	{what: "nonsense", q: Query{ScientificName: "Xyzzy plugh"}, typ: MatchNone, issues: []string{IssueTaxonMatchNone}},
	{what: "by taxonID", q: Query{TaxonID: "2435104", ScientificName: "Felis concolor"},
		typ: MatchExact, key: 2435104, accepted: 2435099},
	{what: "taxonID and name disagree", q: Query{TaxonID: "2435104", ScientificName: "Abies alba"},
		typ: MatchExact, key: 2435104, accepted: 2435099, issues: []string{IssueNameAndIDInconsistent}},
	{what: "taxonID unknown", q: Query{TaxonID: "no-such-id", ScientificName: "Puma concolor"},
		typ: MatchExact, key: 2435099, accepted: 2435099, issues: []string{IssueTaxonIDNotFound}},
}

func TestMatchRecords(t *testing.T) {
	c := backbone(t)
	ctx := context.Background()
	for _, tc := range recordCases {
		m, err := c.Match(ctx, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		var key, acc int64
		if m.Usage != nil {
			key, acc = m.Usage.Key, m.Accepted.Key
		}
		if m.Type != tc.typ || key != tc.key || acc != tc.accepted || !slices.Equal(m.Issues, tc.issues) {
			t.Errorf("%s: %s %d (accepted %d) %q confidence %d %s; want %s %d (accepted %d) %q",
				tc.what, m.Type, key, acc, m.Issues, m.Confidence, m.Note, tc.typ, tc.key, tc.accepted, tc.issues)
			continue
		}
		if tc.family != 0 {
			if f, ok := m.Ranked(RankFamily); !ok || f.Key != tc.family {
				t.Errorf("%s: family %v, want %d", tc.what, f, tc.family)
			}
		}
		if m.Usage != nil {
			// the classification ends with the accepted usage, and the
			// record's taxon keys hold every ancestor
			last := m.Classification[len(m.Classification)-1]
			if last.Key != acc {
				t.Errorf("%s: classification ends with %v, want %d", tc.what, last, acc)
			}
			keys := m.TaxonKeys()
			for _, x := range m.Classification {
				if !slices.Contains(keys, x.Key) {
					t.Errorf("%s: taxon keys %v lack %d", tc.what, keys, x.Key)
				}
			}
			if !slices.Contains(keys, key) {
				t.Errorf("%s: taxon keys %v lack the usage %d", tc.what, keys, key)
			}
		}
	}
}

// TestMatchCacheConcurrent matches the record cases from many goroutines
// through a cache and compares with direct matches.
func TestMatchCacheConcurrent(t *testing.T) {
	c := backbone(t)
	cache := NewCache(c, 16)
	ctx := context.Background()
	want := make([]Match, len(recordCases))
	for i, tc := range recordCases {
		want[i], _ = c.Match(ctx, tc.q)
	}
	done := make(chan error)
	for g := range 8 {
		go func() {
			for r := range 20 {
				i := (g + r) % len(recordCases)
				m, err := cache.Match(ctx, recordCases[i].q)
				if err == nil && (m.Type != want[i].Type || m.Confidence != want[i].Confidence ||
					(m.Usage == nil) != (want[i].Usage == nil) || m.Usage != nil && m.Usage.Key != want[i].Usage.Key) {
					err = errMismatch(recordCases[i].what)
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	hits, misses := cache.Stats()
	if hits+misses != 160 || hits == 0 {
		t.Errorf("cache: %d hits, %d misses", hits, misses)
	}
}

type errMismatch string

func (e errMismatch) Error() string { return "cached match differs: " + string(e) }

// TestFuzzyHeadsRemembered: the fuzzy first words a checklist remembers
// are those it finds without remembering, a second lookup is served from
// memory, matches do not change when served so, and the memory is bounded.
func TestFuzzyHeadsRemembered(t *testing.T) {
	c := backbone(t)
	for _, tc := range []struct {
		first  string
		budget int
		want   string // a word the variants must hold ("" none)
	}{
		{"pumma", 1, "Puma"}, {"puna", 1, "Puma"}, {"abiess", 2, "Abies"}, {"zzzz", 1, ""},
	} {
		exact := c.wordIndex([]byte(tc.first))
		direct := c.findFuzzyHeads(tc.first, exact, tc.budget)
		got := c.fuzzyHeads.get(c, tc.first, exact, tc.budget)
		again := c.fuzzyHeads.get(c, tc.first, exact, tc.budget)
		if !slices.Equal(got, direct) || !slices.Equal(again, direct) {
			t.Errorf("%s: remembered %v, then %v; found %v", tc.first, got, again, direct)
		}
		if len(again) > 0 && &again[0] != &got[0] {
			t.Errorf("%s: the second lookup searched again", tc.first)
		}
		var words []string
		for _, w := range direct {
			word, _, _ := c.wordAt(w)
			words = append(words, string(word))
		}
		if tc.want != "" && !slices.Contains(words, tc.want) || tc.want == "" && len(words) > 0 {
			t.Errorf("%s within %d edits: %q, want %q among them", tc.first, tc.budget, words, tc.want)
		}
	}

	ctx := context.Background()
	for _, tc := range recordCases {
		first, err := c.Match(ctx, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		second, err := c.Match(ctx, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if first.Type != second.Type || first.Confidence != second.Confidence || (first.Usage == nil) != (second.Usage == nil) ||
			first.Usage != nil && first.Usage.Key != second.Usage.Key {
			t.Errorf("%s: %s %d, then %s %d", tc.what, first.Type, first.Confidence, second.Type, second.Confidence)
		}
	}

	for i := range maxFuzzyHeads + 10 {
		c.fuzzyHeads.get(c, fmt.Sprint("w", i), -1, 1)
	}
	if n := len(c.fuzzyHeads.m); n > maxFuzzyHeads || n == 0 {
		t.Errorf("%d first words remembered, want 1..%d", n, maxFuzzyHeads)
	}
}
