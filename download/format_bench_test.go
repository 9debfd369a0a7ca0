package download

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// benchFields are the SIMPLE_CSV columns the export benchmark writes.
var benchFields = []string{"gbifID", "datasetKey", "occurrenceID", "scientificName", "countryCode", "locality",
	"decimalLatitude", "decimalLongitude", "eventDate", "year", "basisOfRecord", "recordedBy"}

// benchBatches builds n realistic records in batches of 8192.
var benchBatches = sync.OnceValue(func() []arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(1, 1))
	b := occurrence.NewBuilder()
	defer b.Release()
	r := occurrence.NewRecord()
	idx := occurrence.ColumnIndex
	species := []string{"Puma concolor", "Strix aluco", "Bufo bufo", "Quercus robur L.", "Passer domesticus (Linnaeus, 1758)"}
	var out []arrow.RecordBatch
	for i := 0; i < 200_000; i++ {
		r.Reset()
		r.SetInt(idx(occurrence.ColGBIFID), 4_000_000_000+int64(i))
		r.SetString(idx(occurrence.ColDatasetKey), fmt.Sprintf("7ddf754f-d193-4cc9-b351-%012x", i/20000))
		r.SetString(idx(occurrence.ColOccurrenceID), fmt.Sprintf("urn:catalog:MNHN:P:%08d", rng.IntN(1e8)))
		r.SetString(idx(occurrence.ColScientificName), species[rng.IntN(len(species))])
		r.SetString(idx(occurrence.ColCountryCode), []string{"DK", "SE", "NL", "US", "FR"}[rng.IntN(5)])
		r.SetString(idx(occurrence.ColLocality), fmt.Sprintf("%d km N of Village %d, near the river", rng.IntN(50), rng.IntN(3000)))
		r.SetFloat(idx(occurrence.ColDecimalLatitude), float64(rng.IntN(180_00000))/100000-90)
		r.SetFloat(idx(occurrence.ColDecimalLongitude), float64(rng.IntN(360_00000))/100000-180)
		r.SetString(idx(occurrence.ColEventDate), fmt.Sprintf("%d-%02d-%02d", 1950+rng.IntN(75), 1+rng.IntN(12), 1+rng.IntN(28)))
		r.SetInt(idx(occurrence.ColYear), int64(1950+rng.IntN(75)))
		r.SetString(idx(occurrence.ColBasisOfRecord), "HUMAN_OBSERVATION")
		r.SetString(idx(occurrence.ColRecordedBy), fmt.Sprintf("Observer %d", rng.IntN(5000)))
		r.SetString(idx(occurrence.ColLicense), occurrence.LicenseCCBY)
		b.Append(r)
		if b.Len() == 8192 {
			out = append(out, b.NewBatch())
		}
	}
	out = append(out, b.NewBatch())
	return out
})

func benchExport(b *testing.B, w io.Writer) int64 {
	ctx := context.Background()
	x, err := NewExport(ctx, w, ExportSpec{Format: FormatSimpleCSV, Fields: benchFields}, ExportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, rec := range benchBatches() {
		if err := x.Write(ctx, rec); err != nil {
			b.Fatal(err)
		}
	}
	res, err := x.Close(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return res.Bytes
}

// csvBytes is the uncompressed SIMPLE_CSV of the benchmark records.
var csvBytes = sync.OnceValue(func() []byte {
	var tw bytes.Buffer
	t := newTableWriter(mustFields(benchFields))
	t.rw = dwca.NewExclusiveTextWriter(&tw)
	for _, rec := range benchBatches() {
		bt := newBatch(rec)
		t.writeBatch(bt)
	}
	t.rw.Flush()
	return tw.Bytes()
})

func mustFields(names []string) []field {
	f, err := resolveFields(names)
	if err != nil {
		panic(err)
	}
	return f
}

// BenchmarkExportSimpleCSV is the whole format path (formatting, text
// rules, parallel deflate, zip framing); SetBytes is the uncompressed CSV
// so MB/s compares with BenchmarkFloorCSV.
func BenchmarkExportSimpleCSV(b *testing.B) {
	b.SetBytes(int64(len(csvBytes())))
	defer cpuMetric(b)()
	for b.Loop() {
		benchExport(b, io.Discard)
	}
}

// cpuMetric reports the process CPU time (user+system) per op: on a
// machine shared with other work, wall time varies with the load while CPU
// time does not.
func cpuMetric(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFormatOnlyCSV is formatting without compression.
func BenchmarkFormatOnlyCSV(b *testing.B) {
	b.SetBytes(int64(len(csvBytes())))
	fields := mustFields(benchFields)
	defer cpuMetric(b)()
	for b.Loop() {
		t := newTableWriter(fields)
		t.rw = dwca.NewExclusiveTextWriter(io.Discard)
		for _, rec := range benchBatches() {
			bt := newBatch(rec)
			t.writeBatch(bt)
		}
		t.rw.Flush()
	}
}

// BenchmarkFloorCSV is the compression floor: klauspost flate level 5 on 2
// goroutines over the same uncompressed bytes.
func BenchmarkFloorCSV(b *testing.B) { benchFloor(b, csvBytes()) }
