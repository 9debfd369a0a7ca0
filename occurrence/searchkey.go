package occurrence

import "slices"

// SearchKey describes one accepted search parameter (the keys of
// predicate_keys.go) for callers that group or count records by it, as
// search facets do.
type SearchKey struct {
	// Name is GBIF's canonical name (COUNTRY, TAXON_KEY).
	Name string
	// Columns are the columns the key reads; a record matches a value
	// when any of them holds it (TAXON_KEY reads every rank's key).
	Columns []string
}

// LookupSearchKey resolves a search-parameter name in any accepted
// spelling (TAXON_KEY, taxonKey, taxon_key, case-insensitive); geometry
// and geoDistance, which name no column, are not keys.
func LookupSearchKey(name string) (SearchKey, bool) {
	s, ok := lookupKey(name)
	if !ok {
		return SearchKey{}, false
	}
	return SearchKey{Name: s.name, Columns: slices.Clone(s.cols)}, true
}
