package taxonomy

import (
	"fmt"
	"strings"
)

// Rank is a taxonomic rank. The names are GBIF's (the Rank enumeration of
// GBIF's API, as the species API and occurrence downloads print them), in
// GBIF's order from the highest rank to the lowest: comparisons between
// ranks compare that order.
type Rank uint8

// The ranks, highest first. RankUnknown is the zero value: no rank known.
const (
	RankUnknown Rank = iota
	RankDomain
	RankSuperkingdom
	RankKingdom
	RankSubkingdom
	RankInfrakingdom
	RankSuperphylum
	RankPhylum
	RankSubphylum
	RankInfraphylum
	RankSuperclass
	RankClass
	RankSubclass
	RankInfraclass
	RankParvclass
	RankSuperlegion
	RankLegion
	RankSublegion
	RankInfralegion
	RankSupercohort
	RankCohort
	RankSubcohort
	RankInfracohort
	RankMagnorder
	RankSuperorder
	RankGrandorder
	RankOrder
	RankSuborder
	RankInfraorder
	RankParvorder
	RankSuperfamily
	RankFamily
	RankSubfamily
	RankInfrafamily
	RankSupertribe
	RankTribe
	RankSubtribe
	RankInfratribe
	RankSupragenericName
	RankGenus
	RankSubgenus
	RankInfragenus
	RankSection
	RankSubsection
	RankSeries
	RankSubseries
	RankInfragenericName
	RankSpeciesAggregate
	RankSpecies
	RankInfraspecificName
	RankGrex
	RankSubspecies
	RankCultivarGroup
	RankConvariety
	RankInfrasubspecificName
	RankProles
	RankRace
	RankNatio
	RankAberration
	RankMorph
	RankVariety
	RankSubvariety
	RankForm
	RankSubform
	RankMutatio
	RankPathovar
	RankBiovar
	RankChemovar
	RankMorphovar
	RankPhagovar
	RankSerovar
	RankChemoform
	RankFormaSpecialis
	RankCultivar
	RankStrain
	RankOther
	RankUnranked
	numRanks
)

// rankInfo is what the parser and the formatter know of a rank.
type rankInfo struct {
	name   string  // GBIF's enumeration name
	marker string  // the rank marker a canonical name prints ("" if none)
	code   NomCode // the only code using the rank (CodeUnknown if any)
}

