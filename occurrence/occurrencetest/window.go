package occurrencetest

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// checkWindows checks ScanRequest.Skip and Limit split by split: for every
// split and a few predicates, a windowed ScanSplit emits exactly the
// matches [Skip, Skip+Limit) of the split's unwindowed scan, in its order,
// with the requested columns or as counts only, and RowsMatched counts the
// emitted rows. These are the early-terminating ordered scans of a search
// page.
func checkWindows(t *testing.T, tbl occurrence.Table) {
	ctx := context.Background()
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{occurrence.ColGBIFID, occurrence.ColCountryCode, occurrence.ColYear}
	windows := 0
	for _, js := range []string{"", predicates[0], predicates[13], predicates[29]} {
		var pred *occurrence.Predicate
		if js != "" {
			pred = mustParse(t, js)
		}
		for _, split := range snap.Splits {
			full := splitIDs(t, tbl, split, occurrence.ScanRequest{Predicate: pred, Columns: cols})
			n := int64(len(full))
			for _, w := range [][2]int64{{0, 1}, {0, n + 5}, {1, 0}, {n / 3, n / 3}, {n - 1, 5}, {n, 3}, {n + 10, 0}, {n / 2, 1}} {
				skip, limit := max(w[0], 0), max(w[1], 0)
				want := full[min(skip, n):]
				if limit > 0 {
					want = want[:min(limit, int64(len(want)))]
				}
				req := occurrence.ScanRequest{Predicate: pred, Columns: cols, Skip: skip, Limit: limit}
				got := splitIDs(t, tbl, split, req)
				if !slices.Equal(got, want) {
					t.Fatalf("%s split %d (%d matches) skip %d limit %d: %d rows %v, want %d %v",
						js, split.Index, n, skip, limit, len(got), head(got), len(want), head(want))
				}
				req.Columns = []string{}
				var rows int64
				st, err := tbl.ScanSplit(ctx, split, req, func(b arrow.RecordBatch) error {
					rows += b.NumRows()
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if rows != int64(len(want)) || st.RowsMatched != rows {
					t.Fatalf("%s split %d count-only skip %d limit %d: %d rows (RowsMatched %d), want %d",
						js, split.Index, skip, limit, rows, st.RowsMatched, len(want))
				}
				if len(want) > 0 {
					windows++
				}
			}
		}
	}
	if windows == 0 {
		t.Fatal("no window had rows: nothing compared")
	}
}

// splitIDs scans one split and returns the gbifIDs it emitted, checking
// that RowsMatched counts them.
func splitIDs(t testing.TB, tbl occurrence.Table, split occurrence.Split, req occurrence.ScanRequest) []int64 {
	t.Helper()
	var ids []int64
	st, err := tbl.ScanSplit(context.Background(), split, req, func(b arrow.RecordBatch) error {
		col := b.Column(b.Schema().FieldIndices(occurrence.ColGBIFID)[0]).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			ids = append(ids, col.Value(i))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.RowsMatched != int64(len(ids)) {
		t.Fatalf("split %d: RowsMatched %d, %d rows emitted", split.Index, st.RowsMatched, len(ids))
	}
	return ids
}

func head(ids []int64) []int64 { return ids[:min(len(ids), 5)] }
