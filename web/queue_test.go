package web_test

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
	"github.com/biodiversity-downloads/downloader/jobs"
)

// gauge records how many exports run at once (the highest count seen),
// which downloads are exporting now and which have finished exporting.
type gauge struct {
	jobs.Engine
	mu       sync.Mutex
	running  map[string]bool
	finished map[string]bool
	peak     int
}

func (g *gauge) Export(ctx context.Context, req jobs.ExportRequest, w io.Writer, p func(jobs.Progress)) (jobs.ExportResult, error) {
	g.mu.Lock()
	if g.running == nil {
		g.running = map[string]bool{}
		g.finished = map[string]bool{}
	}
	g.running[req.Key] = true
	g.peak = max(g.peak, len(g.running))
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		delete(g.running, req.Key)
		g.finished[req.Key] = true
		g.mu.Unlock()
	}()
	return g.Engine.Export(ctx, req, w, p)
}

func (g *gauge) state() (running []string, peak int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for k := range g.running {
		running = append(running, k)
	}
	return running, g.peak
}

// started and done say whether the export of key has begun and ended.
func (g *gauge) started(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running[key] || g.finished[key]
}

func (g *gauge) done(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.finished[key]
}

// slowExports queues n slow downloads (each a different predicate, so none
// is deduplicated) on s and returns their keys.
func slowExports(s *server, n int, notify string) []string {
	var keys []string
	for i := range n {
		body := fmt.Sprintf(`{"format":"SIMPLE_CSV","predicate":{"type":"greaterThanOrEquals","key":"YEAR","value":"%d"}`, 1000+i)
		if notify != "" {
			body += `,"sendNotification":true,"notificationAddresses":["` + notify + `"]`
		}
		keys = append(keys, s.submit("alice", body+"}"))
	}
	return keys
}

// TestExportSlotsPerProcess: a process started with Workers 2 runs exactly
// two exports at once however many are queued. (Exports, notifications and
// maintenance shared Workers+2 slots of River's default queue, so four
// exports ran at once.)
func TestExportSlotsPerProcess(t *testing.T) {
	g := &gauge{}
	s := startServer(t, sqliteDSN(t), options{workers: 2, maxRunning: 10, throttle: 60_000,
		engine: func(e jobs.Engine) jobs.Engine { g.Engine = e; return g }})
	keys := slowExports(s, 5, "")
	for _, k := range keys {
		s.waitStatus(k, 2*time.Minute, jobs.StatusSucceeded)
	}
	if _, peak := g.state(); peak != 2 {
		t.Fatalf("%d exports ran at once with workers=2, want exactly 2", peak)
	}
}

// TestNoticesWhileExportsBusy: the mail of a finished download goes out
// while every export slot is taken by other, slow exports.
func TestNoticesWhileExportsBusy(t *testing.T) {
	cfg := testenv.Need(t, "DOWNLOADER_TEST_MAILPIT", "scripts/ci/mailpit.sh")
	smtpAddr, api, _ := strings.Cut(cfg, ",")
	mailer, err := jobs.NewMailer(jobs.MailConfig{Addr: smtpAddr, From: "downloads@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	g := &gauge{}
	s := startServer(t, sqliteDSN(t), options{workers: 1, maxRunning: 10, mailer: mailer, throttle: 30_000,
		engine: func(e jobs.Engine) jobs.Engine { g.Engine = e; return g }})
	to := "slots+" + strconv.FormatInt(time.Now().UnixNano(), 36) + "@example.org"
	keys := slowExports(s, 3, to)
	s.waitStatus(keys[0], 2*time.Minute, jobs.StatusSucceeded)
	waitMail(t, api, to, keys[0])
	// The first download's mail has arrived before the second export ended
	// (it lasts several seconds) and before the third began: the mail did
	// not queue behind exports for the only slot. (Whether the second
	// export has begun yet depends on when the queue next polls, so it is
	// not asserted: CI once caught the mail in that gap.)
	if g.done(keys[1]) || g.started(keys[2]) {
		running, _ := g.state()
		t.Fatalf("the first mail arrived after the second export ended (exports running then: %v)", running)
	}
	if _, peak := g.state(); peak != 1 {
		t.Fatalf("%d exports ran at once with workers=1", peak)
	}
	for _, k := range keys[1:] {
		s.waitStatus(k, 2*time.Minute, jobs.StatusSucceeded)
	}
}
