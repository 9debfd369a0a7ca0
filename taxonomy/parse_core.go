package taxonomy

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	// "Primula Border Auricula Group", "Cattleya Prince John gx"
	cultivarGroupRE = regexp.MustCompile(`^(.*?) ["']?((?:\p{Lu}\p{Ll}{2,}[- ]?){1,3})["']? (Group|Hybrids|grex|Grex|gx)$`)
	// family-group prefix of a lower rank: "Poaceae subtrib. Scolochloinae"
	familyPrefixRE = regexp.MustCompile(`^\p{Lu}\p{Ll}*(?:aceae|idae) ((?:sub|super|infra)?(?:fam|trib)\.) `)
	manuscriptRE   = regexp.MustCompile(`^(?:sp|spp|indet)\.?([A-Z0-9][A-Za-z0-9-]*)$`)
	designationRE  = regexp.MustCompile(`^[A-Z0-9][A-Za-z0-9-]*$`)
	upperNomenRE   = regexp.MustCompile(`^\p{Lu}{2,}(?: \p{Lu}{2,}){1,2}$`)
)

// core reads the name's parts from s, the authorship from what follows.
func (p *parser) core(s string) {
	n := p.n
	if len(s) > 1 && isUpperStart(s) && isUpperStart(s[1:]) && upperNomenRE.MatchString(s) {
		// "ABIES ALBA": a capitalized genus and lower-case epithets
		f := strings.Fields(s)
		f[0] = titleCase(f[0])
		for i := 1; i < len(f); i++ {
			f[i] = strings.ToLower(f[i])
		}
		s = strings.Join(f, " ")
	}
	if m := cultivarGroup(s); m != nil && strings.IndexByte(m[1], ' ') < 0 || m != nil && epithetAfterGenus(m[1]) {
		n.CultivarEpithet = strings.TrimSpace(m[2])
		switch m[3] {
		case "Group", "Hybrids":
			n.Rank = RankCultivarGroup
		default:
			n.Rank = RankGrex
		}
		s = m[1]
	}
	if (strings.Contains(s, "fam.") || strings.Contains(s, "trib.")) && familyPrefixRE.MatchString(s) {
		m := familyPrefixRE.FindStringSubmatchIndex(s)
		s = s[m[2]:]
	}
	toks := strings.Fields(s)
	for k := 0; k+1 < len(toks); k++ {
		if toks[k+1] == "ex" {
			switch strings.ToLower(toks[k]) {
			case "cv.", "cv", "hort.", "hort", "hortus", "hortusa":
				toks[k] = "hort."
			}
		}
	}
	i := p.genus(toks)
	if i < 0 {
		return
	}
	i = p.afterGenus(toks, i)
	if n.SpecificEpithet != "" && !n.indet() {
		i = p.infraspecific(toks, i)
	}
	if i < len(toks) && !n.indet() {
		p.authorship(strings.Join(toks[i:], " "))
	} else if len(p.skipped) > 0 && n.CultivarEpithet != "" && n.InfraspecificEpithet == "" {
		// a cultivar has no authorship: the species' is the name's
		p.authorship(strings.Join(p.skipped, " "))
	}
}

// cultivarGroup matches cultivarGroupRE on names ending like one.
func cultivarGroup(s string) []string {
	for _, e := range []string{" Group", " Hybrids", " grex", " Grex", " gx"} {
		if strings.HasSuffix(s, e) {
			return cultivarGroupRE.FindStringSubmatch(s)
		}
	}
	return nil
}

// manuscriptDesignation matches manuscriptRE on "sp.1"-like words.
func manuscriptDesignation(t string) []string {
	if len(t) < 3 || !strings.HasPrefix(t, "sp") && !strings.HasPrefix(t, "indet") {
		return nil
	}
	return manuscriptRE.FindStringSubmatch(t)
}

// epithetAfterGenus reports "Genus epithet" (a cultivar group of a species).
func epithetAfterGenus(s string) bool {
	f := strings.Fields(s)
	return len(f) == 2 && isCapWord(f[0]) && isEpithetWord(f[1])
}

