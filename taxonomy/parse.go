package taxonomy

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNameLen caps the input a parse reads: longer strings are cut there
// (no real name comes close; the cap bounds the work on garbage).
const maxNameLen = 1000

// Parse splits a scientific name into its parts (see ParsedName). rank and
// code are what the caller knows of the name (RankUnknown and CodeUnknown
// if nothing): a rank the name does not show becomes its rank (an
// indeterminate "Abies" given SPECIES is "Abies sp."), a code decides
// ambiguous suffixes. Parse never fails: a string that is no parsable name
// comes back with its Type (NameVirus, NameOTU, NameNoName, ...) and no
// parts. It is safe for concurrent use.
func Parse(name string, rank Rank, code NomCode) *ParsedName {
	p := parser{n: &ParsedName{Verbatim: name, Rank: rank, Code: code}, givenRank: rank, givenCode: code}
	p.parse(name)
	return p.n
}

// ParseAuthorship parses an authorship on its own ("(L.) Mill., 1768"),
// as found in dwc:scientificNameAuthorship: the result has only its
// authorship fields and notes set.
func ParseAuthorship(s string) *ParsedName {
	p := parser{n: &ParsedName{Verbatim: s, Type: NameScientific}}
	s = p.clean(s)
	s = p.extractNotes(s, true)
	p.authorship(s)
	return p.n
}

type parser struct {
	n         *ParsedName
	givenRank Rank
	givenCode NomCode
	// markerSubsp is set when the name spells the botanical "subsp."
	markerSubsp bool
	// skipped are the species' authors read before an infraspecific part
	skipped []string
}

func (p *parser) parse(name string) {
	n := p.n
	s := p.clean(name)
	if p.gtdb(s) {
		return
	}
	if isNoName(s) {
		n.Type = NameNoName
		return
	}
	s = p.extinct(s)
	s = p.candidatus(s)
	if strings.HasPrefix(strings.ToLower(s), "uncultured") {
		n.Type = NamePlaceholder
		return
	}
	if isVirus(s) {
		n.Type, n.Verbatim = NameVirus, s
		return
	}
	if id, ok := otuID(s); ok {
		n.Type, n.Verbatim, n.Rank = NameOTU, id, RankUnranked
		return
	}
	if p.boldPlaceholder(s) {
		return
	}
	if strings.Contains(s, "_") {
		n.Type = NameNoName
		return
	}
	low := strings.ToLower(s)
	if strings.Contains(low, "delete") && noNameRE.MatchString(s) || onlyNovMarkers(s) {
		n.Type = NameNoName
		return
	}
	if p.indetSpecies(s) {
		return
	}
	s = normalizeHybridEpithet(s)
	if isHybridFormula(s) {
		n.Type = NameHybridFormula
		return
	}
	s = p.badAuthorship(s)
	if isPlaceholder(s) {
		n.Type = NamePlaceholder
		return
	}
	if strings.Contains(low, "clade") && informalCladeRE.MatchString(s) {
		// "Amauropeltoid clade": informal, not parsed
		n.Type, n.Rank = NameInformal, RankUnranked
		return
	}
	if strings.HasSuffix(low, "group") && monomialGroupRE.MatchString(s) {
		n.Type = NamePlaceholder
		return
	}
	s = p.extractNotes(s, false)
	if s == "" {
		n.Type = NameNoName
		return
	}
	p.core(s)
	p.finish()
}

// homoglyphs are characters replaced before parsing; warn marks those
// that stand for a letter or a hyphen (GBIF's HOMOGLYPHS warning).
var homoglyphs = map[rune]struct {
	to   string
	warn bool
}{
	'\u2010': {"-", true}, '\u2011': {"-", true}, '\u2012': {"-", true}, '\u2013': {"-", true},
	'\u2014': {"-", true}, '\u2015': {"-", true}, '\u2212': {"-", true}, '\u00AD': {"", false},
	'\u2018': {"'", false}, '\u2019': {"'", false}, '\u201B': {"'", false}, '\u0060': {"'", false},
	'\u00B4': {"'", false}, '\u02BC': {"'", false}, '\u2032': {"'", false},
	'\u201C': {`"`, false}, '\u201D': {`"`, false}, '\u201E': {`"`, false}, '\u00AB': {`"`, false}, '\u00BB': {`"`, false},
	'¡': {"i", true}, 'х': {"×", true}, '⨯': {"×", true}, 'ｘ': {"×", true}, 'ⅹ': {"×", true},
	'\u200B': {"", false}, '\uFEFF': {"", false},
}

