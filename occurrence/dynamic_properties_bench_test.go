package occurrence

import (
	"strings"
	"testing"
)

// BenchmarkDynamicProperties: the VertNet parsers on a dynamicProperties
// text of measurements (neither sex nor life stage: the common case) and on
// one that has both, gated as ingest runs them and ungated as GBIF's
// parsers run every pattern.
func BenchmarkDynamicProperties(b *testing.B) {
	for name, text := range map[string]string{
		"measurements": `{"weight":"35.2 g", "total length":"120 mm", "tail length":"50 mm", "hind foot with claw":"15 mm", "ear from notch":"12 mm", "reproductive data":"testes 3x2, scrotal"}`,
		"sex and age":  `{"sex":"male", "age class":"adult", "weight":"35.2 g", "total length":"120 mm", "reproductive data":"testes 3x2"}`,
	} {
		lower := strings.ToLower(text)
		b.Run(name+"/gated", func(b *testing.B) {
			for b.Loop() {
				sexInDynamicProperties(lower)
				lifeStageInDynamicProperties(lower)
			}
		})
		b.Run(name+"/ungated", func(b *testing.B) {
			for b.Loop() {
				ungatedSex(lower)
				ungatedLifeStage(lower)
			}
		})
	}
}
