package search

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// GBIF's paging defaults and caps (gbif-api PagingConstants, occurrence-ws
// OccurrenceSearchEsImpl with occurrence.search.max.limit=300 and
// max.offset=100000, the es-response parser's facet defaults).
const (
	DefaultLimit      = 20
	DefaultMaxLimit   = 300
	DefaultMaxOffset  = 100_000
	DefaultFacetLimit = 10
	// DefaultMaxFacetValues caps facetOffset+facetLimit as GBIF's
	// MAX_SIZE_TERMS_AGGS does.
	DefaultMaxFacetValues = 1_200_000
)

// Request is one occurrence search: the predicate of its search
// parameters, a page and the facets to count.
type Request struct {
	// Predicate selects the records; nil selects all.
	Predicate *occurrence.Predicate
	// Offset and Limit page the records in table order.
	Offset, Limit int
	// Facets are counted over the matching records, in request order.
	Facets []FacetRequest
	// FacetMincount drops facet values with fewer records (0: none).
	FacetMincount int64
	// FacetMultiselect counts each facet whose parameter is also a
	// filter as if that filter were absent (GBIF's facetMultiselect).
	FacetMultiselect bool
	// Words are the distinct words of q, GBIF's full-text search
	// (occurrence.FullText): Predicate holds the records with any of
	// them, and the page lists those holding more of them first.
	Words []string

	// params are the search parameters the predicate was parsed from,
	// kept to parse it again without one parameter (multiselect); names
	// is the predicate of the scientificName values, resolved once
	// (resolveNames), nil without any.
	params url.Values
	names  *occurrence.Predicate
	// text is the full-text part of Predicate (any of Words), and tiers
	// the page's order: the records with all of Words, then one fewer,
	// down to one, each with the other parameters; nil without q.
	text  *occurrence.Predicate
	tiers []*occurrence.Predicate
}

// FacetRequest is one facet: a search parameter and its page of values.
type FacetRequest struct {
	Key    occurrence.SearchKey
	Offset int
	Limit  int
}

// Errors of this package, wrapped by every error it returns for a bad
// request (web maps them to HTTP statuses).
var (
	// ErrInvalidRequest marks a malformed search: unknown parameter, bad
	// value, offset beyond the cap.
	ErrInvalidRequest = errors.New("invalid search request")
	// ErrTooComplex marks a predicate over the configured limits.
	ErrTooComplex = errors.New("search predicate too complex")
	// ErrNotFound marks an unknown gbifID.
	ErrNotFound = errors.New("occurrence not found")
	// ErrTooExpensive marks facet counting that ran past its deadline.
	ErrTooExpensive = errors.New("search too expensive")
)

// facetParams are the facet parameters GBIF reads (case-insensitively).
var facetParams = []string{"facet", "facetLimit", "facetOffset", "facetMincount", "facetMultiselect"}

// ignoredParams are GBIF search parameters that select nothing here:
// checklistKey names the taxonomy of taxon keys (this table has one;
// docs/clients.md), spellCheck only adds suggestions to full-text
// results, callback and _ are JSONP leftovers GBIF also skips.
var ignoredParams = []string{"checklistKey", "spellCheck", "spellCheckCount", "callback", "_", "hl"}

// ParseRequest reads a GBIF occurrence search query string: the search
// parameters of download query strings (occurrence.ParseQuery), limit and
// offset as GBIF reads them (an unparsable or negative value is the
// default, a limit over MaxLimit is MaxLimit, offset+limit over MaxOffset
// is an error) and the facet parameters. Blank values are dropped, as
// GBIF's SearchRequestProvider does (a form's empty field selects
// nothing), and scientificName values are resolved to taxon keys
// (resolveNames).
func (s *Service) ParseRequest(ctx context.Context, q url.Values) (Request, error) {
	var r Request
	search := url.Values{}
	for k, v := range q {
		if !isFacetParam(k) && !containsFold(ignoredParams, k) {
			if v = nonBlank(v); len(v) > 0 {
				search[k] = v
			}
		}
	}
	r.Limit = intParam(q, "limit", DefaultLimit)
	if r.Limit > s.cfg.MaxLimit {
		r.Limit = s.cfg.MaxLimit
	}
	r.Offset = intParam(q, "offset", 0)
	if int64(r.Offset)+int64(r.Limit) > int64(s.cfg.MaxOffset) {
		return r, fmt.Errorf("%w: Max offset of %d exceeded: %d + %d", ErrInvalidRequest, s.cfg.MaxOffset, r.Offset, r.Limit)
	}
	if err := checkUnsupported(search); err != nil {
		return r, err
	}
	words, err := fullTextWords(search)
	if err != nil {
		return r, err
	}
	if err := s.parseFacets(q, &r); err != nil {
		return r, err
	}
	names, err := s.resolveNames(ctx, search)
	if err != nil {
		return r, err
	}
	p, err := s.parsePredicate(search)
	if err != nil {
		return r, err
	}
	r.params, r.names = search, names
	base := both(p, names)
	r.Predicate = base
	if len(words) > 0 {
		if err := r.fullText(base, words); err != nil {
			return r, err
		}
	}
	return r, nil
}

