package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// suggestNames are GBIF's occurrence suggest routes,
// /occurrence/search/{name}?q=&limit= (gbif-common-ws OccurrencePaths), each
// also the name of the search parameter whose values it suggests.
var suggestNames = []string{
	"catalogNumber", "collectionCode", "datasetName", "eventId", "identifiedBy", "institutionCode",
	"locality", "occurrenceId", "organismId", "otherCatalogNumbers", "parentEventId", "recordedBy",
	"recordNumber", "samplingProtocol", "stateProvince", "waterBody",
}

// SuggestNames lists the suggest routes' names as GBIF's paths spell them.
func SuggestNames() []string { return slices.Clone(suggestNames) }

// Suggest answers GBIF's /occurrence/search/{name}?q=prefix&limit=n: up
// to limit distinct values of the parameter's column that start with
// prefix, compared case-insensitively, each value once. GBIF asks
// Elasticsearch's completion suggester, whose suggestions of equal weight
// come in the order of their lower-cased form; these come in that order
// too (then by the value itself). Each element of a list column
// (recordedBy, identifiedBy) is a value of its own. The one column is
// scanned whole, under the facets' deadline; memory is limit values.
// Answers are kept per snapshot like facets (a portal asks the same first
// letters again and again), and concurrent identical asks share one scan.
func (s *Service) Suggest(ctx context.Context, name, prefix string, limit int) ([]string, error) {
	if !slices.Contains(suggestNames, name) {
		return nil, fmt.Errorf("%w: no suggestions for %q (suggested: %s)", ErrNotFound, name, strings.Join(suggestNames, ", "))
	}
	k, ok := occurrence.LookupSearchKey(name)
	if !ok || len(k.Columns) == 0 {
		return nil, fmt.Errorf("%w: the table has no column for %q", ErrNotFound, name)
	}
	if limit < 1 {
		return nil, fmt.Errorf("%w: limit must be at least 1, got %d", ErrInvalidRequest, limit)
	}
	limit = min(limit, s.cfg.MaxLimit)
	snap, err := s.table.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("suggest\n%s\n%s\n%d\n%s", snap.ID, name, limit, prefix)
	if s.suggestCache != nil {
		if v, ok := s.suggestCache.Get(key); ok {
			return slices.Clone(v), nil
		}
	}
	ch := s.flight.DoChan(key, func() (any, error) {
		// Detached from the first asker, as facet scans are: the others
		// may still wait, and the answer is kept.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.FacetTimeout)
		defer cancel()
		out, err := s.suggest(sctx, snap, k, prefix, limit)
		if err == nil && s.suggestCache != nil {
			s.suggestCache.Add(key, out)
		}
		return out, err
	})
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case res := <-ch:
		if errors.Is(res.Err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: suggesting %s values took longer than %s", ErrTooExpensive, name, s.cfg.FacetTimeout)
		}
		if res.Err != nil {
			return nil, res.Err
		}
		return slices.Clone(res.Val.([]string)), nil
	}
}

// suggest scans snap for Suggest.
func (s *Service) suggest(ctx context.Context, snap occurrence.Snapshot, k occurrence.SearchKey, prefix string, limit int) ([]string, error) {
	col, _, _ := occurrence.ColumnByName(k.Columns[0])
	top := &suggestions{prefix: prefix, limit: limit, multi: col.Kind == occurrence.KindMulti}
	req := occurrence.ScanRequest{Columns: k.Columns, Dictionaries: true}
	_, err := occurrence.Scan(ctx, s.table, snap, req, occurrence.ScanOptions{Workers: s.cfg.Workers}, func(b arrow.RecordBatch) error {
		for _, c := range b.Columns() {
			top.add(c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(top.values))
	for i, v := range top.values {
		out[i] = v.value
	}
	return out, nil
}

// suggestions keeps the first limit distinct values with the prefix, in
// suggestion order.
type suggestions struct {
	prefix string
	limit  int
	multi  bool // ";"-joined lists: each element is a value
	values []suggestion
	used   []bool // scratch: dictionary entries a batch uses
}

type suggestion struct{ folded, value string }

func (t *suggestions) add(a arrow.Array) {
	switch a := a.(type) {
	case *array.String:
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) {
				t.consider(a.Value(i))
			}
		}
	case *array.Dictionary:
		// Only the entries the batch's rows use: a page's dictionary may
		// hold values of rows the scan left out.
		idx, ok1 := a.Indices().(*array.Int32)
		dict, ok2 := a.Dictionary().(*array.String)
		if !ok1 || !ok2 {
			return
		}
		if cap(t.used) < dict.Len() {
			t.used = make([]bool, dict.Len())
		}
		used := t.used[:dict.Len()]
		clear(used)
		for i := 0; i < idx.Len(); i++ {
			if idx.IsValid(i) {
				used[idx.Value(i)] = true
			}
		}
		for j, u := range used {
			if u {
				t.consider(dict.Value(j))
			}
		}
	}
}

// consider offers a cell's value (or each element of a list).
func (t *suggestions) consider(v string) {
	if !t.multi || !strings.Contains(v, ";") {
		t.offer(v)
		return
	}
	for _, e := range strings.Split(v, ";") {
		t.offer(e)
	}
}

func (t *suggestions) offer(v string) {
	if v == "" || !hasPrefixFold(v, t.prefix) {
		return
	}
	s := suggestion{folded: strings.ToLower(v), value: v}
	full := len(t.values) == t.limit
	if full && compareSuggestions(s, t.values[len(t.values)-1]) >= 0 {
		return
	}
	i, found := slices.BinarySearchFunc(t.values, s, compareSuggestions)
	if found {
		return
	}
	if full {
		t.values = t.values[:len(t.values)-1]
	}
	t.values = slices.Insert(t.values, i, s)
}

// compareSuggestions is the suggestion order: lower-cased form, then value.
func compareSuggestions(a, b suggestion) int {
	if c := strings.Compare(a.folded, b.folded); c != 0 {
		return c
	}
	return strings.Compare(a.value, b.value)
}

// hasPrefixFold reports whether s starts with prefix under Unicode simple
// case folding.
func hasPrefixFold(s, prefix string) bool {
	for _, pr := range prefix {
		if s == "" {
			return false
		}
		sr, n := utf8.DecodeRuneInString(s)
		if !foldEqual(sr, pr) {
			return false
		}
		s = s[n:]
	}
	return true
}

func foldEqual(a, b rune) bool {
	if a == b {
		return true
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}
