package main

import (
	"fmt"
	"io"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
)

// peakProfiler keeps, in a file, the heap profile taken when the live heap
// was at its largest. A heap profile written at the end of a command shows
// only what is live then; the peak of an ingest may come and go in its
// first seconds (a star join loading an extension, say).
type peakProfiler struct {
	path string
	stop chan struct{}
	done chan error
	// peak is the largest live heap sampled, written the one of the
	// profile in the file (within a tenth of peak).
	peak, written uint64
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
		if p.observe(sample[0].Value.Uint64()) && err == nil {
			err = p.write()
		}
	}
}

// observe records a sample of the live heap and reports whether the
// profile is to be rewritten: the heap grew by more than a tenth over the
// one written.
func (p *peakProfiler) observe(live uint64) bool {
	p.peak = max(p.peak, live)
	if live <= p.written+p.written/10 {
		return false
	}
	p.written = live
	return true
}

// write replaces the file with the current heap profile (the heap as the
// last collection left it), durably (atomicfile).
func (p *peakProfiler) write() error {
	err := atomicfile.WriteFile(p.path, 0o600, func(w io.Writer) error {
		return pprof.Lookup("heap").WriteTo(w, 0)
	})
	if err != nil {
		return fmt.Errorf("memprofile: %w", err)
	}
	return nil
}

// Stop ends sampling and reports the largest live heap it sampled (the
// profile kept may be of one up to a tenth smaller) and the first error
// writing the profile.
func (p *peakProfiler) Stop() (peak uint64, err error) {
	close(p.stop)
	err = <-p.done
	return p.peak, err
}