// fullTextWords takes q out of the search parameters and returns its
// distinct words, at most occurrence.MaxFullTextWords.
func fullTextWords(search url.Values) ([]string, error) {
	var text []string
	for k, v := range search {
		if strings.EqualFold(k, "q") {
			text = append(text, v...)
			delete(search, k)
		}
	}
	words := occurrence.FullTextWords(strings.Join(text, " "))
	if len(words) > occurrence.MaxFullTextWords {
		return nil, fmt.Errorf("%w: q has %d distinct words; a search takes at most %d", ErrInvalidRequest, len(words), occurrence.MaxFullTextWords)
	}
	return words, nil
}

// fullText sets the request's full-text parts: Predicate is base and any
// of words; tiers are base and exactly k of them, k from all down to one.
func (r *Request) fullText(base *occurrence.Predicate, words []string) error {
	text, err := occurrence.FullText(words, 1)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
	}
	r.Words, r.text = words, text
	r.Predicate = both(base, r.text)
	if len(words) == 1 {
		return nil // one group: the page is the plain windowed read
	}
	for k := len(words); k >= 1; k-- {
		tier, err := occurrence.FullTextExactly(words, k)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
		r.tiers = append(r.tiers, both(base, tier))
	}
	return nil
}

// nonBlank is v without its blank values (trimmed, as GBIF trims them).
func nonBlank(v []string) []string {
	out := v[:0:0]
	for _, x := range v {
		if strings.TrimSpace(x) != "" {
			out = append(out, x)
		}
	}
	return out
}

// both is the conjunction of two predicates, either of which may be nil
// (every record).
func both(a, b *occurrence.Predicate) *occurrence.Predicate {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return &occurrence.Predicate{Type: occurrence.TypeAnd, Predicates: []*occurrence.Predicate{a, b}}
}

// checkUnsupported rejects GBIF search parameters this service cannot
// honour, rather than answering as if they were absent: matchCase=true
// and shuffle. matchCase=false is GBIF's default.
func checkUnsupported(q url.Values) error {
	for k, v := range q {
		switch strings.ToLower(k) {
		case "matchcase":
			for _, s := range v {
				if b, err := strconv.ParseBool(s); err != nil || b {
					return fmt.Errorf("%w: matchCase=%s is not supported (text parameters ignore case)", ErrInvalidRequest, s)
				}
			}
			delete(q, k)
		case "shuffle":
			return fmt.Errorf("%w: shuffle is not supported (results come in table order)", ErrInvalidRequest)
		}
	}
	return nil
}

// parsePredicate parses search parameters with the configured limits.
func (s *Service) parsePredicate(q url.Values) (*occurrence.Predicate, error) {
	p, err := occurrence.ParseQuery(q, s.cfg.Limits)
	if err != nil {
		return nil, s.predicateErr(err)
	}
	return p, nil
}

// predicateErr is the kind of a predicate's error.
func (s *Service) predicateErr(err error) error {
	if errors.Is(err, occurrence.ErrPredicateTooComplex) {
		return fmt.Errorf("%w: %w", ErrTooComplex, err)
	}
	return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
}

// parseFacets reads facet, facetLimit, facetOffset, facetMincount,
// facetMultiselect and the per-facet NAME.facetLimit and
// NAME.facetOffset, as gbif-common-ws's FacetedSearchRequestProvider
// does; a facet GBIF does not know is an error here (GBIF drops it).
func (s *Service) parseFacets(q url.Values, r *Request) error {
	limit, err := facetInt(q, "facetLimit", DefaultFacetLimit)
	if err != nil {
		return err
	}
	offset, err := facetInt(q, "facetOffset", 0)
	if err != nil {
		return err
	}
	minCount, err := facetInt(q, "facetMincount", 0)
	if err != nil {
		return err
	}
	r.FacetMincount = int64(minCount)
	if v := firstFold(q, "facetMultiselect"); v != "" {
		r.FacetMultiselect, _ = strconv.ParseBool(v) // GBIF's Boolean.parseBoolean: anything else is false
	}
	seen := map[string]bool{}
	for _, name := range q["facet"] {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		key, err := facetKey(name)
		if err != nil {
			return err
		}
		if seen[key.Name] {
			continue
		}
		seen[key.Name] = true
		f := FacetRequest{Key: key, Offset: offset, Limit: limit}
		// A facet's own page, as FacetedSearchRequestProvider reads it:
		// NAME.facetLimit alone pages from 0, NAME.facetOffset alone
		// takes 10 values, not the global facetOffset or facetLimit.
		ownLimit, ownOffset := facetParamOf(q, key, "facetLimit"), facetParamOf(q, key, "facetOffset")
		switch {
		case ownLimit != "" && ownOffset == "":
			f.Offset = 0
		case ownLimit == "" && ownOffset != "":
			f.Limit = DefaultFacetLimit
		}
		if f.Limit, err = facetInt(q, ownLimit, f.Limit); err != nil {
			return err
		}
		if f.Offset, err = facetInt(q, ownOffset, f.Offset); err != nil {
			return err
		}
		if int64(f.Offset)+int64(f.Limit) > int64(s.cfg.MaxFacetValues) {
			return fmt.Errorf("%w: Facets paging is only supported up to %d elements", ErrInvalidRequest, s.cfg.MaxFacetValues)
		}
		r.Facets = append(r.Facets, f)
	}
	return nil
}

