package web_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// TestServeCommand runs the real binary (`downloader serve --role all`) and
// talks to it like a client would, with local and (when configured) S3
// storage; SIGTERM stops it cleanly.
func TestServeCommand(t *testing.T) {
	t.Run("local", func(t *testing.T) { serveEndToEnd(t, filepath.Join(t.TempDir(), "archives"), nil) })
	t.Run("s3", func(t *testing.T) {
		cfg := s3Config(t)
		spec := "s3://" + cfg.Bucket + "/" + cfg.Prefix + "?endpoint=" + url.QueryEscape(cfg.Endpoint)
		serveEndToEnd(t, spec, []string{"AWS_ACCESS_KEY_ID=" + cfg.AccessKey, "AWS_SECRET_ACCESS_KEY=" + cfg.SecretKey})
	})
}

// serveProcess is a running `downloader serve` subprocess.
type serveProcess struct {
	cmd    *exec.Cmd
	base   string
	exited chan error
	logs   *lockedBuffer // stderr
}

// startServe runs bin serve with args (and env added to the environment)
// until the test ends, and reads the base URL it serves on.
func startServe(t *testing.T, bin string, env []string, args ...string) *serveProcess {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProcess{cmd: cmd, exited: make(chan error, 1), logs: logs}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, stdout); p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if t.Failed() {
			t.Logf("serve log:\n%s", logs)
		}
	})
	_, base, ok := strings.Cut(strings.TrimSpace(line), " on ")
	if err != nil || !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line %q (%v)", line, err)
	}
	p.base = base
	return p
}

// addUser adds the user name to the job database dsn with the user command,
// migrating the database first (the user command does not).
func addUser(t *testing.T, bin, dsn, name string) {
	t.Helper()
	if out, err := exec.Command(bin, "migrate", "--db", dsn).CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v %s", err, out)
	}
	add := exec.Command(bin, "user", "add", name, "--db", dsn)
	add.Stdin = strings.NewReader(password(name) + "\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("user add: %v %s", err, out)
	}
}

func serveEndToEnd(t *testing.T, storage string, env []string) {
	bin, table := buildFixture(t)
	dsn := sqliteDSN(t)
	addUser(t, bin, dsn, "alice")
	p := startServe(t, bin, env, "--role", "all", "--listen", "127.0.0.1:0", "--db", dsn, "--table", table,
		"--storage", storage, "--poll", "100ms")
	cmd, exited, base := p.cmd, p.exited, p.base
	s := &server{t: t, URL: base, stopped: true}
	key := s.submit("alice", `{"format":"SIMPLE_CSV","predicate":`+familyPredicate+`}`)
	d := s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
	client := &http.Client{} // follows the S3 redirect
	resp, err := client.Get(d.DownloadLink)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || int64(len(body)) != d.Size {
		t.Fatalf("archive: %s, %d bytes, want %d", resp.Status, len(body), d.Size)
	}
	entries, _ := readArchive(t, body)
	if len(entries) != 1 || entries[0] != key+".csv" {
		t.Fatalf("SIMPLE_CSV entries %v", entries)
	}
	var e jobs.Estimate
	r := expect(t, s.do("GET", "/v1/occurrence/search/count?stateProvince=Nigde", "", nil), http.StatusOK)
	if err := json.Unmarshal(r.body, &e); err != nil || e.Count != d.TotalRecords {
		t.Fatalf("count %s vs %d records", r.body, d.TotalRecords)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("serve exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
}

// TestFaultInjectionOnlyInTaggedBuild: the production binary has no
// --test-export-throttle (not in its help, refused when given); the binary
// built with the faultinject tag, which the process tests use, has it.
func TestFaultInjectionOnlyInTaggedBuild(t *testing.T) {
	const flag = "test-export-throttle"
	prod, _ := buildFixture(t)
	help, _ := exec.Command(prod, "serve", "--help").CombinedOutput()
	if !strings.Contains(string(help), "-role") {
		t.Fatalf("serve --help printed no flags:\n%s", help)
	}
	if strings.Contains(string(help), flag) {
		t.Fatalf("the production serve --help lists --%s:\n%s", flag, help)
	}
	out, err := exec.Command(prod, "serve", "--"+flag, "1000", "--db", sqliteDSN(t)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "flag provided but not defined: -"+flag) {
		t.Fatalf("the production binary took --%s: %v\n%s", flag, err, out)
	}
	help, _ = exec.Command(buildFaultBinary(t), "serve", "--help").CombinedOutput()
	if !strings.Contains(string(help), flag) {
		t.Fatalf("the faultinject build's serve --help lacks --%s:\n%s", flag, help)
	}
}

// TestServeRetryAfter: a user at serve's --max-running gets GBIF's 420 with
// a Retry-After of --retry-after.
func TestServeRetryAfter(t *testing.T) {
	bin := buildFaultBinary(t) // exports slowed, so that the first one runs on
	_, table := buildFixture(t)
	dsn := sqliteDSN(t)
	addUser(t, bin, dsn, "alice")
	p := startServe(t, bin, nil, "--listen", "127.0.0.1:0", "--db", dsn, "--table", table, "--storage", t.TempDir(),
		"--max-running", "1", "--retry-after", "7s", "--test-export-throttle", "1000")
	s := &server{t: t, URL: p.base, stopped: true}
	s.submit("alice", `{"format":"DWCA"}`)
	r := expect(t, s.do("POST", "/v1/occurrence/download/request", "alice", `{"format":"SIMPLE_CSV"}`), 420)
	if ra := r.header.Get("Retry-After"); ra != "7" || !strings.Contains(string(r.body), "the limit is 1.") {
		t.Fatalf("Retry-After %q, body %q", ra, r.body)
	}
}
