package download

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendFloatIsShortest compares appendFloat with strconv's shortest
// plain formatting on coordinates of every precision, integers, random
// doubles and edge values: the fast path must never print anything else.
func TestAppendFloatIsShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	check := func(v float64) {
		t.Helper()
		want := strconv.FormatFloat(v, 'f', -1, 64)
		if got := string(appendFloat(nil, v)); got != want {
			t.Fatalf("appendFloat(%v) = %q, want %q", v, got, want)
		}
	}
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-7, -1e-7, 1e-6, 0.000001, 0.0000015,
		999999999.999999, 1e9, -1e9, 123456789.123456, 180, -180, 90, -90, 0.1, 0.2, 0.3, 1.0000005,
		math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 4.35, 52.123456, -33.8688} {
		check(v)
	}
	for i := 0; i < 200000; i++ {
		d := r.IntN(9)
		p := math.Pow(10, float64(d))
		check(math.Round((r.Float64()*360-180)*p) / p) // a coordinate with d decimals
		check(float64(r.Int64N(1e12)-5e11) / p)        // wide values with d decimals
		check(r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10)))
		check(math.Float64frombits(r.Uint64()))
	}
}

func BenchmarkAppendFloat(b *testing.B) {
	vals := make([]float64, 1024)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range vals {
		vals[i] = math.Round((r.Float64()*180-90)*1e5) / 1e5
	}
	buf := make([]byte, 0, 64)
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			for _, v := range vals {
				buf = appendFloat(buf[:0], v)
			}
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for b.Loop() {
			for _, v := range vals {
				buf = strconv.AppendFloat(buf[:0], v, 'f', -1, 64)
			}
		}
	})
}
