package taxonomy

import (
	"strings"
)

// NomCode is a nomenclatural code, as GBIF's NomenclaturalCode names them.
type NomCode uint8

// The codes. CodeUnknown is the zero value.
const (
	CodeUnknown NomCode = iota
	CodeBacterial
	CodeBotanical
	CodeCultivars
	CodePhytosociological
	CodeVirus
	CodeZoological
)

var codeNames = [...]string{"", "BACTERIAL", "BOTANICAL", "CULTIVARS", "PHYTOSOCIOLOGICAL", "VIRUS", "ZOOLOGICAL"}

// String returns GBIF's name of the code ("" for CodeUnknown).
func (c NomCode) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return ""
}

// NameType is what kind of name a string is, as GBIF's name parser
// classifies names (GBIF's NameType).
type NameType uint8

// The name types. NameNoName is the zero value.
const (
	// NameNoName is no name at all: empty, punctuation, "Gen. nov.".
	NameNoName NameType = iota
	// NameScientific is a well-formed scientific name.
	NameScientific
	// NameVirus is a virus, phage or vector name; not parsed.
	NameVirus
	// NameHybridFormula is a formula naming two or more parents
	// ("Salix aurita × S. caprea"); not parsed.
	NameHybridFormula
	// NameInformal is a name with informal parts: indeterminate ("Abies
	// sp."), qualified ("Solenopsis cf. fugax"), abbreviated, manuscript.
	NameInformal
	// NameOTU is an operational taxonomic unit: BOLD BINs, UNITE species
	// hypotheses, GTDB placeholders.
	NameOTU
	// NamePlaceholder stands for no real taxon ("incertae sedis",
	// "unassigned", "uncultured bacterium").
	NamePlaceholder
)

var typeNames = [...]string{"NO_NAME", "SCIENTIFIC", "VIRUS", "HYBRID_FORMULA", "INFORMAL", "OTU", "PLACEHOLDER"}

// String returns GBIF's name of the type.
func (t NameType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return ""
}

// Parsable reports the types whose names have parsed parts (scientific and
// informal names).
func (t NameType) Parsable() bool { return t == NameScientific || t == NameInformal }

// NamePart is a part of a name a hybrid marker or qualifier belongs to.
type NamePart uint8

// The parts. PartNone is the zero value.
const (
	PartNone NamePart = iota
	PartGeneric
	PartInfrageneric
	PartSpecific
	PartInfraspecific
)

var partNames = [...]string{"", "GENERIC", "INFRAGENERIC", "SPECIFIC", "INFRASPECIFIC"}

// String returns GBIF's name of the part.
func (p NamePart) String() string {
	if int(p) < len(partNames) {
		return partNames[p]
	}
	return ""
}

// Authorship is one authorship of a name: its authors, the authors cited
// before "ex" and the year.
type Authorship struct {
	Authors   []string `json:"authors,omitempty"`
	ExAuthors []string `json:"exAuthors,omitempty"`
	Year      string   `json:"year,omitempty"`
}

// Empty reports an authorship without authors and year.
func (a Authorship) Empty() bool { return len(a.Authors) == 0 && len(a.ExAuthors) == 0 && a.Year == "" }

// Parser warnings, as GBIF's parser words them.
const (
	WarnIndetermined        = "Indetermined name"
	WarnNullEpithet         = "epithet with literal value null"
	WarnBlacklistedEpithet  = "blacklisted epithet used"
	WarnHomoglyphs          = "homoglyphs replaced"
	WarnQuestionMarks       = "question marks removed"
	WarnRankMismatch        = "rank does not fit the parsed name"
	WarnSubspeciesAssigned  = "Name was considered species but contains infraspecific epithet"
	WarnDoubtfulGenus       = "doubtful genus"
	WarnMissingGenus        = "epithet without genus"
	WarnAuthorshipRemoved   = "authorship removed"
	WarnNomenclaturalRef    = "nomenclatural reference removed"
	WarnUnusualCharacters   = "unusual characters"
	WarnIntermediateRemoved = "Intermediate classification removed"
)

