package web_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
	"github.com/biodiversity-downloads/downloader/jobs"
)

// lockedBuffer collects a subprocess's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// worker is a `downloader serve --role worker` subprocess.
type worker struct {
	cmd  *exec.Cmd
	logs *lockedBuffer
	done chan struct{}
	tmp  string // its temporary directory (TMPDIR)
}

func startWorker(t *testing.T, dsn, archive string, extra ...string) *worker {
	t.Helper()
	bin, _ := buildFixture(t)
	return runWorker(t, bin, dsn, archive, extra...)
}

// startThrottledWorker is startWorker writing archives at no more than
// bytesPerSecond: the binary built with the faultinject tag, whose
// --test-export-throttle flag production builds lack.
func startThrottledWorker(t *testing.T, dsn, archive string, bytesPerSecond int64, extra ...string) *worker {
	t.Helper()
	bin := buildFaultBinary(t)
	return runWorker(t, bin, dsn, archive, append([]string{"--test-export-throttle", strconv.FormatInt(bytesPerSecond, 10)}, extra...)...)
}

func runWorker(t *testing.T, bin, dsn, archive string, extra ...string) *worker {
	t.Helper()
	_, table := buildFixture(t)
	args := append([]string{"serve", "--role", "worker", "--db", dsn, "--table", table, "--storage", archive,
		"--lease", "2s", "--rescue-after", "4s", "--heartbeat", "100ms", "--poll", "100ms"}, extra...)
	w := &worker{cmd: exec.Command(bin, args...), logs: &lockedBuffer{}, done: make(chan struct{}), tmp: t.TempDir()}
	w.cmd.Env = append(os.Environ(), "TMPDIR="+w.tmp)
	w.cmd.Stderr = w.logs
	w.cmd.Stdout = w.logs
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = w.cmd.Wait(); close(w.done) }()
	t.Cleanup(func() {
		select {
		case <-w.done:
		default:
			_ = w.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-w.done:
			case <-time.After(20 * time.Second):
				_ = w.cmd.Process.Kill()
				<-w.done
			}
		}
		if t.Failed() {
			t.Logf("worker %d log:\n%s", w.cmd.Process.Pid, w.logs)
		}
	})
	return w
}

func (w *worker) kill9(t *testing.T) {
	t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-w.done
}

// tempFiles lists the worker's temporary directory: names, and files
// open in it (named or unlinked; -1 where /proc does not tell).
func (w *worker) tempFiles(t *testing.T) (names []string, open int) {
	t.Helper()
	entries, err := os.ReadDir(w.tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", w.cmd.Process.Pid))
	if err != nil {
		return names, -1
	}
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", w.cmd.Process.Pid, fd.Name()))
		if err == nil && strings.HasPrefix(target, w.tmp+string(os.PathSeparator)) {
			open++
		}
	}
	return names, open
}

// archiveFiles lists the storage directory: committed archives and
// partial uploads.
func archiveFiles(t *testing.T, dir string) (committed, partial []string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if atomicfile.IsTemp(e.Name()) {
			partial = append(partial, e.Name())
		} else {
			committed = append(committed, e.Name())
		}
	}
	return committed, partial
}

// TestKillWorkerMidExport kills a worker process with SIGKILL while it writes
// an archive: nothing partial is ever downloadable, and a new worker process
// completes the download to a valid archive.
func TestKillWorkerMidExport(t *testing.T) {
	forEachDB(t, func(t *testing.T, dsn string) {
		archive := t.TempDir()
		api := startServer(t, dsn, options{role: jobs.RoleAPI, archiveDir: archive})
		want := api.count(`null`).Count
		w1 := startThrottledWorker(t, dsn, archive, 20_000)
		key := api.submit("alice", `{"format":"DWCA"}`)
		// A client fetches the archive over and over the whole time: every
		// answer before success must be 404, and every 200 the final archive.
		watch := watchArchive(api.URL + "/v1/occurrence/download/request/" + key + ".zip")
		deadline := time.Now().Add(60 * time.Second)
		for {
			d := api.status(key, "alice")
			if d.Status == jobs.StatusRunning && d.Progress != nil && d.Progress.BytesWritten > 20_000 {
				break
			}
			if time.Now().After(deadline) || d.Status == jobs.StatusSucceeded {
				t.Fatalf("download never seen mid-export: %+v", d)
			}
			time.Sleep(50 * time.Millisecond)
		}
		expect(t, api.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusNotFound)
		committed, partial := archiveFiles(t, archive)
		if len(committed) != 0 || len(partial) != 1 {
			t.Fatalf("mid-export storage: committed %v partial %v", committed, partial)
		}
		// The DWCA's spools (verbatim and multimedia rows) are open in the
		// worker's temporary directory without a name, so the kill leaves
		// none behind (internal/tmpfile).
		names, open := w1.tempFiles(t)
		if len(names) != 0 || open == 0 {
			t.Fatalf("worker's temporary files mid-export: named %v, %d open", names, open)
		}
		w1.kill9(t)
		if names, _ := w1.tempFiles(t); len(names) != 0 {
			t.Fatalf("the killed worker left %v", names)
		}
		if d := api.status(key, "alice"); d.Status != jobs.StatusRunning {
			t.Fatalf("after kill: %s", d.Status)
		}
		expect(t, api.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusNotFound)

		startWorker(t, dsn, archive)
		// River's rescuer runs every 30 s; the download must then complete.
		d := api.waitStatus(key, 3*time.Minute, jobs.StatusSucceeded)
		r := expect(t, api.do("GET", "/v1/occurrence/download/request/"+key+".zip", "", nil), http.StatusOK)
		if sum := sha256.Sum256(r.body); hex.EncodeToString(sum[:]) != d.SHA256 || int64(len(r.body)) != d.Size {
			t.Fatal("served archive differs from the recorded one")
		}
		if _, rows := readArchive(t, r.body); int64(rows) != want || d.TotalRecords != want {
			t.Fatalf("archive has %d rows, status %d, count %d", rows, d.TotalRecords, want)
		}
		var attempts int
		if err := api.db.SQL.QueryRow("SELECT attempts FROM downloads WHERE key = '" + key + "'").Scan(&attempts); err != nil || attempts != 2 {
			t.Fatalf("attempts %d (%v), want 2", attempts, err)
		}
		// The killed worker's partial archive went when the download ran
		// again (it stayed for the daily sweep, 24 h).
		committed, partial = archiveFiles(t, archive)
		if len(committed) != 1 || len(partial) != 0 {
			t.Fatalf("committed archives %v, partial %v", committed, partial)
		}
		polls, oks, bad := watch()
		if bad != "" || polls < 10 {
			t.Fatalf("archive watcher: %d polls, served %v: %s", polls, oks, bad)
		}
		for sum := range oks {
			if sum != d.SHA256 {
				t.Fatalf("a different archive (%s) was served", sum)
			}
		}
	})
}