// facetParamOf finds the per-facet parameter NAME.suffix of key in q,
// NAME in any spelling of the key (GBIF matches only the facet's own
// spelling, case-insensitively); "" when there is none.
func facetParamOf(q url.Values, key occurrence.SearchKey, suffix string) string {
	for k := range q {
		name, sfx, ok := strings.Cut(k, ".")
		if !ok || !strings.EqualFold(sfx, suffix) {
			continue
		}
		if other, ok := occurrence.LookupSearchKey(name); ok && other.Name == key.Name {
			return k
		}
	}
	return ""
}

// isFacetParam reports a facet parameter in any case, also NAME.facetLimit.
func isFacetParam(k string) bool {
	if containsFold(facetParams, k) {
		return true
	}
	if _, suffix, ok := strings.Cut(k, "."); ok {
		return strings.EqualFold(suffix, "facetLimit") || strings.EqualFold(suffix, "facetOffset")
	}
	return false
}

func containsFold(list []string, k string) bool {
	for _, p := range list {
		if strings.EqualFold(p, k) {
			return true
		}
	}
	return false
}

// firstFold returns the first non-empty value of a parameter named in any
// case, as GBIF's getFirstIgnoringCase does.
func firstFold(q url.Values, name string) string {
	if v := strings.TrimSpace(q.Get(name)); v != "" {
		return v
	}
	for k, vs := range q {
		if strings.EqualFold(k, name) && len(vs) > 0 && strings.TrimSpace(vs[0]) != "" {
			return strings.TrimSpace(vs[0])
		}
	}
	return ""
}

// intParam reads limit or offset as GBIF's PageableProvider does: absent,
// unparsable or negative is the default.
func intParam(q url.Values, name string, def int) int {
	v := q.Get(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return def
	}
	return n
}

// facetInt reads a facet number; GBIF answers 400 to an unparsable one.
func facetInt(q url.Values, name string, def int) (int, error) {
	if name == "" {
		return def, nil
	}
	v := firstFold(q, name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: %s=%q is not a non-negative integer", ErrInvalidRequest, name, v)
	}
	return n, nil
}

// countDimensions are the parameters of GBIF's /occurrence/count (metrics-ws
// Parameter, EsMetricsService's dimension fields) and the search parameter
// each one is; isGeoreferenced is hasCoordinate, as GBIF maps it.
var countDimensions = map[string]string{
	"basisOfRecord": "basisOfRecord", "country": "country", "datasetKey": "datasetKey",
	"isGeoreferenced": "hasCoordinate", "issue": "issue", "protocol": "protocol",
	"publishingCountry": "publishingCountry", "taxonKey": "taxonKey", "typeStatus": "typeStatus", "year": "year",
}

// ParseCount reads the parameters of GBIF's /occurrence/count: its ten
// dimensions (names as GBIF spells them), the first value of each, year a
// single year or "from,to"; checklistKey is accepted (one taxonomy here),
// any other parameter is an error, as in GBIF.
func (s *Service) ParseCount(q url.Values) (*occurrence.Predicate, error) {
	search := url.Values{}
	for k, v := range q {
		if len(v) == 0 || k == "checklistKey" || strings.EqualFold(k, "callback") || k == "_" {
			continue
		}
		name, ok := countDimensions[k]
		if !ok {
			return nil, fmt.Errorf("%w: Invalid parameter name: %s (parameters: %s)", ErrInvalidRequest, k, strings.Join(countDimensionNames(), ", "))
		}
		val := strings.TrimSpace(v[0])
		switch k {
		case "isGeoreferenced":
			b, _ := strconv.ParseBool(val) // Boolean.parseBoolean: anything else is false
			val = strconv.FormatBool(b)
		case "country", "publishingCountry":
			if code, ok := occurrence.CountryCodeOfGBIFName(val); ok && len(val) > 3 {
				val = code // GBIF's Parameter reads Country names (GERMANY) before codes
			}
		case "year":
			from, to, isRange := strings.Cut(val, ",")
			a, err1 := strconv.Atoi(strings.TrimSpace(from))
			b, err2 := a, error(nil)
			if isRange {
				b, err2 = strconv.Atoi(strings.TrimSpace(to))
			}
			if err1 != nil || err2 != nil || a > b {
				return nil, fmt.Errorf("%w: Invalid year value(s): %s", ErrInvalidRequest, val)
			}
		}
		search.Set(name, val)
	}
	return s.parsePredicate(search)
}

func countDimensionNames() []string { return slices.Sorted(maps.Keys(countDimensions)) }