// indet reports an indeterminate name read so far (authorship dropped).
func (n *ParsedName) indet() bool {
	for _, w := range n.Warnings {
		if w == WarnIndetermined {
			return true
		}
	}
	return false
}

// genus reads a leading hybrid marker, rank prefix and the genus or
// uninomial; it returns the index of the next token, or -1 when the name
// has been fully classified (no name, placeholder).
func (p *parser) genus(toks []string) int {
	n := p.n
	i := 0
	if len(toks) > 1 && isHybridMarker(toks[0]) {
		n.Notho = PartGeneric
		i++
	}
	// rank marker before an infrageneric or suprageneric name
	if i+1 < len(toks) {
		if r, notho, ok := marker(toks[i], infragenericMarkers); ok && isCapWord(toks[i+1]) {
			n.InfragenericEpithet, n.Rank = toks[i+1], r
			if notho {
				n.Notho = PartInfrageneric
			}
			if p.givenCode == CodeZoological && r == RankSection {
				n.Uninomial, n.InfragenericEpithet = toks[i+1], ""
			}
			return i + 2
		}
		if r, ok := supragenericMarkers[strings.ToLower(toks[i])]; ok && isCapWord(toks[i+1]) {
			n.Uninomial, n.Rank = toks[i+1], r
			return i + 2
		}
	}
	if i >= len(toks) {
		n.Type = NameNoName
		return -1
	}
	g := toks[i]
	if strings.HasPrefix(g, "×") && len(g) > len("×") {
		n.Notho = PartGeneric
		g = g[len("×"):]
	} else if strings.HasPrefix(g, "+") && len(g) > 1 {
		n.Notho = PartGeneric
		g = g[1:]
	}
	// [Acontia]: a doubtful genus
	if len(g) > 2 && (g[0] == '[' && g[len(g)-1] == ']' || g[0] == '\'' && g[len(g)-1] == '\'') && isCapWord(g[1:len(g)-1]) {
		g = g[1 : len(g)-1]
		n.Doubtful = true
		n.addWarning(WarnDoubtfulGenus)
	}
	switch {
	case isCapWord(g):
	case isAllCaps(g) && utf8.RuneCountInString(g) > 2:
		g = titleCase(g)
	case g == "?" || g == `"?`:
		g = "?"
		n.Type = NamePlaceholder
	case len(g) == 2 && g[1] == '.' && g[0] >= 'A' && g[0] <= 'Z':
		// abbreviated genus "N. giraldo"
		n.Type = NameInformal
	case isEpithetWord(g) && i+1 < len(toks) && epithetAt(toks, i+1):
		// "abies alba Mill.": a lower-case binomial
		g = titleCase(g)
	case isEpithetWord(g) && i == 0 && utf8.RuneCountInString(g) > 3:
		// "denheyeri Eghbalian, 1999": an epithet without its genus
		n.Genus, n.SpecificEpithet, n.Type = "?", g, NamePlaceholder
		n.addWarning(WarnMissingGenus)
		return i + 1
	case isEpithetWord(g) && i == 0 && len(toks) == 1:
		g = titleCase(g)
	default:
		n.Type = NameNoName
		return -1
	}
	// placeholder genera: "Missing penchinati"
	switch g {
	case "In", "Dummy", "Missing", "Temp", "Unknown", "Unplaced", "Unspecified":
		if i+1 < len(toks) && isEpithetWord(toks[i+1]) {
			n.Genus, n.Type = "?", NamePlaceholder
			return i + 1
		}
	}
	// a capitalized monomial is a genus if an epithet follows, else a
	// uninomial; afterGenus moves it as needed
	n.Uninomial = g
	return i + 1
}

