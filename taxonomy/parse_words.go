package taxonomy

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The word classes the parser reads names with.

// isCapWord reports a capitalized name word: an upper-case letter and then
// lower-case letters, with inner hyphens ("Abies", "Ménéville").
func isCapWord(w string) bool {
	r, size := utf8.DecodeRuneInString(w)
	if size == 0 || !unicode.IsUpper(r) || len(w) == size {
		return false
	}
	prevHyphen := false
	for _, c := range w[size:] {
		switch {
		case unicode.IsLower(c):
			prevHyphen = false
		case c == '-' && !prevHyphen:
			prevHyphen = true
		default:
			return false
		}
	}
	return !prevHyphen
}

// isAllCaps reports a word of two or more upper-case letters only.
func isAllCaps(w string) bool {
	n := 0
	for _, c := range w {
		if !unicode.IsUpper(c) {
			return false
		}
		n++
	}
	return n >= 2
}

// titleCase writes an all-caps word as a capitalized one.
func titleCase(w string) string {
	r, size := utf8.DecodeRuneInString(w)
	return string(unicode.ToUpper(r)) + strings.ToLower(w[size:])
}

// unallowedEpithets are lower-case words that are never epithets.
var unallowedEpithets = map[string]bool{
	"aff": true, "and": true, "cf": true, "des": true, "from": true, "ms": true, "of": true, "the": true,
	"where": true, "ex": true, "et": true, "in": true, "non": true, "nec": true, "auct": true, "sensu": true,
	"hort": true, "hortus": true, "hortusa": true, "apud": true, "fil": true, "filius": true, "jun": true,
	"junior": true, "sen": true, "emend": true, "fide": true, "nr": true, "or": true, "not": true, "group": true,
	"agg": true, "indet": true, "spec": true, "sp": true, "spp": true, "ssp": true, "subsp": true, "var": true,
	"cv": true, "forma": true, "f": true, "subvar": true, "subf": true, "sect": true,
	"subg": true, "subgen": true, "ser": true, "mut": true, "natio": true, "ab": true, "pv": true,
	"bv": true, "sv": true, "prol": true, "var.": true, "ined": true, "nom": true, "comb": true,
	"gen": true, "nov": true, "sec": true,
}

// unallowedEndings end words that are never epithets.
var unallowedEndings = []string{"bacilliform", "coliform", "coryneform", "cytoform", "chemoform", "biovar",
	"serovar", "genomovar", "agamovar", "cultivar", "genotype", "serotype", "subtype", "ribotype", "isolate"}

// authorParticles are lower-case words that start an author's name when an
// upper-case word follows ("van den Boom", "zur Strassen", "la Croix").
var authorParticles = map[string]bool{
	"van": true, "von": true, "vom": true, "de": true, "den": true, "der": true, "des": true, "del": true,
	"della": true, "dello": true, "degli": true, "dei": true, "di": true, "da": true, "das": true, "do": true,
	"dos": true, "du": true, "la": true, "le": true, "les": true, "zur": true, "zu": true, "zum": true,
	"ter": true, "ten": true, "te": true, "y": true, "v.": true, "d.": true, "v": true, "dalla": true, "vander": true,
}

