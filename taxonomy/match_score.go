package taxonomy

import "strings"

// The scores of GBIF's matcher (NubMatchingServiceImpl), summed into a
// raw confidence that normConfidence maps onto 0-100.

// score rates a candidate for a mode.
func (c *Checklist) score(x *candidate, queryType NameType, pn *ParsedName, canonical string, rank Rank, cls linnean, mode matchMode) int {
	status := statusScore(x.rec.status)
	switch mode {
	case modeStrict:
		return c.nameScore(queryType, canonical, x) + incNeg(c.authorScore(pn, x)*4, 8) +
			incNeg(kingdomScore(cls[0], x.cls[0]), 10) + incNeg(rankScore(rank, x.rec.rank), 10) + status
	case modeHigher:
		return c.nameScore(NameNoName, canonical, x) + classificationScore(cls, x.cls) + rankScore(rank, x.rec.rank)*2 + status
	}
	s := c.nameScore(queryType, canonical, x) + incNeg(c.authorScore(pn, x)*2, 2) + classificationScore(cls, x.cls) +
		rankScore(rank, x.rec.rank) + status
	if !x.exact && x.rec.rank.IsSpeciesOrBelow() && strings.HasSuffix(canonical, " indet") {
		s -= 25 // a fuzzy match to "indet" names is unlikely right
	}
	return s
}

func incNeg(score, factor int) int {
	if score < 0 {
		return score * factor
	}
	return score
}

func statusScore(s TaxonomicStatus) int {
	switch {
	case s == StatusAccepted:
		return 1
	case s == StatusDoubtful || s == StatusUnknown:
		return -5
	}
	return 0
}

// nameScore: 100 for the same name (+10 for a binomial or longer, +20
// for OTU, virus and hybrid names), else the similarity less 5, adjusted
// by whether the genus agrees.
func (c *Checklist) nameScore(queryType NameType, canonical string, x *candidate) int {
	name := string(c.canonBytes(&x.rec))
	if strings.EqualFold(canonical, name) {
		s := 100
		switch {
		case queryType == NameOTU || queryType == NameVirus || queryType == NameHybridFormula:
			s += 20
		case strings.Contains(canonical, " "):
			s += 10
		}
		return s
	}
	s := nameSimilarity(canonical, name) - 5
	if queryType == NameOTU {
		s -= 50
	}
	if sp := strings.IndexByte(name, ' '); sp > 0 {
		if strings.HasPrefix(canonical, name[:sp]) {
			s += 5
		} else {
			s -= 10
		}
	}
	return s
}

// authorScore compares the query's authorship with the candidate's, -12
// to 8: the combination authorship counts three times, the basionym's
// once; a missing basionym authorship is compared with the other's
// combination authorship.
func (c *Checklist) authorScore(pn *ParsedName, x *candidate) int {
	if pn == nil || !pn.HasAuthorship() {
		return 0
	}
	if x.rec.authLen == 0 {
		return 0
	}
	cComb, cCombYear, cBas, cBasYear := splitAuthorship(c.str(x.rec.authOff, x.rec.authLen))
	comb := compareAuthorship(authorText(pn.Combination), pn.Combination.Year, cComb, cCombYear)
	bas := compareAuthorship(authorText(pn.Basionym), pn.Basionym.Year, cBas, cBasYear)
	s := 0
	if bas == eqUnknown {
		switch {
		case !pn.Basionym.Empty():
			bas = compareAuthorship(authorText(pn.Basionym), pn.Basionym.Year, cComb, cCombYear)
		case cBas != "" || cBasYear != "":
			bas = compareAuthorship(authorText(pn.Combination), pn.Combination.Year, cBas, cBasYear)
		}
		switch bas {
		case eqEqual:
			s--
		case eqDifferent:
			s++
		}
	}
	return s + equalityScore(comb, 3) + equalityScore(bas, 1)
}

// splitAuthorship reads a stored authorship ("(Bas, 1850) Comb, 1900 :
// Sanct", as AuthorshipString writes it) back into its two authors and
// years without parsing the name again.
func splitAuthorship(s string) (comb, combYear, bas, basYear string) {
	if strings.HasPrefix(s, "(") {
		if end := closingBracket(s); end > 0 {
			bas, basYear = splitYear(s[1:end])
			s = strings.TrimSpace(s[end+1:])
		}
	}
	if i := strings.Index(s, " : "); i >= 0 {
		s = s[:i]
	}
	comb, combYear = splitYear(s)
	return
}

// splitYear separates a trailing year from an author team.
func splitYear(s string) (authors, year string) {
	s = strings.TrimSpace(s)
	if len(s) >= 4 && isDigits(s[len(s)-4:]) {
		return strings.TrimRight(strings.TrimSpace(s[:len(s)-4]), ","), s[len(s)-4:]
	}
	return s, ""
}

func authorText(a Authorship) string {
	s := strings.Join(a.Authors, ", ")
	if len(a.ExAuthors) > 0 {
		s = strings.Join(a.ExAuthors, ", ") + " ex " + s
	}
	return s
}

func equalityScore(e equality, factor int) int {
	switch e {
	case eqEqual:
		return 2 * factor
	case eqDifferent:
		return -3 * factor
	}
	return 0
}

