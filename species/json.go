package species

import (
	"regexp"
	"strconv"

	"github.com/biodiversity-downloads/downloader/taxonomy"
)

// classified are the Linnean names and keys GBIF's species JSON flattens
// a classification into (LinneanClassification and its keys).
type classified struct {
	Kingdom     string `json:"kingdom,omitempty"`
	Phylum      string `json:"phylum,omitempty"`
	Class       string `json:"class,omitempty"`
	Order       string `json:"order,omitempty"`
	Family      string `json:"family,omitempty"`
	Genus       string `json:"genus,omitempty"`
	Subgenus    string `json:"subgenus,omitempty"`
	Species     string `json:"species,omitempty"`
	KingdomKey  int64  `json:"kingdomKey,omitempty"`
	PhylumKey   int64  `json:"phylumKey,omitempty"`
	ClassKey    int64  `json:"classKey,omitempty"`
	OrderKey    int64  `json:"orderKey,omitempty"`
	FamilyKey   int64  `json:"familyKey,omitempty"`
	GenusKey    int64  `json:"genusKey,omitempty"`
	SubgenusKey int64  `json:"subgenusKey,omitempty"`
	SpeciesKey  int64  `json:"speciesKey,omitempty"`
}

func classify(cl []taxonomy.Taxon) classified {
	var c classified
	for _, t := range cl {
		var name *string
		var key *int64
		switch t.Rank {
		case taxonomy.RankKingdom:
			name, key = &c.Kingdom, &c.KingdomKey
		case taxonomy.RankPhylum:
			name, key = &c.Phylum, &c.PhylumKey
		case taxonomy.RankClass:
			name, key = &c.Class, &c.ClassKey
		case taxonomy.RankOrder:
			name, key = &c.Order, &c.OrderKey
		case taxonomy.RankFamily:
			name, key = &c.Family, &c.FamilyKey
		case taxonomy.RankGenus:
			name, key = &c.Genus, &c.GenusKey
		case taxonomy.RankSubgenus:
			name, key = &c.Subgenus, &c.SubgenusKey
		case taxonomy.RankSpecies:
			name, key = &c.Species, &c.SpeciesKey
		default:
			continue
		}
		*name, *key = t.Name, t.Key
	}
	return c
}

// MatchV1 is GBIF's v1 species match answer (NameUsageMatch): the matched
// usage (a synonym when the name is one), its accepted usage's key and
// classification, the match type and confidence.
type MatchV1 struct {
	UsageKey         int64  `json:"usageKey,omitempty"`
	AcceptedUsageKey int64  `json:"acceptedUsageKey,omitempty"`
	ScientificName   string `json:"scientificName,omitempty"`
	CanonicalName    string `json:"canonicalName,omitempty"`
	Rank             string `json:"rank,omitempty"`
	// Status is ACCEPTED, SYNONYM or DOUBTFUL, as in GBIF's.
	Status     string `json:"status,omitempty"`
	Confidence int    `json:"confidence"`
	Note       string `json:"note,omitempty"`
	MatchType  string `json:"matchType"`
	classified
	Synonym      bool      `json:"synonym"`
	Alternatives []MatchV1 `json:"alternatives,omitempty"`
}

func matchV1(m *taxonomy.Match) MatchV1 {
	out := MatchV1{Confidence: m.Confidence, Note: m.Note, MatchType: m.Type.String()}
	if u := m.Usage; u != nil && m.Type != taxonomy.MatchNone {
		out.UsageKey, out.ScientificName, out.CanonicalName, out.Rank = u.Key, u.ScientificName, u.CanonicalName, u.Rank.String()
		out.Status = v1Status(u.Status)
		if u.AcceptedKey != 0 {
			out.AcceptedUsageKey, out.Synonym, out.Status = u.AcceptedKey, true, "SYNONYM"
		}
		out.classified = classify(m.Classification)
	}
	for i := range m.Alternatives {
		out.Alternatives = append(out.Alternatives, matchV1(&m.Alternatives[i]))
	}
	return out
}

// v1Status folds the statuses into GBIF's v1 match's three.
func v1Status(s taxonomy.TaxonomicStatus) string {
	switch {
	case s.IsSynonym():
		return "SYNONYM"
	case s == taxonomy.StatusDoubtful:
		return "DOUBTFUL"
	}
	return "ACCEPTED"
}

// MatchV2 is GBIF's v2 species match answer (the matching service's
// NameUsageMatch, which pygbif 0.7's name_backbone reads): the usage, the
// accepted usage of a synonym, the classification as ranked names and
// the diagnostics. Keys are strings in v2.
type MatchV2 struct {
	Usage          *UsageV2     `json:"usage,omitempty"`
	AcceptedUsage  *UsageV2     `json:"acceptedUsage,omitempty"`
	Classification []RankedName `json:"classification,omitempty"`
	Diagnostics    Diagnostics  `json:"diagnostics"`
	Synonym        bool         `json:"synonym"`
}

// UsageV2 is a usage of a v2 match.
type UsageV2 struct {
	Key                  string `json:"key"`
	Name                 string `json:"name"`
	CanonicalName        string `json:"canonicalName,omitempty"`
	Authorship           string `json:"authorship,omitempty"`
	Rank                 string `json:"rank,omitempty"`
	Code                 string `json:"code,omitempty"`
	Status               string `json:"status,omitempty"`
	Uninomial            string `json:"uninomial,omitempty"`
	GenericName          string `json:"genericName,omitempty"`
	InfragenericEpithet  string `json:"infragenericEpithet,omitempty"`
	SpecificEpithet      string `json:"specificEpithet,omitempty"`
	InfraspecificEpithet string `json:"infraspecificEpithet,omitempty"`
	Type                 string `json:"type,omitempty"`
}

