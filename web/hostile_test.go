package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/jobs/tableexport"
	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/occurrencetest"
	"github.com/biodiversity-downloads/downloader/search"
	"github.com/biodiversity-downloads/downloader/web"
)

// TestHostilePredicateRoutes sends the hostile suite's predicates to the
// anonymous count route and the download route: a predicate over a limit
// is refused before any scan with 413 naming the rule (GBIF's status for
// a too-complex download), one within them is counted or queued.
func TestHostilePredicateRoutes(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{maxRunning: 20})
	for _, h := range occurrencetest.HostilePredicates() {
		t.Run(h.Name, func(t *testing.T) {
			if len(h.JSON) > 1<<20-64 {
				t.Fatalf("%d bytes: over the 1 MiB body cap, the test would measure the cap", len(h.JSON))
			}
			count := s.do("POST", "/v1/occurrence/search/predicate", "", h.JSON)
			dl := s.do("POST", "/v1/occurrence/download/request", "alice", `{"format":"SIMPLE_CSV","predicate":`+h.JSON+`}`)
			if h.Rule == "" {
				expect(t, count, http.StatusOK)
				expect(t, dl, http.StatusCreated)
				return
			}
			for _, r := range []response{count, dl} {
				expect(t, r, http.StatusRequestEntityTooLarge)
				if !strings.HasPrefix(string(r.body), "A download limitation is exceeded:\n") || !strings.Contains(string(r.body), h.Rule) {
					t.Fatalf("413 body %q does not name rule %s in GBIF's frame", r.body, h.Rule)
				}
			}
		})
	}
	// The query-string routes: 1,000 polygons, and a list where a range goes.
	q := url.Values{}
	for i := range 1000 {
		q.Add("geometry", occurrencetest.PolygonWKT(i, 4))
	}
	r := expect(t, s.do("GET", "/v1/occurrence/search/count?"+q.Encode(), "", nil), http.StatusRequestEntityTooLarge)
	if !strings.Contains(string(r.body), occurrence.RuleCost) || !strings.Contains(string(r.body), "query parameter geometry") {
		t.Fatalf("1,000 polygons: %s", r)
	}
	r = expect(t, s.do("GET", "/v1/occurrence/search/count?taxonKey=1,2,3", "", nil), http.StatusBadRequest)
	if !strings.Contains(string(r.body), "repeat the parameter (taxonKey=1&taxonKey=2&taxonKey=3)") {
		t.Fatalf("taxonKey=1,2,3: %s", r)
	}
	// Invalid UTF-8 in a JSON predicate: 400 naming where, as the query
	// route rejects it.
	bad := "{\"type\":\"equals\",\"key\":\"RECORDED_BY\",\"value\":\"Sm\xffth\"}"
	r = expect(t, s.do("POST", "/v1/occurrence/search/predicate", "", bad), http.StatusBadRequest)
	if !strings.Contains(string(r.body), "at value") || !strings.Contains(string(r.body), "UTF-8") {
		t.Fatalf("invalid UTF-8: %s", r)
	}
	r = expect(t, s.do("POST", "/v1/occurrence/download/request", "alice", `{"predicate":`+bad+`}`), http.StatusBadRequest)
	if !strings.Contains(string(r.body), "at value") || !strings.Contains(string(r.body), "UTF-8") {
		t.Fatalf("invalid UTF-8 in a download's predicate: %s", r)
	}
}

// gatedTable holds every split scan until its gate opens (or its context
// ends): a fake for fault injection, as a test table counts in
// milliseconds and a count must be seen running.
type gatedTable struct {
	tableexport.Table
	gate    chan struct{}
	running atomic.Int64
	// counts are the distinct scans (contexts) seen.
	mu     sync.Mutex
	counts map[context.Context]bool
	// stopped counts scans that ended by their context.
	stopped atomic.Int64
}

