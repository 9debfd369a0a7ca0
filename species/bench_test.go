package species

import (
	"context"
	"net/url"
	"testing"

	"github.com/biodiversity-downloads/downloader/taxonomy"
)

// BenchmarkMatch compares a species match through the service (the
// taxonomy directory checked for a new version, the answer built in
// GBIF's shape) with the checklist's own Match on the same names, and
// times suggestions and name usages.
func BenchmarkMatch(b *testing.B) {
	dir := b.TempDir()
	if _, err := taxonomy.Load(context.Background(), dir, backboneCut, taxonomy.LoadOptions{}); err != nil {
		b.Fatal(err)
	}
	c, err := taxonomy.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	src := NewDir(dir, nil)
	defer src.Close()
	s := New(src)
	names := []string{"Puma concolor", "Felis concolor", "Pumma concolor", "Oenanthe", "Elytrigia repens (L.) Desv.", "Xyzzyx plugh"}
	ctx := context.Background()
	b.Run("checklist.Match", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := c.Match(ctx, taxonomy.Query{ScientificName: names[i%len(names)], Kingdom: "Animalia"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Service.Match", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := s.Match(ctx, url.Values{"name": {names[i%len(names)]}, "kingdom": {"Animalia"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Service.Suggest", func(b *testing.B) {
		qs := []string{"Pu", "Puma c", "Oen", "Ely", "A"}
		for i := 0; b.Loop(); i++ {
			if _, err := s.Suggest(ctx, url.Values{"q": {qs[i%len(qs)]}, "limit": {"10"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Service.Usage", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Usage(ctx, "2435104"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