// RankedName is a taxon of a v2 classification.
type RankedName struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	Rank string `json:"rank"`
}

// Diagnostics say how a v2 match was made.
type Diagnostics struct {
	MatchType    string    `json:"matchType"`
	Issues       []string  `json:"issues,omitempty"`
	Confidence   int       `json:"confidence"`
	Note         string    `json:"note,omitempty"`
	TimeTaken    int64     `json:"timeTaken"`
	Alternatives []MatchV2 `json:"alternatives,omitempty"`
}

func matchV2(m *taxonomy.Match) MatchV2 {
	out := MatchV2{Diagnostics: Diagnostics{MatchType: m.Type.String(), Issues: m.Issues, Confidence: m.Confidence, Note: m.Note}}
	if m.Usage != nil && m.Type != taxonomy.MatchNone {
		out.Usage = usageV2(m.Usage)
		if m.Usage.AcceptedKey != 0 && m.Accepted != nil {
			out.AcceptedUsage, out.Synonym = usageV2(m.Accepted), true
		}
		for _, t := range m.Classification {
			out.Classification = append(out.Classification, RankedName{Key: key(t.Key), Name: t.Name, Rank: t.Rank.String()})
		}
	}
	for i := range m.Alternatives {
		out.Diagnostics.Alternatives = append(out.Diagnostics.Alternatives, matchV2(&m.Alternatives[i]))
	}
	return out
}

func usageV2(u *taxonomy.Usage) *UsageV2 {
	out := &UsageV2{Key: key(u.Key), Name: u.ScientificName, CanonicalName: u.CanonicalName, Authorship: u.Authorship,
		Rank: u.Rank.String(), Status: v2Status(u)}
	pn := taxonomy.Parse(u.ScientificName, u.Rank, taxonomy.CodeUnknown)
	if pn.Parsed() {
		out.Uninomial, out.GenericName, out.InfragenericEpithet = pn.Uninomial, pn.Genus, pn.InfragenericEpithet
		out.SpecificEpithet, out.InfraspecificEpithet = pn.SpecificEpithet, pn.InfraspecificEpithet
		if pn.Code != taxonomy.CodeUnknown {
			out.Code = pn.Code.String()
		}
	}
	if t := u.NameType.String(); t != "" {
		out.Type = t
	}
	return out
}

// v2Status names a status as the v2 match does (the Catalogue of Life's
// statuses).
func v2Status(u *taxonomy.Usage) string {
	switch u.Status {
	case taxonomy.StatusDoubtful:
		return "PROVISIONALLY_ACCEPTED"
	case taxonomy.StatusProparteSynonym:
		return "AMBIGUOUS_SYNONYM"
	case taxonomy.StatusMisapplied:
		return "MISAPPLIED"
	}
	if u.Status.IsSynonym() || u.AcceptedKey != 0 {
		return "SYNONYM"
	}
	return "ACCEPTED"
}

func key(k int64) string { return strconv.FormatInt(k, 10) }

// NameUsage is GBIF's name usage (/species/{key}): the usage, its parent
// and accepted usage, its classification (a synonym's is its accepted
// usage's) and the count of accepted taxa below it.
type NameUsage struct {
	Key        int64  `json:"key"`
	NubKey     int64  `json:"nubKey,omitempty"`
	TaxonID    string `json:"taxonID,omitempty"`
	DatasetKey string `json:"datasetKey,omitempty"`
	classified
	// ParentKey of a synonym is its accepted usage's parent, as GBIF's.
	ParentKey           int64    `json:"parentKey,omitempty"`
	Parent              string   `json:"parent,omitempty"`
	AcceptedKey         int64    `json:"acceptedKey,omitempty"`
	Accepted            string   `json:"accepted,omitempty"`
	ScientificName      string   `json:"scientificName"`
	CanonicalName       string   `json:"canonicalName,omitempty"`
	Authorship          string   `json:"authorship"`
	NameType            string   `json:"nameType,omitempty"`
	Rank                string   `json:"rank,omitempty"`
	Origin              string   `json:"origin"`
	TaxonomicStatus     string   `json:"taxonomicStatus,omitempty"`
	NomenclaturalStatus []string `json:"nomenclaturalStatus"`
	NumDescendants      int      `json:"numDescendants"`
	Issues              []string `json:"issues"`
}

// SuggestResult is GBIF's name suggestion (NameUsageSuggestResult).
type SuggestResult struct {
	Key    int64 `json:"key"`
	NubKey int64 `json:"nubKey,omitempty"`
	classified
	ParentKey      int64  `json:"parentKey,omitempty"`
	Parent         string `json:"parent,omitempty"`
	ScientificName string `json:"scientificName"`
	CanonicalName  string `json:"canonicalName,omitempty"`
	Rank           string `json:"rank,omitempty"`
	Status         string `json:"status,omitempty"`
	Synonym        bool   `json:"synonym"`
}

// Page is GBIF's paging response of the children and synonyms.
type Page struct {
	Offset       int         `json:"offset"`
	Limit        int         `json:"limit"`
	EndOfRecords bool        `json:"endOfRecords"`
	Results      []NameUsage `json:"results"`
}

// backboneKey is the dataset key of GBIF's backbone: a checklist loaded
// from it keeps its keys, which are then also nubKeys.
const backboneKey = "d7dddbf4-2cf0-4f39-9b2a-bb099caae36c"

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