// ParsedName is a name parsed into its parts, the way GBIF's name parser
// splits it. Names that are not parsable (viruses, hybrid formulas, OTU
// identifiers, placeholders, no names) have their Type set and no parts.
type ParsedName struct {
	Type NameType
	Rank Rank
	Code NomCode

	// Uninomial is the name of a taxon above genus, or a genus on its own.
	Uninomial string
	// Genus is the genus of a binomial or of an infrageneric name.
	Genus                string
	InfragenericEpithet  string
	SpecificEpithet      string
	InfraspecificEpithet string
	CultivarEpithet      string
	// Phrase is a manuscript or strain designation ("sp. 1" names keep it
	// in SpecificEpithet as GBIF does).
	Phrase string

	Candidatus bool
	// Notho is the part a hybrid marker (×, notho-) applies to.
	Notho NamePart
	// QualifierPart is the part Qualifier ("cf.", "aff.") applies to.
	QualifierPart NamePart
	Qualifier     string

	Combination       Authorship
	Basionym          Authorship
	SanctioningAuthor string

	// TaxonomicNote is a sensu, auct., non, emend. or sec. remark.
	TaxonomicNote string
	// NomenclaturalNote is a nomenclatural status remark (nom. nud.).
	NomenclaturalNote string
	PublishedIn       string
	// Unparsed is what was left over after the parts were read (a partial
	// parse).
	Unparsed string

	Extinct    bool
	Doubtful   bool
	Manuscript bool
	Sic        bool
	Corrig     bool
	Warnings   []string

	// Verbatim is the input, or the identifier of an unparsable name
	// (an OTU's upper-cased BIN).
	Verbatim string
}

// Parsed reports whether the name was split into parts: scientific and
// informal names, and the placeholders and OTUs that have a name part
// ("? denheyeri", "UBA3054"). Viruses, hybrid formulas, BINs and no names
// have none.
func (n *ParsedName) Parsed() bool {
	return n.Uninomial != "" || n.Genus != "" || n.InfragenericEpithet != ""
}

// Partial reports a parse that left some of the input unread.
func (n *ParsedName) Partial() bool { return n.Unparsed != "" }

// HasAuthorship reports a combination or basionym authorship.
func (n *ParsedName) HasAuthorship() bool { return !n.Combination.Empty() || !n.Basionym.Empty() }

// GenusOrAbove is the genus, or the uninomial.
func (n *ParsedName) GenusOrAbove() string {
	if n.Genus != "" {
		return n.Genus
	}
	return n.Uninomial
}

// Autonym reports an infraspecific name repeating its species epithet (or
// an infrageneric name repeating its genus).
func (n *ParsedName) Autonym() bool {
	if n.SpecificEpithet != "" && n.InfraspecificEpithet != "" {
		return n.SpecificEpithet == n.InfraspecificEpithet
	}
	return n.SpecificEpithet == "" && n.Genus != "" && n.Genus == n.InfragenericEpithet
}

// Indetermined reports a name whose rank asks for an epithet it lacks
// ("Abies sp.", "Poa annua var.").
func (n *ParsedName) Indetermined() bool {
	if !n.Rank.IsInfrageneric() {
		return false
	}
	switch {
	case n.Rank.IsInfragenericStrictly():
		return n.InfragenericEpithet == ""
	case n.Rank.IsInfraspecific():
		return n.InfraspecificEpithet == "" && n.CultivarEpithet == ""
	}
	return n.SpecificEpithet == "" && n.CultivarEpithet == ""
}

// addWarning records a warning once.
func (n *ParsedName) addWarning(w string) {
	for _, x := range n.Warnings {
		if x == w {
			return
		}
	}
	n.Warnings = append(n.Warnings, w)
}

// CanonicalName is the name without authorship, with rank and hybrid
// markers, qualifiers and cultivar epithets, as GBIF's
// canonicalNameWithoutAuthorship prints it ("Abies alba var. alpina",
// "Pyrocrataegus × willei", "Trametes sp."). Subspecies markers are left
// out unless the name is known to follow a code other than the zoological.
// It is "" for names that are not parsed.
func (n *ParsedName) CanonicalName() string { return n.format(false) }

// CanonicalNameWithAuthorship is CanonicalName followed by the authorship.
func (n *ParsedName) CanonicalNameWithAuthorship() string { return n.format(true) }