// afterGenus reads an infrageneric part and the species epithet.
func (p *parser) afterGenus(toks []string, i int) int {
	n := p.n
	toGenus := func() {
		if n.Genus == "" && n.Uninomial != "" {
			n.Genus, n.Uninomial = n.Uninomial, ""
		}
	}
	// infrageneric part: "(Pertinax)", or "subg. Jacea" possibly after the
	// genus' authors ("Centaurea L. subg. Jacea")
	if i < len(toks) {
		t := toks[i]
		if len(t) > 2 && t[0] == '(' && t[len(t)-1] == ')' && isCapWord(t[1:len(t)-1]) && n.Uninomial != "" {
			next := i + 1
			switch {
			case epithetAt(toks, next), next < len(toks) && (isHybridMarker(toks[next]) || strings.HasPrefix(toks[next], "×")):
				toGenus()
				n.InfragenericEpithet = t[1 : len(t)-1]
				i = next
			case next < len(toks) && isQualifierAt(toks, next):
				toGenus()
				n.InfragenericEpithet = t[1 : len(t)-1]
				i = next
			case p.givenRank.IsInfragenericStrictly():
				toGenus()
				n.InfragenericEpithet = t[1 : len(t)-1]
				n.Rank = p.givenRank
				return next
			}
		}
	}
	if n.InfragenericEpithet == "" && n.Uninomial != "" {
		for j := i; j < len(toks) && j < i+6; j++ {
			r, notho, ok := marker(toks[j], infragenericMarkers)
			if !ok || j+1 >= len(toks) || !isCapWord(toks[j+1]) {
				continue
			}
			if j > i && !looksLikeAuthors(toks[i:j]) {
				break
			}
			toGenus()
			n.InfragenericEpithet, n.Rank = toks[j+1], r
			if notho {
				n.Notho = PartInfrageneric
			}
			return j + 2
		}
	}
	if i >= len(toks) {
		return i
	}
	t := toks[i]
	// quoted cultivar epithet: "Abutilon 'Kentish Belle'"
	if j, cv, ok := quotedCultivar(toks, i); ok {
		toGenus()
		n.CultivarEpithet = cv
		if !n.Rank.Known() || n.Rank == RankSpecies {
			n.Rank = RankCultivar
		}
		return j
	}
	// "sp." names: "Abies sp.", "Verticordia sp.1", "Bryozoan sp. E"
	if m := manuscriptDesignation(t); m != nil {
		toGenus()
		n.SpecificEpithet = "sp." + m[1]
		n.Type, n.Manuscript, n.Rank = NameInformal, true, RankSpecies
		return i + 1
	}
	if isIndetMarker(t) && n.Uninomial != "" || isIndetMarker(t) && n.Genus != "" {
		toGenus()
		if j, cv, ok := quotedCultivar(toks, i+1); ok {
			n.CultivarEpithet = cv
			n.Rank = RankCultivar
			return j
		}
		if i+1 < len(toks) && strings.EqualFold(toks[i+1], "cv.") {
			if j, cv, ok := quotedCultivar(toks, i+2); ok {
				n.CultivarEpithet, n.Rank = cv, RankCultivar
				return j
			}
		}
		if i+1 < len(toks) && designationRE.MatchString(toks[i+1]) && !isYear(toks[i+1]) && (strings.ContainsAny(toks[i+1], "0123456789") || len(toks[i+1]) <= 2 || isAllCaps(toks[i+1])) {
			n.SpecificEpithet = "sp." + toks[i+1]
			n.Type, n.Manuscript, n.Rank = NameInformal, true, RankSpecies
			return i + 2
		}
		n.Rank, n.Type = RankSpecies, NameInformal
		n.addWarning(WarnIndetermined)
		return len(toks)
	}
	// qualifier
	if q, ok := qualifier(t); ok && i+1 < len(toks) {
		n.Qualifier, n.QualifierPart = q, PartSpecific
		i++
		t = toks[i]
	}
	// hybrid marker: "× willei", "×willei"
	notho := false
	if isHybridMarker(t) && i+1 < len(toks) && epithetAt(toks, i+1) {
		notho = true
		i++
		t = toks[i]
	} else if strings.HasPrefix(t, "×") && isEpithetWord(t[len("×"):]) {
		notho = true
		t = t[len("×"):]
		toks[i] = t
	}
	if !epithetAt(toks, i) && !(strings.HasSuffix(t, "-group") && isEpithetWord(strings.TrimSuffix(t, "-group"))) {
		if n.Qualifier != "" {
			// "cf." without an epithet: keep it as unread text
			n.Qualifier, n.QualifierPart = "", PartNone
			return i - 1
		}
		return i
	}
	toGenus()
	if notho {
		n.Notho = PartSpecific
	}
	if e, ok := strings.CutSuffix(t, "-group"); ok {
		n.SpecificEpithet, n.Rank = e, RankSpeciesAggregate
		return i + 1
	}
	n.SpecificEpithet = t
	i++
	// aggregates: "species group", "group"
	if i < len(toks) && toks[i] == "group" {
		n.Rank = RankSpeciesAggregate
		return i + 1
	}
	if i+1 < len(toks) && toks[i] == "species" && toks[i+1] == "group" {
		n.Rank = RankSpeciesAggregate
		return i + 2
	}
	return i
}

