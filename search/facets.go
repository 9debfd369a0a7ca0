package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Facet is one facet of a search response, as GBIF writes it.
type Facet struct {
	Field  string       `json:"field"`
	Counts []FacetCount `json:"counts"`
}

// FacetCount is one value of a facet and its number of records.
type FacetCount struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

// facetKey resolves a facet name. Every search parameter can be a facet
// except geometry and geoDistance (as in GBIF) and those over decimal
// numbers and dates (coordinates, elevation, eventDate, lastInterpreted,
// modified), whose values are too many to count one by one: ask for
// ranges with the search parameters instead.
func facetKey(name string) (occurrence.SearchKey, error) {
	k, ok := occurrence.LookupSearchKey(name)
	if ok && facetable(k) {
		return k, nil
	}
	return occurrence.SearchKey{}, fmt.Errorf("%w: facet %q is not supported (facets: %s)", ErrInvalidRequest, name, strings.Join(FacetKeys(), ", "))
}

func facetable(k occurrence.SearchKey) bool {
	if len(k.Columns) == 0 {
		return false
	}
	for _, c := range k.Columns {
		col, _, ok := occurrence.ColumnByName(c)
		if !ok || col.Kind == occurrence.KindFloat64 || col.Kind == occurrence.KindTimestamp {
			return false
		}
	}
	return true
}

// FacetKeys lists the search parameters that can be facets.
func FacetKeys() []string {
	var out []string
	for _, name := range occurrence.SearchKeys() {
		if k, ok := occurrence.LookupSearchKey(name); ok && facetable(k) {
			out = append(out, name)
		}
	}
	return out
}

// facetCounter counts the values of one facet's columns.
type facetCounter struct {
	key   occurrence.SearchKey
	multi bool // ";"-joined lists: each element counts
	strs  map[string]int64
	ints  map[int64]int64
	bools [2]int64
	// scratch for records whose several columns hold the same value
	seen []int64
	// dense is a reused counting slice (dictionary indices, small ranges)
	dense []int64
}

func newFacetCounter(k occurrence.SearchKey) *facetCounter {
	c := &facetCounter{key: k, strs: map[string]int64{}, ints: map[int64]int64{}}
	col, _, _ := occurrence.ColumnByName(k.Columns[0])
	c.multi = col.Kind == occurrence.KindMulti
	return c
}

// add counts the facet's values in batch b.
func (c *facetCounter) add(b arrow.RecordBatch) {
	s := b.Schema()
	cols := make([]arrow.Array, len(c.key.Columns))
	for i, name := range c.key.Columns {
		cols[i] = b.Column(s.FieldIndices(name)[0])
	}
	if len(cols) > 1 {
		c.addRows(cols)
		return
	}
	switch a := cols[0].(type) {
	case *array.Dictionary:
		c.addDictionary(a)
	case *array.String:
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) {
				c.addString(a.Value(i), 1)
			}
		}
	case *array.Int32:
		addInts(c, a.Len(), a.IsValid, func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int64:
		addInts(c, a.Len(), a.IsValid, a.Value)
	case *array.Boolean:
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) {
				if a.Value(i) {
					c.bools[1]++
				} else {
					c.bools[0]++
				}
			}
		}
	}
}

// addDictionary counts a dictionary-encoded string column by index, then
// each used dictionary value once.
func (c *facetCounter) addDictionary(a *array.Dictionary) {
	idx, ok1 := a.Indices().(*array.Int32)
	dict, ok2 := a.Dictionary().(*array.String)
	if !ok1 || !ok2 {
		return
	}
	if dict.Len() > 4*idx.Len() {
		// A large dictionary (a high-cardinality column): count rows.
		for i := 0; i < idx.Len(); i++ {
			if idx.IsValid(i) {
				c.addString(dict.Value(int(idx.Value(i))), 1)
			}
		}
		return
	}
	n := c.scratch(dict.Len())
	for i := 0; i < idx.Len(); i++ {
		if idx.IsValid(i) {
			n[idx.Value(i)]++
		}
	}
	for j, k := range n {
		if k > 0 {
			c.addString(dict.Value(j), k)
		}
	}
}

// scratch returns a zeroed counting slice of n entries, reused.
func (c *facetCounter) scratch(n int) []int64 {
	if cap(c.dense) < n {
		c.dense = make([]int64, n)
	}
	c.dense = c.dense[:n]
	clear(c.dense)
	return c.dense
}

