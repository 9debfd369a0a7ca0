package download

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/biodiversity-downloads/downloader/internal/javafmt"
)

// javaDouble is Java's Double.toString, as javafmt writes it (javafmt's
// tests hold it to Java itself).
func javaDouble(v float64) string { return string(javafmt.AppendDouble(nil, v)) }

// TestAppendFloatLikeJava: downloads print doubles as GBIF's do (Java's
// Double.toString): literal cases as Java prints them, then the fast path
// against javaDouble on coordinates of every precision, integers, random
// doubles and edge values.
func TestAppendFloatLikeJava(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0.0", 100: "100.0", 52.1234: "52.1234", -33.8688: "-33.8688", 0.001: "0.001", 0.0001: "1.0E-4",
		1e7: "1.0E7", 9999999: "9999999.0", 12345678.9: "1.23456789E7", 1e21: "1.0E21", -2.5e-5: "-2.5E-5",
		math.MaxFloat64: "1.7976931348623157E308", 180: "180.0", 0.5: "0.5", 1.0000005: "1.0000005",
	} {
		if got := string(appendFloat(nil, v)); got != want {
			t.Errorf("appendFloat(%v) = %q, Java prints %q", v, got, want)
		}
	}
	if got := string(appendFloat(nil, math.Copysign(0, -1))); got != "-0.0" {
		t.Errorf("appendFloat(-0) = %q, Java prints -0.0", got)
	}
	r := rand.New(rand.NewPCG(5, 6))
	check := func(v float64) {
		t.Helper()
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return // never stored
		}
		if got, want := string(appendFloat(nil, v)), javaDouble(v); got != want {
			t.Fatalf("appendFloat(%v) = %q, want %q", v, got, want)
		}
		if back, err := strconv.ParseFloat(string(appendFloat(nil, v)), 64); err != nil || back != v {
			t.Fatalf("appendFloat(%v) reads back as %v (%v)", v, back, err)
		}
	}
	for _, v := range []float64{1, -1, 1e-7, -1e-7, 1e-6, 0.000001, 0.0000015, 999999999.999999, 1e9, -1e9,
		123456789.123456, -180, 90, -90, 0.1, 0.2, 0.3, 4.35, 52.123456, math.SmallestNonzeroFloat64 * 3} {
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
				if bytes.IndexByte(buf, '.') < 0 {
					buf = append(buf, '.', '0')
				}
			}
		}
	})
}
