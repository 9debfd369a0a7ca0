package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestPeakProfileKeepsTheLargestHeap holds 64 MiB live for a while, then
// drops it: the profile and the reported peak must be the ones of that
// moment, not of the end.
func TestPeakProfileKeepsTheLargestHeap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.prof")
	p, err := startPeakProfile(path, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 64<<20)
	for i := range big {
		big[i] = byte(i)
	}
	runtime.GC()
	// 60 sampling intervals: room for a loaded machine to run the sampler.
	time.Sleep(300 * time.Millisecond)
	runtime.KeepAlive(big)
	big = nil
	runtime.GC()
	first, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	peak, err := p.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if peak < 64<<20 {
		t.Errorf("peak live heap %d bytes, want at least the 64 MiB held", peak)
	}
	last, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if last.Size() == 0 || !last.ModTime().Equal(first.ModTime()) {
		t.Errorf("profile rewritten after the peak (%v then %v) or empty (%d bytes)", first.ModTime(), last.ModTime(), last.Size())
	}
	left, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].Name() != "heap.prof" {
		t.Errorf("directory holds %v, want the profile only", left)
	}
	if last.Mode() != 0o600 {
		t.Errorf("profile mode %v, want -rw-------", last.Mode())
	}
}

func TestPeakProfileBadPath(t *testing.T) {
	if _, err := startPeakProfile(filepath.Join(t.TempDir(), "no", "such", "dir", "heap.prof"), time.Millisecond); err == nil {
		t.Error("a profile in a missing directory was accepted")
	}
}

// The reported peak is the largest sample, also one within a tenth of the
// profile written (which is not rewritten for it), and after a write error.
func TestPeakProfileObserve(t *testing.T) {
	p := &peakProfiler{}
	for _, c := range []struct {
		live  uint64
		write bool
	}{{100, true}, {105, false}, {50, false}, {111, true}, {120, false}} {
		if got := p.observe(c.live); got != c.write {
			t.Errorf("observe(%d) = %v, want %v", c.live, got, c.write)
		}
	}
	if p.peak != 120 || p.written != 111 {
		t.Errorf("peak %d, written %d; want 120, 111", p.peak, p.written)
	}
}
