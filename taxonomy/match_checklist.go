package taxonomy

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/biodiversity-downloads/downloader/internal/asciifold"
)

// The matcher follows GBIF's backbone matcher (checklistbank's
// NubMatchingServiceImpl): candidates by canonical name (and by bounded
// edit distance), each scored on name, authorship, classification, rank
// and status; the best wins if it is clearly better and confident enough;
// otherwise the species, the genus and the record's classification are
// tried in turn for a match at a higher rank. docs/taxonomy.md lists the
// rules and where this differs from GBIF.

const (
	minConfidence       = 80
	minConfidenceHigher = 90
	maxCandidates       = 50
	// maxFuzzyScan caps the usages a fuzzy search compares.
	maxFuzzyScan = 20000
	// maxFuzzyWords caps the first words a fuzzy search considers.
	maxFuzzyWords = 500
)

type matchMode uint8

const (
	modeFuzzy matchMode = iota
	modeStrict
	modeHigher
)

// candidate is a usage being scored.
type candidate struct {
	idx   int
	rec   record
	exact bool
	conf  int
	cls   linnean
	keys  [7]uint32
}

// Match matches a query against the checklist. It never fails for bad
// input (an unmatched name is MatchNone); the error is the context's.
func (c *Checklist) Match(ctx context.Context, q Query) (Match, error) {
	if err := ctx.Err(); err != nil {
		return Match{}, err
	}
	cls := queryClassification(&q)
	var idIssues []string
	if id := strings.TrimSpace(q.TaxonID); id != "" {
		if m, ok, issue := c.matchByID(id, &q); ok {
			return m, nil
		} else if issue != "" {
			idIssues = append(idIssues, issue)
		}
	}
	cm := c.matchInternal(&q, cls)
	m := c.result(cm, &q)
	if q.Occurrence && m.Type == MatchFuzzy && cls[0] == "" && cls[1] == "" && cls[2] == "" && cls[3] == "" && cls[4] == "" {
		// GBIF's pipelines: a fuzzy match without higher taxa is none
		m = Match{Type: MatchNone, Confidence: m.Confidence, Issues: []string{IssueTaxonMatchNone},
			Note: "fuzzy match without a kingdom to family given is not used for records"}
	}
	m.Issues = append(m.Issues, idIssues...)
	return m, nil
}

// matchByID resolves a record's taxonID against the checklist.
func (c *Checklist) matchByID(id string, q *Query) (Match, bool, string) {
	i := c.indexByTaxonID(id)
	if i < 0 {
		return Match{}, false, IssueTaxonIDNotFound
	}
	cm := &candidate{idx: i, rec: c.rec(i), exact: true, conf: 100}
	m := c.result(cmatch{typ: MatchExact, best: cm, conf: 100}, q)
	m.Note = "matched by taxonID"
	if name := buildName(q); name != "" {
		pn := Parse(name, RankUnknown, CodeUnknown)
		if pn.Parsed() && !strings.EqualFold(pn.CanonicalMinimal(), m.Usage.CanonicalName) {
			m.Issues = append(m.Issues, IssueNameAndIDInconsistent)
		}
	}
	return m, true, ""
}

// cmatch is an internal match outcome.
type cmatch struct {
	typ  MatchType
	best *candidate
	conf int
	note string
	alts []*candidate
	aggr bool // the query was an aggregate that matched higher
}

func noMatch(conf int, note string, alts []*candidate) cmatch {
	return cmatch{typ: MatchNone, conf: conf, note: note, alts: alts}
}

