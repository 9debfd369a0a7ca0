package occurrence

import (
	"math/rand/v2"
	"testing"
)

// TestWindow feeds random batches of matches through windows and checks
// that exactly the matches [skip, skip+limit) of the whole sequence come
// out, in order, and that Done turns true once the limit is reached.
func TestWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 500; trial++ {
		skip, limit := int64(rng.IntN(300)), int64(rng.IntN(200))
		w := NewWindow(ScanRequest{Skip: skip, Limit: limit})
		var matches, got []int // global positions of matches and of emitted rows
		pos := 0
		for b := 0; b < 8; b++ {
			n := 1 + rng.IntN(100)
			sel := make([]bool, n)
			m := 0
			for i := range sel {
				if rng.IntN(3) == 0 {
					sel[i] = true
					m++
					matches = append(matches, pos+i)
				}
			}
			k := w.Select(sel, m)
			c := 0
			for i, ok := range sel {
				if ok {
					got = append(got, pos+i)
					c++
				}
			}
			if c != k {
				t.Fatalf("Select returned %d, left %d rows selected", k, c)
			}
			pos += n
		}
		want := matches[min(int(skip), len(matches)):]
		if limit > 0 {
			want = want[:min(int(limit), len(want))]
		}
		if len(got) != len(want) {
			t.Fatalf("skip %d limit %d: %d rows, want %d", skip, limit, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("skip %d limit %d: row %d is %d, want %d", skip, limit, i, got[i], want[i])
			}
		}
		if done := limit > 0 && int64(len(matches))-skip >= limit; w.Done() != done {
			t.Fatalf("skip %d limit %d of %d matches: Done %v", skip, limit, len(matches), w.Done())
		}
	}
}

func TestWindowTake(t *testing.T) {
	w := NewWindow(ScanRequest{Skip: 10, Limit: 7})
	var out []int64
	for _, n := range []int64{4, 4, 5, 9, 3} {
		out = append(out, w.Take(n))
	}
	want := []int64{0, 0, 3, 4, 0}
	for i := range want {
		if out[i] != want[i] {
			t.Fatalf("Take gave %v, want %v", out, want)
		}
	}
	if !w.Done() {
		t.Fatal("not done after the limit")
	}
	var none Window
	if none.Take(5) != 5 || none.Done() || none.Active() {
		t.Fatal("the zero window must pass everything")
	}
}