// CanonicalMinimal is the genus (or uninomial) and the epithets only, folded
// to ASCII, without markers, authorship or cultivar: the form names are
// matched on and the one GBIF's species API calls canonicalName ("Abies
// alba alpina"). An infrageneric name is its infrageneric epithet alone.
// Unparsed names give their verbatim identifier.
func (n *ParsedName) CanonicalMinimal() string {
	if !n.Parsed() {
		return n.Verbatim
	}
	var b strings.Builder
	if n.Uninomial != "" {
		b.WriteString(n.Uninomial)
	} else {
		if n.InfragenericEpithet != "" && n.SpecificEpithet == "" && n.InfraspecificEpithet == "" {
			b.WriteString(n.InfragenericEpithet)
		} else if n.Genus != "" {
			b.WriteString(n.Genus)
		}
		for _, e := range [...]string{n.SpecificEpithet, n.InfraspecificEpithet} {
			if e != "" {
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(e)
			}
		}
	}
	return FoldASCII(b.String())
}

// AuthorshipString is the full authorship: "(Basionym, year) Combination,
// year : Sanctioning".
func (n *ParsedName) AuthorshipString() string {
	var b strings.Builder
	n.writeAuthorship(&b)
	return b.String()
}

func (n *ParsedName) writeAuthorship(b *strings.Builder) {
	start := b.Len()
	if !n.Basionym.Empty() {
		b.WriteByte('(')
		writeAuthors(b, n.Basionym, n.Code)
		b.WriteByte(')')
	}
	if !n.Combination.Empty() {
		if b.Len() > start {
			b.WriteByte(' ')
		}
		writeAuthors(b, n.Combination, n.Code)
		if n.SanctioningAuthor != "" {
			b.WriteString(" : ")
			b.WriteString(n.SanctioningAuthor)
		}
	}
}

// writeAuthors writes one authorship: "Ex ex Authors, year", authors joined
// by ", " and " & " (" et al." for a last author "al."); bacterial names
// abbreviate more than two authors to "First et al." and put no comma before
// the year.
func writeAuthors(b *strings.Builder, a Authorship, code NomCode) {
	wrote := false
	if len(a.ExAuthors) > 0 {
		joinAuthors(b, a.ExAuthors, code)
		b.WriteString(" ex ")
		wrote = true
	}
	if len(a.Authors) > 0 {
		joinAuthors(b, a.Authors, code)
		wrote = true
	}
	if a.Year != "" {
		if wrote {
			if code != CodeBacterial {
				b.WriteByte(',')
			}
			b.WriteByte(' ')
		}
		b.WriteString(a.Year)
	}
}

func joinAuthors(b *strings.Builder, authors []string, code NomCode) {
	switch {
	case code == CodeBacterial && len(authors) > 2:
		b.WriteString(authors[0])
		b.WriteString(" et al.")
	case len(authors) > 1:
		last := authors[len(authors)-1]
		b.WriteString(strings.Join(authors[:len(authors)-1], ", "))
		if last == "al." || last == "al" {
			b.WriteString(" et al.")
		} else {
			b.WriteString(" & ")
			b.WriteString(last)
		}
	default:
		b.WriteString(strings.Join(authors, ", "))
	}
}