var ranks = [numRanks]rankInfo{
	RankUnknown:              {"", "", CodeUnknown},
	RankDomain:               {"DOMAIN", "dom.", CodeUnknown},
	RankSuperkingdom:         {"SUPERKINGDOM", "superreg.", CodeUnknown},
	RankKingdom:              {"KINGDOM", "regn.", CodeUnknown},
	RankSubkingdom:           {"SUBKINGDOM", "subreg.", CodeUnknown},
	RankInfrakingdom:         {"INFRAKINGDOM", "infrareg.", CodeUnknown},
	RankSuperphylum:          {"SUPERPHYLUM", "superphyl.", CodeUnknown},
	RankPhylum:               {"PHYLUM", "phyl.", CodeUnknown},
	RankSubphylum:            {"SUBPHYLUM", "subphyl.", CodeUnknown},
	RankInfraphylum:          {"INFRAPHYLUM", "infraphyl.", CodeUnknown},
	RankSuperclass:           {"SUPERCLASS", "supercl.", CodeUnknown},
	RankClass:                {"CLASS", "cl.", CodeUnknown},
	RankSubclass:             {"SUBCLASS", "subcl.", CodeUnknown},
	RankInfraclass:           {"INFRACLASS", "infracl.", CodeUnknown},
	RankParvclass:            {"PARVCLASS", "parvcl.", CodeZoological},
	RankSuperlegion:          {"SUPERLEGION", "superleg.", CodeZoological},
	RankLegion:               {"LEGION", "leg.", CodeZoological},
	RankSublegion:            {"SUBLEGION", "subleg.", CodeZoological},
	RankInfralegion:          {"INFRALEGION", "infraleg.", CodeZoological},
	RankSupercohort:          {"SUPERCOHORT", "supercohort", CodeZoological},
	RankCohort:               {"COHORT", "cohort", CodeZoological},
	RankSubcohort:            {"SUBCOHORT", "subcohort", CodeZoological},
	RankInfracohort:          {"INFRACOHORT", "infracohort", CodeZoological},
	RankMagnorder:            {"MAGNORDER", "magnord.", CodeZoological},
	RankSuperorder:           {"SUPERORDER", "superord.", CodeUnknown},
	RankGrandorder:           {"GRANDORDER", "grandord.", CodeZoological},
	RankOrder:                {"ORDER", "ord.", CodeUnknown},
	RankSuborder:             {"SUBORDER", "subord.", CodeUnknown},
	RankInfraorder:           {"INFRAORDER", "infraord.", CodeUnknown},
	RankParvorder:            {"PARVORDER", "parvord.", CodeZoological},
	RankSuperfamily:          {"SUPERFAMILY", "superfam.", CodeUnknown},
	RankFamily:               {"FAMILY", "fam.", CodeUnknown},
	RankSubfamily:            {"SUBFAMILY", "subfam.", CodeUnknown},
	RankInfrafamily:          {"INFRAFAMILY", "infrafam.", CodeUnknown},
	RankSupertribe:           {"SUPERTRIBE", "supertrib.", CodeUnknown},
	RankTribe:                {"TRIBE", "trib.", CodeUnknown},
	RankSubtribe:             {"SUBTRIBE", "subtrib.", CodeUnknown},
	RankInfratribe:           {"INFRATRIBE", "infratrib.", CodeUnknown},
	RankSupragenericName:     {"SUPRAGENERIC_NAME", "supragen.", CodeUnknown},
	RankGenus:                {"GENUS", "gen.", CodeUnknown},
	RankSubgenus:             {"SUBGENUS", "subgen.", CodeUnknown},
	RankInfragenus:           {"INFRAGENUS", "infrag.", CodeUnknown},
	RankSection:              {"SECTION", "sect.", CodeBotanical},
	RankSubsection:           {"SUBSECTION", "subsect.", CodeBotanical},
	RankSeries:               {"SERIES", "ser.", CodeBotanical},
	RankSubseries:            {"SUBSERIES", "subser.", CodeBotanical},
	RankInfragenericName:     {"INFRAGENERIC_NAME", "infragen.", CodeUnknown},
	RankSpeciesAggregate:     {"SPECIES_AGGREGATE", "agg.", CodeUnknown},
	RankSpecies:              {"SPECIES", "sp.", CodeUnknown},
	RankInfraspecificName:    {"INFRASPECIFIC_NAME", "infrasp.", CodeUnknown},
	RankGrex:                 {"GREX", "gx", CodeCultivars},
	RankSubspecies:           {"SUBSPECIES", "subsp.", CodeUnknown},
	RankCultivarGroup:        {"CULTIVAR_GROUP", "", CodeCultivars},
	RankConvariety:           {"CONVARIETY", "convar.", CodeCultivars},
	RankInfrasubspecificName: {"INFRASUBSPECIFIC_NAME", "infrasubsp.", CodeUnknown},
	RankProles:               {"PROLES", "prol.", CodeBotanical},
	RankRace:                 {"RACE", "race", CodeUnknown},
	RankNatio:                {"NATIO", "natio", CodeZoological},
	RankAberration:           {"ABERRATION", "ab.", CodeZoological},
	RankMorph:                {"MORPH", "morph", CodeZoological},
	RankVariety:              {"VARIETY", "var.", CodeUnknown},
	RankSubvariety:           {"SUBVARIETY", "subvar.", CodeUnknown},
	RankForm:                 {"FORM", "f.", CodeUnknown},
	RankSubform:              {"SUBFORM", "subf.", CodeUnknown},
	RankMutatio:              {"MUTATIO", "mut.", CodeZoological},
	RankPathovar:             {"PATHOVAR", "pv.", CodeBacterial},
	RankBiovar:               {"BIOVAR", "biovar", CodeBacterial},
	RankChemovar:             {"CHEMOVAR", "chemovar", CodeBacterial},
	RankMorphovar:            {"MORPHOVAR", "morphovar", CodeBacterial},
	RankPhagovar:             {"PHAGOVAR", "phagovar", CodeBacterial},
	RankSerovar:              {"SEROVAR", "serovar", CodeBacterial},
	RankChemoform:            {"CHEMOFORM", "chemoform", CodeBacterial},
	RankFormaSpecialis:       {"FORMA_SPECIALIS", "f.sp.", CodeBacterial},
	RankCultivar:             {"CULTIVAR", "cv.", CodeCultivars},
	RankStrain:               {"STRAIN", "strain", CodeUnknown},
	RankOther:                {"OTHER", "", CodeUnknown},
	RankUnranked:             {"UNRANKED", "", CodeUnknown},
}

