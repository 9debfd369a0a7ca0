package occurrence

import "strings"

// termPrefixes are the namespaces whose terms are keyed "prefix:name" in the
// verbatim column; Darwin Core terms are keyed by their bare name and any
// other term by its full URI.
var termPrefixes = []struct{ prefix, ns string }{
	{"dcterms", NSDC},
	{"dc", "http://purl.org/dc/elements/1.1/"},
	{"gbif", NSGBIF},
	{"ac", "http://rs.tdwg.org/ac/terms/"},
	{"xmp", "http://ns.adobe.com/xap/1.0/"},
	{"abcd", "http://www.tdwg.org/schemas/abcd/2.06/"},
	{"dwciri", "http://rs.tdwg.org/dwc/iri/"},
}

// VerbatimKey returns the key a term URI is stored under in the verbatim
// column: "country" for dwc:country, "dcterms:modified", or the URI itself.
func VerbatimKey(term string) string {
	if name, ok := strings.CutPrefix(term, NSDwC); ok {
		return name
	}
	for _, p := range termPrefixes {
		if name, ok := strings.CutPrefix(term, p.ns); ok {
			return p.prefix + ":" + name
		}
	}
	return term
}

// VerbatimTerm is the inverse of VerbatimKey.
func VerbatimTerm(key string) string {
	if strings.Contains(key, "://") {
		return key
	}
	if prefix, name, ok := strings.Cut(key, ":"); ok {
		for _, p := range termPrefixes {
			if p.prefix == prefix {
				return p.ns + name
			}
		}
	}
	return NSDwC + key
}

// SimpleName is the last path element of a term URI ("country").
func SimpleName(term string) string {
	if i := strings.LastIndexAny(term, "/#"); i >= 0 && i < len(term)-1 {
		return term[i+1:]
	}
	return term
}
