package pzip

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// crc32Combine is a combine with no operator kept.
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	var c crcCombiner
	return c.combine(crcA, crcB, lenB)
}

func TestCRC32CombineRandomSplits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		data := make([]byte, rng.IntN(1<<16))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		// Cut into up to 8 random pieces and fold their CRCs.
		var crc uint32
		rest := data
		for len(rest) > 0 {
			k := rng.IntN(len(rest)) + 1
			crc = crc32Combine(crc, crc32.ChecksumIEEE(rest[:k]), int64(k))
			rest = rest[k:]
		}
		if want := crc32.ChecksumIEEE(data); crc != want {
			t.Fatalf("len %d: combined %08x, want %08x", len(data), crc, want)
		}
	}
}

func TestCRC32CombineEdges(t *testing.T) {
	a, b := []byte("hello, "), []byte("world")
	if got := crc32Combine(crc32.ChecksumIEEE(a), 0, 0); got != crc32.ChecksumIEEE(a) {
		t.Errorf("empty B: %08x", got)
	}
	if got := crc32Combine(0, crc32.ChecksumIEEE(b), int64(len(b))); got != crc32.ChecksumIEEE(b) {
		t.Errorf("empty A: %08x", got)
	}
	// A length past 4 GiB exercises the high bits of lenB: the CRC of
	// a || 2^32+3 zero bytes, combined from pieces, must equal hash/crc32
	// streaming over the same bytes.
	zeros := make([]byte, 1<<20)
	zcrc := crc32.ChecksumIEEE(zeros)
	var big uint32
	for range 4096 {
		big = crc32Combine(big, zcrc, int64(len(zeros)))
	}
	big = crc32Combine(big, crc32.ChecksumIEEE(zeros[:3]), 3)
	ca := crc32.ChecksumIEEE(a)
	// Direct check: streaming update over the same bytes.
	h := crc32.NewIEEE()
	h.Write(a)
	for range 4096 {
		h.Write(zeros)
	}
	h.Write(zeros[:3])
	if got := crc32Combine(ca, big, 1<<32+3); got != h.Sum32() {
		t.Fatalf("4 GiB combine %08x, want %08x", got, h.Sum32())
	}
}

func FuzzCRC32Combine(f *testing.F) {
	f.Add([]byte("The quick brown fox"), uint16(4))
	f.Add([]byte{}, uint16(0))
	f.Add([]byte{0, 0, 0, 1}, uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		k := int(cut)
		if k > len(data) {
			k = len(data)
		}
		got := crc32Combine(crc32.ChecksumIEEE(data[:k]), crc32.ChecksumIEEE(data[k:]), int64(len(data)-k))
		if want := crc32.ChecksumIEEE(data); got != want {
			t.Fatalf("cut %d of %d: %08x want %08x", k, len(data), got, want)
		}
	})
}

// TestCRCCombinerKeepsOperator: a writer's combiner keeps the operator of
// the last chunk length; chunks of one size, then others, then the first
// size again, combine to the CRC of their concatenation.
func TestCRCCombinerKeepsOperator(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	var c crcCombiner
	crc, off := uint32(0), 0
	for _, n := range []int{4096, 4096, 4096, 100, 4096, 0, 7, 7, 65536, 4096, 1} {
		part := data[off : off+n]
		crc = c.combine(crc, crc32.ChecksumIEEE(part), int64(n))
		off += n
		if want := crc32.ChecksumIEEE(data[:off]); crc != want {
			t.Fatalf("after %d bytes (last chunk %d): crc %08x, want %08x", off, n, crc, want)
		}
	}
}