// matchInternal is GBIF's matchInternal: the name, then higher ranks.
func (c *Checklist) matchInternal(q *Query, cls linnean) cmatch {
	name := buildName(q)
	rank, _ := ParseRank(q.Rank)
	mode := modeFuzzy
	if q.Strict {
		mode = modeStrict
	}
	if name == "" {
		// no name: the lowest rank of the classification
		for i := 5; i >= 0; i-- {
			if cls[i] != "" {
				name, rank = cls[i], linneanRanks[i]
				break
			}
		}
	}
	var pn *ParsedName
	queryType := NameNoName
	canonical := name
	lowerOrUpper := name != "" && (strings.ToLower(name) == name || strings.ToUpper(name) == name)
	if lowerOrUpper {
		// all lower or upper case names are not parsed (GBIF)
		mode = modeStrict
		if !rank.Known() {
			rank = RankUnranked
		}
	} else if name != "" {
		pn = Parse(name, rank, CodeUnknown)
		queryType = pn.Type
		if pn.Parsed() {
			canonical = pn.CanonicalMinimal()
			if cls[5] == "" && pn.GenusOrAbove() != "" && pn.Rank.IsInfragenericStrictly() {
				cls[5] = pn.GenusOrAbove()
			}
		} else {
			canonical = pn.Verbatim
		}
		if !rank.Known() {
			rank = pn.Rank
		}
		if pn.Type == NameOTU && !pn.Parsed() {
			rank = RankUnranked
		}
		if !pn.Type.Parsable() || !pn.Parsed() {
			mode = modeStrict
		}
	}
	m1 := c.match(queryType, pn, canonical, rank, cls, mode, q.Verbose)
	// a fuzzy species match in another genus whose family, order ...
	// differs from the record's: prefer the record's genus
	if m1.typ == MatchFuzzy && m1.best.rec.rank.IsSpeciesOrBelow() && pn != nil && pn.GenusOrAbove() != "" &&
		!strings.HasPrefix(c.str(m1.best.rec.canonOff, m1.best.rec.canonLen), pn.GenusOrAbove()+" ") &&
		nextAboveGenusDiffers(cls, m1.best.cls) {
		g := c.match(pn.Type, nil, pn.GenusOrAbove(), RankGenus, cls, modeHigher, q.Verbose)
		if g.typ != MatchNone && g.best.rec.rank == RankGenus {
			return higher(g, m1)
		}
	}
	if m1.typ != MatchNone && pn != nil && pn.indet() && m1.best.rec.rank.HigherThan(rank) {
		// "Puma sp." matched the genus: a match at a higher rank than
		// the record's (GBIF calls it EXACT)
		m1.typ = MatchHigherRank
	}
	if m1.typ != MatchNone || q.Strict {
		return m1
	}
	supraGenericOnly := false
	if pn != nil && pn.Parsed() && pn.GenusOrAbove() != "" {
		if pn.SpecificEpithet != "" || rank.IsInfrageneric() {
			if pn.InfraspecificEpithet != "" || rank.IsInfraspecific() {
				species := pn.GenusOrAbove() + " " + pn.SpecificEpithet
				if pn.SpecificEpithet != "" {
					if m := c.match(pn.Type, nil, FoldASCII(species), RankSpecies, cls, modeFuzzy, q.Verbose); m.typ != MatchNone {
						return higher(m, m1)
					}
				}
			}
			// not sure this is a genus: no rank ("Chaetognatha eyecount")
			if m := c.match(pn.Type, nil, FoldASCII(pn.GenusOrAbove()), RankUnknown, cls, modeHigher, q.Verbose); m.typ != MatchNone {
				h := higher(m, m1)
				h.aggr = rank == RankSpeciesAggregate
				return h
			}
			supraGenericOnly = true
		}
	}
	for _, qr := range [...]Rank{RankSpecies, RankGenus, RankFamily, RankOrder, RankClass, RankPhylum, RankKingdom} {
		if supraGenericOnly && !qr.IsSuprageneric() {
			continue
		}
		li := linneanIndex(qr)
		if li == 6 || li < 0 || cls[li] == "" {
			continue
		}
		if m := c.match(NameNoName, nil, cls[li], qr, cls, modeHigher, q.Verbose); m.typ != MatchNone {
			return higher(m, m1)
		}
	}
	nm := noMatch(100, m1.note, nil)
	if q.Verbose {
		nm.alts = m1.alts
	}
	return nm
}

func higher(m, first cmatch) cmatch {
	m.typ = MatchHigherRank
	m.alts = append(m.alts, first.alts...)
	return m
}

// nextAboveGenusDiffers compares the first rank above genus both
// classifications name.
func nextAboveGenusDiffers(a, b linnean) bool {
	for i := 4; i >= 0; i-- {
		if a[i] != "" && b[i] != "" {
			return levelName(i, a[i]) != levelName(i, b[i])
		}
	}
	return false
}

// candidates returns the usages named canonical: those whose normalized
// name equals the query's, then, for fuzzy searches, those within one edit
// (two above ten letters) of it.
func (c *Checklist) candidates(canonical string, rank Rank, fuzzy bool) []*candidate {
	norm := NormalizeName(canonical)
	if len(norm) < 2 {
		return nil
	}
	var out []*candidate
	seen := map[int]bool{}
	anyExact := false
	for _, i := range c.byName(norm, nil) {
		r := c.rec(i)
		exact := strings.EqualFold(string(c.canonBytes(&r)), canonical)
		anyExact = anyExact || exact
		seen[i] = true
		out = append(out, &candidate{idx: i, rec: r, exact: exact})
		if len(out) >= maxCandidates {
			break
		}
	}
	_ = anyExact
	if fuzzy && len(out) < maxCandidates {
		out = c.fuzzyCandidates(canonical, norm, seen, out)
	}
	// an aggregate query does not take a species (GBIF portal-feedback#2935)
	if rank == RankSpeciesAggregate {
		n := len(out)
		out = slices.DeleteFunc(out, func(x *candidate) bool { return x.exact && x.rec.rank != RankSpeciesAggregate })
		if len(out) < n {
			out = slices.DeleteFunc(out, func(x *candidate) bool { return !x.exact })
		}
	}
	return out
}