func (g *gatedTable) ScanSplit(ctx context.Context, sp occurrence.Split, req occurrence.ScanRequest, emit func(arrow.RecordBatch) error) (occurrence.ScanStats, error) {
	g.running.Add(1)
	defer g.running.Add(-1)
	g.mu.Lock()
	if g.counts == nil {
		g.counts = map[context.Context]bool{}
	}
	g.counts[ctx] = true
	g.mu.Unlock()
	select {
	case <-g.gate:
	case <-ctx.Done():
		g.stopped.Add(1)
		return occurrence.ScanStats{}, ctx.Err()
	}
	return g.Table.ScanSplit(ctx, sp, req, emit)
}

// waitScans waits until n scans have reached the table.
func (g *gatedTable) waitScans(t *testing.T, n int) {
	t.Helper()
	seen := func() int {
		g.mu.Lock()
		defer g.mu.Unlock()
		return len(g.counts)
	}
	for deadline := time.Now().Add(30 * time.Second); seen() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d scans reached the table, want %d", seen(), n)
		}
	}
}

// TestHostileCountSlots: counts run in a class's slots. With the anonymous
// slot taken a second anonymous count is refused at once with 429 and a
// Retry-After, while a signed-in user's count runs in its own slot; when
// the counts finish the slots are free again.
func TestHostileCountSlots(t *testing.T) {
	g := &gatedTable{gate: make(chan struct{})}
	s := startServer(t, sqliteDSN(t), options{
		table: func(tb tableexport.Table) tableexport.Table { g.Table = tb; return g },
		config: func(c *jobs.Config) {
			c.AnonymousCounts = jobs.CountLimit{Concurrent: 1, Timeout: time.Minute}
			c.UserCounts = jobs.CountLimit{Concurrent: 1, Timeout: time.Minute}
			c.CountRetryAfter = 3 * time.Second
			c.CountWait = -1
		},
	})
	const path = "/v1/occurrence/search/count?stateProvince=Nigde"
	var wg sync.WaitGroup
	answers := make([]response, 2)
	for i, user := range []string{"", "alice"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = s.do("GET", path, user, nil)
		}()
		g.waitScans(t, i+1) // each count's splits are held
	}
	for _, user := range []string{"", "bob"} {
		r := expect(t, s.do("GET", path, user, nil), http.StatusTooManyRequests)
		if r.header.Get("Retry-After") != "3" || !strings.Contains(string(r.body), "limit") {
			t.Fatalf("429 for %q: Retry-After %q, body %q", user, r.header.Get("Retry-After"), r.body)
		}
	}
	// Bad credentials are refused as such, not counted.
	unauthorized(t, s.do("GET", path, "mallory", nil))
	close(g.gate)
	wg.Wait()
	for i, r := range answers {
		expect(t, r, http.StatusOK)
		var est jobs.Estimate
		if err := json.Unmarshal(r.body, &est); err != nil || est.Count == 0 {
			t.Fatalf("count %d: %s", i, r)
		}
	}
	expect(t, s.do("GET", path, "", nil), http.StatusOK)
}

// TestHostileCountDeadline: an anonymous count past its deadline is
// stopped and answered 504, its split scans cancelled (none still runs
// when the answer comes); a signed-in user's longer deadline lets the
// same count finish.
func TestHostileCountDeadline(t *testing.T) {
	g := &gatedTable{gate: make(chan struct{})}
	s := startServer(t, sqliteDSN(t), options{
		table: func(tb tableexport.Table) tableexport.Table { g.Table = tb; return g },
		config: func(c *jobs.Config) {
			c.AnonymousCounts = jobs.CountLimit{Concurrent: 2, Timeout: 200 * time.Millisecond}
			c.UserCounts = jobs.CountLimit{Concurrent: 2, Timeout: time.Minute}
		},
	})
	pred := `{"type":"equals","key":"STATE_PROVINCE","value":"Nigde"}`
	r := expect(t, s.do("POST", "/v1/occurrence/search/predicate", "", pred), http.StatusGatewayTimeout)
	for _, want := range []string{"200ms", "anonymous callers", "stopped", "sign in"} {
		if !strings.Contains(string(r.body), want) {
			t.Fatalf("504 body %q does not say %q", r.body, want)
		}
	}
	if n := g.running.Load(); n != 0 {
		t.Fatalf("%d split scans still running after the 504", n)
	}
	if g.stopped.Load() == 0 {
		t.Fatal("no split scan saw the deadline")
	}
	done := make(chan response, 1)
	go func() { done <- s.do("POST", "/v1/occurrence/search/predicate", "alice", pred) }()
	g.waitScans(t, 2)
	time.Sleep(300 * time.Millisecond) // past the anonymous deadline
	close(g.gate)
	expect(t, <-done, http.StatusOK)
}

