package download

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendIntLikeStrconv: appendInt writes strconv's text for the edges
// (zero, each power of ten and its neighbours, the extremes) and random
// values of every length, after a prefix it keeps, into buffers with and
// without room.
func TestAppendIntLikeStrconv(t *testing.T) {
	check := func(v int64) {
		t.Helper()
		want := "x\t" + strconv.FormatInt(v, 10)
		for _, dst := range [][]byte{[]byte("x\t"), append(make([]byte, 0, 64), "x\t"...)} {
			if got := string(appendInt(dst, v)); got != want {
				t.Fatalf("appendInt(%d) = %q, want %q", v, got, want)
			}
		}
	}
	for _, v := range []int64{0, 1, -1, 9, 10, 11, 99, 100, 101, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, math.MaxInt32, math.MinInt32} {
		check(v)
	}
	for p := int64(1); p <= 1e18; p *= 10 {
		for _, v := range []int64{p - 1, p, p + 1, -p, -(p - 1)} {
			check(v)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 100000 {
		check(r.Int64() >> r.IntN(63))
		check(-(r.Int64() >> r.IntN(63)))
	}
	if got := string(appendUint(nil, math.MaxUint64)); got != strconv.FormatUint(math.MaxUint64, 10) {
		t.Fatalf("appendUint(MaxUint64) = %q", got)
	}
}

// TestAppendFloatAfterText: the fast path writes its decimals in place, so
// its text is checked after a prefix too, in buffers with and without room.
func TestAppendFloatAfterText(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 100000 {
		d := r.IntN(7)
		p := math.Pow(10, float64(d))
		v := math.Round((r.Float64()*360-180)*p) / p
		want := "a\t" + javaDouble(v)
		for _, dst := range [][]byte{[]byte("a\t"), append(make([]byte, 0, 64), "a\t"...)} {
			if got := string(appendFloat(dst, v)); got != want {
				t.Fatalf("appendFloat(%v) after a prefix = %q, want %q", v, got, want)
			}
		}
	}
}

func FuzzAppendInt(f *testing.F) {
	for _, v := range []int64{0, -1, 99, 100, math.MaxInt64, math.MinInt64} {
		f.Add(v, "p")
	}
	f.Fuzz(func(t *testing.T, v int64, prefix string) {
		if got, want := string(appendInt([]byte(prefix), v)), prefix+strconv.FormatInt(v, 10); got != want {
			t.Fatalf("appendInt(%q, %d) = %q, want %q", prefix, v, got, want)
		}
	})
}

// BenchmarkAppendInt compares appendInt with strconv.AppendInt on the
// numbers an export writes: gbifIDs (up to 7 digits here), taxon keys,
// years and days.
func BenchmarkAppendInt(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := make([]int64, 1024)
	for i := range vals {
		switch i % 4 {
		case 0:
			vals[i] = r.Int64N(1e7)
		case 1:
			vals[i] = r.Int64N(1e7)
		case 2:
			vals[i] = 1900 + r.Int64N(125)
		default:
			vals[i] = 1 + r.Int64N(31)
		}
	}
	buf := make([]byte, 0, 16<<10)
	b.Run("appendInt", func(b *testing.B) {
		for b.Loop() {
			buf = buf[:0]
			for _, v := range vals {
				buf = append(appendInt(buf, v), '\t')
			}
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for b.Loop() {
			buf = buf[:0]
			for _, v := range vals {
				buf = append(strconv.AppendInt(buf, v, 10), '\t')
			}
		}
	})
}
