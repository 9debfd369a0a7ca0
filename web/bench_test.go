package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// BenchmarkAPILoad drives a real server on loopback (SQLite, embedded table,
// local storage) with concurrent clients while full DWCA exports run back to
// back in the same process, and reports requests/s and latency percentiles
// for the cheap status GET and for counts. Run with
//
//	go test ./web -run '^$' -bench APILoad -benchtime 20000x
func BenchmarkAPILoad(b *testing.B) {
	status := func(key string, _ int) string { return "/v1/occurrence/download/" + key }
	count := func(_ string, i int) string {
		return fmt.Sprintf("/v1/occurrence/search/count?year=%d,2020", 1900+i%100)
	}
	for _, c := range []struct {
		name     string
		exports  bool // full DWCA exports run during the load
		path     func(key string, i int) string
		postgres bool
	}{
		{"status-idle", false, status, false},
		{"status", true, status, false},
		{"count-idle", false, count, false},
		{"count", true, count, false},
		{"status-postgres", true, status, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			dsn := sqliteDSN(b)
			if c.postgres {
				dsn = postgresDSN(b)
			}
			// 16 clients count at once: the count slots (2 for anonymous
			// callers by default) are lifted so that the figures measure
			// the counts, not 429 answers.
			s := startServer(b, dsn, options{maxRunning: 1000, config: func(c *jobs.Config) { c.AnonymousCounts.Concurrent = 32 }})
			key := s.submit("alice", `{"format":"SIMPLE_CSV"}`)
			s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
			var exports *atomic.Int64
			if c.exports {
				var stop func()
				stop, exports = keepExporting(b, s)
				defer stop()
			}
			runLoad(b, s.URL, 16, func(i int) string { return c.path(key, i) })
			if exports != nil {
				b.ReportMetric(float64(exports.Load()), "exports")
			}
		})
	}
}

// keepExporting submits full DWCA downloads one after another until stop.
func keepExporting(b *testing.B, s *server) (stop func(), done *atomic.Int64) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	done = &atomic.Int64{}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			// A distinct predicate each time, so dedupe does not return the last one.
			key, err := s.svc.Submit(ctx, jobs.User{Name: "bob"}, jobs.Request{Format: "DWCA",
				Predicate: []byte(fmt.Sprintf(`{"type":"not","predicate":{"type":"equals","key":"CATALOG_NUMBER","value":"bench-%d"}}`, i))})
			if err != nil {
				if ctx.Err() == nil {
					b.Errorf("submit: %v", err)
				}
				return
			}
			for ctx.Err() == nil {
				d, err := s.svc.Get(ctx, nil, key, false)
				if err == nil && !d.Status.Active() {
					done.Add(1)
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}()
	return func() { cancel(); wg.Wait() }, done
}

// runLoad sends b.N GETs from workers goroutines and reports throughput and
// latency percentiles.
func runLoad(b *testing.B, base string, workers int, path func(i int) string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Int64
	b.ResetTimer()
	cpu0 := processCPU()
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= b.N {
					return
				}
				t0 := time.Now()
				resp, err := client.Get(base + path(i))
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					failed.Add(1)
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := processCPU() - cpu0
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d of %d requests failed", n, b.N)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	// CPU time of the whole process (server, exports and clients) per
	// request: robust against other load on a shared machine.
	b.ReportMetric(float64(cpu)/float64(time.Microsecond)/float64(b.N), "cpu-us/req")
	b.ReportMetric(0, "ns/op")
}

// processCPU returns the user+system CPU time used by this process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
