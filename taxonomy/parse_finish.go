package taxonomy

import "strings"

// blacklistedEpithets are words found as epithets in bad data that are no
// epithets (a selection of GBIF's list).
var blacklistedEpithets = map[string]bool{
	"unidentified": true, "unknown": true, "possible": true, "probable": true, "undetermined": true,
	"unnamed": true, "undescribed": true, "shit": true, "sp": true, "spp": true, "indet": true, "species": true,
	"sample": true, "specimen": true, "identified": true, "none": true, "various": true, "other": true,
	"others": true, "mixed": true, "genus": true, "family": true, "unassigned": true, "placeholder": true,
	"tobedeleted": true, "dummy": true, "test": true, "aff": true, "cf": true,
}

// finish infers rank, code and type once the parts are read, and applies
// the rank the caller gave.
func (p *parser) finish() {
	n := p.n
	if n.Type == NameNoName && !n.Parsed() {
		return
	}
	for _, e := range []string{n.SpecificEpithet, n.InfraspecificEpithet} {
		switch {
		case e == "null":
			n.Doubtful = true
			n.addWarning(WarnNullEpithet)
		case blacklistedEpithets[e]:
			n.Doubtful = true
			n.addWarning(WarnBlacklistedEpithet)
		}
	}
	if n.SpecificEpithet == "null" && n.InfraspecificEpithet != "" {
		// "Austrorhynchus pectatus null pectatus"
		n.SpecificEpithet = n.InfraspecificEpithet
	}
	if n.InfraspecificEpithet == "null" {
		n.InfraspecificEpithet = ""
	}
	if n.CultivarEpithet != "" && n.Uninomial != "" {
		n.Genus, n.Uninomial = n.Uninomial, ""
	}
	p.applyRank()
	if n.Uninomial != "" && !n.Rank.Known() {
		n.Rank = inferUninomialRank(n.Uninomial, p.givenCode)
	}
	p.inferCode()
	if n.Type == NameNoName {
		n.Type = NameScientific
	}
	if n.Type == NameScientific && (n.Qualifier != "" || n.indet()) {
		n.Type = NameInformal
	}
}

// applyRank sets the rank from the parts, or fits the parts to the rank
// the caller gave.
func (p *parser) applyRank() {
	n := p.n
	parsed := rankFromParts(n)
	given := p.givenRank
	switch {
	case !given.Known():
		if !n.Rank.Known() {
			n.Rank = parsed
		}
	case n.Rank != given && n.Rank.IsInfraspecific() && given.IsSpeciesOrBelow():
		// a marker is more precise than the rank given
		if given == RankSpecies {
			n.addWarning(WarnSubspeciesAssigned)
		}
	case given == RankSpeciesAggregate && n.SpecificEpithet != "" && n.InfraspecificEpithet == "":
		n.Rank = given
	case given.IsSpeciesOrBelow() && rankHasFewerEpithets(n, given):
		// "Lepidoptera" given SPECIES: "Lepidoptera sp."
		if n.Uninomial != "" {
			n.Genus, n.Uninomial = n.Uninomial, ""
		}
		n.Rank, n.Type = given, NameInformal
		n.Combination, n.Basionym, n.SanctioningAuthor = Authorship{}, Authorship{}, ""
		n.addWarning(WarnIndetermined)
	case given.IsInfragenericStrictly() && n.Uninomial != "" && n.InfragenericEpithet == "":
		// "Polygonum" given SUBGENUS
		n.InfragenericEpithet, n.Uninomial, n.Rank = n.Uninomial, "", given
	case given.IsSupraspecific() && n.SpecificEpithet != "":
		n.Rank, n.Type, n.Doubtful = given, NameInformal, true
		n.addWarning(WarnRankMismatch)
	default:
		if !(n.Rank.Known() && n.Rank.IsInfraspecific() && given == RankInfraspecificName) {
			n.Rank = given
		}
	}
}

// rankHasFewerEpithets reports a name with fewer epithets than its rank
// needs (a genus given as a species, a species given as a variety).
func rankHasFewerEpithets(n *ParsedName, r Rank) bool {
	if r.IsInfraspecific() {
		return n.InfraspecificEpithet == "" && n.CultivarEpithet == "" && (n.SpecificEpithet != "" || n.GenusOrAbove() != "") && !r.Uncomparable()
	}
	return n.SpecificEpithet == "" && n.CultivarEpithet == "" && n.InfragenericEpithet == ""
}

