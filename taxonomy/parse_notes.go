package taxonomy

import (
	"regexp"
	"strings"
)

var (
	sicRE    = regexp.MustCompile(`(?i)\s*[\[(]\s*sic\s*!?\s*[\])]\s*`)
	corrigRE = regexp.MustCompile(`\s*\bcorrig\.\s*`)
	// nomenclatural status remarks (nom. nud., comb. nov., ined., ms, ...)
	nomStatusRE     = regexp.MustCompile(`[;, ]?[(\[]?\b((?:comb|(?:[sS]ub)?(?:[fF]am|[gG]en|[sS]s?p(?:ec)?|[vV]ar|[fF](?:orma?)?))[. ]\s?nov\b[. ]?(?:ined[. ])?|(?:(?:comb[. ]?\s?)?ined|ms|in press|unpublished)\.?(?:$|\s)|orth[. ]\s?(?:var|error)|nom(?:en)?[. ]\s?(?:utiq(?:ue)?[. ]\s?)?(?:(?:&|et)\s?typ\.?\s?)?(?:ambig|alter|alt|correct|cons|dubium|dub|herb|illeg|invalid|inval|negatum|neg|novum|nov|nudum|nud|oblitum|obl|praeoccup|prov|prot|transf|superfl|super|rejic|rej)\b[. ]?(?:prop[. ]|proposed\b)?)[)\]]?`)
	badAuthorshipRE = regexp.MustCompile(`(?i)\s*(?:\b(?:not\s|un)(?:applicable|given|known|specified|certain)|\bmissing|<?unspecified\sagent>?|\?)(?:[, ]+[12][0-9]{3})?$`)
	publishedInRE   = regexp.MustCompile(`[, ]\s?\b(?:in|IN|apud) (\p{Lu}.*)$`)
	initialSpaceRE  = regexp.MustCompile(`\b(\p{Lu})\. (\p{L})`)
)

// sensuWords start a taxonomic note; each must be followed by one of the
// characters in the second field ('$' for the end of the string).
var sensuWords = []struct{ word, after string }{
	{"sensu", " .($"}, {"s.l.", " ,;)$"}, {"s.lat.", " ,;)$"}, {"s. lat.", " ,;)$"}, {"s.str.", " ,;)$"},
	{"s. str.", " ,;)$"}, {"s.s.", " ,;)$"}, {"s.ampl.", " ,;)$"}, {"s.latu", " ,;)$"}, {"sec.", " $"},
	{"auctt.", " ,;)$"}, {"auct.", " ,;)$"}, {"auctt", " ,;$"}, {"auct", " ,;$"}, {"emend.", " $"},
	{"emend", " $"}, {"fide", " $"}, {"non", " .($"}, {"nec", " .($"}, {"not", " ($"},
	{"according to", " $"}, {"ss.", " $"}, {"excl. var.", " $"}, {"excl. sp.", " $"}, {"excl. gen.", " $"},
	{"p.p.", " ,;)$"},
}

// extractNotes removes and records the remarks that are not part of a name
// or its authorship: [sic] and corrig., nomenclatural status, taxonomic
// notes (sensu, auct., non, emend.), a removed authorship ("Not given"),
// and "in" references. authorshipOnly allows a note at the start.
func (p *parser) extractNotes(s string, authorshipOnly bool) string {
	n := p.n
	if strings.Contains(strings.ToLower(s), "sic") {
		if t := sicRE.ReplaceAllString(s, " "); t != s {
			n.Sic = true
			s = strings.TrimSpace(t)
		}
	}
	if strings.Contains(s, "corrig.") {
		n.Corrig = true
		s = strings.TrimSpace(corrigRE.ReplaceAllString(s, " "))
	}
	if loc := findNomStatus(s); loc != nil && (loc[2] > 0 || authorshipOnly) {
		note := s[loc[2]:loc[3]]
		n.NomenclaturalNote = normalizeNomNote(note)
		switch low := strings.ToLower(strings.TrimSpace(note)); {
		case strings.Contains(low, "ined"), strings.HasPrefix(low, "ms"), low == "in press", low == "unpublished":
			n.Manuscript = true
		}
		s = strings.TrimSpace(s[:loc[0]] + " " + s[loc[1]:])
	}
	s = p.badAuthorship(s)
	if i, j := findSensu(s, authorshipOnly); i >= 0 {
		note := strings.TrimSpace(s[j:])
		if j > 0 && s[j-1] == '(' {
			if strings.HasSuffix(note, ")") && strings.Count(note, "(") < strings.Count(note, ")") {
				note = note[:len(note)-1]
			}
		}
		if strings.HasPrefix(note, "Auct") {
			note = "a" + note[1:]
		}
		n.TaxonomicNote = initialSpaceRE.ReplaceAllString(note, "$1.$2")
		s = strings.TrimRight(strings.TrimSpace(s[:i]), ",;(")
	} else if c := strings.LastIndexByte(s, ':'); c >= 10 {
		rest := strings.TrimSpace(s[c+1:])
		if len(rest) >= 5 && !strings.Contains(rest, ")") {
			n.TaxonomicNote = rest
			s = strings.TrimSpace(s[:c])
		}
	}
	if m := findPublishedIn(s); m != nil && (m[0] > 0 || authorshipOnly) {
		n.PublishedIn = strings.TrimSpace(s[m[2]:m[3]])
		s = strings.TrimSpace(s[:m[0]])
	}
	return strings.TrimSpace(strings.TrimRight(s, ",;: "))
}

