package species

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/taxonomy"
)

// The kinds of errors, for the HTTP status.
var (
	// ErrInvalidRequest: a parameter is malformed (400); the message names it.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrNotFound: no usage has the key (404).
	ErrNotFound = errors.New("not found")
	// ErrNoTaxonomy: the service has no taxonomy to read (503).
	ErrNoTaxonomy = errors.New("no taxonomy")
)

// Paging limits, as GBIF's species routes have them.
const (
	DefaultLimit = 20
	// MaxLimit caps the limit of children and synonyms (a larger one is
	// lowered, as GBIF's paging does).
	MaxLimit = 1000
	// MaxSuggest caps the limit of a suggestion; MaxSuggestOffset the
	// offset+limit (suggestions are ranked from a bounded pool).
	MaxSuggest       = 100
	MaxSuggestOffset = 1000
	// MaxOffset is GBIF's deep paging limit of the species routes.
	MaxOffset = 100_000
)

// Service answers GBIF's species routes from a Source.
type Service struct {
	src Source
}

// New returns the service of src.
func New(src Source) *Service { return &Service{src: src} }

func invalid(param, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidRequest, param, fmt.Sprintf(format, args...))
}

// with runs f with the current taxonomy.
func (s *Service) with(f func(taxonomy.Taxonomy) error) error {
	t, release, err := s.src.Acquire()
	if err != nil {
		return err
	}
	defer release()
	return f(t)
}

// matchRequest is a parsed match request.
type matchRequest struct {
	q        taxonomy.Query
	usageKey string
}

func first(v url.Values, names ...string) (string, string) {
	for _, n := range names {
		if s := strings.TrimSpace(v.Get(n)); s != "" {
			return n, s
		}
	}
	return names[0], ""
}

func parseBool(v url.Values, name string) (bool, error) {
	s := strings.TrimSpace(v.Get(name))
	if s == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, invalid(name, "%q is not true or false", s)
	}
	return b, nil
}

// parseMatch reads a match request: v1's parameter names (name,
// authorship, rank) and v2's (scientificName, scientificNameAuthorship,
// taxonRank, verbatimTaxonRank) are both taken, as GBIF's v1 route does.
func parseMatch(v url.Values) (matchRequest, error) {
	var r matchRequest
	q := &r.q
	_, q.ScientificName = first(v, "name", "scientificName")
	_, q.Authorship = first(v, "authorship", "scientificNameAuthorship")
	param, rank := first(v, "rank", "taxonRank", "verbatimTaxonRank")
	if rank != "" {
		if _, ok := taxonomy.ParseRank(rank); !ok {
			return r, invalid(param, "unknown rank %q", rank)
		}
		q.Rank = rank
	}
	q.GenericName, q.SpecificEpithet, q.InfraspecificEpithet = v.Get("genericName"), v.Get("specificEpithet"), v.Get("infraspecificEpithet")
	q.Kingdom, q.Phylum, q.Class, q.Order = v.Get("kingdom"), v.Get("phylum"), v.Get("class"), v.Get("order")
	q.Family, q.Genus, q.TaxonID = v.Get("family"), v.Get("genus"), strings.TrimSpace(v.Get("taxonID"))
	var err error
	if q.Strict, err = parseBool(v, "strict"); err != nil {
		return r, err
	}
	if q.Verbose, err = parseBool(v, "verbose"); err != nil {
		return r, err
	}
	if len(v["exclude"]) > 0 {
		return r, invalid("exclude", "not supported by this service")
	}
	r.usageKey = strings.TrimSpace(v.Get("usageKey"))
	return r, nil
}

// match runs a match request.
func (s *Service) match(ctx context.Context, v url.Values) (taxonomy.Match, error) {
	r, err := parseMatch(v)
	if err != nil {
		return taxonomy.Match{}, err
	}
	var m taxonomy.Match
	err = s.with(func(t taxonomy.Taxonomy) error {
		if r.usageKey != "" {
			m = byKey(t, r.usageKey)
			return nil
		}
		if r.q.ScientificName == "" && r.q.GenericName == "" && r.q.TaxonID == "" && !hasClassification(&r.q) {
			m = taxonomy.Match{Type: taxonomy.MatchNone, Confidence: 100, Note: "No name given"}
			return nil
		}
		var err error
		m, err = t.Match(ctx, r.q)
		return err
	})
	return m, err
}