// addInts counts an integer column: into a dense slice when the batch's
// values span a small range (years, months: no map operation per row),
// else into the map.
func addInts(c *facetCounter, n int, valid func(int) bool, value func(int) int64) {
	lo, hi, seen := int64(0), int64(0), false
	for i := 0; i < n; i++ {
		if valid(i) {
			v := value(i)
			if !seen || v < lo {
				lo = v
			}
			if !seen || v > hi {
				hi = v
			}
			seen = true
		}
	}
	if !seen {
		return
	}
	if hi-lo >= 1<<16 {
		for i := 0; i < n; i++ {
			if valid(i) {
				c.ints[value(i)]++
			}
		}
		return
	}
	d := c.scratch(int(hi-lo) + 1)
	for i := 0; i < n; i++ {
		if valid(i) {
			d[value(i)-lo]++
		}
	}
	for j, k := range d {
		if k > 0 {
			c.ints[lo+int64(j)] += k
		}
	}
}

func (c *facetCounter) addString(v string, n int64) {
	if v == "" {
		return
	}
	if !c.multi || !strings.Contains(v, ";") {
		c.strs[v] += n
		return
	}
	parts := strings.Split(v, ";")
	for i, p := range parts {
		if p != "" && !slices.Contains(parts[:i], p) {
			c.strs[p] += n
		}
	}
}

// addRows counts records of integer columns once per distinct value
// (TAXON_KEY: a record counts under each taxon of its classification).
func (c *facetCounter) addRows(cols []arrow.Array) {
	for i := 0; i < cols[0].Len(); i++ {
		c.seen = c.seen[:0]
		for _, a := range cols {
			if !a.IsValid(i) {
				continue
			}
			var v int64
			switch a := a.(type) {
			case *array.Int64:
				v = a.Value(i)
			case *array.Int32:
				v = int64(a.Value(i))
			default:
				continue
			}
			if !slices.Contains(c.seen, v) {
				c.seen = append(c.seen, v)
				c.ints[v]++
			}
		}
	}
}

// sorted returns every value with its count, most records first, then by
// value (Elasticsearch's terms order).
func (c *facetCounter) sorted() []FacetCount {
	counts := make([]FacetCount, 0, len(c.strs)+len(c.ints)+2)
	for v, n := range c.strs {
		name := v
		if c.key.Name == "LICENSE" {
			if l, ok := occurrence.LicenseName(v); ok {
				name = l
			}
		}
		counts = append(counts, FacetCount{name, n})
	}
	for v, n := range c.ints {
		counts = append(counts, FacetCount{strconv.FormatInt(v, 10), n})
	}
	for i, n := range c.bools {
		if n > 0 {
			counts = append(counts, FacetCount{strconv.FormatBool(i == 1), n})
		}
	}
	slices.SortFunc(counts, func(a, b FacetCount) int {
		if a.Count != b.Count {
			return cmp.Compare(b.Count, a.Count)
		}
		return strings.Compare(a.Name, b.Name)
	})
	return counts
}

// distinct is how many values the counter holds.
func (c *facetCounter) distinct() int { return len(c.strs) + len(c.ints) + 2 }

// pageFacet applies facetMincount, facetOffset and facetLimit to sorted
// counts.
func pageFacet(counts []FacetCount, f FacetRequest, minCount int64) []FacetCount {
	if minCount > 1 { // sorted by count: the values under minCount are the tail
		counts = counts[:sort.Search(len(counts), func(i int) bool { return counts[i].Count < minCount })]
	}
	counts = counts[min(f.Offset, len(counts)):]
	counts = counts[:min(f.Limit, len(counts))]
	return append([]FacetCount{}, counts...)
}

// facetGroup is the facets counted over the matches of one predicate.
type facetGroup struct {
	pred   *occurrence.Predicate
	facets []int // indices into the request's facets
}

// maxCachedFacetValues bounds the facets kept in the cache: a facet of more
// values (catalog numbers) is counted again when asked again.
const maxCachedFacetValues = 100_000

// facets counts r's facets: one scan of the facet columns over the
// predicate's matches, plus, with facetMultiselect, one scan per facet
// whose own parameter filters the search (without that filter). Counted
// facets are cached per snapshot and predicate, and concurrent searches
// asking for the same ones share one scan. The scans stop at the
// configured deadline and when a facet exceeds MaxFacetValues values.
func (s *Service) facets(ctx context.Context, snap occurrence.Snapshot, r Request) ([]Facet, error) {
	if len(r.Facets) == 0 {
		return nil, nil
	}
	groups, err := s.facetGroups(r)
	if err != nil {
		return nil, err
	}
	out := make([]Facet, len(r.Facets))
	errc := make(chan error, len(groups))
	for _, g := range groups {
		go func() {
			all, err := s.groupFacets(ctx, snap, r, g)
			if err == nil {
				for _, fi := range g.facets {
					f := r.Facets[fi]
					out[fi] = Facet{Field: f.Key.Name, Counts: pageFacet(all[f.Key.Name], f, r.FacetMincount)}
				}
			}
			errc <- err
		}()
	}
	for range groups {
		if e := <-errc; e != nil && err == nil {
			err = e
		}
	}
	return out, err
}

