package parquet

import (
	"context"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
)

// BenchmarkAppend measures writing generated records into a dataset (record
// generation included; BenchmarkGenerate gives that part alone).
func BenchmarkAppend(b *testing.B) {
	s, err := Open(b.TempDir(), Config{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	g := occurrencetest.NewGenerator(1, 5000)
	plan := g.Datasets(b.N, 1)
	w, err := s.BeginDataset(context.Background(), plan[0].Info)
	if err != nil {
		b.Fatal(err)
	}
	rec := occurrence.NewRecord()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g.Fill(rec, &plan[0], i)
		if err := w.Append(context.Background(), rec); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.Commit(context.Background(), occurrence.LoadStats{}); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkGenerate(b *testing.B) {
	g := occurrencetest.NewGenerator(1, 5000)
	plan := g.Datasets(b.N, 1)
	rec := occurrence.NewRecord()
	for i := 0; i < b.N; i++ {
		g.Fill(rec, &plan[0], i)
	}
}
