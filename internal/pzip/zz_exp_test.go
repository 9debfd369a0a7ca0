package pzip

import (
	"io"
	"os"
	"testing"
)

func rawData(b *testing.B) []byte {
	d, err := os.ReadFile("/tmp/wb/raw.csv")
	if err != nil {
		b.Skip(err)
	}
	return d[:256<<20]
}

func BenchmarkZZFloor(b *testing.B) {
	data := rawData(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	defer cpuMetric(b)()
	for b.Loop() {
		floorCompress(data, 2, 5)
	}
}

func benchChunk(b *testing.B, chunk int) {
	data := rawData(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	defer cpuMetric(b)()
	for b.Loop() {
		zw, _ := NewWriter(io.Discard, Options{Workers: 2, Level: 5, ChunkSize: chunk})
		w, _ := zw.Create("occurrence.txt")
		for p := data; len(p) > 0; p = p[min(len(p), 64<<10):] {
			w.Write(p[:min(len(p), 64<<10)])
		}
		if err := zw.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
func BenchmarkZZPzip1M(b *testing.B) { benchChunk(b, 1<<20) }
func BenchmarkZZPzip4M(b *testing.B) { benchChunk(b, 4<<20) }