// groupFacets returns every value of the group's facets (sorted), from the
// cache or one shared scan.
func (s *Service) groupFacets(ctx context.Context, snap occurrence.Snapshot, r Request, g *facetGroup) (map[string][]FacetCount, error) {
	prefix := snap.ID + "\n" + g.pred.String() + "\n"
	all := map[string][]FacetCount{}
	var need []occurrence.SearchKey
	for _, fi := range g.facets {
		k := r.Facets[fi].Key
		if s.facetCache != nil {
			if v, ok := s.facetCache.Get(prefix + k.Name); ok {
				all[k.Name] = v
				continue
			}
		}
		need = append(need, k)
	}
	if len(need) == 0 {
		return all, nil
	}
	names := make([]string, len(need))
	for i, k := range need {
		names[i] = k.Name
	}
	ch := s.flight.DoChan(prefix+strings.Join(names, ","), func() (any, error) {
		// Detached from the first asker: the others may still wait, and
		// the result is cached. The deadline bounds it.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.FacetTimeout)
		defer cancel()
		return s.countFacets(fctx, snap, g.pred, need)
	})
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		for name, v := range res.Val.(map[string][]FacetCount) {
			all[name] = v
			if s.facetCache != nil && len(v) <= maxCachedFacetValues {
				s.facetCache.Add(prefix+name, v)
			}
		}
		return all, nil
	}
}

// facetGroups assigns each facet the predicate it is counted over.
func (s *Service) facetGroups(r Request) ([]*facetGroup, error) {
	byPred := map[string]*facetGroup{}
	var groups []*facetGroup
	for i, f := range r.Facets {
		pred, id := r.Predicate, ""
		if r.FacetMultiselect {
			without, names := url.Values{}, r.names
			for k, v := range r.params {
				if key, ok := occurrence.LookupSearchKey(k); ok && key.Name == f.Key.Name {
					id = f.Key.Name
					continue
				}
				without[k] = v
			}
			if names != nil && f.Key.Name == "SCIENTIFIC_NAME" {
				id, names = f.Key.Name, nil
			}
			if id != "" {
				p, err := s.parsePredicate(without)
				if err != nil {
					return nil, err
				}
				pred = both(both(p, names), r.text)
			}
		}
		g := byPred[id]
		if g == nil {
			g = &facetGroup{pred: pred}
			byPred[id] = g
			groups = append(groups, g)
		}
		g.facets = append(g.facets, i)
	}
	return groups, nil
}

// countFacets scans the facet columns of keys over pred's matches.
func (s *Service) countFacets(ctx context.Context, snap occurrence.Snapshot, pred *occurrence.Predicate, keys []occurrence.SearchKey) (map[string][]FacetCount, error) {
	counters := make([]*facetCounter, len(keys))
	var cols []string
	for i, k := range keys {
		counters[i] = newFacetCounter(k)
		for _, name := range k.Columns {
			if !slices.Contains(cols, name) {
				cols = append(cols, name)
			}
		}
	}
	req := occurrence.ScanRequest{Predicate: pred, Columns: cols, Dictionaries: true}
	_, err := occurrence.Scan(ctx, s.table, snap, req, occurrence.ScanOptions{Workers: s.cfg.Workers}, func(b arrow.RecordBatch) error {
		for _, c := range counters {
			c.add(b)
			if c.distinct() > s.cfg.MaxFacetValues {
				return fmt.Errorf("%w: facet %s has more than %d values", ErrTooExpensive, c.key.Name, s.cfg.MaxFacetValues)
			}
		}
		return nil
	})
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w: counting the facets took longer than %s; ask for fewer facets or narrow the search",
			ErrTooExpensive, s.cfg.FacetTimeout)
	}
	if err != nil {
		return nil, err
	}
	out := make(map[string][]FacetCount, len(keys))
	for _, c := range counters {
		out[c.key.Name] = c.sorted()
	}
	return out, nil
}

// countryTitle is a country's English name (CLDR's), where GBIF writes
// its Country enum's title; the code itself when CLDR has none.
func countryTitle(code string) string {
	r, err := language.ParseRegion(code)
	if err != nil {
		return code
	}
	if name := display.English.Regions().Name(r); name != "" {
		return name
	}
	return code
}
