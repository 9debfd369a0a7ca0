package taxonomy

import "testing"

// BenchmarkParse parses a mix of typical occurrence names.
func BenchmarkParse(b *testing.B) {
	names := []string{
		"Abies alba Mill.", "Puma concolor (Linnaeus, 1771)", "Poa pratensis subsp. anceps (Gaudin) Dumort.",
		"Quercus robur", "Passer domesticus", "Solenopsis cf fugax", "Carex sp.", "Animalia",
		"Agrostis hyemalis (Walter) Britton, Sterns, & Poggenb.", "Parus major Linnaeus, 1758",
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Parse(names[i%len(names)], RankUnknown, CodeUnknown)
	}
}
