// Command apiload is a closed-loop HTTP load generator for the download API:
// C clients send GETs back to back for a fixed time (or request count) and it
// prints requests/s and latency percentiles. It only targets the URL it is
// given (meant for a server on loopback).
//
//	apiload -url http://127.0.0.1:8080 -path /v1/occurrence/download/KEY -c 16 -duration 10s
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type paths []string

func (p *paths) String() string     { return strings.Join(*p, ",") }
func (p *paths) Set(v string) error { *p = append(*p, v); return nil }

func main() {
	var ps paths
	base := flag.String("url", "", "server base URL (http://127.0.0.1:PORT)")
	flag.Var(&ps, "path", "request path; repeat to rotate through several")
	clients := flag.Int("c", 16, "concurrent clients")
	duration := flag.Duration("duration", 10*time.Second, "how long to send")
	maxReq := flag.Int("n", 1_000_000, "stop after this many requests")
	user := flag.String("user", "", "HTTP Basic user (password in $APILOAD_PASSWORD)")
	label := flag.String("label", "", "label printed with the result")
	flag.Parse()
	if *base == "" || len(ps) == 0 {
		fmt.Fprintln(os.Stderr, "apiload: -url and -path are required")
		os.Exit(2)
	}
	res, err := run(*base, ps, *clients, *duration, *maxReq, *user, os.Getenv("APILOAD_PASSWORD"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "apiload:", err)
		os.Exit(1)
	}
	fmt.Printf("%s\trequests %d\terrors %d\treq/s %.0f\tp50 %.2f ms\tp90 %.2f ms\tp99 %.2f ms\tmax %.2f ms\n",
		*label, res.n, res.errors, res.rate, res.pct(0.50), res.pct(0.90), res.pct(0.99), res.pct(1))
}

type result struct {
	n, errors int64
	rate      float64
	lat       []time.Duration
}

func (r result) pct(p float64) float64 {
	if len(r.lat) == 0 {
		return 0
	}
	return float64(r.lat[int(p*float64(len(r.lat)-1))]) / float64(time.Millisecond)
}

func run(base string, ps []string, clients int, d time.Duration, maxReq int, user, pass string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}
	var next, errs atomic.Int64
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			defer func() { mu.Lock(); all = append(all, mine...); mu.Unlock() }()
			for ctx.Err() == nil {
				i := next.Add(1)
				if i > int64(maxReq) {
					return
				}
				t0 := time.Now()
				if err := get(ctx, client, base+ps[int(i)%len(ps)], user, pass); err != nil {
					if ctx.Err() == nil {
						errs.Add(1)
					}
					continue
				}
				mine = append(mine, time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(all)
	return result{n: int64(len(all)), errors: errs.Load(), rate: float64(len(all)) / elapsed.Seconds(), lat: all}, nil
}

func get(ctx context.Context, c *http.Client, url, user, pass string) error {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}
