package dwca

import (
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// CitationParts are what GBIF's generated dataset citations are made of,
// read from a dataset's EML (the table keeps them with the dataset).
type CitationParts = occurrence.CitationParts

var (
	doiRE  = regexp.MustCompile(`(?i)^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?(10\.\d{4,9}/\S+)$`)
	yearRE = regexp.MustCompile(`^\d{4}`)
)

// DOIName is the name (10.x/y) of a DOI given as 10.x/y, doi:10.x/y or a
// doi.org URL; "" when s is none of these.
func DOIName(s string) string {
	m := doiRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return ""
	}
	return m[1]
}

// ReadCitationParts reads a dataset EML's citation parts. Element names are
// matched without namespaces; malformed XML gives an error with its line.
func ReadCitationParts(r io.Reader) (CitationParts, error) {
	var (
		c CitationParts
		w partyWalker
	)
	err := walkEML(r, func(tok xml.Token) {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "eml" {
			if _, v, ok := strings.Cut(attr(t, "packageId"), "/v"); ok && v != "" {
				c.Version = v
			}
		}
		path, text, ok := w.token(tok)
		n := len(path)
		if !ok || n < 2 || path[n-2] != "dataset" {
			return
		}
		switch path[n-1] {
		case "pubDate":
			if c.Year == "" {
				c.Year = yearRE.FindString(text)
			}
		case "alternateIdentifier":
			if c.DOI == "" {
				c.DOI = DOIName(text)
			}
		}
	})
	seen, creator, assocPublisher := map[string]bool{}, false, ""
	for _, p := range w.parties {
		switch p.element {
		case "creator", "metadataProvider":
			if a := authorName(p.sur, p.given); a != "" {
				if key := strings.ToLower(p.sur + "\x00" + p.given); !seen[key] {
					seen[key] = true
					c.Authors = append(c.Authors, a)
				}
				creator = creator || p.element == "creator"
			}
		case "publisher":
			if p.org != "" {
				c.Publisher = p.org
			}
		case "associatedParty":
			if strings.EqualFold(p.role, "publisher") && p.org != "" && assocPublisher == "" {
				assocPublisher = p.org
			}
		}
	}
	if c.Publisher == "" {
		c.Publisher = assocPublisher
	}
	if !creator {
		c.Authors = nil
	}
	return c, err
}

// authorName is a citation's name of a person, as GBIF's
// CitationGenerator.getAuthorName writes it: the surname and the initials
// of the given names ("Sheffield C"), or the surname alone.
func authorName(sur, given string) string {
	sur = strings.TrimSpace(sur)
	if sur == "" {
		return ""
	}
	var initials []string
	for _, g := range strings.Fields(given) {
		r, _ := utf8.DecodeRuneInString(g)
		initials = append(initials, string(unicode.ToUpper(r)))
	}
	if len(initials) == 0 {
		return sur
	}
	return sur + " " + strings.Join(initials, " ")
}
