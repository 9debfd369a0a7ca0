package pzip

import (
	"archive/zip"
	"io"
	"math/rand/v2"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/flate"
)

// The benchmarks compress the same 64 MiB of occurrence-like text:
// pzip (parallel chunks), archive/zip with klauspost flate (one goroutine),
// and the compression floor (klauspost level 5 on 2 goroutines, each
// compressing half of the bytes with no zip framing). Compare MB/s.

var benchData = sync.OnceValue(func() []byte {
	return sample(rand.New(rand.NewPCG(11, 12)), 64<<20)
})

func BenchmarkPzip(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	defer cpuMetric(b)()
	for b.Loop() {
		zw, _ := NewWriter(io.Discard, Options{Workers: 2, Level: 5})
		w, _ := zw.Create("occurrence.txt")
		for p := data; len(p) > 0; p = p[min(len(p), 64<<10):] {
			w.Write(p[:min(len(p), 64<<10)])
		}
		if err := zw.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkArchiveZipKlauspost(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	defer cpuMetric(b)()
	for b.Loop() {
		zw := zip.NewWriter(io.Discard)
		zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
			return flate.NewWriter(w, 5)
		})
		w, _ := zw.Create("occurrence.txt")
		for p := data; len(p) > 0; p = p[min(len(p), 64<<10):] {
			w.Write(p[:min(len(p), 64<<10)])
		}
		if err := zw.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFloorFlate5x2(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	defer cpuMetric(b)()
	for b.Loop() {
		floorCompress(data, 2, 5)
	}
}

// cpuMetric reports process CPU time (user+system) per op, which the load
// of a shared machine changes less than wall time.
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

// floorCompress deflates data on n goroutines, each over a contiguous part.
func floorCompress(data []byte, n, level int) {
	var wg sync.WaitGroup
	part := (len(data) + n - 1) / n
	for i := range n {
		lo, hi := i*part, min((i+1)*part, len(data))
		wg.Go(func() {
			fw, _ := flate.NewWriter(io.Discard, level)
			fw.Write(data[lo:hi])
			fw.Close()
		})
	}
	wg.Wait()
}