// watchArchive polls url until stopped and returns how often it polled, the
// digests of what it was served, and the first unexpected answer.
func watchArchive(url string) (stop func() (polls int, served map[string]int, bad string)) {
	done := make(chan struct{})
	finished := make(chan struct{})
	served := map[string]int{}
	var polls int
	var bad string
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			polls++
			resp, err := http.Get(url)
			if err != nil {
				continue
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			switch {
			case err != nil:
				bad = err.Error()
			case resp.StatusCode == http.StatusOK:
				sum := sha256.Sum256(body)
				served[hex.EncodeToString(sum[:])]++
			case resp.StatusCode != http.StatusNotFound && bad == "":
				bad = fmt.Sprintf("status %s", resp.Status)
			}
		}
	}()
	return func() (int, map[string]int, string) {
		close(done)
		<-finished
		return polls, served, bad
	}
}

// TestTwoWorkersNeverRunAJobTwice runs many downloads through two worker
// processes sharing one PostgreSQL.
func TestTwoWorkersNeverRunAJobTwice(t *testing.T) {
	dsn := postgresDSN(t)
	archive := t.TempDir()
	api := startServer(t, dsn, options{role: jobs.RoleAPI, archiveDir: archive, maxRunning: 100})
	// A long lease: a worker starved of CPU on a loaded machine must not
	// look dead here (that takeover is what the kill test checks).
	long := []string{"--lease", "15s", "--rescue-after", "30s"}
	workers := []*worker{startWorker(t, dsn, archive, long...), startWorker(t, dsn, archive, long...)}
	const n = 24
	formats := []string{"DWCA", "SIMPLE_CSV", "SPECIES_LIST"}
	var keys []string
	for i := 0; i < n; i++ {
		body := fmt.Sprintf(`{"format":"%s","predicate":{"type":"greaterThanOrEquals","key":"YEAR","value":"%d"}}`,
			formats[i%len(formats)], 1950+i)
		keys = append(keys, api.submit("alice", body))
	}
	for _, k := range keys {
		d := api.waitStatus(k, 3*time.Minute, jobs.StatusSucceeded)
		if d.Size == 0 {
			t.Fatalf("%s: empty archive", k)
		}
	}
	started := regexp.MustCompile(`msg="export started" key=(\S+)`)
	runs := map[string]int{}
	per := make([]int, len(workers))
	for i, w := range workers {
		for _, m := range started.FindAllStringSubmatch(w.logs.String(), -1) {
			runs[m[1]]++
			per[i]++
		}
	}
	for _, k := range keys {
		if runs[k] != 1 {
			t.Errorf("download %s was started %d times", k, runs[k])
		}
		var attempts int
		if err := api.db.SQL.QueryRow("SELECT attempts FROM downloads WHERE key = '" + k + "'").Scan(&attempts); err != nil || attempts != 1 {
			t.Errorf("download %s: attempts %d (%v)", k, attempts, err)
		}
	}
	committed, partial := archiveFiles(t, archive)
	if len(committed) != n || len(partial) != 0 {
		t.Fatalf("%d archives, %d partial; want %d and 0", len(committed), len(partial), n)
	}
	t.Logf("exports per worker: %v", per)
}
