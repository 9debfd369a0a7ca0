package web_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/web"
)

// The hostile suite: clients that try to hold the server's resources
// (slow headers, slow bodies, idle connections, archive readers that stop)
// and password guessers. Each test asserts the bounded outcome: the
// connection closed within its timeout, 429 after the free failures, other
// users not slowed beyond a bound measured against a baseline of the same
// run, unknown and known users answered in the same time.

// hostileTimeouts are short timeouts, so that the tests see them expire.
var hostileTimeouts = web.Config{ReadHeaderTimeout: time.Second, ReadTimeout: 2 * time.Second,
	WriteTimeout: 2 * time.Second, IdleTimeout: time.Second, ArchiveStallTimeout: time.Second,
	ShutdownGrace: time.Second}

// dial opens a TCP connection to the server at base.
func dial(t *testing.T, base string) net.Conn {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// closedWithin reads from c (through r, which may buffer it) until the
// server closes it (EOF or reset) and fails unless that happens within
// limit; it returns the bytes read.
func closedWithin(t *testing.T, r io.Reader, c net.Conn, limit time.Duration, what string) []byte {
	t.Helper()
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(limit))
	b, err := io.ReadAll(r)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the connection was still open after %s (%d bytes read)", what, limit, len(b))
	}
	t.Logf("%s: closed after %s", what, time.Since(start).Round(10*time.Millisecond))
	return b
}

// dribble writes p a byte at a time every gap until it is done or the
// connection fails.
func dribble(c net.Conn, p string, gap time.Duration) {
	for i := 0; i < len(p); i++ {
		if _, err := c.Write([]byte{p[i]}); err != nil {
			return
		}
		time.Sleep(gap)
	}
}

// bigArchive makes a download and replaces its archive in the local storage
// with size bytes (fault injection: the test table makes archives of a few
// kilobytes, which socket buffers swallow whole). It returns the URL.
func bigArchive(t *testing.T, s *server, size int64) string {
	t.Helper()
	key := s.submit("alice", `{"format":"SPECIES_LIST","predicate":`+familyPredicate+`}`)
	s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
	var name string
	if err := s.db.SQL.QueryRow("SELECT object_name FROM downloads WHERE key = '" + key + "'").Scan(&name); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(s.archive, name), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return "/v1/occurrence/download/request/" + key + ".zip"
}

func TestHostileSlowClients(t *testing.T) {
	// With metrics, as serve runs it: the archive's deadlines go through
	// the metrics' response writer.
	s := startServer(t, sqliteDSN(t), options{web: hostileTimeouts, metrics: prometheus.NewRegistry()})
	slack := 3 * time.Second // a loaded machine

	t.Run("slowloris headers", func(t *testing.T) {
		c := dial(t, s.URL)
		go dribble(c, "GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\nX-Slow: "+strings.Repeat("a", 100), 200*time.Millisecond)
		closedWithin(t, c, c, hostileTimeouts.ReadHeaderTimeout+slack, "slow headers")
	})
	t.Run("slow body", func(t *testing.T) {
		c := dial(t, s.URL)
		body := familyPredicate
		fmt.Fprintf(c, "POST /v1/occurrence/search/predicate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
			"Content-Length: %d\r\n\r\n", len(body))
		go dribble(c, body, 300*time.Millisecond) // 18 s for the whole body
		b := closedWithin(t, c, c, hostileTimeouts.ReadTimeout+slack, "slow body")
		if !strings.HasPrefix(string(b), "HTTP/1.1 408") {
			t.Fatalf("a body that did not arrive in time got %q, want 408", firstLine(b))
		}
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		c := dial(t, s.URL)
		fmt.Fprintf(c, "GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("first request: %d close=%v %v", resp.StatusCode, resp.Close, err)
		}
		closedWithin(t, br, c, hostileTimeouts.IdleTimeout+slack, "idle keep-alive")
	})
	t.Run("stalled archive reader", func(t *testing.T) {
		const size = 64 << 20
		path := bigArchive(t, s, size)
		c := dial(t, s.URL)
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path)
		// Read nothing for well past the stall timeout: the server fills
		// the socket buffers, then waits in vain and drops the transfer.
		time.Sleep(hostileTimeouts.ArchiveStallTimeout + slack)
		b := closedWithin(t, c, c, 10*time.Second, "stalled archive reader")
		if int64(len(b)) >= size {
			t.Fatalf("the stalled reader got all %d bytes", len(b))
		}
	})
	t.Run("steady archive reader outlasts the write timeout", func(t *testing.T) {
		const size = 24 << 20
		path := bigArchive(t, s, size)
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		start := time.Now()
		var n int64
		buf := make([]byte, 256<<10)
		for {
			k, err := io.ReadFull(resp.Body, buf)
			n += int64(k)
			if err != nil {
				break
			}
			time.Sleep(40 * time.Millisecond) // about 6 MB/s
		}
		took := time.Since(start)
		if n != size || took <= hostileTimeouts.WriteTimeout {
			t.Fatalf("read %d of %d bytes in %s; want all, in more than the write timeout %s", n, size, took,
				hostileTimeouts.WriteTimeout)
		}
	})
}