// isEpithetWord reports a word that can be an epithet: two or more
// lower-case letters with inner hyphens, an "x'" prefix (d'urvilleana) or
// a number prefix (10-punctata); never a rank marker or one of the words
// above. Letters are counted, not bytes: "é" is one letter, as "e" is.
func isEpithetWord(w string) bool {
	if utf8.RuneCountInString(w) < 2 || unallowedEpithets[w] || unallowedEpithets[strings.TrimSuffix(w, ".")] {
		return false
	}
	body := w
	// number prefix "10-"
	if d := strings.IndexByte(body, '-'); d > 0 && isDigits(body[:d]) {
		body = body[d+1:]
	}
	// d'urvilleana, o'donelli, m'coyi, l'herminierii
	if len(body) > 2 && body[1] == '\'' && strings.IndexByte("doml", body[0]) >= 0 {
		body = body[2:]
	}
	if body == "" {
		return false
	}
	prev := rune(0)
	letters := 0
	for i, c := range body {
		switch {
		case unicode.IsLower(c) && unicode.IsLetter(c):
			letters++
		case c == '-' && i > 0 && prev != '-':
		default:
			return false
		}
		prev = c
	}
	if prev == '-' || letters == 0 {
		return false
	}
	for _, e := range unallowedEndings {
		if strings.HasSuffix(body, e) {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isParticleBeforeAuthor reports an author particle followed by an author.
func isParticleBeforeAuthor(toks []string, i int) bool {
	if !authorParticles[toks[i]] || i+1 >= len(toks) {
		return false
	}
	next := toks[i+1]
	r, _ := utf8.DecodeRuneInString(next)
	return unicode.IsUpper(r) || authorParticles[next] || strings.HasPrefix(next, "d'")
}

// epithetAt reports whether toks[i] is an epithet (and not an author
// particle starting an authorship).
func epithetAt(toks []string, i int) bool {
	return i < len(toks) && isEpithetWord(toks[i]) && !isParticleBeforeAuthor(toks, i)
}

// infraspecificMarkers are the rank markers of infraspecific names, lower
// case; the "notho" prefix is read separately.
var infraspecificMarkers = map[string]Rank{
	"subsp.": RankSubspecies, "subsp": RankSubspecies, "ssp.": RankSubspecies, "ssp": RankSubspecies,
	"subspecies": RankSubspecies, "sp.": RankSubspecies, "var.": RankVariety, "var": RankVariety,
	"variety": RankVariety, "varietas": RankVariety, "f.": RankForm, "f": RankForm, "fo.": RankForm,
	"fo": RankForm, "forma": RankForm, "form": RankForm, "fma.": RankForm, "subvar.": RankSubvariety,
	"subvar": RankSubvariety, "subf.": RankSubform, "subfo.": RankSubform, "subforma": RankSubform,
	"cv.": RankCultivar, "cv": RankCultivar, "convar.": RankConvariety, "pv.": RankPathovar, "pv": RankPathovar,
	"pathovar": RankPathovar, "bv.": RankBiovar, "biovar": RankBiovar, "sv.": RankSerovar, "serovar": RankSerovar,
	"mut.": RankMutatio, "natio": RankNatio, "morph": RankMorph, "ab.": RankAberration, "aberration": RankAberration,
	"prol.": RankProles, "proles": RankProles, "race": RankRace, "f.sp.": RankFormaSpecialis, "fsp": RankFormaSpecialis,
	"t.infr.": RankInfraspecificName, "agg.": RankSpeciesAggregate, "agg": RankSpeciesAggregate, "lusus": RankOther,
}

// infragenericMarkers are the rank markers of infrageneric names.
var infragenericMarkers = map[string]Rank{
	"subg.": RankSubgenus, "subg": RankSubgenus, "subgen.": RankSubgenus, "subgen": RankSubgenus,
	"subgenus": RankSubgenus, "sect.": RankSection, "sect": RankSection, "section": RankSection,
	"sectio": RankSection, "subsect.": RankSubsection, "subsect": RankSubsection, "ser.": RankSeries,
	"series": RankSeries, "subser.": RankSubseries, "infragen.": RankInfragenericName,
}

// supragenericMarkers prefix uninomials ("subtrib. Scolochloinae").
var supragenericMarkers = map[string]Rank{
	"fam.": RankFamily, "subfam.": RankSubfamily, "trib.": RankTribe, "subtrib.": RankSubtribe,
	"supertrib.": RankSupertribe, "ord.": RankOrder, "subord.": RankSuborder, "cl.": RankClass,
	"subcl.": RankSubclass, "superfam.": RankSuperfamily, "gen.": RankGenus,
}

// marker reads a rank marker of the table, with an optional notho prefix.
func marker(w string, table map[string]Rank) (r Rank, notho, ok bool) {
	low := strings.ToLower(w)
	if strings.HasPrefix(low, "notho") && len(low) > 5 {
		low, notho = low[5:], true
	}
	r, ok = table[low]
	if !ok && !strings.HasSuffix(low, ".") {
		r, ok = table[low+"."]
	}
	return r, notho, ok
}

// qualifier reads an epithet qualifier ("cf.", "aff.", "nr.").
func qualifier(w string) (string, bool) {
	switch strings.ToLower(w) {
	case "cf.", "cf", "cfr.", "cfr", "conf.":
		return "cf.", true
	case "aff.", "aff":
		return "aff.", true
	case "nr.", "nr", "near":
		return "nr.", true
	}
	return "", false
}

// isIndetMarker reads "sp.", "spec.", "spp." and "indet." (a species not
// determined).
func isIndetMarker(w string) bool {
	switch strings.ToLower(strings.TrimSuffix(w, ".")) {
	case "sp", "spec", "spp", "indet", "species":
		return true
	}
	return false
}

// isHybridMarker reads a lone hybrid sign.
func isHybridMarker(w string) bool { return w == "×" || w == "x" || w == "X" || w == "+" }