var (
	xmlTagRE    = regexp.MustCompile(`<\s*/?\s*[a-zA-Z]+\s*>`)
	ampEntityRE = regexp.MustCompile(`&\s*amp\b\s*;?`)
	entityRE    = regexp.MustCompile(`&\s*([a-zA-Z]+|#[0-9]+)\s*;`)
	// a rank marker glued to the next word: "subg.Agropyropsis"
	formaSpecialisRE = regexp.MustCompile(`(^|\s)f\.? ?sp(?:ec)?\.?(\s|$)`)
	gluedMarkerRE    = regexp.MustCompile(`(^|\s)(subg|subgen|sect|subsect|ser|subser|subsp|ssp|var|subvar|forma|cv|nothosubsp|nothovar)\.([A-Za-z'"])`)
)

// clean replaces homoglyphs, entities, tags and odd whitespace, and trims.
func (p *parser) clean(s string) string {
	if len(s) > maxNameLen {
		cut := maxNameLen
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	if strings.IndexByte(s, '&') >= 0 {
		s = ampEntityRE.ReplaceAllString(s, "& ")
		s = entityRE.ReplaceAllStringFunc(s, func(e string) string {
			switch strings.Trim(strings.ToLower(e), "& ;") {
			case "nbsp":
				return " "
			case "lt", "gt", "quot", "apos":
				return ""
			}
			return ""
		})
	}
	if strings.IndexByte(s, '<') >= 0 {
		s = xmlTagRE.ReplaceAllString(s, "")
	}
	var b strings.Builder
	b.Grow(len(s))
	space := true // drop leading whitespace
	for _, r := range s {
		if h, ok := homoglyphs[r]; ok {
			if h.warn {
				p.n.addWarning(WarnHomoglyphs)
			}
			if h.to == "" {
				continue
			}
			b.WriteString(h.to)
			space = false
			continue
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u00A0' {
			if !space {
				b.WriteByte(' ')
				space = true
			}
			continue
		}
		b.WriteRune(r)
		space = false
	}
	s = strings.TrimSpace(b.String())
	if strings.Contains(s, "\\n") || strings.Contains(s, "\\r") {
		s = strings.Join(strings.Fields(strings.NewReplacer(`\n`, " ", `\r`, " ").Replace(s)), " ")
	}
	if strings.IndexByte(s, '.') >= 0 {
		s = gluedMarkerRE.ReplaceAllString(s, "$1$2. $3")
	}
	if strings.Contains(s, "f. sp") || strings.Contains(s, "f.sp") || strings.Contains(s, "f sp") {
		s = formaSpecialisRE.ReplaceAllString(s, "${1}f.sp.$2")
	}
	return normalizeBrackets(s)
}

// normalizeBrackets removes the spaces inside brackets and puts one before
// an opening bracket that follows a word: "( Gaudin )" -> "(Gaudin)".
func normalizeBrackets(s string) string {
	if !strings.ContainsAny(s, "()[]") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 4)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '(', '[':
			if b.Len() > 0 {
				last := b.String()[b.Len()-1]
				if last != ' ' && last != '(' && last != '[' && last != '"' && last != '\'' {
					b.WriteByte(' ')
				}
			}
			b.WriteByte(c)
			for i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == ',') {
				i++
			}
		case ')', ']':
			str := b.String()
			trim := strings.TrimRight(str, " ,")
			if len(trim) != len(str) {
				b.Reset()
				b.WriteString(trim)
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// isNoName reports strings with fewer than two letters.
func isNoName(s string) bool {
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if letters > 1 {
				return false
			}
		}
	}
	return true
}

