package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// peakProfiler keeps, in a file, the heap profile taken when the live heap
// was at its largest. A heap profile written at the end of a command shows
// only what is live then; the peak of an ingest may come and go in its
// first seconds (a star join loading an extension, say).
type peakProfiler struct {
	path string
	stop chan struct{}
	done chan error
	peak uint64
}

// liveHeap is the metric of the bytes the last garbage collection found live.
const liveHeap = "/gc/heap/live:bytes"

// startPeakProfile samples the live heap every interval and rewrites path
// whenever it grew by more than a tenth over the largest one written.
func startPeakProfile(path string, interval time.Duration) (*peakProfiler, error) {
	p := &peakProfiler{path: path, stop: make(chan struct{}), done: make(chan error, 1)}
	if err := p.write(); err != nil { // fails early on a bad path
		return nil, err
	}
	go p.run(interval)
	return p, nil
}

func (p *peakProfiler) run(interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	sample := []metrics.Sample{{Name: liveHeap}}
	var err error
	for {
		select {
		case <-p.stop:
			p.done <- err
			return
		case <-tick.C:
		}
		metrics.Read(sample)
		if live := sample[0].Value.Uint64(); err == nil && live > p.peak+p.peak/10 {
			p.peak = live
			err = p.write()
		}
	}
}

// write replaces the file with the current heap profile (the heap as the
// last collection left it).
func (p *peakProfiler) write() error {
	tmp, err := os.CreateTemp(filepath.Dir(p.path), ".memprofile-*")
	if err != nil {
		return fmt.Errorf("memprofile: %w", err)
	}
	err = pprof.Lookup("heap").WriteTo(tmp, 0)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("memprofile: %w", err)
	}
	return nil
}

// Stop ends sampling and reports the peak live heap it saw and the first
// error writing the profile.
func (p *peakProfiler) Stop() (peak uint64, err error) {
	close(p.stop)
	err = <-p.done
	return p.peak, err
}
