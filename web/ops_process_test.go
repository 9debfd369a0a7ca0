package web_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// TestServeConfigFileLogs runs the binary from a configuration file with
// secrets configured (an SMTP password from a file, an S3 secret in the
// environment) and JSON logs; a download that asks for mail is made while
// the SMTP server is down. The logs are JSON, every line about the export
// and its mail names the download's key, the mail failure is counted, and
// no secret appears anywhere in the output.
func TestServeConfigFileLogs(t *testing.T) {
	bin, table := buildFixture(t)
	dsn := sqliteDSN(t)
	addUser(t, bin, dsn, "alice")
	const smtpPass, s3Secret = "Smtp-Pa55word-7f3a", "S3-Pa55word-19c2"
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "smtp-password")
	if err := os.WriteFile(pwFile, []byte(smtpPass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "serve.yaml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(`listen: 127.0.0.1:0
database:
  url: %s
table: %s
storage:
  location: %s
smtp:
  host: 127.0.0.1
  port: %d
  user: alice
  password_file: %s
  from: downloads@example.org
limits:
  poll: 100ms
  heartbeat: 100ms
log:
  format: json
  level: debug
`, dsn, table, filepath.Join(dir, "archives"), closedPort(t), pwFile)), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startServe(t, bin, []string{"AWS_SECRET_ACCESS_KEY=" + s3Secret, "DOWNLOADER_LOG_LEVEL="}, "--config", conf)
	s := &server{t: t, URL: p.base, stopped: true}
	key := s.submit("alice", `{"format":"SIMPLE_CSV","sendNotification":true,"notificationAddresses":["alice@example.org"],"predicate":`+familyPredicate+`}`)
	s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if n, _ := metricValue(s.scrape(), "downloader_mail_failures_total", nil); n >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the failed mail was not counted")
		}
	}
	expect(t, s.do("GET", "/healthz", "", nil), http.StatusOK)
	expect(t, s.do("GET", "/readyz", "", nil), http.StatusOK)
	check, err := exec.Command(bin, "config", "check", conf).CombinedOutput()
	if err != nil || !strings.Contains(string(check), "password: '[redacted]'") {
		t.Fatalf("config check: %v\n%s", err, check)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
	logs := p.logs.String()
	plain := "\x00alice\x00" + smtpPass // what SMTP PLAIN sends, base64-encoded
	for _, secret := range []string{smtpPass, s3Secret, base64.StdEncoding.EncodeToString([]byte(plain))} {
		if strings.Contains(logs, secret) || strings.Contains(string(check), secret) {
			t.Errorf("secret %q in the output", secret)
		}
	}
	aboutJob := 0
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		msg, _ := rec["msg"].(string)
		if strings.HasPrefix(msg, "export ") || strings.HasPrefix(msg, "notice ") {
			aboutJob++
			if rec["key"] != key {
				t.Errorf("a line about the job without its key: %s", line)
			}
		}
	}
	if aboutJob < 3 { // export started, export succeeded, notice not sent
		t.Errorf("%d lines about the job:\n%s", aboutJob, logs)
	}
}

// TestWorkerOpsListen: a worker process, which has no API, serves health,
// readiness and metrics on --ops-listen, and nothing else.
func TestWorkerOpsListen(t *testing.T) {
	bin, table := buildFixture(t)
	dsn := sqliteDSN(t)
	addUser(t, bin, dsn, "alice") // migrates the database
	cmd := exec.Command(bin, "serve", "--role", "worker", "--ops-listen", "127.0.0.1:0", "--db", dsn, "--table", table,
		"--storage", t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("worker log:\n%s", logs)
		}
	})
	rd := bufio.NewReader(stdout)
	first, _ := rd.ReadString('\n')
	second, _ := rd.ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, rd) }()
	_, base, ok := strings.Cut(strings.TrimSpace(second), " on ")
	if strings.TrimSpace(first) != "serving worker" || !ok {
		t.Fatalf("worker printed %q, %q", first, second)
	}
	s := &server{t: t, URL: base, stopped: true}
	expect(t, s.do("GET", "/healthz", "", nil), http.StatusOK)
	expect(t, s.do("GET", "/readyz", "", nil), http.StatusOK)
	if _, ok := metricValue(s.scrape(), "downloader_queue_downloads", map[string]string{"status": "PREPARING"}); !ok {
		t.Error("the worker's metrics lack the queue")
	}
	expect(t, s.do("GET", "/v1/openapi.json", "", nil), http.StatusNotFound)
}
