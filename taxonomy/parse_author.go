package taxonomy

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

var (
	// a year and what may follow it: other years, imprint dates
	yearRE     = regexp.MustCompile(`[\[("']*\b([12][0-9]{2}[0-9?])[a-h?]?\b[\])"']*`)
	yearTailRE = regexp.MustCompile(`^[\s,;&\[\]"'()0-9?/-]*(?:imprint[\s0-9"'\[\]()?,-]*)?$`)
	initialsRE = regexp.MustCompile(`^\p{Lu}{1,2}(?:[. ]\s?\p{Lu}{1,2}){0,2}\.?$`)
	etAlRE     = regexp.MustCompile(`(?:&|\bet)\.? ?al\b\.?`)
	andRE      = regexp.MustCompile(`\s*(?:&|\band\b|\bet\b|\bund\b|;)\s*`)
)

// authorship reads "(basionym authors, year) combination authors, year :
// sanctioning author"; what cannot be read is kept in Unparsed.
func (p *parser) authorship(s string) {
	n := p.n
	s = strings.TrimSpace(strings.TrimLeft(s, ", "))
	if s == "" {
		return
	}
	var unparsed []string
	if s[0] == '(' {
		end := closingBracket(s)
		if end < 0 {
			n.Unparsed = joinUnparsed(n.Unparsed, s)
			return
		}
		inner := s[1:end]
		if c := strings.IndexByte(inner, ':'); c >= 0 {
			inner = strings.TrimSpace(inner[:c]) // the basionym's sanctioning author is dropped
		}
		if a, rest, ok := p.team(inner); ok {
			n.Basionym = a
			if rest != "" {
				unparsed = append(unparsed, rest)
			}
		} else {
			unparsed = append(unparsed, s[:end+1])
		}
		s = strings.TrimSpace(strings.TrimLeft(s[end+1:], ", "))
	}
	if s != "" {
		if c := strings.LastIndex(s, ":"); c > 0 {
			sanct := strings.TrimSpace(s[c+1:])
			if sanct != "" && utf8.RuneCountInString(sanct) <= 6 && isUpperStart(sanct) {
				n.SanctioningAuthor = sanct
				s = strings.TrimSpace(s[:c])
			}
		}
		if a, rest, ok := p.team(s); ok {
			n.Combination = a
			if rest != "" {
				unparsed = append(unparsed, rest)
			}
		} else {
			unparsed = append(unparsed, s)
		}
	}
	if len(unparsed) > 0 {
		n.Unparsed = joinUnparsed(n.Unparsed, strings.Join(unparsed, " "))
	}
	if n.Combination.Year == "" && n.PublishedIn != "" && !n.Combination.Empty() {
		if m := yearRE.FindStringSubmatch(n.PublishedIn); m != nil {
			n.Combination.Year = m[1]
		}
	}
}

