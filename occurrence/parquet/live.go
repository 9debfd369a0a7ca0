package parquet

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// withLiveColumn adds the datasetKey column to a segment row group's
// predicate columns when it has dead rows (segment.go): the scan reads it
// with the predicate's and drops the rows of datasets the snapshot no
// longer holds.
func (sc *splitScan) withLiveColumn(cols []string) []string {
	if sc.live == nil || slices.Contains(cols, occurrence.ColDatasetKey) {
		return cols
	}
	return append(cols, occurrence.ColDatasetKey)
}

// dropDead clears sel for the rows of pb whose dataset is not live.
func (sc *splitScan) dropDead(pb arrow.RecordBatch, sel []bool) {
	if sc.live == nil {
		return
	}
	idx := pb.Schema().FieldIndices(occurrence.ColDatasetKey)
	if len(idx) == 0 {
		clear(sel) // cannot happen: withLiveColumn asked for it
		return
	}
	switch a := pb.Column(idx[0]).(type) {
	case *array.Dictionary:
		dict, ok := a.Dictionary().(*array.String)
		if !ok {
			clear(sel)
			return
		}
		liveEntry := make([]bool, dict.Len())
		for i := range liveEntry {
			liveEntry[i] = dict.IsValid(i) && sc.live[dict.Value(i)]
		}
		for i := range sel {
			if sel[i] && (a.IsNull(i) || !liveEntry[a.GetValueIndex(i)]) {
				sel[i] = false
			}
		}
	case *array.String:
		for i := range sel {
			if sel[i] && (a.IsNull(i) || !sc.live[a.Value(i)]) {
				sel[i] = false
			}
		}
	default:
		clear(sel) // an absent (all-null) column: no row has a dataset
	}
}
