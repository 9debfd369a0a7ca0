package occurrence

import (
	"regexp"
	"strings"
)

// GBIF fills an empty sex or lifeStage from dynamicProperties with
// VertNet's parsers (pipelines' SexParser and LifeStageParser, run by its
// DynamicPropertiesInterpreter), then aligns what they find to the
// vocabulary like the term's own value. These are those parsers' rules:
// keyed values ("sex: female", "age class=adult"), then unkeyed words
// ("2 males", "juvenile"), on the lower-cased text.

var (
	sexPatterns = []*regexp.Regexp{
		regexp.MustCompile(`\b(?P<key>sex)\W+(?P<value>[\w?.]+(?:\s+[\w?.]+){0,2})\s*(?:[:;,"]|$)`),
		regexp.MustCompile(`\b(?P<key>sex)\W+(?P<value>\w+)`),
		regexp.MustCompile(`\b(?P<value>(?:males?|females?)(?:\s*\?)?)\b`),
	}
	lifeStagePatterns = []*regexp.Regexp{
		regexp.MustCompile(`\b(?P<key>(?:life\s*stage(?:\s*remarks)?|age(?:\s*class)?))\W+(?P<value>[\w?./\-]+(?:\s+[\w?./\-]+){0,4})\s*(?:[:;,"]|$)`),
		regexp.MustCompile(`\b(?P<key>life\s*stage(?:\s*remarks)?|age\s*class|age\s*in\s*(?:hour|day)s?|age)\W+(?P<value>[\w?./\-]+(?:\s+(?:year|recorded))?)`),
		regexp.MustCompile(`(?P<value>(?:after\s+)?(?:first|second|third|fourth|hatching)\s+year)`),
		regexp.MustCompile(`(?P<value>(?:yolk)\s+sac)`),
		regexp.MustCompile(`\b(?P<value>(?:` + strings.Join(lifeStageUnkeyed, "|") + `)(?:\s*\?)?)\b`),
	}
)

// lifeStageUnkeyed are the alternatives of LifeStageParser's unkeyed
// pattern, a last "?" making the letter before it optional.
var lifeStageUnkeyed = strings.Fields(`larves? larvae? larvals? imagos? neonates? hatchlings? hatched? fry?
	metamorphs? premetamorphs tadpoles? têtard? young-of-the-year? leptocephales? leptocephalus? immatures?
	imms? jeunes? young? ygs? fleglings? fledgelings? chicks? nestlings? juveniles? juvéniles? juvs? subadults?
	subadultes? subads? sub-adults? yearlings? matures? adults? adulte? ads?`)

// Go's regexp scans a text in tens of microseconds for these patterns
// (an ingest spends about 75 on a whole record), and most
// dynamicProperties hold neither a sex nor a life stage. So each pattern
// runs only when the text holds what any match of it must: sexGates and
// lifeStageGates, by pattern.
var (
	sexGates = []func(string) bool{
		containsFn("sex"), containsFn("sex"), containsFn("male"),
	}
	lifeStageGates = []func(string) bool{
		containsFn("age"), containsFn("age"), containsFn("year"), containsFn("sac"), hasLifeStageWord,
	}
)

func containsFn(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

// lifeStageWords are the whole ASCII words the unkeyed life stage pattern
// starts a match with; lifeStageParts its alternatives that are not one
// ASCII word, without their optional last letter. Both are made from
// lifeStageUnkeyed.
var lifeStageWords, lifeStageParts = func() (map[string]bool, []string) {
	words := map[string]bool{}
	var parts []string
	for _, alt := range lifeStageUnkeyed {
		short, optional := strings.CutSuffix(alt, "?")
		forms := []string{short}
		if optional {
			short = short[:len(short)-1]
			forms = append(forms, short)
		}
		if !isASCIIWord(short) {
			parts = append(parts, short)
			continue
		}
		for _, f := range forms {
			words[f] = true
		}
	}
	return words, parts
}()

func isASCIIWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
}

// isWordByte is what \w matches in Go's (and Java's) regular expressions.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// hasLifeStageWord reports whether s has a whole ASCII word (a run of
// letters, digits and "_") the last life stage pattern starts a match
// with, or one of its other alternatives.
func hasLifeStageWord(s string) bool {
	for _, p := range lifeStageParts {
		if strings.Contains(s, p) {
			return true
		}
	}
	start := -1
	for i := 0; i <= len(s); i++ {
		word := i < len(s) && isWordByte(s[i])
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			if lifeStageWords[s[start:i]] {
				return true
			}
			start = -1
		}
	}
	return false
}

// sexInDynamicProperties is SexParser.parse: the first pattern that
// matches gives the value, unless another match of it gives another value
// (then nothing).
func sexInDynamicProperties(lower string) (string, bool) {
	for j, p := range sexPatterns {
		if !sexGates[j](lower) {
			continue
		}
		ms := p.FindAllStringSubmatch(lower, -1)
		if len(ms) == 0 {
			continue
		}
		i := p.SubexpIndex("value")
		v := ms[0][i]
		for _, m := range ms[1:] {
			if m[i] != v {
				return "", false
			}
		}
		return v, true
	}
	return "", false
}

// lifeStageInDynamicProperties is LifeStageParser.parse: nothing when the
// text speaks of determination, else the first match of the first pattern
// that matches.
func lifeStageInDynamicProperties(lower string) (string, bool) {
	if strings.Contains(lower, "determin") {
		return "", false
	}
	for j, p := range lifeStagePatterns {
		if !lifeStageGates[j](lower) {
			continue
		}
		if m := p.FindStringSubmatch(lower); m != nil {
			return m[p.SubexpIndex("value")], true
		}
	}
	return "", false
}
