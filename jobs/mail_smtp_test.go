package jobs

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/mailpit"
)

func testMessage(to string) Message {
	return Message{To: []string{to}, Subject: "Descarga lista — ñandú 🦤", Text: "Hola ñandú\n", HTML: "<p>Hola <b>ñandú</b></p>",
		MessageID: messageID("success/"+to, "downloads@example.org"), Language: "es", Date: time.Now()}
}

// Implicit TLS and required STARTTLS, each with SMTP AUTH, against mailpit
// with a certificate made for the test and trusted through CAFile.
func TestMailerTLSAndAuth(t *testing.T) {
	dir := t.TempDir()
	cert, key := mailpit.SelfSignedCert(t, dir)
	auth := filepath.Join(dir, "auth")
	writeFile(t, auth, "sender:s3cret-pass\n")
	ctx := context.Background()
	for _, mode := range []TLSMode{TLSStartTLS, TLSImplicit} {
		t.Run(string(mode), func(t *testing.T) {
			require := "--smtp-require-starttls"
			if mode == TLSImplicit {
				require = "--smtp-require-tls"
			}
			pit := mailpit.Start(t, mailpit.FreePort(t), "--smtp-tls-cert", cert, "--smtp-tls-key", key, require, "--smtp-auth-file", auth)
			cfg := MailConfig{Addr: pit.SMTP, From: "Downloads <downloads@example.org>", Username: "sender", Password: "s3cret-pass",
				TLS: mode, CAFile: cert, ConnectTimeout: 5 * time.Second, CommandTimeout: 5 * time.Second}
			m, err := NewMailer(cfg)
			if err != nil {
				t.Fatal(err)
			}
			to := mailpit.Address("tls")
			msg := testMessage(to)
			if err := m.Send(ctx, msg); err != nil {
				t.Fatal(err)
			}
			got := pit.Wait(t, to, 1, 10*time.Second)[0]
			if got.Subject != msg.Subject || got.MessageID != msg.MessageID || !strings.Contains(got.Text, "Hola ñandú") ||
				!strings.Contains(got.HTML, "<b>ñandú</b>") {
				t.Fatalf("received %+v", got)
			}
			h := pit.Headers(t, got.ID)
			if subj := strings.Join(h["Subject"], ""); !strings.HasPrefix(subj, "=?UTF-8?") || strings.Contains(subj, "ñ") {
				t.Errorf("subject header %q is not RFC 2047 encoded", subj)
			}
			if h["Auto-Submitted"][0] != "auto-generated" || h["Content-Language"][0] != "es" ||
				!strings.Contains(strings.Join(h["Content-Type"], ""), "multipart/alternative") {
				t.Errorf("headers %v", h)
			}

			bad := cfg
			bad.Password = "wrong"
			if m, err := NewMailer(bad); err != nil {
				t.Fatal(err)
			} else if err := m.Send(ctx, testMessage(mailpit.Address("badpw"))); err == nil || !strings.Contains(err.Error(), "AUTH") {
				t.Errorf("wrong password: %v", err)
			}
			untrusted := cfg
			untrusted.CAFile = ""
			if m, err := NewMailer(untrusted); err != nil {
				t.Fatal(err)
			} else if err := m.Send(ctx, testMessage(mailpit.Address("untrusted"))); err == nil || !strings.Contains(err.Error(), "certificate") {
				t.Errorf("untrusted certificate: %v", err)
			}
			if mode == TLSStartTLS {
				// Loopback: the default mode uses the STARTTLS offered.
				auto := cfg
				auto.TLS = TLSAuto
				to := mailpit.Address("auto")
				if m, err := NewMailer(auto); err != nil {
					t.Fatal(err)
				} else if err := m.Send(ctx, testMessage(to)); err != nil {
					t.Fatalf("default mode: %v", err)
				}
				pit.Wait(t, to, 1, 10*time.Second)
				// Without TLS the server refuses the session.
				plain := cfg
				plain.TLS = TLSNone
				if m, err := NewMailer(plain); err != nil {
					t.Fatal(err)
				} else if err := m.Send(ctx, testMessage(mailpit.Address("plain"))); err == nil {
					t.Error("a server requiring STARTTLS accepted a plaintext session")
				}
			}
		})
	}
}

func TestMailerConfigRejected(t *testing.T) {
	for _, cs := range []struct {
		cfg  MailConfig
		want string
	}{
		{MailConfig{Addr: "smtp.example.org:25", From: "a@example.org", Username: "u", TLS: TLSNone}, "only over TLS"},
		{MailConfig{Addr: "smtp.example.org", From: "a@example.org"}, "smtp address"},
		{MailConfig{Addr: "smtp.example.org:25"}, "sender"},
		{MailConfig{Addr: "smtp.example.org:25", From: "not an address"}, "sender"},
		{MailConfig{Addr: "smtp.example.org:25", From: "a@example.org", TLS: "ssl"}, `TLS mode "ssl"`},
		{MailConfig{Addr: "smtp.example.org:25", From: "a@example.org", CAFile: "/nonexistent/ca.pem"}, "CA file"},
		{MailConfig{Addr: "smtp.example.org:25", From: "a@example.org", Operators: []string{"ops"}}, "operator address"},
	} {
		if _, err := NewMailer(cs.cfg); err == nil || !strings.Contains(err.Error(), cs.want) {
			t.Errorf("%+v: %v, want %q", cs.cfg, err, cs.want)
		}
	}
	// A password to loopback without TLS is allowed (a local relay).
	if _, err := NewMailer(MailConfig{Addr: "127.0.0.1:25", From: "a@example.org", Username: "u", TLS: TLSNone}); err != nil {
		t.Error(err)
	}
	m, err := NewMailer(MailConfig{Addr: "127.0.0.1:25", From: "a@example.org", Password: "hunter2"})
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Config().LogValue().String(); strings.Contains(s, "hunter2") {
		t.Errorf("password in the log value: %s", s)
	}
}

// A server that accepts the connection and never answers: the command
// timeout ends the attempt, and cancelling the context ends it at once.
// (Fault injection: no real server can be told to hang.)
func TestMailerTimeouts(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it open, silent
		}
	}()
	m, err := NewMailer(MailConfig{Addr: l.Addr().String(), From: "a@example.org", ConnectTimeout: time.Second,
		CommandTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = m.Send(context.Background(), testMessage("x@example.org"))
	if el := time.Since(start); err == nil || el > 3*time.Second {
		t.Fatalf("silent server: %v after %s", err, el)
	}
	m, _ = NewMailer(MailConfig{Addr: l.Addr().String(), From: "a@example.org", CommandTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start = time.Now()
	err = m.Send(ctx, testMessage("x@example.org"))
	if el := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || el > 3*time.Second {
		t.Fatalf("cancelled send: %v after %s", err, el)
	}
	// A closed port fails at once.
	closed := l.Addr().String()
	l.Close()
	m, _ = NewMailer(MailConfig{Addr: closed, From: "a@example.org"})
	if err := m.Send(context.Background(), testMessage("x@example.org")); err == nil {
		t.Fatal("sent to a closed port")
	}
}