// format builds CanonicalName, with the authorship if asked.
func (n *ParsedName) format(withAuthorship bool) string {
	if !n.Parsed() {
		return ""
	}
	var b strings.Builder
	if n.Candidatus {
		b.WriteString(`"Candidatus `)
	}
	authorship := withAuthorship
	if n.Uninomial != "" {
		if n.Notho == PartGeneric {
			b.WriteString("× ")
		}
		b.WriteString(n.Uninomial)
	} else {
		n.formatGenusPart(&b)
		if n.SpecificEpithet == "" {
			if n.Genus != "" && n.CultivarEpithet == "" && n.Rank.IsSpeciesOrBelow() {
				if n.Rank.IsInfraspecific() {
					n.formatInfraspecific(&b, true)
				} else {
					b.WriteByte(' ')
					b.WriteString(n.Rank.Marker())
				}
				authorship = false
			} else if n.InfraspecificEpithet != "" {
				n.formatInfraspecific(&b, false)
			}
		} else {
			b.WriteByte(' ')
			if n.QualifierPart == PartSpecific {
				b.WriteString(n.Qualifier)
				b.WriteByte(' ')
			}
			if n.Notho == PartSpecific {
				b.WriteString("× ")
			}
			b.WriteString(n.SpecificEpithet)
			if n.InfraspecificEpithet == "" {
				if n.Rank.IsInfraspecific() && (n.Rank.Code() != CodeCultivars || n.CultivarEpithet == "") {
					if n.Rank == RankSubspecies {
						b.WriteString(" ssp.")
					} else if m := n.Rank.Marker(); m != "" {
						b.WriteByte(' ')
						b.WriteString(m)
					}
					authorship = false
				}
			} else {
				n.formatInfraspecific(&b, false)
				if n.Autonym() {
					authorship = false
				}
			}
		}
	}
	if n.Candidatus {
		b.WriteByte('"')
	}
	if authorship && n.HasAuthorship() {
		b.WriteByte(' ')
		n.writeAuthorship(&b)
	}
	if n.CultivarEpithet != "" {
		switch n.Rank {
		case RankCultivarGroup:
			b.WriteString(" " + n.CultivarEpithet + " Group")
		case RankGrex:
			b.WriteString(" " + n.CultivarEpithet + " gx")
		default:
			b.WriteString(" '" + n.CultivarEpithet + "'")
		}
	}
	return decomposeLigatures(strings.TrimSpace(b.String()))
}

// formatGenusPart writes the genus, or a terminal infrageneric name.
func (n *ParsedName) formatGenusPart(b *strings.Builder) {
	writeGenus := func() {
		if n.QualifierPart == PartGeneric {
			b.WriteString(n.Qualifier)
			b.WriteByte(' ')
		}
		if n.Notho == PartGeneric {
			b.WriteString("× ")
		}
		b.WriteString(n.Genus)
	}
	if n.InfragenericEpithet == "" {
		if n.Genus != "" {
			writeGenus()
		}
		return
	}
	terminal := (!n.Rank.Known() && n.SpecificEpithet == "") || n.Rank.IsInfragenericStrictly()
	if !terminal {
		if n.Genus != "" {
			writeGenus()
		}
		return
	}
	if n.Genus != "" {
		writeGenus()
		b.WriteByte(' ')
		if n.Code == CodeZoological {
			b.WriteByte('(')
			if n.Notho == PartInfrageneric {
				b.WriteString("× ")
			}
			b.WriteString(n.InfragenericEpithet)
			b.WriteByte(')')
			return
		}
	}
	if m := n.Rank.Marker(); m != "" && n.Rank.IsInfrageneric() && !n.Rank.Uncomparable() {
		if n.Notho == PartInfrageneric {
			b.WriteString("notho")
		}
		b.WriteString(m)
		b.WriteByte(' ')
	}
	b.WriteString(n.InfragenericEpithet)
}

// formatInfraspecific writes " [qualifier] [× | notho]marker epithet".
// Subspecies markers are hidden unless the code is known and not zoological
// (or the name is a hybrid); force shows the marker of an indeterminate
// infraspecific name.
func (n *ParsedName) formatInfraspecific(b *strings.Builder, force bool) {
	b.WriteByte(' ')
	if n.QualifierPart == PartInfraspecific {
		b.WriteString(n.Qualifier)
		b.WriteByte(' ')
	}
	markerRank := n.Rank.IsInfraspecific() && !n.Rank.Uncomparable()
	if n.Notho == PartInfraspecific {
		if markerRank {
			b.WriteString("notho")
		} else {
			b.WriteString("× ")
		}
	}
	notZoo := n.Code != CodeUnknown && n.Code != CodeZoological
	if force || notZoo || n.Rank != RankSubspecies || n.Notho != PartNone {
		if m := n.Rank.Marker(); markerRank && m != "" {
			b.WriteString(m)
			if n.InfraspecificEpithet != "" {
				b.WriteByte(' ')
			}
		}
	}
	b.WriteString(n.InfraspecificEpithet)
}