// kingdoms maps the names used for kingdoms to GBIF's kingdoms.
var kingdoms = map[string]string{
	"animalia": "ANIMALIA", "animal": "ANIMALIA", "animals": "ANIMALIA", "metazoa": "ANIMALIA",
	"plantae": "PLANTAE", "plant": "PLANTAE", "plants": "PLANTAE", "viridiplantae": "PLANTAE", "metaphyta": "PLANTAE",
	"vegetabilia": "PLANTAE", "fungi": "FUNGI", "fungus": "FUNGI", "mycota": "FUNGI", "bacteria": "BACTERIA",
	"eubacteria": "BACTERIA", "monera": "BACTERIA", "archaea": "ARCHAEA", "archaebacteria": "ARCHAEA",
	"chromista": "CHROMISTA", "protozoa": "PROTOZOA", "protista": "PROTOZOA", "viruses": "VIRUSES", "virus": "VIRUSES",
	"incertae": "INCERTAE_SEDIS",
}

// kingdomOf returns GBIF's kingdom for a kingdom name ("" if none).
func kingdomOf(name string) string {
	if name == "" {
		return ""
	}
	low := strings.ToLower(name)
	if k, ok := kingdoms[low]; ok {
		return k
	}
	return strings.ToUpper(low)
}

var vagueKingdoms = map[string]bool{"ARCHAEA": true, "BACTERIA": true, "FUNGI": true, "CHROMISTA": true, "PROTOZOA": true, "INCERTAE_SEDIS": true}

// kingdomScore (strict mode): -10 to 10, 0 when unknown.
func kingdomScore(k1, k2 string) int {
	k1, k2 = kingdomOf(k1), kingdomOf(k2)
	switch {
	case k1 == "" || k2 == "":
		return 0
	case k1 == "INCERTAE_SEDIS" || k2 == "INCERTAE_SEDIS":
		return 7
	case k1 == k2:
		return 10
	case vagueKingdoms[k1] && vagueKingdoms[k2]:
		return 8
	}
	return -10
}

// familyNames are the alternative family names the botanical code
// allows (Art. 18.5), as one.
var familyNames = map[string]string{
	"labiatae": "lamiaceae", "gramineae": "poaceae", "compositae": "asteraceae", "cruciferae": "brassicaceae",
	"leguminosae": "fabaceae", "umbelliferae": "apiaceae", "palmae": "arecaceae", "guttiferae": "clusiaceae",
}

// levelName normalizes a classification name for comparison.
func levelName(level int, name string) string {
	switch level {
	case 0:
		return kingdomOf(name)
	case 4:
		low := strings.ToLower(name)
		if f, ok := familyNames[low]; ok {
			return f
		}
		return low
	}
	return strings.ToLower(name)
}

// compareLevel rates one classification level.
func compareLevel(level int, q, r linnean, match, mismatch, missing int) int {
	if q[level] == "" || r[level] == "" {
		return missing
	}
	if levelName(level, q[level]) == levelName(level, r[level]) {
		return match
	}
	return mismatch
}

func inKingdoms(name string, ks ...string) bool {
	k := kingdomOf(name)
	for _, x := range ks {
		if k == x {
			return true
		}
	}
	return false
}

// classificationScore rates the record's classification against the
// candidate's, -60 to 50: the kingdom matters most (animals and plants
// confused cost 51), then family, class and order.
func classificationScore(q, r linnean) int {
	s := compareLevel(0, q, r, 5, -10, -1)
	if s == -10 {
		switch {
		case inKingdoms(q[0], "ANIMALIA", "PLANTAE") && inKingdoms(r[0], "ANIMALIA", "PLANTAE"):
			s = -51
		case inKingdoms(q[0], "ANIMALIA", "PLANTAE") && inKingdoms(r[0], "BACTERIA", "ARCHAEA", "VIRUSES"):
			s = -31
		}
	}
	if inKingdoms(r[0], "VIRUSES") {
		s -= 10
	}
	s += compareLevel(1, q, r, 10, -10, -1)
	s += compareLevel(2, q, r, 15, -10, 0)
	s += compareLevel(3, q, r, 15, -10, 0)
	s += compareLevel(4, q, r, 25, -15, 0)
	s += compareLevel(5, q, r, 2, 1, 0)
	return min(50, max(-60, s))
}

// rankScore rates the query rank against the candidate's, -35 to 6.
func rankScore(q, r Rank) int {
	s := 0
	if r == RankUnknown {
		if q != RankUnknown {
			s = -1
		}
		return s
	}
	if r.Code() == CodeCultivars || r == RankStrain {
		s -= 7
	}
	if r.Uncomparable() {
		s -= 3
	}
	if q == RankUnknown {
		return min(6, max(-35, s))
	}
	either := func(p1, p2 func(Rank) bool) bool { return p1(q) && p2(r) || p2(q) && p1(r) }
	is := func(x Rank) func(Rank) bool { return func(y Rank) bool { return y == x } }
	unknownish := func(x Rank) bool { return x == RankOther || x == RankUnranked }
	switch {
	case q == r:
		s += 10
	case either(is(RankInfraspecificName), Rank.IsInfraspecific) || either(is(RankInfrasubspecificName), Rank.IsInfrasubspecific) ||
		either(is(RankInfragenericName), Rank.IsInfrageneric):
		s += 5
	case either(is(RankInfragenericName), is(RankGenus)):
		s += 4
	case unknownish(q) || unknownish(r):
		s = 0
	case either(is(RankSpecies), is(RankSpeciesAggregate)):
		s += 2
	case either(func(x Rank) bool { return x == RankSpecies || x == RankSpeciesAggregate }, Rank.IsInfraspecific) ||
		either(func(x Rank) bool { return x.IsSupraspecific() && x != RankSpeciesAggregate }, Rank.IsSpeciesOrBelow):
		s -= 30
	case either(func(x Rank) bool { return !x.IsSuprageneric() }, Rank.IsSuprageneric):
		s -= 35
	default:
		d := int(q) - int(r)
		if d < 0 {
			d = -d
		}
		s -= d
	}
	return min(6, max(-35, s))
}