// rankFromParts infers the rank from the parts read.
func rankFromParts(n *ParsedName) Rank {
	switch {
	case n.InfraspecificEpithet != "":
		return RankInfraspecificName
	case n.SpecificEpithet != "":
		return RankSpecies
	case n.InfragenericEpithet != "":
		return RankInfragenericName
	}
	return RankUnknown
}

// inferCode infers the nomenclatural code from the rank and the
// authorship: a code-specific rank marker, the botanical "subsp.", a year
// (zoology), or a basionym with a combination authorship and no year
// (botany), or a basionym alone (zoology).
func (p *parser) inferCode() {
	n := p.n
	if p.givenCode != CodeUnknown {
		n.Code = p.givenCode
		return
	}
	if c := n.Rank.Code(); c != CodeUnknown && c != CodeCultivars && (n.InfraspecificEpithet != "" || n.InfragenericEpithet != "") {
		n.Code = c
		return
	}
	if n.CultivarEpithet != "" {
		return // cultivars: GBIF infers no code
	}
	if p.markerSubsp && n.Notho == PartNone {
		n.Code = CodeBotanical
		return
	}
	if strings.Contains(n.NomenclaturalNote, "illeg") {
		n.Code = CodeBotanical // "nom. illeg." is the botanical term
		return
	}
	if n.Manuscript {
		return
	}
	switch {
	case n.Combination.Year != "" || n.Basionym.Year != "":
		n.Code = CodeZoological
	case !n.Basionym.Empty() && !n.Combination.Empty():
		n.Code = CodeBotanical
	case !n.Basionym.Empty():
		// zoologists cite a basionym's author alone
		n.Code = CodeZoological
	}
}

// suffixRanks infer the rank of a uninomial from its ending, per code;
// codeless lists only what every code agrees on.
var suffixRanks = map[NomCode][]struct {
	suffix string
	rank   Rank
}{
	CodeUnknown: {{"mycetidae", RankSubclass}, {"phycidae", RankSubclass}, {"mycotina", RankSubphylum},
		{"phytina", RankSubphylum}, {"mycetes", RankClass}, {"phyceae", RankClass}, {"mycota", RankPhylum},
		{"opsida", RankClass}, {"oideae", RankSubfamily}, {"phyta", RankPhylum}, {"aceae", RankFamily},
		{"ales", RankOrder}, {"viridae", RankFamily}, {"virinae", RankSubfamily}, {"virales", RankOrder}},
	CodeBacterial: {{"oideae", RankSubfamily}, {"aceae", RankFamily}, {"ineae", RankSuborder},
		{"ales", RankOrder}, {"idae", RankSubclass}, {"inae", RankSubtribe}, {"eae", RankTribe}, {"ia", RankClass}},
	CodeBotanical: {{"mycetidae", RankSubclass}, {"phycidae", RankSubclass}, {"mycotina", RankSubphylum},
		{"phytina", RankSubphylum}, {"mycetes", RankClass}, {"phyceae", RankClass}, {"mycota", RankPhylum},
		{"opsida", RankClass}, {"oideae", RankSubfamily}, {"phyta", RankPhylum}, {"ineae", RankSuborder},
		{"aceae", RankFamily}, {"idae", RankSubclass}, {"anae", RankSuperorder}, {"acea", RankSuperfamily},
		{"ales", RankOrder}, {"inae", RankSubtribe}, {"eae", RankTribe}},
	CodeZoological: {{"oidea", RankSuperfamily}, {"idae", RankFamily}, {"inae", RankSubfamily},
		{"ini", RankTribe}, {"ina", RankSubtribe}},
}

// inferUninomialRank guesses a uninomial's rank from its suffix, or
// RankUnranked.
func inferUninomialRank(u string, code NomCode) Rank {
	for _, s := range suffixRanks[code] {
		if strings.HasSuffix(u, s.suffix) {
			return s.rank
		}
	}
	return RankUnranked
}