// fuzzyCandidates adds the usages within the edit budget of norm that
// have as many words: first those whose first word is the query's, then,
// for one-word queries or when no candidate was found so far, those whose
// first word is one of its fuzzy head variants.
func (c *Checklist) fuzzyCandidates(canonical, norm string, seen map[int]bool, out []*candidate) []*candidate {
	budget := 1
	if len(norm) > 10 {
		budget = 2
	}
	qWords := strings.Fields(strings.ToLower(FoldASCII(canonical)))
	if len(qWords) == 0 {
		return out
	}
	first := qWords[0]
	scanned := 0
	scan := func(w int) bool {
		_, start, count := c.wordAt(w)
		for p := start; p < start+count && scanned < maxFuzzyScan; p++ {
			scanned++
			i := c.post(p)
			if seen[i] {
				continue
			}
			r := c.rec(i)
			name := c.canonBytes(&r)
			if !sameShape(name, qWords, budget) || editDistance(NormalizeName(string(name)), norm, budget) > budget {
				continue
			}
			seen[i] = true
			out = append(out, &candidate{idx: i, rec: r})
			if len(out) >= maxCandidates {
				return false
			}
		}
		return true
	}
	exact := c.wordIndex([]byte(first))
	if exact >= 0 && !scan(exact) {
		return out
	}
	if len(qWords) > 1 && len(out) > 0 {
		return out
	}
	for _, w := range c.fuzzyHeads.get(c, first, exact, budget) {
		if !scan(w) {
			return out
		}
	}
	return out
}

// maxFuzzyHeads bounds the first words whose fuzzy variants a checklist
// remembers (a few dozen bytes each); when full it starts again.
const maxFuzzyHeads = 50000

// fuzzyHeadCache remembers, for a query's first word and edit budget, the
// checklist's first words within that budget of it: finding them compares
// the word with up to maxFuzzyWords others at random places of the store
// (a 2M-name checklist spent a third of an ingest's CPU there when no
// name matched), and the records of a genus share their first word.
type fuzzyHeadCache struct {
	mu sync.Mutex
	m  map[fuzzyHeadKey][]int
}

type fuzzyHeadKey struct {
	word   string
	budget int
}

// get returns the words of the checklist other than exact, in index order,
// whose text is within budget edits of first (lower case).
func (fc *fuzzyHeadCache) get(c *Checklist, first string, exact, budget int) []int {
	key := fuzzyHeadKey{first, budget}
	fc.mu.Lock()
	words, ok := fc.m[key]
	fc.mu.Unlock()
	if ok {
		return words
	}
	words = c.findFuzzyHeads(first, exact, budget)
	fc.mu.Lock()
	if fc.m == nil || len(fc.m) >= maxFuzzyHeads {
		fc.m = make(map[fuzzyHeadKey][]int)
	}
	fc.m[key] = words
	fc.mu.Unlock()
	return words
}

// findFuzzyHeads is fuzzyHeadCache.get without the cache.
func (c *Checklist) findFuzzyHeads(first string, exact, budget int) []int {
	words := c.headWords(first, maxFuzzyWords, nil)
	slices.Sort(words)
	words = slices.Compact(words)
	masks := c.wordMasks()
	q := letterMask([]byte(first))
	near := words[:0]
	for _, w := range words {
		if w == exact || farByLetters(masks[w], q, budget) {
			continue
		}
		word, _, _ := c.wordAt(w)
		if dl := len(word) - len(first); dl > budget || -dl > budget {
			continue
		}
		var low [64]byte
		n := copy(low[:], word)
		for k := range n {
			low[k] = lowerASCII(low[k])
		}
		var d int
		if n == len(word) && asciifold.IsASCII(first) {
			d = osa(low[:n], []byte(first), budget)
		} else {
			d = editDistance(strings.ToLower(string(word)), first, budget)
		}
		if d <= budget {
			near = append(near, w)
		}
	}
	if len(near) == 0 {
		return nil
	}
	// a copy: near shares the array of up to maxFuzzyWords candidates,
	// which the cache would otherwise keep for every first word
	return slices.Clone(near)
}