func hasClassification(q *taxonomy.Query) bool {
	return q.Kingdom != "" || q.Phylum != "" || q.Class != "" || q.Order != "" || q.Family != "" || q.Genus != ""
}

// byKey is the match of a usageKey: the usage itself, or none.
func byKey(t taxonomy.Taxonomy, s string) taxonomy.Match {
	k, err := strconv.ParseInt(s, 10, 64)
	var u *taxonomy.Usage
	if err == nil {
		u = t.Usage(k)
	}
	if u == nil {
		return taxonomy.Match{Type: taxonomy.MatchNone, Confidence: 100, Note: "No usage with key " + s}
	}
	m := taxonomy.Match{Type: taxonomy.MatchExact, Confidence: 100, Usage: u, Accepted: u, Classification: t.Classification(k)}
	if u.AcceptedKey != 0 {
		if a := t.Usage(u.AcceptedKey); a != nil {
			m.Accepted = a
		}
	}
	return m
}

// Match answers GET /v1/species/match.
func (s *Service) Match(ctx context.Context, v url.Values) (MatchV1, error) {
	m, err := s.match(ctx, v)
	if err != nil {
		return MatchV1{}, err
	}
	return matchV1(&m), nil
}

// MatchV2 answers GET /v2/species/match. checklistKey is read and
// ignored: the service has one taxonomy.
func (s *Service) MatchV2(ctx context.Context, v url.Values) (MatchV2, error) {
	start := time.Now()
	m, err := s.match(ctx, v)
	if err != nil {
		return MatchV2{}, err
	}
	out := matchV2(&m)
	out.Diagnostics.TimeTaken = time.Since(start).Milliseconds()
	return out, nil
}

// parseKey reads a usage key of a path.
func parseKey(s string) (int64, error) {
	k, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, invalid("usageKey", "%q is not an integer", s)
	}
	return k, nil
}

func notFound(k int64) error {
	return fmt.Errorf("%w: no name usage has the key %d", ErrNotFound, k)
}

// Usage answers GET /v1/species/{key}.
func (s *Service) Usage(_ context.Context, keyParam string) (NameUsage, error) {
	k, err := parseKey(keyParam)
	if err != nil {
		return NameUsage{}, err
	}
	var out NameUsage
	err = s.with(func(t taxonomy.Taxonomy) error {
		u := t.Usage(k)
		if u == nil {
			return notFound(k)
		}
		out = nameUsage(t, u)
		return nil
	})
	return out, err
}

// nameUsage builds GBIF's name usage of u.
func nameUsage(t taxonomy.Taxonomy, u *taxonomy.Usage) NameUsage {
	out := NameUsage{Key: u.Key, TaxonID: u.TaxonID, ScientificName: u.ScientificName, CanonicalName: u.CanonicalName,
		Authorship: u.Authorship, Rank: u.Rank.String(), TaxonomicStatus: u.Status.String(), Origin: "SOURCE",
		NomenclaturalStatus: []string{}, Issues: []string{}}
	if u.NameType != taxonomy.NameNoName || u.CanonicalName != "" {
		out.NameType = u.NameType.String()
	}
	switch c := t.(type) {
	case *taxonomy.Checklist:
		if key := c.Info().Key; uuidRE.MatchString(key) {
			out.DatasetKey = key
		}
		if out.DatasetKey == backboneKey {
			out.NubKey = u.Key
		}
		if u.Implicit {
			out.Origin = "IMPLICIT_NAME"
		}
		if u.AcceptedKey == 0 && u.Hi >= u.Lo {
			out.NumDescendants = int(u.Hi - u.Lo)
		}
	case *taxonomy.DerivedReader:
		out.Origin = "DENORMED_CLASSIFICATION"
	}
	if out.TaxonomicStatus == "" {
		out.TaxonomicStatus = "ACCEPTED"
		if u.AcceptedKey != 0 {
			out.TaxonomicStatus = "SYNONYM"
		}
	}
	cl := t.Classification(u.Key)
	out.classified = classify(cl)
	parentKey := u.ParentKey
	if u.AcceptedKey != 0 {
		out.AcceptedKey = u.AcceptedKey
		parentKey = 0
		if a := t.Usage(u.AcceptedKey); a != nil {
			out.Accepted, parentKey = a.ScientificName, a.ParentKey
		}
	}
	if parentKey != 0 {
		out.ParentKey = parentKey
		if p := t.Usage(parentKey); p != nil {
			out.Parent = cmp.Or(p.CanonicalName, p.ScientificName)
		}
	}
	return out
}

