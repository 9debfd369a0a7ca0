package parquet

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// TestGatherIntoMatchesBuilder: every column of a shuffled window of three
// batches (some columns full, some with nulls, some all null) gathered
// into reused buffers equals the same rows appended through an Arrow
// builder, also after the buffers served the other columns and a larger
// row group.
func TestGatherIntoMatchesBuilder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var window []windowBatch
	for bi, rows := range []int{37, 1, 64} {
		b := occurrence.NewBuilder()
		for r := range rows {
			rec := occurrence.NewRecord()
			for c, col := range occurrence.Columns() {
				if c%5 == 4 || (c%5 == 3 && rng.IntN(3) == 0) {
					continue // all null, or some nulls
				}
				switch col.Kind {
				case occurrence.KindString:
					rec.SetString(c, fmt.Sprintf("b%d-r%d-%s", bi, r, col.Name[:1+rng.IntN(len(col.Name))]))
				case occurrence.KindFloat64:
					rec.SetFloat(c, rng.Float64())
				case occurrence.KindBool:
					rec.SetBool(c, rng.IntN(2) == 0)
				default:
					rec.SetInt(c, int64(rng.IntN(1<<20)))
				}
			}
			b.Append(rec)
		}
		window = append(window, newWindowBatch(b.NewBatch()))
		b.Release()
	}
	var all []rowRef
	for i, wb := range window {
		for r := range wb.rows {
			all = append(all, rowRef{int32(i), int32(r)})
		}
	}
	var g gatherBufs
	for round, n := range []int{len(all), 20, len(all)} {
		refs := append([]rowRef(nil), all...)
		rng.Shuffle(len(refs), func(i, j int) { refs[i], refs[j] = refs[j], refs[i] })
		refs = refs[:n]
		for c := range occurrence.Columns() {
			src := make([]arrow.Array, len(window))
			for i := range window {
				src[i] = window[i].cols[c]
			}
			bld := array.NewBuilder(memory.DefaultAllocator, occurrence.Schema().Field(c).Type)
			gatherColumn(bld, src, refs)
			want := bld.NewArray()
			bld.Release()
			got := gatherInto(&g, window, c, refs)
			if !array.Equal(got, want) {
				t.Fatalf("round %d column %s: gathered %v, want %v", round, occurrence.Columns()[c].Name, got, want)
			}
			if got.NullN() != want.NullN() {
				t.Fatalf("round %d column %s: %d nulls, want %d", round, occurrence.Columns()[c].Name, got.NullN(), want.NullN())
			}
			got.Release()
			want.Release()
		}
	}
}
