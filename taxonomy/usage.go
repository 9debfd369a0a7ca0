package taxonomy

import (
	"fmt"
	"strings"
)

// TaxonomicStatus is a usage's status, as GBIF's TaxonomicStatus names it.
type TaxonomicStatus uint8

// The statuses. StatusUnknown is the zero value.
const (
	StatusUnknown TaxonomicStatus = iota
	StatusAccepted
	StatusDoubtful
	StatusSynonym
	StatusHeterotypicSynonym
	StatusHomotypicSynonym
	StatusProparteSynonym
	StatusMisapplied
)

var statusNames = [...]string{"", "ACCEPTED", "DOUBTFUL", "SYNONYM", "HETEROTYPIC_SYNONYM", "HOMOTYPIC_SYNONYM", "PROPARTE_SYNONYM", "MISAPPLIED"}

// String returns GBIF's name of the status.
func (s TaxonomicStatus) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return ""
}

// MarshalText writes GBIF's name.
func (s TaxonomicStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// IsSynonym reports the synonym statuses (misapplied names included, as
// GBIF counts them).
func (s TaxonomicStatus) IsSynonym() bool { return s >= StatusSynonym }

// ParseStatus reads dwc:taxonomicStatus as checklists write it: GBIF's
// names and the words of other vocabularies ("valid", "invalid",
// "provisionally accepted", "objective synonym", "pro parte synonym").
// ok is false for an empty or unknown value.
func ParseStatus(s string) (TaxonomicStatus, bool) {
	w := strings.ToLower(strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '_' || r == '-' }), " "))
	switch w {
	case "":
		return StatusUnknown, false
	case "accepted", "valid", "accepted name", "current", "provisionally accepted", "provisional", "alternative representation":
		return StatusAccepted, true
	case "doubtful", "dubious", "uncertain", "unresolved", "taxon inquirendum", "nomen dubium", "species inquirenda":
		return StatusDoubtful, true
	case "synonym", "invalid", "not accepted", "unaccepted", "junior synonym", "ambiguous synonym", "superseded combination", "superseded rank", "alternate representation":
		return StatusSynonym, true
	case "heterotypic synonym", "subjective synonym", "heterotypicsynonym":
		return StatusHeterotypicSynonym, true
	case "homotypic synonym", "objective synonym", "homotypicsynonym", "nomenclatural synonym", "basionym", "original combination":
		return StatusHomotypicSynonym, true
	case "proparte synonym", "pro parte synonym", "pro parte", "proparte", "propartesynonym":
		return StatusProparteSynonym, true
	case "misapplied", "misapplied name", "misapplication":
		return StatusMisapplied, true
	}
	return StatusUnknown, false
}

// Taxon is a usage named in a classification: its key, name and rank.
type Taxon struct {
	Key  int64  `json:"key"`
	Name string `json:"name"`
	Rank Rank   `json:"rank"`
}

// Usage is a name usage of a taxonomy: an accepted taxon or a synonym.
type Usage struct {
	// Key is the usage's taxon key (see docs/taxonomy.md for how keys are
	// assigned).
	Key int64 `json:"key"`
	// TaxonID is the checklist's own identifier ("" for implicit taxa).
	TaxonID string `json:"taxonID,omitempty"`
	// ScientificName is the name with its authorship.
	ScientificName string `json:"scientificName"`
	// CanonicalName is the name without authorship or markers (GBIF's
	// canonicalName: "Abies alba alpina").
	CanonicalName string          `json:"canonicalName"`
	Authorship    string          `json:"authorship,omitempty"`
	Rank          Rank            `json:"rank"`
	Status        TaxonomicStatus `json:"taxonomicStatus"`
	NameType      NameType        `json:"-"`
	// ParentKey is the parent of an accepted usage (0 at the root).
	ParentKey int64 `json:"parentKey,omitempty"`
	// AcceptedKey is the accepted usage of a synonym (0 for accepted ones).
	AcceptedKey int64 `json:"acceptedKey,omitempty"`
	// Implicit marks a higher taxon the checklist only names in its
	// classification columns.
	Implicit bool `json:"-"`
	// Lo and Hi number the accepted taxa in a depth-first order of the
	// tree: a taxon's descendants are the accepted usages with Lo in
	// [Lo, Hi]. A synonym has its accepted usage's interval.
	Lo, Hi uint32 `json:"-"`
}

// Synonym reports a synonym usage.
func (u *Usage) Synonym() bool { return u.AcceptedKey != 0 }

// String is "Key Name (RANK)".
func (u *Usage) String() string { return fmt.Sprintf("%d %s (%s)", u.Key, u.ScientificName, u.Rank) }

// IncertaeSedis is the usage GBIF gives records that match nothing: the
// kingdom "incertae sedis", key 0.
var IncertaeSedis = Taxon{Key: 0, Name: "incertae sedis", Rank: RankKingdom}