// linneanRanks are the seven ranks a record's classification names.
var linneanRanks = [...]Rank{RankKingdom, RankPhylum, RankClass, RankOrder, RankFamily, RankGenus, RankSpecies}

// LinneanRanks returns the seven major ranks (kingdom..species) in order.
func LinneanRanks() []Rank { r := linneanRanks; return r[:] }

// String returns GBIF's name of the rank ("SPECIES"); "" for RankUnknown.
func (r Rank) String() string {
	if r >= numRanks {
		return fmt.Sprintf("Rank(%d)", uint8(r))
	}
	return ranks[r].name
}

// Marker is the rank marker canonical names print ("subsp.", "var.").
func (r Rank) Marker() string {
	if r >= numRanks {
		return ""
	}
	return ranks[r].marker
}

// Code is the nomenclatural code the rank belongs to, CodeUnknown if the
// rank is used by several codes.
func (r Rank) Code() NomCode {
	if r >= numRanks {
		return CodeUnknown
	}
	return ranks[r].code
}

// MarshalText writes GBIF's name.
func (r Rank) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads GBIF's name or any spelling ParseRank accepts.
func (r *Rank) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*r = RankUnknown
		return nil
	}
	v, ok := ParseRank(string(b))
	if !ok {
		return fmt.Errorf("taxonomy: unknown rank %q", b)
	}
	*r = v
	return nil
}

// Known reports whether the rank is a real rank (not unknown, other or
// unranked).
func (r Rank) Known() bool {
	return r != RankUnknown && r != RankOther && r != RankUnranked && r < numRanks
}

// IsSpeciesOrBelow reports a rank of species aggregate or lower.
func (r Rank) IsSpeciesOrBelow() bool { return r.Known() && r >= RankSpeciesAggregate }

// IsInfraspecific reports a rank below species.
func (r Rank) IsInfraspecific() bool { return r.Known() && r > RankSpecies }

// IsInfrasubspecific reports a rank below subspecies.
func (r Rank) IsInfrasubspecific() bool { return r.Known() && r > RankSubspecies }

// IsInfrageneric reports a rank below genus (species included).
func (r Rank) IsInfrageneric() bool { return r.Known() && r > RankGenus }

// IsInfragenericStrictly reports a rank between genus and species
// (subgenus, section, series...).
func (r Rank) IsInfragenericStrictly() bool { return r.IsInfrageneric() && r < RankSpeciesAggregate }

// IsSuprageneric reports a rank above genus.
func (r Rank) IsSuprageneric() bool { return r.Known() && r < RankGenus }

// IsSupraspecific reports a rank above species (and its aggregates).
func (r Rank) IsSupraspecific() bool { return r.Known() && r < RankSpeciesAggregate }

// IsLinnean reports one of the seven ranks of LinneanRanks.
func (r Rank) IsLinnean() bool {
	for _, l := range linneanRanks {
		if l == r {
			return true
		}
	}
	return false
}

