package occurrence

import (
	"fmt"
	"testing"
)

// BenchmarkBuilder appends 65,536 records of a publisher's width (about
// sixty of the schema's columns filled: identifiers, text, numbers, dates)
// and takes them as a batch, as the table writer does for a row group.
func BenchmarkBuilder(b *testing.B) {
	recs := make([]*Record, 256)
	for i := range recs {
		r := NewRecord()
		for c, col := range columns {
			if c%4 != 0 {
				continue
			}
			switch col.Kind {
			case KindString:
				r.SetString(c, fmt.Sprintf("%s value %d", col.Name, i%37))
			case KindFloat64:
				r.SetFloat(c, float64(i)/7)
			case KindBool:
				r.SetBool(c, i%2 == 0)
			default:
				r.SetInt(c, int64(i))
			}
		}
		recs[i] = r
	}
	bld := newBenchBuilder()
	b.ReportAllocs()
	for b.Loop() {
		for i := range 65536 {
			bld.Append(recs[i%len(recs)])
		}
		bld.NewBatch().Release()
	}
	b.ReportMetric(float64(b.N)*65536/b.Elapsed().Seconds(), "records/s")
}
