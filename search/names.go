package search

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Names matches scientific names to the taxon keys the table's records
// carry. TaxonKey answers ok=false for a name without an exact match
// (also when there is no taxonomy to match against); an error is a failure
// to match, not a miss.
type Names interface {
	TaxonKey(ctx context.Context, name string) (key int64, ok bool, err error)
}

// MaxNames caps the scientificName values of one search: each is matched
// against the taxonomy before the search runs.
const MaxNames = 1000

// Option configures a Service.
type Option func(*Service)

// WithNames resolves scientificName search values with n (resolveNames);
// without it they compare with the records' interpreted names as text.
func WithNames(n Names) Option { return func(s *Service) { s.names = n } }

// resolveNames takes the scientificName values out of q and returns their
// predicate. GBIF's occurrence search replaces each name that matches its
// taxonomy exactly by the matched taxon key (the accepted one for a
// synonym), so a species' search also finds the records published under
// its synonyms and a genus' its species; this does the same with Names.
// GBIF answers no records when no name matches, and ANDs the names that
// did not match with the keys of those that did (which matches nothing in
// practice). Here a name without an exact match selects the records whose
// interpreted or published (verbatim) name it is, case-insensitively, so
// the records the taxonomy could not place are found by the name they were
// published with; they are ORed with the keys of the other names. nil when
// q has no scientificName or no Names is set.
func (s *Service) resolveNames(ctx context.Context, q url.Values) (*occurrence.Predicate, error) {
	if s.names == nil {
		return nil, nil
	}
	var names []string
	for k, v := range q {
		if key, ok := occurrence.LookupSearchKey(k); ok && key.Name == "SCIENTIFIC_NAME" {
			names = append(names, v...)
			delete(q, k)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	if len(names) > MaxNames {
		// Bounded before any matching starts.
		return nil, fmt.Errorf("%w: %d scientificName values; at most %d are matched in one search", ErrTooComplex, len(names), MaxNames)
	}
	var keys, text []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		k, ok, err := s.names.TaxonKey(ctx, n)
		if err != nil {
			return nil, fmt.Errorf("scientificName %q: %w", n, err)
		}
		if ok {
			keys = append(keys, strconv.FormatInt(k, 10))
		} else {
			text = append(text, n)
		}
	}
	var alts []map[string]any
	if len(keys) > 0 {
		alts = append(alts, map[string]any{"type": "in", "key": "TAXON_KEY", "values": keys})
	}
	if len(text) > 0 {
		alts = append(alts, map[string]any{"type": "in", "key": "SCIENTIFIC_NAME", "values": text},
			map[string]any{"type": "in", "key": "VERBATIM_SCIENTIFIC_NAME", "values": text})
	}
	var tree any = alts[0]
	if len(alts) > 1 {
		tree = map[string]any{"type": "or", "predicates": alts}
	}
	raw, err := json.Marshal(tree)
	if err != nil {
		return nil, err
	}
	p, err := occurrence.ParsePredicateJSON(raw, s.cfg.Limits)
	if err != nil {
		return nil, s.predicateErr(err)
	}
	return p, nil
}
