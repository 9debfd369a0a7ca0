package abcd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/biodiversity-downloads/downloader/abcd/internal/abcdgen"
)

// BenchmarkSourceArchive parses a generated archive (100 units per
// document) through the parallel Source; units/s is reported.
func BenchmarkSourceArchive(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.zip")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	const units = 20000
	if err := abcdgen.WriteArchive(f, units, 100, 1); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.ResetTimer()
	for range b.N {
		ctx := context.Background()
		src, err := OpenSource(ctx, path, SourceOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, err := src.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		src.Close()
		if n != units {
			b.Fatalf("%d units, want %d", n, units)
		}
	}
	b.ReportMetric(float64(units*b.N)/b.Elapsed().Seconds(), "units/s")
}