// badAuthorship removes an authorship that says there is none ("Not
// given", "<Unspecified Agent>", "?").
func (p *parser) badAuthorship(s string) string {
	if !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, ">") && !mayHaveBadAuthorship(strings.ToLower(s)) {
		return s
	}
	loc := badAuthorshipRE.FindStringIndex(s)
	if loc == nil || loc[0] == 0 {
		return s
	}
	if strings.Contains(s[loc[0]:], "<") {
		p.n.Doubtful = true
		p.n.addWarning(WarnUnusualCharacters)
	}
	p.n.addWarning(WarnAuthorshipRemoved)
	return strings.TrimSpace(s[:loc[0]])
}

// mayHaveBadAuthorship tests for the words of badAuthorshipRE.
func mayHaveBadAuthorship(low string) bool {
	for _, w := range []string{"applicable", "given", "known", "specified", "certain", "missing"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// findNomStatus finds a nomenclatural status remark (nomStatusRE's indices).
func findNomStatus(s string) []int {
	low := strings.ToLower(s)
	for _, w := range []string{"nov", "ined", "ms", "press", "unpublished", "orth", "nom"} {
		if strings.Contains(low, w) {
			return nomStatusRE.FindStringSubmatchIndex(s)
		}
	}
	return nil
}

// findPublishedIn finds an "in" reference (publishedInRE's indices).
func findPublishedIn(s string) []int {
	if !strings.Contains(s, " in ") && !strings.Contains(s, " IN ") && !strings.Contains(s, " apud ") {
		return nil
	}
	return publishedInRE.FindStringSubmatchIndex(s)
}

// findSensu returns where the taxonomic note starts in s (i: the cut,
// including an opening bracket; j: the note's first character), or -1.
func findSensu(s string, atStart bool) (i, j int) {
	low := strings.ToLower(s)
	for k := 0; k < len(low); k++ {
		if k > 0 {
			c := low[k-1]
			if c != ' ' && c != '(' && c != ',' && c != ';' {
				continue
			}
		} else if !atStart {
			continue
		}
		for _, w := range sensuWords {
			if !strings.HasPrefix(low[k:], w.word) {
				continue
			}
			if strings.HasPrefix(w.word, "s.") && !strings.HasPrefix(s[k:], w.word) {
				continue // "S.L. Mill." is an author
			}
			end := k + len(w.word)
			if end == len(low) {
				if !strings.Contains(w.after, "$") {
					continue
				}
			} else if !strings.ContainsRune(w.after, rune(low[end])) {
				continue
			}
			if w.word == "not" || w.word == "non" || w.word == "nec" {
				// "non" needs something after it, or a name before
				if k == 0 && end == len(low) {
					continue
				}
			}
			cut := k
			if k > 0 && s[k-1] == '(' {
				cut = k - 1
			}
			return cut, k
		}
	}
	return -1, -1
}

// normalizeNomNote writes a nomenclatural note GBIF's way: "nom. nud." ->
// "nom.nud.", "nom. et typ. cons." -> "nom.&typ.cons.".
func normalizeNomNote(s string) string {
	s = strings.TrimSpace(strings.Trim(s, "()[],; "))
	s = strings.ReplaceAll(s, " et typ", " &typ")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' && i > 0 && (s[i-1] == '.' || s[i-1] == '&') {
			continue
		}
		if c == ' ' && i+1 < len(s) && s[i+1] == '&' {
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