func firstLine(b []byte) string {
	line, _, _ := strings.Cut(string(b), "\r\n")
	return line
}

// TestHostileShutdown: slow clients do not hold the server's stop beyond
// its grace: idle connections close at once, a slow body and a stalled
// archive transfer when the grace ends.
func TestHostileShutdown(t *testing.T) {
	cfg := hostileTimeouts
	cfg.ReadTimeout, cfg.ArchiveStallTimeout, cfg.IdleTimeout = time.Minute, time.Minute, time.Minute
	s := startServer(t, sqliteDSN(t), options{web: cfg})
	path := bigArchive(t, s, 64<<20)

	idle := dial(t, s.URL)
	fmt.Fprintf(idle, "GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	slowBody := dial(t, s.URL)
	fmt.Fprintf(slowBody, "POST /v1/occurrence/search/predicate HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
	stalled := dial(t, s.URL)
	fmt.Fprintf(stalled, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path)
	time.Sleep(500 * time.Millisecond) // all three are in the server's hands

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- s.api.Shutdown(ctx, s.http) }()
	closedWithin(t, br, idle, 500*time.Millisecond, "idle connection at shutdown")
	select {
	case <-done:
	case <-time.After(cfg.ShutdownGrace + 3*time.Second):
		t.Fatalf("shutdown still waiting after %s, with a grace of %s", time.Since(start), cfg.ShutdownGrace)
	}
	t.Logf("shutdown returned after %s", time.Since(start))
	closedWithin(t, slowBody, slowBody, time.Second, "slow body at shutdown")
	n, err := io.Copy(io.Discard, stalled) // until the server's close
	t.Logf("stalled reader: %d bytes then %v, %s after the shutdown began", n, err, time.Since(start))
	if took := time.Since(start); took > cfg.ShutdownGrace+3*time.Second {
		t.Fatalf("shutdown took %s", took)
	}
}

// TestHostileLoginGuessing: a guesser gets 429 after the free failures, and
// other users' logins are not slowed by it; an unknown user is answered in
// about the time a known one is (before: 0.7 ms vs ~100 ms).
func TestHostileLoginGuessing(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{web: web.Config{ClientIPHeader: "X-Forwarded-For"}})
	ctx := context.Background()
	var users []string
	for i := range 8 {
		u := "user" + strconv.Itoa(i)
		if err := s.db.AddUser(ctx, jobs.User{Name: u}, password(u)); err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
	}
	// login times one password check (a user's first request; later ones
	// are remembered) from address from, and returns the status.
	login := func(user, pass, from string) (int, time.Duration, http.Header) {
		req, _ := http.NewRequest("GET", s.URL+"/v1/occurrence/download/user/"+user+"/count", nil)
		req.SetBasicAuth(user, pass)
		req.Header.Set("X-Forwarded-For", from)
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, took, resp.Header
	}
	median := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	var base []time.Duration
	for _, u := range users[:4] {
		code, took, _ := login(u, password(u), "192.0.2.1")
		if code != http.StatusOK {
			t.Fatalf("baseline login of %s: %d", u, code)
		}
		base = append(base, took)
	}

	// The guesser: eight connections guessing alice's password from one
	// address, each every 20 ms (400 guesses a second; the probe that found
	// the problem made 16), for as long as the others' logins are measured.
	var codes sync.Map // status -> *atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	var retryAfter atomic.Bool
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				code, _, h := login("alice", fmt.Sprintf("guess-%d-%d", g, i), "198.51.100.66")
				n, _ := codes.LoadOrStore(code, &atomic.Int64{})
				n.(*atomic.Int64).Add(1)
				if code == http.StatusTooManyRequests {
					if ra, err := strconv.Atoi(h.Get("Retry-After")); err == nil && ra >= 1 {
						retryAfter.Store(true)
					}
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	attack := time.Now()
	time.Sleep(300 * time.Millisecond)
	var during []time.Duration
	for _, u := range users[4:] {
		code, took, _ := login(u, password(u), "192.0.2.2")
		if code != http.StatusOK {
			t.Fatalf("login of %s during the attack: %d", u, code)
		}
		during = append(during, took)
	}
	stop.Store(true)
	wg.Wait()
	// Five free failures, the sixth starts a back-off of 1 s that doubles
	// with each failure after it: in D seconds at most log2(D+1) more.
	lasted := time.Since(attack).Seconds()
	checked := 6 + int(math.Log2(lasted+1))
	count := func(code int) int64 {
		if n, ok := codes.Load(code); ok {
			return n.(*atomic.Int64).Load()
		}
		return 0
	}
	guesses := count(http.StatusUnauthorized) + count(http.StatusTooManyRequests)
	t.Logf("guesses %d: %d answered 401, %d 429; baseline login %s, during the attack %s", guesses,
		count(http.StatusUnauthorized), count(http.StatusTooManyRequests), median(base), median(during))
	if count(http.StatusUnauthorized) > int64(checked) || count(http.StatusTooManyRequests) < 50 || !retryAfter.Load() {
		t.Fatalf("guesses in %.1f s: %d checked (401), %d refused (429, Retry-After seen: %v); want at most %d checked",
			lasted, count(http.StatusUnauthorized), count(http.StatusTooManyRequests), retryAfter.Load(), checked)
	}
	if limit := 3*median(base) + 200*time.Millisecond; median(during) > limit {
		t.Fatalf("logins took %s during the attack, %s before (limit %s)", median(during), median(base), limit)
	}

	// Unknown and known users cost the same: each guess from an address of
	// its own (no back-off), fewer per user name than its free failures,
	// which goes first alternating.
	var known, unknown []time.Duration
	for i := range 8 {
		kFrom, uFrom := fmt.Sprintf("203.0.113.%d", 2*i), fmt.Sprintf("203.0.113.%d", 2*i+1)
		if i%2 == 1 {
			_, u, _ := login(fmt.Sprintf("nobody%d", i), "wrong-password", uFrom)
			unknown = append(unknown, u)
		}
		_, k, _ := login("user0", "wrong-password", kFrom)
		known = append(known, k)
		if i%2 == 0 {
			_, u, _ := login(fmt.Sprintf("nobody%d", i), "wrong-password", uFrom)
			unknown = append(unknown, u)
		}
	}
	k, u := median(known), median(unknown)
	ratio := float64(max(k, u)) / float64(min(k, u))
	t.Logf("wrong password: known user %s, unknown user %s (ratio %.2f)", k, u, ratio)
	if ratio > 3 {
		t.Fatalf("a known user's wrong password takes %s, an unknown user's %s: the time tells them apart", k, u)
	}
}

// TestHostileStopWithSlowClient: `downloader serve` stopped (SIGTERM) while
// a client dribbles a body and an export runs: the slow client is cut after
// --shutdown-grace, the export is suspended (to resume at the next start)
// and the process exits long before --shutdown-timeout. (The slow client
// held the stop for the whole timeout, eating the workers' time.)
func TestHostileStopWithSlowClient(t *testing.T) {
	bin := buildFaultBinary(t)
	_, table := buildFixture(t)
	dsn := sqliteDSN(t)
	addUser(t, bin, dsn, "alice")
	p := startServe(t, bin, nil, "--listen", "127.0.0.1:0", "--db", dsn, "--table", table, "--storage", t.TempDir(),
		"--test-export-throttle", "2000", "--poll", "100ms", "--heartbeat", "100ms",
		"--shutdown-grace", "1s", "--shutdown-timeout", "30s", "--read-timeout", "1m")
	s := &server{t: t, URL: p.base, stopped: true}
	key := s.submit("alice", `{"format":"DWCA"}`)
	s.waitStatus(key, time.Minute, jobs.StatusRunning)
	c := dial(t, p.base)
	fmt.Fprintf(c, "POST /v1/occurrence/search/predicate HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		if err != nil {
			t.Fatalf("serve exited with %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("serve still running %s after SIGTERM", time.Since(start))
	}
	t.Logf("serve stopped %s after SIGTERM", time.Since(start).Round(10*time.Millisecond))
	db, err := jobs.OpenDB(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var status string
	if err := db.SQL.QueryRow("SELECT status FROM downloads WHERE key = ?", key).Scan(&status); err != nil {
		t.Fatal(err)
	}
	if status != string(jobs.StatusSuspended) {
		t.Fatalf("the running export is %s after the stop, want SUSPENDED", status)
	}
}

// TestRefusedLoginLogged: a refused login leaves a line with the user name
// and the client's address, never the password tried; a good one none.
func TestRefusedLoginLogged(t *testing.T) {
	var buf lockedBuffer
	s := startServer(t, sqliteDSN(t), options{apiLog: slog.New(slog.NewJSONHandler(&buf, nil))})
	if err := s.db.AddUser(context.Background(), jobs.User{Name: "carol"}, password("carol")); err != nil {
		t.Fatal(err)
	}
	for _, pass := range []string{"Tr0ub4dor&3", password("carol")} {
		req, _ := http.NewRequest("GET", s.URL+"/v1/occurrence/download/user/carol/count", nil)
		req.SetBasicAuth("carol", pass)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	logs := buf.String()
	if strings.Count(logs, `"msg":"login refused"`) != 1 || !strings.Contains(logs, `"user":"carol"`) || !strings.Contains(logs, `"addr":"127.0.0.1`) {
		t.Errorf("want one login refused line with user and address:\n%s", logs)
	}
	if strings.Contains(logs, "Tr0ub4dor") || strings.Contains(logs, password("carol")) {
		t.Errorf("a password is in the log:\n%s", logs)
	}
}