// wordMasks returns the letterMask of each first word of the checklist,
// built on the first fuzzy search: comparing them passes over most words
// that share a head key with a query without reading their text, whose
// reads at random places of the store took half of findFuzzyHeads with a
// 2-million-name checklist.
func (c *Checklist) wordMasks() []uint32 {
	c.masksOnce.Do(func() {
		c.masks = make([]uint32, len(c.words)/wordEntrySize)
		for j := range c.masks {
			word, _, _ := c.wordAt(j)
			c.masks[j] = letterMask(word)
		}
	})
	return c.masks
}

// asciiOnly marks a letterMask of text that is all ASCII.
const asciiOnly = 1 << 31

// letterMask is the set of bytes of ASCII text, lower case: a bit for each
// letter and five more for the other bytes by value, and asciiOnly. One
// insertion, deletion or substitution adds and removes at most one member,
// a transposition none, so text within d edits of another differs from it
// in at most 2d of these bits. Text with other bytes gets no bits: its
// distance is counted over runes (editDistance), which this does not bound.
func letterMask(text []byte) uint32 {
	var m uint32
	for _, b := range text {
		switch b = lowerASCII(b); {
		case b >= utf8.RuneSelf:
			return 0
		case b >= 'a' && b <= 'z':
			m |= 1 << (b - 'a')
		default:
			m |= 1 << (26 + b%5)
		}
	}
	return m | asciiOnly
}

// farByLetters reports whether two ASCII words' masks show them more than
// budget edits apart.
func farByLetters(a, b uint32, budget int) bool {
	return a&b&asciiOnly != 0 && bits.OnesCount32(a^b) > 2*budget
}

// sameShape is a cheap filter for fuzzy candidates: as many words, each
// starting with the same letter, and a length within reach.
func sameShape(name []byte, qWords []string, budget int) bool {
	wi, start := 0, 0
	total := 0
	for _, w := range qWords {
		total += len(w)
	}
	if d := (len(name) - (len(qWords) - 1)) - total; d > budget+4 || -d > budget+4 {
		return false
	}
	for k := 0; k <= len(name); k++ {
		if k < len(name) && name[k] != ' ' {
			continue
		}
		if wi >= len(qWords) || k == start || lowerASCII(name[start]) != qWords[wi][0] {
			return false
		}
		wi++
		start = k + 1
	}
	return wi == len(qWords)
}

// fill loads a candidate's classification (its accepted usage's).
func (c *Checklist) fill(x *candidate) {
	r := x.rec
	if r.accepted != 0 {
		r = c.rec(int(r.accepted - 1))
	}
	for range maxDepth {
		if li := linneanIndex(r.rank); li >= 0 && x.cls[li] == "" {
			x.cls[li] = string(c.canonBytes(&r))
			x.keys[li] = r.key
		}
		if r.parent == 0 {
			break
		}
		r = c.rec(int(r.parent - 1))
	}
}

// match scores the candidates for one name and picks the best (GBIF's
// match()).
func (c *Checklist) match(queryType NameType, pn *ParsedName, canonical string, rank Rank, cls linnean, mode matchMode, verbose bool) cmatch {
	if canonical == "" {
		return noMatch(100, "No name given", nil)
	}
	cands := c.candidates(canonical, rank, mode == modeFuzzy)
	for _, x := range cands {
		c.fill(x)
		x.conf = c.score(x, queryType, pn, canonical, rank, cls, mode)
	}
	slices.SortStableFunc(cands, func(a, b *candidate) int {
		if a.conf != b.conf {
			return b.conf - a.conf
		}
		return strings.Compare(c.str(a.rec.sciOff, a.rec.sciLen), c.str(b.rec.sciOff, b.rec.sciLen))
	})
	if len(cands) == 0 {
		return noMatch(100, "", nil)
	}
	best := cands[0]
	bestConf := best.conf
	boost := 5
	note := ""
	if len(cands) > 1 {
		second := cands[1].conf
		ambiguous := similarButSpanRank(cands, 1, RankClass)
		if bestConf == second || ambiguous {
			threshold := 0
			if ambiguous {
				threshold = 1
			}
			var equal []*candidate
			for _, x := range cands {
				if bestConf-x.conf <= threshold {
					equal = append(equal, x)
				}
			}
			same := true
			for _, x := range equal {
				if !equalClassification(best, x, RankUnknown) {
					same = false
					break
				}
			}
			if same {
				// same classification: the oldest, lowest key
				slices.SortFunc(equal, func(a, b *candidate) int { return cmp.Compare(a.rec.key, b.rec.key) })
				best = equal[0]
				note = itoa(len(equal)) + " synonym homonyms"
			} else {
				lcd := c.lowestCommonDenominator(equal)
				if lcd == nil {
					return noMatch(99, "Multiple equal matches for "+canonical, altsIf(verbose, cands))
				}
				lcd.conf = bestConf
				m := cmatch{typ: MatchHigherRank, best: lcd, conf: normConfidence(bestConf + min(5, (bestConf-second)/2)), note: "lowest common taxon of equal matches", alts: altsIf(verbose, cands)}
				if m.conf < minConfidence {
					return noMatch(99, "No match because of too little confidence", altsIf(verbose, cands))
				}
				return m
			}
		}
		boost = min(5, (bestConf-second)/2)
	}
	conf := normConfidence(bestConf + boost)
	limit := minConfidence
	if mode == modeHigher {
		limit = minConfidenceHigher
	}
	if conf < limit {
		return noMatch(99, "No match because of too little confidence", altsIf(verbose, cands))
	}
	typ := MatchFuzzy
	if best.exact {
		typ = MatchExact
	}
	var alts []*candidate
	if verbose {
		for _, x := range cands {
			if x != best {
				alts = append(alts, x)
			}
		}
	}
	return cmatch{typ: typ, best: best, conf: conf, note: note, alts: alts}
}