// paging reads offset and limit.
func paging(v url.Values, def, maxLimit, maxOffset int) (offset, limit int, err error) {
	limit = def
	if s := strings.TrimSpace(v.Get("limit")); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 0 {
			return 0, 0, invalid("limit", "%q is not a number from 0", s)
		}
	}
	limit = min(limit, maxLimit)
	if s := strings.TrimSpace(v.Get("offset")); s != "" {
		if offset, err = strconv.Atoi(s); err != nil || offset < 0 {
			return 0, 0, invalid("offset", "%q is not a number from 0", s)
		}
	}
	if offset > maxOffset {
		return 0, 0, invalid("offset", "at most %d", maxOffset)
	}
	return offset, limit, nil
}

// Children answers GET /v1/species/{key}/children: the accepted usages
// whose parent is key, by rank then scientific name, as GBIF's.
func (s *Service) Children(_ context.Context, keyParam string, v url.Values) (Page, error) {
	return s.list(keyParam, v, func(t taxonomy.Taxonomy, k int64) []*taxonomy.Usage {
		c := t.Children(k)
		slices.SortStableFunc(c, func(a, b *taxonomy.Usage) int {
			return cmp.Or(cmp.Compare(a.Rank, b.Rank), strings.Compare(a.ScientificName, b.ScientificName))
		})
		return c
	})
}

// Synonyms answers GET /v1/species/{key}/synonyms, by scientific name.
func (s *Service) Synonyms(_ context.Context, keyParam string, v url.Values) (Page, error) {
	return s.list(keyParam, v, func(t taxonomy.Taxonomy, k int64) []*taxonomy.Usage {
		c := t.Synonyms(k)
		slices.SortStableFunc(c, func(a, b *taxonomy.Usage) int { return strings.Compare(a.ScientificName, b.ScientificName) })
		return c
	})
}

func (s *Service) list(keyParam string, v url.Values, of func(taxonomy.Taxonomy, int64) []*taxonomy.Usage) (Page, error) {
	k, err := parseKey(keyParam)
	if err != nil {
		return Page{}, err
	}
	offset, limit, err := paging(v, DefaultLimit, MaxLimit, MaxOffset)
	if err != nil {
		return Page{}, err
	}
	p := Page{Offset: offset, Limit: limit, Results: []NameUsage{}}
	err = s.with(func(t taxonomy.Taxonomy) error {
		if t.Usage(k) == nil {
			return notFound(k)
		}
		all := of(t, k)
		for i := offset; i < len(all) && i < offset+limit; i++ {
			p.Results = append(p.Results, nameUsage(t, all[i]))
		}
		p.EndOfRecords = offset+limit >= len(all)
		return nil
	})
	return p, err
}

// Parents answers GET /v1/species/{key}/parents: the ancestors, root
// first. A synonym's are its accepted usage's ancestors without the
// accepted usage, as GBIF's (its parentKey is the accepted's parent).
func (s *Service) Parents(_ context.Context, keyParam string) ([]NameUsage, error) {
	k, err := parseKey(keyParam)
	if err != nil {
		return nil, err
	}
	out := []NameUsage{}
	err = s.with(func(t taxonomy.Taxonomy) error {
		if t.Usage(k) == nil {
			return notFound(k)
		}
		cl := t.Classification(k)
		for _, p := range cl[:max(0, len(cl)-1)] {
			if u := t.Usage(p.Key); u != nil {
				out = append(out, nameUsage(t, u))
			}
		}
		return nil
	})
	return out, err
}

