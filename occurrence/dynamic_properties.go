package occurrence

import "regexp"

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
	lifeStageExclude  = regexp.MustCompile(`determin`)
	lifeStagePatterns = []*regexp.Regexp{
		regexp.MustCompile(`\b(?P<key>(?:life\s*stage(?:\s*remarks)?|age(?:\s*class)?))\W+(?P<value>[\w?./\-]+(?:\s+[\w?./\-]+){0,4})\s*(?:[:;,"]|$)`),
		regexp.MustCompile(`\b(?P<key>life\s*stage(?:\s*remarks)?|age\s*class|age\s*in\s*(?:hour|day)s?|age)\W+(?P<value>[\w?./\-]+(?:\s+(?:year|recorded))?)`),
		regexp.MustCompile(`(?P<value>(?:after\s+)?(?:first|second|third|fourth|hatching)\s+year)`),
		regexp.MustCompile(`(?P<value>(?:yolk)\s+sac)`),
		regexp.MustCompile(`\b(?P<value>(?:larves?|larvae?|larvals?|imagos?|neonates?|hatchlings?|hatched?|fry?|metamorphs?|premetamorphs` +
			`|tadpoles?|têtard?|young-of-the-year?|leptocephales?|leptocephalus?|immatures?|imms?|jeunes?` +
			`|young?|ygs?|fleglings?|fledgelings?|chicks?|nestlings?|juveniles?|juvéniles?|juvs?|subadults?` +
			`|subadultes?|subads?|sub-adults?|yearlings?|matures?|adults?|adulte?|ads?)(?:\s*\?)?)\b`),
	}
)

// sexInDynamicProperties is SexParser.parse: the first pattern that
// matches gives the value, unless another match of it gives another value
// (then nothing).
func sexInDynamicProperties(lower string) (string, bool) {
	for _, p := range sexPatterns {
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
	if lifeStageExclude.MatchString(lower) {
		return "", false
	}
	for _, p := range lifeStagePatterns {
		if m := p.FindStringSubmatch(lower); m != nil {
			return m[p.SubexpIndex("value")], true
		}
	}
	return "", false
}
