package web_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPygbifSpecies drives the species API with GBIF's Python client,
// pygbif 0.7.0, with its defaults and only its base URL changed:
// species.name_backbone (which calls /v2/species/match), name_suggest and
// name_usage against GBIF's backbone cut, each answer checked against the
// backbone keys GBIF gives.
func TestPygbifSpecies(t *testing.T) {
	requirePygbif(t)
	base, _ := startSpeciesServer(t)
	out := runPygbif(t, 2*time.Minute, nil, "testdata/pygbif_species.py", base)
	type backbone struct {
		Key, Name, Rank, Accepted, MatchType string
		Synonym                              bool
		Confidence                           int
		Classification, Alternatives         []string
	}
	var got struct {
		Exact, Synonym, Fuzzy, Homonym, Ambiguous, Genus, None backbone
		Suggest                                                []struct {
			Key           int64
			CanonicalName string
			Rank          string
		}
		SuggestSpecies []string `json:"suggest_species"`
		SuggestLimit   []int64  `json:"suggest_limit"`
		Usage          struct{ Key, ParentKey, SpeciesKey int64 }
		Parents        []int64
		Children       struct {
			Keys         []int64
			EndOfRecords bool
		}
		Missing any
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("pygbif output %s: %v", out, err)
	}
	puma := []string{"1", "44", "359", "732", "9703", "2435098", "2435099"}
	check := func(what string, b backbone, key, accepted, typ string, synonym bool) {
		t.Helper()
		if b.Key != key || b.Accepted != accepted || b.MatchType != typ || b.Synonym != synonym {
			t.Errorf("name_backbone %s: %+v", what, b)
		}
	}
	check("Puma concolor", got.Exact, "2435099", "", "EXACT", false)
	if !slices.Equal(got.Exact.Classification, puma) || got.Exact.Rank != "SPECIES" || got.Exact.Confidence < 90 {
		t.Errorf("name_backbone Puma concolor: %+v", got.Exact)
	}
	check("Felis concolor", got.Synonym, "2435104", "2435099", "EXACT", true)
	if !slices.Equal(got.Synonym.Classification, puma) {
		t.Errorf("name_backbone Felis concolor: classification %v", got.Synonym.Classification)
	}
	check("Pumma concolor", got.Fuzzy, "2435099", "", "FUZZY", false)
	check("Oenanthe in Plantae", got.Homonym, "3034893", "", "EXACT", false)
	check("Oenanthe", got.Ambiguous, "", "", "NONE", false)
	if !slices.Equal(got.Ambiguous.Alternatives, []string{"2492483", "3034893"}) {
		t.Errorf("name_backbone Oenanthe verbose: alternatives %v", got.Ambiguous.Alternatives)
	}
	check("Puma, genus", got.Genus, "2435098", "", "EXACT", false)
	check("Xyzzyx plugh", got.None, "", "", "NONE", false)
	if len(got.Suggest) < 2 || got.Suggest[0].Key != 2435098 || !slices.ContainsFunc(got.Suggest, func(s struct {
		Key           int64
		CanonicalName string
		Rank          string
	}) bool {
		return s.Key == 2435099
	}) {
		t.Errorf("name_suggest Puma: %+v", got.Suggest)
	}
	for _, s := range got.Suggest {
		if !strings.HasPrefix(s.CanonicalName, "Puma") {
			t.Errorf("name_suggest Puma: %+v", s)
		}
	}
	if len(got.SuggestSpecies) == 0 || slices.ContainsFunc(got.SuggestSpecies, func(r string) bool { return r != "SPECIES" }) {
		t.Errorf("name_suggest Puma rank=species: %v", got.SuggestSpecies)
	}
	if !slices.Equal(got.SuggestLimit, []int64{2435098}) {
		t.Errorf("name_suggest Puma limit=1: %v", got.SuggestLimit)
	}
	if got.Usage.Key != 2435099 || got.Usage.ParentKey != 2435098 || got.Usage.SpeciesKey != 2435099 {
		t.Errorf("name_usage 2435099: %+v", got.Usage)
	}
	if !slices.Equal(got.Parents, []int64{1, 44, 359, 732, 9703, 2435098}) {
		t.Errorf("name_usage 2435099 parents: %v", got.Parents)
	}
	if !slices.Contains(got.Children.Keys, 2435099) || !got.Children.EndOfRecords {
		t.Errorf("name_usage 2435098 children: %+v", got.Children)
	}
	if got.Missing != float64(404) {
		t.Errorf("name_usage of an unknown key: %v", got.Missing)
	}
}
