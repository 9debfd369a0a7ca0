package occurrence

import (
	"slices"
	"strings"
	"testing"
)

// TestTypeStatusAsGBIF: typeStatus parts aligned to GBIF's TypeStatus
// concepts as its VocabularyInterpreter does, with GBIF's own test case
// (pipelines VocabularyInterpreterTest.typeStatusParsingTest: three
// Holotypes and a Type, no issue) and the issues of parts naming none.
func TestTypeStatusAsGBIF(t *testing.T) {
	for _, c := range []struct {
		raw, want string
		issue     string
	}{
		{"holotype of Ctenomys sociabilis. Pearson O. P., and M. I. Christie. 1985. Historia Natural, 5(37):388 | " +
			"holotype of Aus bus. Doe J. The discovery of a very important species. Journal of Invented Stuff, 1(38):5 | holotype | UNSPECIFIEDKINDOFTYPE",
			"Holotype;Holotype;Holotype;Type", ""},
		{"Paratype for Aus bus", "Paratype", ""},
		{"HOLOTYPE", "Holotype", ""},
		{"Isótipo", "Isotype", ""},                    // a hidden label, accents folded
		{"type species", "TypeSpecies", ""},           // an English label
		{"possible holotype", "", IssueSuspectedType}, // hedged: suspected, not invalid
		{"Holotype | nonsense", "Holotype", IssueTypeStatusInvalid},
		{"Holotype, Paratype", "Type", ""}, // GBIF splits at "|" only; this whole text is a hidden label of Type
	} {
		r := interpret(t, dwcTerms("occurrenceID", "x", "typeStatus", c.raw), nil)
		if got := get(r, ColTypeStatus).S; got != c.want {
			t.Errorf("%q: typeStatus %q, want %q", c.raw, got, c.want)
		}
		for _, issue := range []string{IssueSuspectedType, IssueTypeStatusInvalid} {
			if hasIssue(r, issue) != (issue == c.issue) {
				t.Errorf("%q: issue %s is %v", c.raw, issue, hasIssue(r, issue))
			}
		}
	}
}

// TestConceptFields: sex, lifeStage, establishmentMeans,
// degreeOfEstablishment and pathway hold GBIF's concept names, found by
// name, label (any language) or hidden label after the prefilters GBIF
// gives sex and lifeStage; a value naming no concept leaves them empty.
func TestConceptFields(t *testing.T) {
	for _, c := range []struct{ col, raw, want string }{
		{"sex", "female", "Female"},
		{"sex", "Hembra", "Female"}, // Spanish label
		{"sex", "2 males", "Male"},  // digits dropped: "males" is a hidden label
		{"sex", "qwerty", ""},
		{"sex", "16 machos", "Male"}, // a hidden label, digits dropped on both sides
		{"lifeStage", "adult", "Adult"},
		{"lifeStage", "12Adult", "Adult"}, // a leading number dropped
		{"lifeStage", "Volwassen", "Adult"},
		{"lifeStage", "adwadaw", ""}, // GBIF's lifeStageRandomValueTest
		{"lifeStage", "null", ""},
		{"establishmentMeans", "Native", "native"},
		{"establishmentMeans", "Introduced (Alien, Exotic, Non-native, Nonindigenous)", "introduced"},
		{"establishmentMeans", "naturalised", "introduced"},
		{"establishmentMeans", "planted by the farmer", ""},
		{"degreeOfEstablishment", "Invasive", "invasive"},
		{"pathway", "ballast water", "ballastWater"}, // a name, whitespace dropped
	} {
		r := interpret(t, dwcTerms("occurrenceID", "x", c.col, c.raw), nil)
		if got := get(r, c.col).S; got != c.want {
			t.Errorf("%s %q: %q, want %q", c.col, c.raw, got, c.want)
		}
	}
}

