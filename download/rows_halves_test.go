package download

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/dwca"
)

// TestRowHalvesWriteTheSame writes the test records (tricky localities,
// verbatim terms, multimedia) with every batch's rows split between two
// goroutines and with one goroutine, plain and dictionary-encoded: every
// entry of every text format must be byte-identical.
func TestRowHalvesWriteTheSame(t *testing.T) {
	plain := testRecords(t, 1000)
	whole := plain[0]
	defer whole.Release()
	dict := dictionaryEncoded(t, whole)
	defer dict.Release()
	batches := []arrow.RecordBatch{whole, dict, whole.NewSlice(1, 6)}
	defer batches[2].Release()
	defer func(m, p int) { minHalvesRows, halvesPiece = m, p }(minHalvesRows, halvesPiece)
	for _, spec := range textSpecs {
		t.Run(string(spec.Format), func(t *testing.T) {
			minHalvesRows = 1 << 30
			want := exportBatches(t, spec, batches)
			minHalvesRows, halvesPiece = 2, 2
			sameEntries(t, exportBatches(t, spec, batches), want)
		})
	}
}

// TestRowHalvesShares writes batches of several sizes with the calling
// goroutine held on its first row until the helper has built one (unless
// the helper took every piece): the helper's pieces and the caller's must
// come out in row order. rowHalves shares nothing below GOMAXPROCS 2,
// where the held caller would wait for ever (go test -cpu 1, a one-CPU
// machine): the test runs at 2 at least.
func TestRowHalvesShares(t *testing.T) {
	if p := runtime.GOMAXPROCS(0); p < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	h := newRowHalves()
	for _, n := range []int{minHalvesRows, 1000, 1023, 5000} {
		var out bytes.Buffer
		rw := dwca.NewTextWriter(&out)
		helped := make(chan struct{})
		var helper atomic.Int64
		row := func(buf []byte, i int) []byte {
			return append(strconv.AppendInt(append(buf, "row "...), int64(i), 10), '\n')
		}
		first := func(buf []byte, i int) []byte {
			if i == 0 {
				<-helped
			}
			return row(buf, i)
		}
		second := func(buf []byte, i int) []byte {
			if helper.Add(1) == 1 {
				close(helped)
			}
			return row(buf, i)
		}
		if err := h.write(rw, n, first, second); err != nil {
			t.Fatal(err)
		}
		if err := rw.Flush(); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		for i := range n {
			fmt.Fprintf(&want, "row %d\n", i)
		}
		if out.String() != want.String() {
			t.Errorf("%d rows: the text differs from one goroutine's", n)
		}
		if helper.Load() == 0 {
			t.Errorf("%d rows: the helper built none", n)
		}
	}
}

// shareRows calls fn for every row exactly once, across pieces taken by
// both goroutines, for small and shared batches.
func TestShareRowsVisitsEachRowOnce(t *testing.T) {
	for _, n := range []int{0, 1, minHalvesRows - 1, minHalvesRows, 1000, 4097} {
		seen := make([]atomic.Int32, n)
		shareRows(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n %d: row %d visited %d times", n, i, c)
			}
		}
	}
}
