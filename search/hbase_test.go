package search

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// TestHBase runs pages, a facet and lookups by id against the HBase
// table (scripts/hbase/start.sh): the same answers as the ordered scan,
// records found through the id's bucket (IDSplitter).
func TestHBase(t *testing.T) {
	master := testenv.HBaseMaster(t)
	ctx := context.Background()
	tbl, err := hbase.OpenConfig(ctx, hbase.Config{Master: master, Table: fmt.Sprintf("search_test_%d", time.Now().UnixNano()%1e12), Buckets: 6},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tbl.Drop(context.Background()); err != nil {
			t.Error(err)
		}
		tbl.Close()
	})
	occurrencetest.Load(t, tbl, 3000, 4)
	var _ IDSplitter = tbl
	s := New(tbl, Config{}, nil)
	for _, query := range []string{"", "country=NL", "year=1980,2010"} {
		r := mustRequest(t, s, query+"&facet=country")
		want := orderedIDs(t, tbl, r.Predicate)
		for _, pg := range [][2]int{{0, 20}, {len(want) / 2, 30}} {
			res := searchPage(t, s, r, pg, want)
			var sum int64
			for _, fc := range res.Facets[0].Counts {
				sum += fc.Count
			}
			if sum == 0 || sum > res.Count {
				t.Fatalf("%q: country facet sums to %d of %d", query, sum, res.Count)
			}
		}
	}
	// A full-text search: ranked by the words a record holds, read
	// through the HBase scan's verbatim and name columns.
	r := mustRequest(t, s, "q=Coniferous+forest")
	want, groups := rankedIDs(t, tbl, r.Words, nil)
	if groups < 2 {
		t.Fatalf("q: %d records in %d groups: the test data does not exercise it", len(want), groups)
	}
	for _, pg := range [][2]int{{0, 20}, {len(want) / 2, 30}} {
		searchPage(t, s, r, pg, want)
	}
	ids := orderedIDs(t, tbl, nil)
	for _, id := range []int64{ids[0], ids[len(ids)-1]} {
		if _, err := s.Record(ctx, id, Interpreted); err != nil {
			t.Fatalf("get %d: %v", id, err)
		}
		if _, err := s.Record(ctx, id, Verbatim); err != nil {
			t.Fatalf("verbatim %d: %v", id, err)
		}
	}
	if _, err := s.Record(ctx, slices.Max(ids)+1, Interpreted); err == nil {
		t.Fatal("an unknown id was found")
	}
	got, err := s.Suggest(ctx, "recordedBy", "b", 9)
	if want := expectedSuggestions(columnValues(t, tbl, occurrence.ColRecordedBy), "b", 9); err != nil || len(got) == 0 || !slices.Equal(got, want) {
		t.Fatalf("suggestions: %q %v, want %q", got, err, want)
	}
}
