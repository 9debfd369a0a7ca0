package taxonomy

import (
	"context"
	"os"
	"testing"
)

// BenchmarkMatchUncached matches the record cases without a cache against
// the backbone cut (the per-name cost of a cache miss).
func BenchmarkMatchUncached(b *testing.B) {
	c := backbone(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := c.Match(ctx, recordCases[i%len(recordCases)].q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMatchLarge matches against a large store named by
// $TAXONOMY_BENCH_DIR (bench/taxonomy.sh makes one).
func BenchmarkMatchLarge(b *testing.B) {
	dir := os.Getenv("TAXONOMY_BENCH_DIR")
	if dir == "" {
		b.Skip("TAXONOMY_BENCH_DIR not set")
	}
	c, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	var qs []Query
	for _, u := range c.Suggest("Ab", 200) {
		qs = append(qs, Query{ScientificName: u.ScientificName, Kingdom: "Animalia"})
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		c.Match(ctx, qs[i%len(qs)])
	}
}