// isQualifierAt reports a qualifier followed by an epithet.
func isQualifierAt(toks []string, i int) bool {
	_, ok := qualifier(toks[i])
	return ok && epithetAt(toks, i+1)
}

// infraspecific reads infraspecific epithets with their rank markers,
// cultivars and aggregates after the species epithet.
func (p *parser) infraspecific(toks []string, i int) int {
	n := p.n
	markerSet := false // an explicit rank marker was read
	for i < len(toks) {
		t := toks[i]
		if j, cv, ok := quotedCultivar(toks, i); ok {
			n.CultivarEpithet = cv
			if n.InfraspecificEpithet == "" {
				n.Rank = RankCultivar
			}
			i = j
			continue
		}
		if q, ok := qualifier(t); ok && i+1 < len(toks) {
			if _, _, mk := marker(toks[i+1], infraspecificMarkers); mk || epithetAt(toks, i+1) {
				n.Qualifier, n.QualifierPart = q, PartInfraspecific
				i++
				continue
			}
		}
		if r, notho, ok := marker(t, infraspecificMarkers); ok {
			if r == RankSpeciesAggregate {
				n.Rank = RankSpeciesAggregate
				return i + 1
			}
			if r == RankCultivar {
				if j, cv, ok := quotedCultivar(toks, i+1); ok {
					n.CultivarEpithet = cv
					if n.InfraspecificEpithet == "" {
						n.Rank = RankCultivar
					}
					i = j
					continue
				}
			}
			k := i + 1
			hyb := notho
			if k < len(toks) && isHybridMarker(toks[k]) && epithetAt(toks, k+1) {
				hyb, k = true, k+1
			} else if k < len(toks) && strings.HasPrefix(toks[k], "×") && isEpithetWord(toks[k][len("×"):]) {
				toks[k] = toks[k][len("×"):]
				hyb = true
			}
			if epithetAt(toks, k) {
				if n.InfraspecificEpithet != "" && markerSet {
					n.addWarning(WarnIntermediateRemoved)
				}
				if r == RankSubspecies && strings.ToLower(t) == "subsp." {
					p.markerSubsp = true
				}
				if t == "sp." {
					n.addWarning(WarnSubspeciesAssigned)
				}
				n.InfraspecificEpithet, n.Rank, markerSet = toks[k], r, true
				if hyb {
					n.Notho = PartInfraspecific
				}
				i = k + 1
				continue
			}
			if (r == RankForm) && k < len(toks) && len(toks[k]) == 1 && toks[k][0] >= 'A' && toks[k][0] <= 'Z' {
				// "form A": an informal designation
				n.InfraspecificEpithet, n.Rank, markerSet = toks[k], r, true
				n.Type = NameInformal
				i = k + 1
				continue
			}
			if n.InfraspecificEpithet == "" && r != RankOther {
				// "Poa annua var.", "Canis lupus subsp. Linnaeus, 1758"
				n.Rank, n.Type = r, NameInformal
				n.addWarning(WarnIndetermined)
				n.Combination, n.Basionym = Authorship{}, Authorship{}
				return len(toks)
			}
			return i
		}
		if strings.HasPrefix(t, "×") && isEpithetWord(t[len("×"):]) {
			n.InfraspecificEpithet, n.Rank, n.Notho = t[len("×"):], RankInfraspecificName, PartInfraspecific
			i++
			continue
		}
		if t == "null" && epithetAt(toks, i+1) {
			// "Austrorhynchus pectatus null pectatus"
			n.Doubtful = true
			n.addWarning(WarnNullEpithet)
			i++
			continue
		}
		if epithetAt(toks, i) {
			switch {
			case n.InfraspecificEpithet == "":
				n.InfraspecificEpithet, n.Rank = t, RankInfraspecificName
			case !markerSet:
				// a four-part name keeps its last epithet
				n.InfraspecificEpithet, n.Rank = t, RankInfrasubspecificName
			default:
				n.Unparsed = strings.Join(toks[i:], " ")
				return len(toks)
			}
			i++
			continue
		}
		// authors of the species before an infraspecific part:
		// "Salix repens L. subsp. galeifolia", "Acer campestre L. cv. 'nanum'"
		if j := nextInfraspecificMarker(toks, i); j > i {
			p.skipped = append(p.skipped, toks[i:j]...)
			i = j
			continue
		}
		// a marker alone after the authors: "Melastoma vacillans Blume var."
		if last := len(toks) - 1; last > i && n.InfraspecificEpithet == "" && looksLikeAuthors(toks[i:last]) {
			if r, _, ok := marker(toks[last], infraspecificMarkers); ok && r != RankSpeciesAggregate && r != RankOther {
				n.Rank, n.Type = r, NameInformal
				n.addWarning(WarnIndetermined)
				return len(toks)
			}
		}
		break
	}
	return i
}