// Uncomparable reports the ranks that only say "somewhere in between"
// (INFRASPECIFIC_NAME, ...) or nothing (OTHER, UNRANKED).
func (r Rank) Uncomparable() bool {
	switch r {
	case RankSupragenericName, RankInfragenericName, RankInfraspecificName, RankInfrasubspecificName, RankOther, RankUnranked, RankUnknown:
		return true
	}
	return false
}

// HigherThan reports whether r is a higher rank than o (both known).
func (r Rank) HigherThan(o Rank) bool { return r.Known() && o.Known() && r < o }

// Major is the major rank r belongs to: the Linnean rank for ranks above
// species (SUBFAMILY -> FAMILY), SPECIES for species aggregates and
// INFRASPECIFIC_NAME for every rank below species.
func (r Rank) Major() Rank {
	switch {
	case !r.Known():
		return r
	case r >= RankSpeciesAggregate && r <= RankSpecies:
		return RankSpecies
	case r > RankSpecies:
		return RankInfraspecificName
	case r >= RankGenus:
		return RankGenus
	case r >= RankSuperfamily:
		return RankFamily
	case r >= RankSuperorder || r == RankMagnorder:
		return RankOrder
	case r >= RankSuperclass:
		return RankClass
	case r >= RankSuperphylum:
		return RankPhylum
	case r >= RankSuperkingdom:
		return RankKingdom
	}
	return r
}

