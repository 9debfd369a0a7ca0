package jobs

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
	"testing"
	"time"
)

// Helpers for the tests that send through mailpit, a real SMTP server whose
// HTTP API shows what it received (scripts/ci/mailpit.sh).

// needEnv returns $name, or skips (fails under CI=true) without it.
func needEnv(t *testing.T, name, script string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set (run %s)", name, script)
		}
		t.Skipf("%s not set; run %s to test against mailpit", name, script)
	}
	return v
}

// sharedMailpit is the mailpit of DOWNLOADER_TEST_MAILPIT: its SMTP address
// and API base URL.
func sharedMailpit(t *testing.T) (smtpAddr, api string) {
	t.Helper()
	v := needEnv(t, "DOWNLOADER_TEST_MAILPIT", "scripts/ci/mailpit.sh")
	smtpAddr, api, ok := strings.Cut(v, ",")
	if !ok {
		t.Fatalf("DOWNLOADER_TEST_MAILPIT=%q: want SMTPADDR,HTTPURL", v)
	}
	return smtpAddr, api
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startMailpit runs a mailpit of this test's own (the binary of
// DOWNLOADER_TEST_MAILPIT_BIN) on free loopback ports with extra flags.
func startMailpit(t *testing.T, smtpPort int, extra ...string) (smtpAddr, api string) {
	t.Helper()
	bin := needEnv(t, "DOWNLOADER_TEST_MAILPIT_BIN", "scripts/ci/mailpit.sh")
	smtpAddr = "127.0.0.1:" + strconv.Itoa(smtpPort)
	httpAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	api = "http://" + httpAddr
	args := append([]string{"--smtp", smtpAddr, "--listen", httpAddr, "--database", filepath.Join(t.TempDir(), "mailpit.db")}, extra...)
	cmd := exec.Command(bin, args...)
	logs := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			t.Logf("mailpit %s log:\n%s", smtpAddr, logs)
		}
	})
	for deadline := time.Now().Add(20 * time.Second); ; {
		resp, err := http.Get(api + "/api/v1/info")
		if err == nil {
			resp.Body.Close()
			if c, err := net.Dial("tcp", smtpAddr); err == nil {
				c.Close()
				return smtpAddr, api
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

// selfSignedCert writes a certificate for 127.0.0.1 and localhost and its
// key into dir.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string) {
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
	writeFile(t, certFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	writeFile(t, keyFile, string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})))
	return certFile, keyFile
}

// pitMessage is a message as mailpit's API shows it.
type pitMessage struct {
	ID, MessageID, Subject, Text, HTML string
	To                                 []struct{ Address string }
}

// pitMessages lists the messages to addr (a full message each).
func pitMessages(t *testing.T, api, addr string) []pitMessage {
	t.Helper()
	var found struct{ Messages []pitMessage }
	getPit(t, api+"/api/v1/search?query="+url.QueryEscape(`to:"`+addr+`"`), &found)
	out := make([]pitMessage, 0, len(found.Messages))
	for _, m := range found.Messages {
		var full pitMessage
		getPit(t, api+"/api/v1/message/"+m.ID, &full)
		out = append(out, full)
	}
	return out
}

// pitHeaders returns the raw headers of message id.
func pitHeaders(t *testing.T, api, id string) map[string][]string {
	t.Helper()
	var h map[string][]string
	getPit(t, api+"/api/v1/message/"+id+"/headers", &h)
	return h
}

// waitMessages polls until addr has want messages, then waits a little
// longer to see that no more come.
func waitMessages(t *testing.T, api, addr string, want int) []pitMessage {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ms := pitMessages(t, api, addr)
		if len(ms) >= want {
			time.Sleep(300 * time.Millisecond)
			ms = pitMessages(t, api, addr)
			if len(ms) != want {
				t.Fatalf("%d messages to %s, want %d", len(ms), addr, want)
			}
			return ms
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d messages to %s after 30 s, want %d", len(ms), addr, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func getPit(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// uniqueAddress is an address no other test sends to.
func uniqueAddress(name string) string {
	return fmt.Sprintf("%s+%s@example.org", name, strconv.FormatInt(time.Now().UnixNano(), 36))
}