// nextInfraspecificMarker finds an infraspecific rank marker followed by
// an epithet (or a quoted cultivar) after a few author words, and returns
// its index (or -1).
func nextInfraspecificMarker(toks []string, i int) int {
	for j := i + 1; j < len(toks) && j < i+8; j++ {
		r, _, ok := marker(toks[j], infraspecificMarkers)
		if !ok || r == RankSpeciesAggregate || r == RankOther {
			continue
		}
		if epithetAt(toks, j+1) || j+1 < len(toks) && strings.HasPrefix(toks[j+1], "×") {
			if looksLikeAuthors(toks[i:j]) {
				return j
			}
			return -1
		}
		if r == RankCultivar {
			if _, _, ok := quotedCultivar(toks, j+1); ok && looksLikeAuthors(toks[i:j]) {
				return j
			}
		}
	}
	return -1
}

// looksLikeAuthors reports words that can be an authorship: no epithet-like
// word other than author particles, and an upper-case start.
func looksLikeAuthors(words []string) bool {
	if len(words) == 0 {
		return false
	}
	for k, w := range words {
		if isEpithetWord(w) && !authorParticles[w] {
			return false
		}
		if k == 0 {
			w = strings.TrimLeft(w, "(")
			if len(w) > 2 && w[1] == '\'' {
				w = w[2:] // d'Urv.
			}
			r, _ := utf8.DecodeRuneInString(w)
			if !unicode.IsUpper(r) && !authorParticles[w] {
				return false
			}
		}
	}
	return true
}

// quotedCultivar reads a quoted cultivar epithet starting at toks[i]
// ("'Kentish", "Belle'"); it returns the index after it.
func quotedCultivar(toks []string, i int) (int, string, bool) {
	if i >= len(toks) {
		return i, "", false
	}
	t := toks[i]
	if len(t) < 2 || (t[0] != '\'' && t[0] != '"') {
		return i, "", false
	}
	q := t[0]
	var parts []string
	for j := i; j < len(toks) && j < i+5; j++ {
		w := toks[j]
		if j == i {
			w = w[1:]
		}
		if strings.HasSuffix(w, string(q)) {
			parts = append(parts, strings.TrimSuffix(w, string(q)))
			cv := strings.TrimSpace(strings.Join(parts, " "))
			if cv == "" || !hasLetter(cv) {
				return i, "", false
			}
			return j + 1, cv, true
		}
		parts = append(parts, w)
	}
	return i, "", false
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// isYear reports a four-digit year of the 16th to 21st century.
func isYear(s string) bool {
	return len(s) == 4 && (s[0] == '1' && s[1] >= '5' || s[0] == '2' && s[1] == '0') && isDigits(s)
}