func altsIf(verbose bool, c []*candidate) []*candidate {
	if verbose {
		return c
	}
	return nil
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// similarButSpanRank reports candidates within threshold of the best whose
// classification differs from the best's down to rank.
func similarButSpanRank(cands []*candidate, threshold int, rank Rank) bool {
	best := cands[0]
	for _, x := range cands[1:] {
		if best.conf-x.conf > threshold {
			break
		}
		if !equalClassification(best, x, rank) {
			return true
		}
	}
	return false
}

// equalClassification compares the Linnean classifications from kingdom
// down to stop (all of them for RankUnknown).
func equalClassification(a, b *candidate, stop Rank) bool {
	for i, r := range linneanRanks {
		if stop.Known() && stop.HigherThan(r) {
			break
		}
		if a.cls[i] != b.cls[i] {
			return false
		}
	}
	return true
}

// lowestCommonDenominator is the lowest higher taxon all candidates share.
func (c *Checklist) lowestCommonDenominator(cands []*candidate) *candidate {
	for i := 5; i >= 0; i-- {
		k := cands[0].keys[i]
		if k == 0 {
			continue
		}
		all := true
		for _, x := range cands[1:] {
			if x.keys[i] != k {
				all = false
				break
			}
		}
		if all {
			if idx := c.index(int64(k)); idx >= 0 {
				x := &candidate{idx: idx, rec: c.rec(idx)}
				c.fill(x)
				return x
			}
		}
	}
	return nil
}

// normConfidence maps a raw score (0-175) onto 0-100, as GBIF does.
func normConfidence(s int) int {
	if s > 80 {
		s = int(math.Round(75.8 + 26*(math.Log10((float64(s)-70)*1.5)-1)))
	}
	return min(100, max(0, s))
}

// result turns an internal match into a Match.
func (c *Checklist) result(cm cmatch, q *Query) Match {
	m := Match{Type: cm.typ, Confidence: cm.conf, Note: cm.note}
	switch cm.typ {
	case MatchNone:
		m.Issues = []string{IssueTaxonMatchNone}
	case MatchFuzzy:
		m.Issues = []string{IssueTaxonMatchFuzzy}
	case MatchHigherRank:
		m.Issues = []string{IssueTaxonMatchHigherRank}
		if cm.aggr {
			m.Issues = append(m.Issues, IssueTaxonMatchAggregate)
		}
	}
	if cm.best != nil && cm.typ != MatchNone {
		m.Usage = c.usage(cm.best.idx)
		m.Accepted = m.Usage
		if cm.best.rec.accepted != 0 {
			m.Accepted = c.usage(int(cm.best.rec.accepted - 1))
		}
		m.Classification = c.classification(cm.best.idx, nil)
	}
	for _, a := range cm.alts {
		if cm.best != nil && a.idx == cm.best.idx {
			continue
		}
		alt := Match{Type: MatchFuzzy, Confidence: normConfidence(a.conf), Usage: c.usage(a.idx)}
		if a.exact {
			alt.Type = MatchExact
		}
		alt.Accepted = alt.Usage
		if a.rec.accepted != 0 {
			alt.Accepted = c.usage(int(a.rec.accepted - 1))
		}
		alt.Classification = c.classification(a.idx, nil)
		m.Alternatives = append(m.Alternatives, alt)
	}
	return m
}