// rankWords maps the spellings of ranks found in taxonRank columns and rank
// markers in names (lower case, without a trailing dot) to ranks.
var rankWords = map[string]Rank{
	"domain": RankDomain, "dom": RankDomain, "superdomain": RankDomain, "empire": RankDomain,
	"superkingdom": RankSuperkingdom, "superregnum": RankSuperkingdom, "superreg": RankSuperkingdom,
	"kingdom": RankKingdom, "regnum": RankKingdom, "regn": RankKingdom, "reg": RankKingdom, "king": RankKingdom,
	"subkingdom": RankSubkingdom, "subregnum": RankSubkingdom, "subreg": RankSubkingdom,
	"infrakingdom": RankInfrakingdom, "infraregnum": RankInfrakingdom,
	"superphylum": RankSuperphylum, "superdivision": RankSuperphylum, "superdivisio": RankSuperphylum,
	"phylum": RankPhylum, "phyl": RankPhylum, "division": RankPhylum, "divisio": RankPhylum, "div": RankPhylum,
	"subphylum": RankSubphylum, "subdivision": RankSubphylum, "subdivisio": RankSubphylum, "subphyl": RankSubphylum,
	"infraphylum": RankInfraphylum,
	"superclass":  RankSuperclass, "superclassis": RankSuperclass,
	"class": RankClass, "classis": RankClass, "cl": RankClass,
	"subclass": RankSubclass, "subclassis": RankSubclass, "subcl": RankSubclass,
	"infraclass": RankInfraclass, "parvclass": RankParvclass,
	"superlegion": RankSuperlegion, "legion": RankLegion, "sublegion": RankSublegion, "infralegion": RankInfralegion,
	"supercohort": RankSupercohort, "cohort": RankCohort, "subcohort": RankSubcohort, "infracohort": RankInfracohort,
	"magnorder": RankMagnorder, "superorder": RankSuperorder, "superordo": RankSuperorder, "grandorder": RankGrandorder,
	"order": RankOrder, "ordo": RankOrder, "ord": RankOrder,
	"suborder": RankSuborder, "subordo": RankSuborder, "subord": RankSuborder,
	"infraorder": RankInfraorder, "infraordo": RankInfraorder, "parvorder": RankParvorder,
	"superfamily": RankSuperfamily, "superfamilia": RankSuperfamily, "superfam": RankSuperfamily,
	"family": RankFamily, "familia": RankFamily, "fam": RankFamily,
	"subfamily": RankSubfamily, "subfamilia": RankSubfamily, "subfam": RankSubfamily,
	"infrafamily": RankInfrafamily,
	"supertribe":  RankSupertribe, "supertribus": RankSupertribe,
	"tribe": RankTribe, "tribus": RankTribe, "trib": RankTribe,
	"subtribe": RankSubtribe, "subtribus": RankSubtribe, "subtrib": RankSubtribe,
	"infratribe":       RankInfratribe,
	"supragenericname": RankSupragenericName, "supragen": RankSupragenericName,
	"genus": RankGenus, "gen": RankGenus, "genera": RankGenus,
	"subgenus": RankSubgenus, "subgen": RankSubgenus, "subg": RankSubgenus, "sg": RankSubgenus,
	"infragenus": RankInfragenus,
	"section":    RankSection, "sectio": RankSection, "sect": RankSection, "sec": RankSection,
	"subsection": RankSubsection, "subsectio": RankSubsection, "subsect": RankSubsection,
	"series": RankSeries, "ser": RankSeries, "subseries": RankSubseries, "subser": RankSubseries,
	"infragenericname": RankInfragenericName, "infragen": RankInfragenericName,
	"speciesaggregate": RankSpeciesAggregate, "aggregate": RankSpeciesAggregate, "agg": RankSpeciesAggregate,
	"species": RankSpecies, "sp": RankSpecies, "spec": RankSpecies, "spp": RankSpecies,
	"infraspecificname": RankInfraspecificName, "infraspecies": RankInfraspecificName, "infrasp": RankInfraspecificName, "infraspecific": RankInfraspecificName,
	"grex": RankGrex, "gx": RankGrex,
	"subspecies": RankSubspecies, "subsp": RankSubspecies, "ssp": RankSubspecies, "subsps": RankSubspecies,
	"cultivargroup": RankCultivarGroup,
	"convariety":    RankConvariety, "convar": RankConvariety,
	"infrasubspecificname": RankInfrasubspecificName, "infrasubsp": RankInfrasubspecificName,
	"proles": RankProles, "prol": RankProles, "race": RankRace, "natio": RankNatio,
	"aberration": RankAberration, "ab": RankAberration, "morph": RankMorph,
	"variety": RankVariety, "varietas": RankVariety, "var": RankVariety,
	"subvariety": RankSubvariety, "subvarietas": RankSubvariety, "subvar": RankSubvariety,
	"form": RankForm, "forma": RankForm, "f": RankForm, "fo": RankForm, "fm": RankForm,
	"subform": RankSubform, "subforma": RankSubform, "subf": RankSubform, "subfo": RankSubform,
	"mutatio": RankMutatio, "mut": RankMutatio,
	"pathovar": RankPathovar, "pv": RankPathovar, "biovar": RankBiovar, "bv": RankBiovar,
	"chemovar": RankChemovar, "morphovar": RankMorphovar, "phagovar": RankPhagovar,
	"serovar": RankSerovar, "sv": RankSerovar, "chemoform": RankChemoform,
	"formaspecialis": RankFormaSpecialis, "fsp": RankFormaSpecialis,
	"cultivar": RankCultivar, "cv": RankCultivar, "strain": RankStrain,
	"other": RankOther, "unranked": RankUnranked, "unknown": RankUnranked,
}

// ParseRank reads a rank as checklists and occurrence records write it in
// taxonRank: GBIF's names (SPECIES, INFRASPECIFIC_NAME), English and Latin
// words (species, subspecies, ordo, divisio), and rank markers (ssp., var.,
// f.). Case, spaces, underscores, hyphens and dots do not matter.
func ParseRank(s string) (Rank, bool) {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z':
			b.WriteRune(c)
		case c >= 'A' && c <= 'Z':
			b.WriteRune(c + 'a' - 'A')
		case c == ' ' || c == '_' || c == '-' || c == '.' || c == '\t':
		default:
			return RankUnknown, false
		}
	}
	w := b.String()
	if w == "" {
		return RankUnknown, false
	}
	if r, ok := rankWords[w]; ok {
		return r, true
	}
	// GBIF's names without their underscores (INFRASPECIFIC_NAME)
	for i := Rank(1); i < numRanks; i++ {
		if strings.ReplaceAll(strings.ToLower(ranks[i].name), "_", "") == w {
			return i, true
		}
	}
	return RankUnknown, false
}
