package main

import (
	"runtime/debug"
	"testing"
)

// TestTuneGCIngestLimit: ingest runs under a soft limit of 384 MiB (its
// peak live heap is ~250 MB on wide records with two windows, BENCHMARKS.md),
// rollover under 256 MiB; an explicit GOMEMLIMIT wins.
func TestTuneGCIngestLimit(t *testing.T) {
	oldLimit := debug.SetMemoryLimit(-1)
	oldPercent := debug.SetGCPercent(100)
	t.Cleanup(func() {
		debug.SetMemoryLimit(oldLimit)
		debug.SetGCPercent(oldPercent)
	})
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	for _, c := range []struct {
		command string
		limit   int64
	}{{"ingest", 384 << 20}, {"rollover", 256 << 20}, {"convert", 512 << 20}, {"export", 200 << 20}} {
		tuneGC(c.command)
		if got := debug.SetMemoryLimit(-1); got != c.limit {
			t.Errorf("%s: memory limit %d MiB, want %d MiB", c.command, got>>20, c.limit>>20)
		}
	}
	debug.SetMemoryLimit(1 << 40)
	t.Setenv("GOMEMLIMIT", "1TiB")
	tuneGC("ingest")
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("GOMEMLIMIT set: tuneGC changed the limit to %d MiB", got>>20)
	}
}
