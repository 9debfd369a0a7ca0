package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// schedulesServeConfig writes a serve configuration, the line first first, over
// a fresh SQLite database, the export table and a short lease, with three
// schedules: erase, roll (rollover) and snapshot (a SIMPLE_CSV export).
func schedulesServeConfig(t *testing.T, first string) string {
	t.Helper()
	clearConfigEnv(t)
	dir := t.TempDir()
	return writeFile(t, "serve.yaml", fmt.Sprintf(`%s
database:
  url: sqlite:%s
table: %s
storage:
  location: %s
limits:
  lease: 1s
  rescue_after: 3s
  poll: 100ms
  heartbeat: 100ms
schedules:
  - name: erase
    cron: "30 2 * * *"
    kind: erase
  - name: roll
    cron: "30 3 * * *"
    kind: rollover
  - name: snapshot
    cron: "0 4 1 * *"
    kind: export
    params:
      format: SIMPLE_CSV
`, first, filepath.Join(dir, "jobs.db"), exportTable(t), filepath.Join(dir, "archives")))
}

// serveInBackground runs `serve --config cfg` until the test ends (its exit
// status checked then) and waits for its output to match ready, whose
// submatches it returns.
func serveInBackground(t *testing.T, cfg string, ready *regexp.Regexp) (*syncBuffer, []string) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan int)
	out := &syncBuffer{}
	go func() {
		env := &Env{Stdout: out, Stderr: out, Stdin: strings.NewReader(""), Logger: slog.New(slog.DiscardHandler)}
		served <- run(ctx, []string{"serve", "--config", cfg}, env)
	}()
	t.Cleanup(func() {
		stop()
		if code := <-served; code != 0 {
			t.Errorf("serve exited %d:\n%s", code, out.String())
		}
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if m := ready.FindStringSubmatch(out.String()); m != nil {
			return out, m
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", out.String())
		}
	}
}

// syncBuffer is a buffer a running command writes to while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// `downloader schedule run` queues a run that a worker (`serve --role
// worker` of the same configuration) runs and records; the command waits
// for it, an export run until its download finished; `schedule list`
// shows the schedules, their next fires and these runs.
func TestScheduleCommands(t *testing.T) {
	cfg := schedulesServeConfig(t, "role: worker")

	serveOut, _ := serveInBackground(t, cfg, regexp.MustCompile(`serving worker`))
	if strings.Contains(serveOut.String(), "not run by this version") {
		t.Errorf("serve still says schedules are not run:\n%s", serveOut.String())
	}

	out, _ := runCmd(t, "schedule", "run", "erase", "--config", cfg)
	if !regexp.MustCompile(`(?m)^erase: succeeded in [0-9.]+m?s: warned 0, erased 0$`).MatchString(out) {
		t.Fatalf("schedule run erase:\n%s", out)
	}
	out, _ = runCmd(t, "schedule", "run", "roll", "--config", cfg)
	if !regexp.MustCompile(`(?m)^roll: succeeded in [0-9.]+m?s: snapshot \d+ -> \d+ in [0-9.]+s: \d+ -> \d+ files, .*; \d+ datasets merged; .* freed; 0 pinned$`).MatchString(out) {
		t.Fatalf("schedule run roll:\n%s", out)
	}
	out, _ = runCmd(t, "schedule", "run", "--config", cfg, "--timeout", "1m", "snapshot")
	m := regexp.MustCompile(`(?m)^snapshot: succeeded in [0-9.]+m?s: download ([0-9]{7}-[0-9]{15}): (\d+) records, (\d+) bytes$`).FindStringSubmatch(out)
	if m == nil || m[2] == "0" {
		t.Fatalf("schedule run snapshot:\n%s", out)
	}

	out, _ = runCmd(t, "schedule", "list", "--config", cfg)
	for _, want := range []string{`(?m)^SCHEDULE +KIND +CRON +NEXT FIRE \(UTC\)$`, `(?m)^erase +erase +30 2 \* \* \* +\d{4}-\d\d-\d\d 02:30:00$`,
		`(?m)^  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d +manual +succeeded \d+m?s +warned 0, erased 0$`,
		`(?m)^snapshot +export +0 4 1 \* \* +\d{4}-\d\d-01 04:00:00$`, `manual +succeeded [0-9.]+m?s +download ` + m[1] + ": " + m[2] + " records"} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("schedule list lacks %s:\n%s", want, out)
		}
	}
	out, _ = runCmd(t, "schedule", "list", "--config", cfg, "--json")
	var ls []scheduleListing
	if err := json.Unmarshal([]byte(out), &ls); err != nil || len(ls) != 3 {
		t.Fatalf("schedule list --json: %v\n%s", err, out)
	}
	now := time.Now().UTC()
	if ls[0].Name != "erase" || ls[0].Next.Hour() != 2 || ls[0].Next.Minute() != 30 || !ls[0].Next.After(now) ||
		ls[0].Next.After(now.Add(24*time.Hour)) || len(ls[0].Runs) != 1 || ls[0].Runs[0].Trigger != "manual" {
		t.Errorf("erase: %+v", ls[0])
	}
	if ls[2].Runs[0].DownloadKey != m[1] || ls[2].Runs[0].Seconds <= 0 || ls[2].Next.Day() != 1 {
		t.Errorf("snapshot: %+v", ls[2])
	}

	var errb bytes.Buffer
	env := &Env{Stdout: &bytes.Buffer{}, Stderr: &errb, Stdin: strings.NewReader(""), Logger: slog.New(slog.DiscardHandler)}
	if code := run(context.Background(), []string{"schedule", "run", "nightly", "--config", cfg}, env); code != 1 ||
		!strings.Contains(errb.String(), `no such schedule: "nightly"`) {
		t.Errorf("unknown schedule: exit %d, %s", code, errb.String())
	}
}

// A manual run that no worker started before the command stopped waiting
// is withdrawn: it does not run whenever a worker next starts.
func TestScheduleRunWithoutWorkerWithdrawn(t *testing.T) {
	clearConfigEnv(t)
	file := filepath.Join(t.TempDir(), "jobs.db")
	cfg := writeFile(t, "serve.yaml", "database:\n  url: sqlite:"+file+"\ntable: "+tableDir(t)+
		"\nschedules:\n  - {name: erase, cron: \"30 2 * * *\", kind: erase}\n")
	runCmd(t, "migrate", "--db", "sqlite:"+file)
	msg := runFailsWithInput(t, "", "schedule", "run", "erase", "--config", cfg, "--timeout", "500ms")
	if !strings.Contains(msg, "stopped waiting for the run of erase (context deadline exceeded): no worker had started it, so it was withdrawn and will not run") {
		t.Errorf("schedule run without a worker: %s", msg)
	}
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var queued int
	if err := db.QueryRow("SELECT count(*) FROM river_job").Scan(&queued); err != nil || queued != 0 {
		t.Errorf("%d River jobs left queued (%v)", queued, err)
	}
}
