package download

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
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
	defer func(m int) { minHalvesRows = m }(minHalvesRows)
	for _, spec := range textSpecs {
		t.Run(string(spec.Format), func(t *testing.T) {
			minHalvesRows = 1 << 30
			want := exportBatches(t, spec, batches)
			minHalvesRows = 2
			sameEntries(t, exportBatches(t, spec, batches), want)
		})
	}
}