// Suggest answers GET /v1/species/suggest: usages whose canonical name
// starts with q, ranked as GBIF's suggest ranks them (the name itself
// first, accepted before synonyms, higher ranks first, then by name), from
// a pool of the first MaxSuggestOffset names.
func (s *Service) Suggest(_ context.Context, v url.Values) ([]SuggestResult, error) {
	q := strings.TrimSpace(v.Get("q"))
	if q == "" {
		return nil, invalid("q", "required")
	}
	var rank taxonomy.Rank
	if r := strings.TrimSpace(v.Get("rank")); r != "" {
		var ok bool
		if rank, ok = taxonomy.ParseRank(r); !ok {
			return nil, invalid("rank", "unknown rank %q", r)
		}
	}
	offset, limit, err := paging(v, DefaultLimit, MaxSuggest, MaxSuggestOffset)
	if err != nil {
		return nil, err
	}
	if offset+limit > MaxSuggestOffset {
		return nil, invalid("offset", "offset+limit at most %d", MaxSuggestOffset)
	}
	out := []SuggestResult{}
	err = s.with(func(t taxonomy.Taxonomy) error {
		pool := t.Suggest(q, MaxSuggestOffset)
		if rank != taxonomy.RankUnknown {
			pool = slices.DeleteFunc(pool, func(u *taxonomy.Usage) bool { return u.Rank != rank })
		}
		slices.SortStableFunc(pool, func(a, b *taxonomy.Usage) int {
			exact := func(u *taxonomy.Usage) bool { return strings.EqualFold(u.CanonicalName, q) }
			syn := func(u *taxonomy.Usage) bool { return u.AcceptedKey != 0 }
			return cmp.Or(-cmpBool(exact(a), exact(b)), cmpBool(syn(a), syn(b)), cmp.Compare(a.Rank, b.Rank),
				strings.Compare(a.CanonicalName, b.CanonicalName), cmp.Compare(a.Key, b.Key))
		})
		for i := offset; i < len(pool) && i < offset+limit; i++ {
			out = append(out, suggestion(t, pool[i]))
		}
		return nil
	})
	return out, err
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func suggestion(t taxonomy.Taxonomy, u *taxonomy.Usage) SuggestResult {
	nu := nameUsage(t, u)
	return SuggestResult{Key: u.Key, NubKey: nu.NubKey, classified: nu.classified, ParentKey: nu.ParentKey, Parent: nu.Parent,
		ScientificName: u.ScientificName, CanonicalName: u.CanonicalName, Rank: nu.Rank, Status: nu.TaxonomicStatus,
		Synonym: u.AcceptedKey != 0}
}

// TaxonKey is the key an occurrence search puts in place of a scientific
// name, as GBIF's occurrence search does (OccurrenceSearchEsImpl
// replaceScientificNamesWithTaxonKeys): the name is matched, not strictly,
// and only an exact match counts; the key is the accepted usage's (a
// synonym's accepted name), else the usage's. ok is false when the name
// has no exact match, and also when there is no taxonomy yet (an empty
// table's derived one): the search then compares the name as text.
func (s *Service) TaxonKey(ctx context.Context, name string) (key int64, ok bool, err error) {
	m, err := s.match(ctx, url.Values{"name": {name}}) // /species/match's, strict=false
	if errors.Is(err, ErrNoTaxonomy) {
		return 0, false, nil
	}
	if err != nil || m.Type != taxonomy.MatchExact || m.Usage == nil {
		return 0, false, err
	}
	if m.Accepted != nil {
		return m.Accepted.Key, true, nil
	}
	return m.Usage.Key, true, nil
}