// TestAsciiFold folds letters as GBIF's vocabulary lookup compares them.
func TestAsciiFold(t *testing.T) {
	for in, want := range map[string]string{"isótipo": "isotipo", "ørsted": "orsted", "straße": "strasse", "ＡＢ": "AB", "plain": "plain", "日本": "日本"} {
		if got := asciiFold(in); got != want {
			t.Errorf("asciiFold(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestConceptPredicateErrors: a search value that names no concept is an
// error saying which vocabulary and some of its concepts.
func TestConceptPredicateErrors(t *testing.T) {
	for key, value := range map[string]string{"SEX": "qwerty", "TYPE_STATUS": "notatall", "PATHWAY": "teleportation"} {
		_, err := ParsePredicateJSON([]byte(`{"type":"equals","key":"`+key+`","value":"`+value+`"}`), DefaultLimits())
		if err == nil || !strings.Contains(err.Error(), "not a concept of GBIF's") || !strings.Contains(err.Error(), value) {
			t.Errorf("%s=%s: %v", key, value, err)
		}
	}
	if _, err := ParseQuery(map[string][]string{"typeStatus": {"HOLOTYPE"}, "lifeStage": {"Adulto"}}, DefaultLimits()); err != nil {
		t.Errorf("query of concepts by other names: %v", err)
	}
}

// TestConceptLookupOrder: names before labels before hidden labels; a
// label of several concepts resolves to the one it is the English label
// of, else to none; a hidden label of several concepts is the last's, as
// GBIF's lookup cache keeps it.
func TestConceptLookupOrder(t *testing.T) {
	conceptData["test"] = []conceptDef{
		{name: "bat", labels: []langLabel{{"en", "Chiroptera"}}},
		{name: "Club", labels: []langLabel{{"en", "bat"}, {"en", "stick"}}, hidden: []string{"Wood", "shared"}},
		{name: "Flier", labels: []langLabel{{"es-ES", "stick"}, {"nl-NL", "vlieg"}}, hidden: []string{"shared"}},
		{name: "Vlieger", labels: []langLabel{{"nl-NL", "vlieg"}}},
	}
	defer delete(conceptData, "test")
	v := newConceptVocabulary("test", nil)
	for value, want := range map[string]string{
		"BAT":        "bat",   // a name wins over Club's label "bat"
		"chiroptera": "bat",   // a label
		"s t i c k":  "Club",  // two concepts' label, English decides
		"vlieg":      "",      // two concepts' label, neither English
		"wood":       "Club",  // a hidden label
		"shared":     "Flier", // the later concept's hidden label
	} {
		if got, _ := v.lookup(value); got != want {
			t.Errorf("lookup(%q) = %q, want %q", value, got, want)
		}
	}
}

// FuzzConceptLookup: whatever a publisher writes, a lookup answers one of
// the vocabulary's concepts or none, and a concept's name looks up itself.
func FuzzConceptLookup(f *testing.F) {
	for _, s := range []string{"Holotype of Aus bus", "16 machos", "Isótipo", "", "\xff", "ＨＯＬＯＴＹＰＥ", "12Adult", "null"} {
		f.Add(s)
	}
	vocabs := []*conceptVocabulary{conceptsTypeStatus, conceptsEstablishmentMeans, conceptsDegreeOfEstablishment,
		conceptsPathway, conceptsSex, conceptsLifeStage}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range vocabs {
			name, ok := v.lookup(s)
			if !ok {
				continue
			}
			if !slices.Contains(v.concepts, name) {
				t.Fatalf("%s: %q looked up %q, not a concept", v.name, s, name)
			}
			if again, _ := v.lookup(name); again != name {
				t.Fatalf("%s: concept %q looks up %q", v.name, name, again)
			}
		}
	})
}

// TestConceptsFromDynamicProperties: an empty sex or lifeStage is filled
// from dynamicProperties as GBIF's VertNet parsers read it; a value of the
// term itself wins; two different sexes in the text give none.
func TestConceptsFromDynamicProperties(t *testing.T) {
	for _, c := range []struct {
		terms     []string
		sex, life string
	}{
		{[]string{"dynamicProperties", `{"sex":"female", "age class":"adult"}`}, "Female", "Adult"},
		{[]string{"dynamicProperties", "sex=male; lifestage=juvenile"}, "Male", "Juvenile"},
		{[]string{"dynamicProperties", "2 males, 1 larva"}, "Male", "Larva"},
		{[]string{"dynamicProperties", "one male and one female"}, "", ""}, // two sexes: none
		{[]string{"dynamicProperties", "age determined by skull: adult"}, "", ""},
		{[]string{"sex", "female", "dynamicProperties", "sex: male"}, "Female", ""},
		{[]string{"dynamicProperties", "NULL"}, "", ""},
	} {
		r := interpret(t, dwcTerms(append([]string{"occurrenceID", "x"}, c.terms...)...), nil)
		if got := get(r, "sex").S; got != c.sex {
			t.Errorf("%q: sex %q, want %q", c.terms, got, c.sex)
		}
		if got := get(r, "lifeStage").S; got != c.life {
			t.Errorf("%q: lifeStage %q, want %q", c.terms, got, c.life)
		}
	}
}

// FuzzDynamicProperties: the VertNet parsers answer a part of the text or
// nothing, whatever the text.
func FuzzDynamicProperties(f *testing.F) {
	for _, s := range []string{`{"sex":"female","age":"adult"}`, "2 males, 1 larva", "sex=", "age in days: 3 year", "\xff sex \xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lower := strings.ToLower(s)
		for _, parse := range []func(string) (string, bool){sexInDynamicProperties, lifeStageInDynamicProperties} {
			if v, ok := parse(lower); ok && !strings.Contains(lower, v) {
				t.Fatalf("%q: parsed %q, not in the text", s, v)
			}
		}
	})
}

// ungatedSex and ungatedLifeStage run every pattern, as GBIF's parsers do:
// the reference the gates must not change.
func ungatedSex(lower string) (string, bool) {
	for _, p := range sexPatterns {
		ms := p.FindAllStringSubmatch(lower, -1)
		if len(ms) == 0 {
			continue
		}
		i := p.SubexpIndex("value")
		for _, m := range ms[1:] {
			if m[i] != ms[0][i] {
				return "", false
			}
		}
		return ms[0][i], true
	}
	return "", false
}

func ungatedLifeStage(lower string) (string, bool) {
	if strings.Contains(lower, "determin") {
		return "", false
	}
	for _, p := range lifeStagePatterns {
		if m := p.FindStringSubmatch(lower); m != nil {
			return m[p.SubexpIndex("value")], true
		}
	}
	return "", false
}

// FuzzDynamicPropertiesGates: skipping a pattern whose gate fails never
// changes what the parsers find.
func FuzzDynamicPropertiesGates(f *testing.F) {
	for _, s := range []string{"sex: male", "2 females", "age class=adult", "after second year", "yolk sac", "ad.", "ad?x",
		"sub-adults", "têtards", "juvéniles?", "young-of-the-year", "fry", "FR", "a_d", "imm.", "stage: larva", "lifestage remarks: egg"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lower := strings.ToLower(s)
		g, ok := sexInDynamicProperties(lower)
		if u, uok := ungatedSex(lower); g != u || ok != uok {
			t.Fatalf("%q: sex %q %v, ungated %q %v", s, g, ok, u, uok)
		}
		g, ok = lifeStageInDynamicProperties(lower)
		if u, uok := ungatedLifeStage(lower); g != u || ok != uok {
			t.Fatalf("%q: life stage %q %v, ungated %q %v", s, g, ok, u, uok)
		}
	})
}

// A value names a concept by its name as GBIF's normalizeName compares
// names, without "-" or "_": ssu-rrna is SSU_rRNA (no label of it says
// so); labels keep theirs.
func TestConceptNameWithoutSeparators(t *testing.T) {
	for v, want := range map[string]string{"ssu-rrna": "SSU_rRNA", "SSU_rRNA": "SSU_rRNA", "ssurrna": "SSU_rRNA", "MT-RNR1": "SSU_rRNA_12S_mitochondrial", "cox1": "COI"} {
		if got, ok := TargetGeneConcept(v); !ok || got != want {
			t.Errorf("TargetGeneConcept(%q) = %q, %v; want %q", v, got, ok, want)
		}
	}
}
