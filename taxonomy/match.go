package taxonomy

import (
	"context"
	"strings"
)

// MatchType is how a name matched, as GBIF's species match reports it.
type MatchType uint8

// The match types. MatchNone is the zero value.
const (
	MatchNone MatchType = iota
	MatchExact
	MatchFuzzy
	MatchHigherRank
)

var matchTypeNames = [...]string{"NONE", "EXACT", "FUZZY", "HIGHERRANK"}

// String returns GBIF's name of the match type.
func (t MatchType) String() string {
	if int(t) < len(matchTypeNames) {
		return matchTypeNames[t]
	}
	return ""
}

// MarshalText writes GBIF's name.
func (t MatchType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// The interpretation issues a match raises (GBIF's OccurrenceIssue names).
const (
	IssueTaxonMatchFuzzy       = "TAXON_MATCH_FUZZY"
	IssueTaxonMatchHigherRank  = "TAXON_MATCH_HIGHERRANK"
	IssueTaxonMatchNone        = "TAXON_MATCH_NONE"
	IssueTaxonMatchAggregate   = "TAXON_MATCH_AGGREGATE"
	IssueTaxonIDNotFound       = "TAXON_ID_NOT_FOUND"
	IssueNameAndIDInconsistent = "SCIENTIFIC_NAME_AND_ID_INCONSISTENT"
)

// Query is what a record (or a species match request) says of its taxon:
// the Darwin Core terms GBIF's matcher reads.
type Query struct {
	ScientificName string
	// Authorship is dwc:scientificNameAuthorship, added to the name when
	// the name does not include it.
	Authorship string
	// Rank is dwc:taxonRank (or verbatimTaxonRank) in any spelling.
	Rank string
	// GenericName, SpecificEpithet, InfraspecificEpithet build the name
	// when ScientificName is empty.
	GenericName, SpecificEpithet, InfraspecificEpithet string
	// The record's higher classification: it separates homonyms and is
	// the fallback when the name matches nothing.
	Kingdom, Phylum, Class, Order, Family, Genus string
	// TaxonID is an identifier of the loaded checklist the record cites
	// (dwc:taxonID): when found, it decides the usage.
	TaxonID string
	// Strict turns off fuzzy matching and the fallback to higher ranks
	// (GBIF's strict=true).
	Strict bool
	// Verbose keeps the alternatives that were considered.
	Verbose bool
	// Occurrence applies GBIF's rule for interpreting records: a fuzzy
	// match of a record that gives no kingdom to family is no match.
	Occurrence bool
}

// Match is the outcome of matching a Query. A Match and its slices are
// shared (by caches): treat them as read-only.
type Match struct {
	Type MatchType `json:"matchType"`
	// Confidence is 0-100 as in GBIF's species match.
	Confidence int `json:"confidence"`
	// Usage is the matched usage (nil for MatchNone); a synonym when the
	// name matched one.
	Usage *Usage `json:"usage,omitempty"`
	// Accepted is Usage's accepted usage (Usage itself when accepted).
	Accepted *Usage `json:"acceptedUsage,omitempty"`
	// Classification is the accepted usage's ancestors from the root down,
	// then the accepted usage.
	Classification []Taxon  `json:"classification,omitempty"`
	Issues         []string `json:"issues,omitempty"`
	Note           string   `json:"note,omitempty"`
	Alternatives   []Match  `json:"alternatives,omitempty"`
}

// Matcher matches queries to taxa: a loaded Checklist, a Derived taxonomy,
// or a Cache of either. Implementations are safe for concurrent use.
type Matcher interface {
	Match(ctx context.Context, q Query) (Match, error)
}

// Ranked returns the classification's taxon of a rank (kingdom..species).
func (m *Match) Ranked(r Rank) (Taxon, bool) {
	for _, t := range m.Classification {
		if t.Rank == r {
			return t, true
		}
	}
	return Taxon{}, false
}

// TaxonKeys are all the keys a record with this match belongs to: the
// usage, its accepted usage and every ancestor (a taxon-key predicate
// selects a record when any of them is the key asked for). Unmatched
// records belong to IncertaeSedis (key 0) only.
func (m *Match) TaxonKeys() []int64 {
	if m.Usage == nil {
		return []int64{IncertaeSedis.Key}
	}
	keys := make([]int64, 0, len(m.Classification)+1)
	if m.Usage.AcceptedKey != 0 {
		keys = append(keys, m.Usage.Key)
	}
	for _, t := range m.Classification {
		keys = append(keys, t.Key)
	}
	return keys
}

// linnean holds a usage's Linnean classification names while scoring.
type linnean [7]string // kingdom, phylum, class, order, family, genus, species

func linneanIndex(r Rank) int {
	for i, l := range linneanRanks {
		if l == r {
			return i
		}
	}
	return -1
}

// queryClassification is the record's classification, cleaned: the first
// word of each value (GBIF drops authorships from classification values).
func queryClassification(q *Query) linnean {
	var l linnean
	for i, v := range [...]string{q.Kingdom, q.Phylum, q.Class, q.Order, q.Family, q.Genus} {
		l[i] = higherName(v)
	}
	return l
}

// buildName assembles the name to match from the query's fields (GBIF's
// NameNRank): the scientific name with its authorship, else the genus and
// epithets.
func buildName(q *Query) string {
	name := strings.Join(strings.Fields(q.ScientificName), " ")
	auth := strings.Join(strings.Fields(q.Authorship), " ")
	genus := q.GenericName
	if genus == "" {
		genus = q.Genus
	}
	if name == "" && genus != "" && q.SpecificEpithet != "" {
		name = strings.Join(strings.Fields(genus+" "+q.SpecificEpithet+" "+q.InfraspecificEpithet), " ")
	} else if name != "" && !strings.Contains(name, " ") && q.SpecificEpithet != "" && strings.EqualFold(name, genus) {
		// the scientificName is only the genus: add the epithets
		name = strings.Join(strings.Fields(name+" "+q.SpecificEpithet+" "+q.InfraspecificEpithet), " ")
	}
	// an abbreviated genus the classification spells out: "P. concolor"
	if len(name) > 3 && name[1] == '.' && name[2] == ' ' && q.Genus != "" && strings.HasPrefix(q.Genus, name[:1]) {
		name = higherName(q.Genus) + name[2:]
	}
	if name != "" && auth != "" && !strings.Contains(name, auth) {
		name += " " + auth
	}
	return name
}
