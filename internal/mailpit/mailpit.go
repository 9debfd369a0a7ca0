// Package mailpit drives mailpit, a real SMTP server whose HTTP API shows
// what it received, for tests: the shared instance of
// DOWNLOADER_TEST_MAILPIT, instances a test starts (and stops) with the
// binary of DOWNLOADER_TEST_MAILPIT_BIN, and the messages they hold. Without
// those variables a test skips with a one-line reason, or fails under
// CI=true (scripts/ci/mailpit.sh sets them).
package mailpit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
)

// Server is one mailpit: its SMTP address and its API's base URL.
type Server struct {
	SMTP, API string

	mu   sync.Mutex
	stop func()
}

// Shared is the mailpit of DOWNLOADER_TEST_MAILPIT ("SMTPADDR,HTTPURL").
// Tests sharing it send to addresses of their own (Address).
func Shared(t testing.TB) *Server {
	t.Helper()
	v := testenv.Need(t, "DOWNLOADER_TEST_MAILPIT", "scripts/ci/mailpit.sh")
	smtp, api, ok := strings.Cut(v, ",")
	if !ok {
		t.Fatalf("DOWNLOADER_TEST_MAILPIT=%q: want SMTPADDR,HTTPURL", v)
	}
	return &Server{SMTP: smtp, API: api}
}

// FreePort returns a loopback TCP port nothing listens on.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Start runs a mailpit of the test's own with SMTP on loopback port
// smtpPort, its API on a free port, and extra flags (TLS, auth); it is
// stopped when the test ends, or before by Stop.
func Start(t testing.TB, smtpPort int, extra ...string) *Server {
	t.Helper()
	bin := testenv.Need(t, "DOWNLOADER_TEST_MAILPIT_BIN", "scripts/ci/mailpit.sh")
	s := &Server{SMTP: "127.0.0.1:" + strconv.Itoa(smtpPort)}
	httpAddr := "127.0.0.1:" + strconv.Itoa(FreePort(t))
	s.API = "http://" + httpAddr
	args := append([]string{"--smtp", s.SMTP, "--listen", httpAddr, "--database", filepath.Join(t.TempDir(), "mailpit.db")}, extra...)
	cmd := exec.Command(bin, args...)
	logs := &lockedBuilder{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.stop = func() { _ = cmd.Process.Kill(); <-done }
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("mailpit %s log:\n%s", s.SMTP, logs)
		}
	})
	for deadline := time.Now().Add(20 * time.Second); ; {
		if resp, err := http.Get(s.API + "/api/v1/info"); err == nil {
			resp.Body.Close()
			if c, err := net.Dial("tcp", s.SMTP); err == nil {
				c.Close()
				return s
			}
		}
		select {
		case <-done:
			t.Fatalf("mailpit exited: %s", logs)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("mailpit did not start: %s", logs)
		}
	}
}

// Stop ends a mailpit that Start started (its SMTP port is then closed).
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// SelfSignedCert writes a certificate for 127.0.0.1 and localhost, its own
// CA, and its key into dir.
func SelfSignedCert(t testing.TB, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "mailpit test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true, DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	for f, b := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "EC PRIVATE KEY", Bytes: kb}} {
		if err := os.WriteFile(f, pem.EncodeToMemory(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile
}

// Message is a message as mailpit's API shows it.
type Message struct {
	ID, MessageID, Subject, Text, HTML string
	To                                 []struct{ Address string }
}

// Messages lists the messages to addr, each in full.
func (s *Server) Messages(t testing.TB, addr string) []Message {
	t.Helper()
	var found struct{ Messages []Message }
	s.get(t, "/api/v1/search?query="+url.QueryEscape(`to:"`+addr+`"`), &found)
	out := make([]Message, 0, len(found.Messages))
	for _, m := range found.Messages {
		var full Message
		s.get(t, "/api/v1/message/"+m.ID, &full)
		out = append(out, full)
	}
	return out
}

// Headers returns the raw headers of message id.
func (s *Server) Headers(t testing.TB, id string) map[string][]string {
	t.Helper()
	var h map[string][]string
	s.get(t, "/api/v1/message/"+id+"/headers", &h)
	return h
}

// Wait polls until addr has n messages (within timeout), then looks again
// a little later to see that no more came, and returns them.
func (s *Server) Wait(t testing.TB, addr string, n int, timeout time.Duration) []Message {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ms := s.Messages(t, addr)
		if len(ms) >= n {
			time.Sleep(300 * time.Millisecond)
			if ms = s.Messages(t, addr); len(ms) != n {
				t.Fatalf("%d messages to %s, want %d", len(ms), addr, n)
			}
			return ms
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d messages to %s after %s, want %d", len(ms), addr, timeout, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *Server) get(t testing.TB, path string, v any) {
	t.Helper()
	resp, err := http.Get(s.API + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s%s: %s", s.API, path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// Link is a link of a message and what mailpit's link check got for it: a
// HEAD request, redirects not followed (StatusCode 0 when none answered).
type Link struct {
	URL, Status string
	StatusCode  int
}

// CheckLinks has mailpit request every link of message id, as a recipient's
// client or a mail security scanner would. The shared server allows
// loopback addresses (scripts/ci/mailpit.sh's --allow-internal-http-requests).
func (s *Server) CheckLinks(t testing.TB, id string) []Link {
	t.Helper()
	var r struct{ Links []Link }
	s.get(t, "/api/v1/message/"+id+"/link-check", &r)
	return r.Links
}

// HTMLCheck is mailpit's check of a message's HTML against caniemail.com's
// data: each HTML or CSS feature the message uses that some mail clients do
// not fully support, with the share (percent) that do not support it.
type HTMLCheck struct {
	Warnings []struct {
		Slug, Title string
		Score       struct{ Unsupported float64 }
	}
}

// CheckHTML returns mailpit's HTML check of message id.
func (s *Server) CheckHTML(t testing.TB, id string) HTMLCheck {
	t.Helper()
	var c HTMLCheck
	s.get(t, "/api/v1/message/"+id+"/html-check", &c)
	return c
}

// Address is an address no other test sends to.
func Address(name string) string {
	return fmt.Sprintf("%s+%s@example.org", name, strconv.FormatInt(time.Now().UnixNano(), 36))
}
