package search

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// columnValues is the independent answer: every value of a column by a
// plain scan (no dictionaries), each list element on its own.
func columnValues(t *testing.T, tbl occurrence.Table, col string) []string {
	t.Helper()
	ctx := context.Background()
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	_, err = occurrence.Scan(ctx, tbl, snap, occurrence.ScanRequest{Columns: []string{col}}, occurrence.ScanOptions{}, func(b arrow.RecordBatch) error {
		a := b.Column(0).(*array.String)
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) && a.Value(i) != "" {
				out = append(out, strings.Split(a.Value(i), ";")...)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// expectedSuggestions filters, orders (lower-cased form, then value),
// deduplicates and cuts values as the suggest routes promise.
func expectedSuggestions(values []string, prefix string, limit int) []string {
	var keep []string
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(prefix)) {
			keep = append(keep, v)
		}
	}
	slices.SortFunc(keep, func(a, b string) int {
		if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	keep = slices.Compact(keep)
	return keep[:min(limit, len(keep))]
}

// TestSuggest: the suggest routes' values are the column's distinct values
// with the prefix, in the completion suggester's order, cut at limit; a
// prefix matches whatever its case.
func TestSuggest(t *testing.T) {
	tbl := table(t)
	s := New(tbl, Config{}, nil)
	ctx := context.Background()
	for _, c := range []struct {
		name, col, prefix string
		limit             int
	}{
		{"recordedBy", occurrence.ColRecordedBy, "b", 7},
		{"recordedBy", occurrence.ColRecordedBy, "", 5},
		{"catalogNumber", occurrence.ColCatalogNumber, "c-00001", 20},
		{"catalogNumber", occurrence.ColCatalogNumber, "C-0000", 3},
		{"locality", occurrence.ColLocality, "", 300},
		{"occurrenceId", occurrence.ColOccurrenceID, "zzz-none", 4},
	} {
		got, err := s.Suggest(ctx, c.name, c.prefix, c.limit)
		if err != nil {
			t.Fatalf("%s %q: %v", c.name, c.prefix, err)
		}
		want := expectedSuggestions(columnValues(t, tbl, c.col), c.prefix, c.limit)
		if !slices.Equal(got, want) {
			t.Errorf("%s q=%q limit=%d:\n got %q\nwant %q", c.name, c.prefix, c.limit, got, want)
		}
		if c.prefix != "zzz-none" && len(got) == 0 {
			t.Errorf("%s q=%q: no suggestions: the case proves nothing", c.name, c.prefix)
		}
	}
	if _, err := s.Suggest(ctx, "country", "D", 3); !errors.Is(err, ErrNotFound) {
		t.Errorf("country is no suggest route: %v", err)
	}
	if _, err := s.Suggest(ctx, "recordedBy", "D", 0); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("limit 0: %v", err)
	}
	if got, _ := s.Suggest(ctx, "locality", "", 100000); len(got) > DefaultMaxLimit {
		t.Errorf("limit not lowered to %d: %d values", DefaultMaxLimit, len(got))
	}
}

// TestSuggestionsOfLists: each element of a list column is a value of its
// own, a dictionary's entries count only when a row uses them, and case
// folding is Unicode's.
func TestSuggestionsOfLists(t *testing.T) {
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	defer sb.Release()
	sb.AppendValues([]string{"Hansen, J.;Olsen, K.", "olsen, A.", "Ølund, P.;hansen, J.", "Olsen, K."}, nil)
	sb.AppendNull()
	strs := sb.NewStringArray()
	defer strs.Release()
	top := &suggestions{prefix: "o", limit: 10, multi: true}
	top.add(strs)
	if got, want := values(top), []string{"olsen, A.", "Olsen, K."}; !slices.Equal(got, want) {
		t.Fatalf("o: %q, want %q", got, want)
	}
	top = &suggestions{prefix: "ø", limit: 10, multi: true}
	top.add(strs)
	if got := values(top); !slices.Equal(got, []string{"Ølund, P."}) {
		t.Fatalf("ø: %q", got)
	}
	top = &suggestions{prefix: "H", limit: 1, multi: true}
	top.add(strs)
	if got := values(top); !slices.Equal(got, []string{"Hansen, J."}) { // ties on "hansen, j.": by value
		t.Fatalf("H limit 1: %q", got)
	}

	// A dictionary whose entry "Zeta" no row uses.
	db := array.NewDictionaryBuilder(memory.DefaultAllocator, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	defer db.Release()
	for _, v := range []string{"Zebra", "Zeta", "Zebu"} {
		if err := db.AppendString(v); err != nil {
			t.Fatal(err)
		}
	}
	full := db.NewDictionaryArray()
	defer full.Release()
	idx := array.NewInt32Builder(memory.DefaultAllocator)
	defer idx.Release()
	idx.AppendValues([]int32{0, 2, 0}, nil)
	ia := idx.NewInt32Array()
	defer ia.Release()
	d := array.NewDictionaryArray(full.DataType(), ia, full.Dictionary())
	defer d.Release()
	top = &suggestions{prefix: "ze", limit: 10}
	top.add(d)
	if got := values(top); !slices.Equal(got, []string{"Zebra", "Zebu"}) {
		t.Fatalf("dictionary: %q", got)
	}
}

func values(t *suggestions) []string {
	var out []string
	for _, v := range t.values {
		out = append(out, v.value)
	}
	return out
}

// TestSuggestionsAreKept: an answer is kept for its snapshot, field,
// prefix and limit (a portal asks the same first letters again), so the
// same ask scans nothing the second time; another ask scans; without the
// cache every ask scans.
func TestSuggestionsAreKept(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		cache int
		again bool // the same ask scans again
	}{{0, false}, {-1, true}} {
		ct := &countingTable{Table: table(t)}
		s := New(ct, Config{Cache: c.cache}, nil)
		first, err := s.Suggest(ctx, "recordedBy", "b", 5)
		if err != nil || len(first) == 0 {
			t.Fatalf("suggestions %q: %v", first, err)
		}
		scans := ct.scans.Load()
		again, _ := s.Suggest(ctx, "recordedBy", "b", 5)
		if !slices.Equal(again, first) || (ct.scans.Load() != scans) != c.again {
			t.Fatalf("cache %d: the same ask again gave %q after %d split scans (%d before)", c.cache, again, ct.scans.Load(), scans)
		}
		again[0] = "changed by the caller"
		if kept, _ := s.Suggest(ctx, "recordedBy", "b", 5); kept[0] != first[0] {
			t.Fatalf("a caller changed the kept answer: %q", kept)
		}
		scans = ct.scans.Load()
		if _, err := s.Suggest(ctx, "recordedBy", "c", 5); err != nil || ct.scans.Load() == scans {
			t.Fatalf("another prefix scanned %d splits: %v", ct.scans.Load()-scans, err)
		}
	}
}