// TestHostileSearchSlots: the search routes share the count routes' slots
// (jobs.Service.Admit): with the anonymous slot held by a count, an
// anonymous search page and GBIF's /occurrence/count are refused with 429
// at once, and run again once the slot is free.
func TestHostileSearchSlots(t *testing.T) {
	g := &gatedTable{gate: make(chan struct{})}
	s := startServer(t, sqliteDSN(t), options{
		table: func(tb tableexport.Table) tableexport.Table { g.Table = tb; return g },
		config: func(c *jobs.Config) {
			c.AnonymousCounts = jobs.CountLimit{Concurrent: 1, Timeout: time.Minute}
			c.CountRetryAfter = 3 * time.Second
			c.CountWait = -1
		},
		web: web.Config{Search: search.New(g, search.Config{Cache: -1}, testLogger(t))},
	})
	done := make(chan response, 1)
	go func() { done <- s.do("GET", "/v1/occurrence/search/count?stateProvince=Nigde", "", nil) }()
	g.waitScans(t, 1)
	for _, path := range []string{"/v1/occurrence/search?stateProvince=Nigde", "/v1/occurrence/count?country=TR"} {
		r := expect(t, s.do("GET", path, "", nil), http.StatusTooManyRequests)
		if r.header.Get("Retry-After") != "3" {
			t.Fatalf("%s: 429 without the Retry-After of the count slots: %q", path, r.header.Get("Retry-After"))
		}
	}
	close(g.gate)
	expect(t, <-done, http.StatusOK)
	r := expect(t, s.do("GET", "/v1/occurrence/search?stateProvince=Nigde&limit=1", "", nil), http.StatusOK)
	var page struct{ Count int64 }
	if err := json.Unmarshal(r.body, &page); err != nil || page.Count == 0 {
		t.Fatalf("search after the slot was freed: %s", r.body)
	}
}

// TestHostileCountWait: with the slot taken, a count waits up to
// Config.CountWait for it: one that the freed slot reaches in time is
// answered 200, one that waits past CountWait is refused with 429.
func TestHostileCountWait(t *testing.T) {
	g := &gatedTable{gate: make(chan struct{})}
	s := startServer(t, sqliteDSN(t), options{
		table: func(tb tableexport.Table) tableexport.Table { g.Table = tb; return g },
		config: func(c *jobs.Config) {
			c.AnonymousCounts = jobs.CountLimit{Concurrent: 1, Timeout: time.Minute}
			c.CountWait = 400 * time.Millisecond
		},
	})
	const path = "/v1/occurrence/search/count?stateProvince=Nigde"
	first := make(chan response, 1)
	go func() { first <- s.do("GET", path, "", nil) }()
	g.waitScans(t, 1)
	start := time.Now()
	expect(t, s.do("GET", path, "", nil), http.StatusTooManyRequests)
	if waited := time.Since(start); waited < 400*time.Millisecond {
		t.Fatalf("refused after %s, before the %s wait", waited, 400*time.Millisecond)
	}
	queued := make(chan response, 1)
	go func() { queued <- s.do("GET", path, "", nil) }()
	time.Sleep(100 * time.Millisecond) // the second count is waiting for the slot
	select {
	case r := <-queued:
		t.Fatalf("a count answered %d while the slot was held", r.code)
	default:
	}
	close(g.gate)
	expect(t, <-first, http.StatusOK)
	expect(t, <-queued, http.StatusOK)
}