// extinct removes the dagger of extinct taxa.
func (p *parser) extinct(s string) string {
	if !strings.ContainsAny(s, "†‡✝") {
		return s
	}
	p.n.Extinct = true
	s = strings.NewReplacer("†", " ", "‡", " ", "✝", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// candidatus reads the "Candidatus" (or "Ca.") prefix of provisional
// bacterial names, quoted or not.
func (p *parser) candidatus(s string) string {
	rest, quote := s, byte(0)
	if len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'') {
		quote, rest = rest[0], rest[1:]
	}
	var after string
	switch {
	case strings.HasPrefix(rest, "Candidatus "):
		after = rest[len("Candidatus "):]
	case strings.HasPrefix(rest, "Ca. "):
		after = rest[len("Ca. "):]
	default:
		return s
	}
	p.n.Candidatus = true
	if quote != 0 {
		if i := strings.IndexByte(after, quote); i >= 0 {
			after = strings.TrimSpace(after[:i] + " " + after[i+1:])
		}
	}
	return strings.TrimSpace(after)
}

// isVirus spots virus, phage, satellite, vector and prion names, and the
// NPV/GV abbreviations of insect viruses (GBIF's rules).
func isVirus(s string) bool {
	low := strings.ToLower(s)
	if !strings.Contains(low, "vir") && !strings.Contains(low, "phage") && !strings.Contains(low, "satellite") &&
		!strings.Contains(low, "particle") && !strings.Contains(low, "prion") && !strings.Contains(low, "replicon") &&
		!strings.Contains(low, "vector") && !strings.Contains(s, "V") && !strings.Contains(low, "ictv") {
		return false
	}
	words := splitWords(low)
	for i, w := range words {
		switch {
		case strings.HasSuffix(w, "virus"), strings.HasSuffix(w, "viruses"):
			return true
		case w == "phage" || w == "phages" || w == "phagein" || w == "bacteriophage" || w == "bacteriophages" ||
			w == "virophage" || w == "virophages":
			return true
		case w == "particle" || w == "particles" || w == "prion" || w == "replicon" || w == "vector" || w == "viroid" || w == "viroids":
			return true
		case strings.HasSuffix(w, "satellite") && len(w) > len("satellite"):
			return true
		case w == "satellites" && i > 0 && (words[i-1] == "alpha" || words[i-1] == "beta" || words[i-1] == "circular"):
			return true
		case strings.HasSuffix(w, "satellites") && (strings.HasPrefix(w, "alpha") || strings.HasPrefix(w, "beta") || strings.HasPrefix(w, "circular")):
			return true
		case w == "ictv" && i == len(words)-1:
			return true
		}
	}
	for _, w := range splitWords(s) {
		switch w {
		case "NPV", "MNPV", "SNPV", "GV":
			return true
		}
	}
	return false
}

// splitWords splits on everything that is not a letter or digit.
func splitWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

var (
	boldRE  = regexp.MustCompile(`(?i)BOLD:[0-9A-Z]{7}$`)
	uniteRE = regexp.MustCompile(`(?i)SH[0-9]{6,8}\.[0-9]{2}FU`)
	// GTDB-style placeholder names: blocks of capitals and digits
	// ("UBA3054", "AABM5-125-24", "Desulfobacterota_B"), and binomials of one
	// with an "sp000000000" epithet.
	gtdbBlock    = `(?:(?:[A-Z]+(?:[a-z]{1,2}[A-Z]*)?)?[0-9]+b?[A-Z]*|FULL|COMBO|bin)`
	gtdbMonomial = `(?:(?:` + gtdbBlock + `-?)*` + gtdbBlock + `(?:_[A-Z])?|[A-Z][a-z]{2,}_[A-Z])`
	gtdbRE       = regexp.MustCompile(`^(` + gtdbMonomial + `)(?: +(sp[0-9]+))?$`)
	boldPlaceRE  = regexp.MustCompile(`^([A-Z][a-z]+)_?([A-Z]{1,5}(?:_[0-9]+)?)$`)
)

// otuID returns the identifier of a BOLD BIN or UNITE species hypothesis
// in s, upper-cased.
func otuID(s string) (string, bool) {
	if len(s) < 10 || !strings.ContainsAny(s, "0123456789") {
		return "", false
	}
	if m := boldRE.FindString(s); m != "" {
		return strings.ToUpper(m), true
	}
	if m := uniteRE.FindString(s); m != "" {
		return strings.ToUpper(m), true
	}
	return "", false
}

// gtdb reads GTDB-style OTU names (a monomial, or one with an sp000 epithet).
func (p *parser) gtdb(s string) bool {
	if !strings.ContainsAny(s, "0123456789_") {
		return false
	}
	m := gtdbRE.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	n := p.n
	n.Type = NameOTU
	if m[2] != "" {
		n.Genus, n.SpecificEpithet, n.Rank = m[1], m[2], RankSpecies
	} else {
		n.Uninomial = m[1]
		if !n.Rank.Known() {
			n.Rank = RankUnranked
		}
	}
	return true
}

// boldPlaceholder reads BOLD's placeholders of a higher taxon with a
// suffix ("OdontellidaeGEN", "Blattellinae_SB").
func (p *parser) boldPlaceholder(s string) bool {
	if strings.IndexByte(s, ' ') >= 0 {
		return false
	}
	m := boldPlaceRE.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	n := p.n
	n.Type, n.Uninomial, n.Phrase = NamePlaceholder, m[1], m[2]
	if !n.Rank.Known() {
		n.Rank = inferUninomialRank(m[1], n.Code)
	}
	return true
}

var (
	noNameRE = regexp.MustCompile(`\b(?:tobedeleted[0-9]*|[\[(]?(?:DELETE|delete)[)\]]?)(?:\b|$)`)
	novRE    = regexp.MustCompile(`(?i)\b(?:sub)?(?:fam|gen|sp|spec|ssp|var|f|forma?)\.?\s?nov\.?`)
	// placeholderRE finds the words of GBIF's placeholder names.
	placeholderRE = regexp.MustCompile(`(?i)^N\.\s*N\.|\b(?:allocation|awaiting|deleted?|dummy|incertae ?sedis|[iu]ndet(?:ermin(?:ed|ate)?)?|mixed|not (?:assigned|stated)|place ?holder|temp|tobedeleted|un(?:accepted|allocated|assigned|certain|classed|classified|cultured|described|det(?:ermined)?|ident|known|named|placed|specified))\b`)
	// a placeholder in brackets before an epithet is dropped
	placeholderSubgenusRE = regexp.MustCompile(`(?i)\( ?(?:incertae ?sedis|unassigned|unplaced|uncertain) ?\) `)
	informalCladeRE       = regexp.MustCompile(`(?i) clade\b`)
	monomialGroupRE       = regexp.MustCompile(`^[A-Z][a-z]+[ _-]group$`)
	indetSpeciesRE        = regexp.MustCompile(`^([A-Z][a-zë-]+) (?:indet|spec|sp)\.?$`)
)

// onlyNovMarkers reports strings made of "gen. nov." markers alone.
func onlyNovMarkers(s string) bool {
	if !strings.Contains(strings.ToLower(s), "nov") {
		return false
	}
	rest := novRE.ReplaceAllString(s, "")
	return isNoName(rest)
}

func isPlaceholder(s string) bool {
	if !mayBePlaceholder(s) {
		return false
	}
	return placeholderRE.MatchString(placeholderSubgenusRE.ReplaceAllString(s, ""))
}

// placeholderStarts start the words of placeholderRE: a cheap test first.
var placeholderStarts = []string{"alloc", "await", "delet", "dummy", "incertae", "indet", "undet", "mixed", "not",
	"place", "temp", "tobedeleted", "unac", "unal", "unas", "unce", "uncl", "uncu", "unde", "unid", "unkn", "unna",
	"unpl", "unsp", "n.", "[un"}

// mayBePlaceholder reports whether a word of s starts like a placeholder
// word.
func mayBePlaceholder(s string) bool {
	low := strings.ToLower(s)
	for i := 0; i < len(low); i++ {
		if i > 0 && low[i-1] != ' ' && low[i-1] != '(' && low[i-1] != '[' && low[i-1] != ',' {
			continue
		}
		for _, p := range placeholderStarts {
			if strings.HasPrefix(low[i:], p) {
				return true
			}
		}
	}
	return false
}

// indetSpecies reads "Genus sp." / "Genus indet." / "Genus spec.".
func (p *parser) indetSpecies(s string) bool {
	if !strings.HasSuffix(s, "sp") && !strings.HasSuffix(s, "sp.") && !strings.HasSuffix(s, "spec") &&
		!strings.HasSuffix(s, "spec.") && !strings.HasSuffix(s, "indet") && !strings.HasSuffix(s, "indet.") {
		return false
	}
	m := indetSpeciesRE.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	n := p.n
	n.Type, n.Genus, n.Rank = NameInformal, m[1], RankSpecies
	n.addWarning(WarnIndetermined)
	return true
}

// normalizeHybridEpithet writes "Genus x epithet" as "Genus ×epithet", so
// that a lone x left in the name marks a hybrid formula.
func normalizeHybridEpithet(s string) string {
	f := strings.SplitN(s, " ", 4)
	if len(f) >= 3 && (f[1] == "x" || f[1] == "X" || f[1] == "×") && isCapWord(strings.TrimPrefix(f[0], "×")) && isEpithetWord(f[2]) {
		return f[0] + " ×" + strings.Join(f[2:], " ")
	}
	return s
}

// isHybridFormula spots a lone hybrid marker between two names ("Salix
// aurita L. × S. caprea L.", "Juncus effusus × inflexus").
func isHybridFormula(s string) bool {
	f := strings.Fields(s)
	for i := 1; i < len(f)-1; i++ {
		if f[i] == "×" || f[i] == "x" || f[i] == "X" {
			return true
		}
	}
	return false
}