func joinUnparsed(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// closingBracket returns the index of the bracket closing s[0], or -1.
func closingBracket(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// team reads one authorship: "Ex Authors ex Authors, year". rest is text
// after the year that is not an imprint date; ok is false when the
// authors are not author names.
func (p *parser) team(s string) (a Authorship, rest string, ok bool) {
	s = strings.TrimSpace(strings.Trim(s, ", "))
	if s == "" {
		return a, "", false
	}
	if loc := findYear(s); loc != nil {
		a.Year = s[loc[2]:loc[3]]
		if strings.HasSuffix(a.Year, "?") {
			a.Year = a.Year[:3]
		}
		tail := s[loc[1]:]
		if !yearTailRE.MatchString(tail) {
			rest = strings.ReplaceAll(strings.TrimSpace(tail), " ", "")
		}
		s = strings.TrimSpace(strings.TrimRight(s[:loc[0]], ", ([\"'"))
	}
	if s == "" {
		return a, rest, a.Year != ""
	}
	main := s
	if i := strings.LastIndex(s, " ex "); i >= 0 {
		ex := p.authors(s[:i])
		if ex == nil {
			return Authorship{}, "", false
		}
		a.ExAuthors = ex
		main = s[i+len(" ex "):]
	}
	a.Authors = p.authors(main)
	if a.Authors == nil {
		return Authorship{}, "", false
	}
	return a, rest, true
}

// authors splits an author team and writes each author GBIF's way: no
// space after an initial's dot ("L.L.Daniel"), initials given after the
// surname moved before it ("Schaufuss, L. W." -> "L.W.Schaufuss"), all-caps
// surnames capitalized, "et al." as a last author "al.". It returns nil
// when a part is not an author name.
func (p *parser) authors(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	etAl := false
	if loc := etAlIndex(s); loc != nil && strings.TrimSpace(strings.Trim(s[loc[1]:], ".,")) == "" {
		etAl = true
		s = strings.TrimSpace(s[:loc[0]])
	}
	var parts []string
	for _, c := range strings.Split(s, ",") {
		for _, a := range splitAnd(c) {
			if a = strings.TrimSpace(a); a != "" {
				parts = append(parts, a)
			}
		}
	}
	var out []string
	for _, a := range parts {
		if len(out) > 0 && len(a) <= 10 && isUpperStart(a) && initialsRE.MatchString(a) {
			out[len(out)-1] = dotInitials(a) + out[len(out)-1]
			continue
		}
		if sp := spaceAuthors(a); sp != nil {
			out = append(out, sp...)
			continue
		}
		name, ok := p.author(a)
		if !ok {
			return nil
		}
		out = append(out, name)
	}
	if etAl {
		out = append(out, "al.")
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// findYear finds a year in s (the indices of yearRE's match and group).
func findYear(s string) []int {
	if !strings.ContainsAny(s, "12") {
		return nil
	}
	return yearRE.FindStringSubmatchIndex(s)
}

// etAlIndex finds "et al." in s.
func etAlIndex(s string) []int {
	if !strings.Contains(s, "al") {
		return nil
	}
	return etAlRE.FindStringIndex(s)
}

// splitAnd splits authors joined by "&", "and", "et", "und" or ";".
func splitAnd(s string) []string {
	if !strings.ContainsAny(s, "&;") && !strings.Contains(s, " and ") && !strings.Contains(s, " et ") && !strings.Contains(s, " und ") {
		return []string{s}
	}
	return andRE.Split(s, -1)
}

// dotInitials writes "L. W" as "L.W.".
func dotInitials(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			b.WriteRune(r)
			b.WriteByte('.')
		}
	}
	return b.String()
}

// spaceAuthors reads "Balsamo M Fregni E Tongiorgi P" (surnames followed
// by undotted initials) as ["M.Balsamo", "E.Fregni", "P.Tongiorgi"].
func spaceAuthors(s string) []string {
	f := strings.Fields(s)
	if len(f) < 4 || len(f)%2 != 0 {
		return nil
	}
	var out []string
	for i := 0; i < len(f); i += 2 {
		if !isCapWord(f[i]) || !isAllCaps(f[i+1]) && !(len(f[i+1]) == 1 && unicode.IsUpper(rune(f[i+1][0]))) || len(f[i+1]) > 2 {
			return nil
		}
		out = append(out, dotInitials(f[i+1])+f[i])
	}
	return out
}

// author normalizes one author name; ok is false for what is not one.
func (p *parser) author(a string) (string, bool) {
	switch strings.ToLower(a) {
	case "hort.", "hort", "hortus", "hortusa":
		return "hort.", true
	case "al.", "al":
		return "al.", true
	}
	if strings.ContainsRune(a, '?') {
		a = strings.ReplaceAll(a, "?", "")
		p.n.Doubtful = true
		p.n.addWarning(WarnQuestionMarks)
	}
	words := strings.Fields(a)
	if len(words) == 0 {
		return "", false
	}
	// the first word: upper case, a particle, or d'/O' prefixes
	first := words[0]
	if !isUpperStart(first) && !authorParticles[strings.ToLower(first)] && !strings.HasPrefix(first, "d'") &&
		!strings.HasPrefix(first, "l'") && first != "f." {
		return "", false
	}
	var b strings.Builder
	for i, w := range words {
		if isAllCaps(w) && utf8.RuneCountInString(w) > 2 && !strings.ContainsAny(w, ".-") {
			w = titleCase(w)
		}
		if !validAuthorWord(w) {
			return "", false
		}
		if i > 0 && !strings.HasSuffix(words[i-1], ".") {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String(), true
}

// validAuthorWord reports a word made of letters, dots, hyphens and
// apostrophes.
func validAuthorWord(w string) bool {
	letters := 0
	for _, r := range w {
		switch {
		case unicode.IsLetter(r):
			letters++
		case r == '.' || r == '-' || r == '\'' || r == '(' || r == ')':
		default:
			return false
		}
	}
	return letters > 0
}

func isUpperStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}
