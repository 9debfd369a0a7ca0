package web_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/mailpit"
	"github.com/biodiversity-downloads/downloader/jobs"
)

// notifyBody is a request that mails to, over a predicate of its own (no
// dedupe with other requests of the test).
func notifyBody(to string, year int) string {
	return fmt.Sprintf(`{"sendNotification":true,"notificationAddresses":["%s"],"format":"SIMPLE_CSV",`+
		`"predicate":{"type":"and","predicates":[%s,{"type":"greaterThanOrEquals","key":"YEAR","value":"%d"}]}}`,
		to, familyPredicate, year)
}

// SMTP is down when a download succeeds: the download is SUCCEEDED all the
// same, and its mail arrives once, when the server is back.
func TestMailWhenSMTPComesBack(t *testing.T) {
	port := mailpit.FreePort(t) // nothing listens there yet
	mailer, err := jobs.NewMailer(jobs.MailConfig{Addr: fmt.Sprintf("127.0.0.1:%d", port), From: "downloads@example.org",
		ConnectTimeout: time.Second, CommandTimeout: 2 * time.Second, RetryMin: 200 * time.Millisecond, RetryMax: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, sqliteDSN(t), options{mailer: mailer})
	var failed, sent atomic.Int64
	s.svc.ObserveMail(func(kind jobs.NoticeKind, err error) {
		if kind != jobs.NoticeSuccess {
			t.Errorf("notice %s", kind)
		}
		if err != nil {
			failed.Add(1)
		} else {
			sent.Add(1)
		}
	})
	to := mailpit.Address("smtpdown")
	key := s.submit("alice", notifyBody(to, 1800))
	s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
	for deadline := time.Now().Add(time.Minute); failed.Load() < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the notice was tried %d times while SMTP was down", failed.Load())
		}
	}
	if d := s.status(key, "alice"); d.Status != jobs.StatusSucceeded {
		t.Fatalf("status %s while SMTP is down", d.Status)
	}
	pit := mailpit.Start(t, port)
	ms := pit.Wait(t, to, 1, time.Minute)
	if !strings.Contains(ms[0].Text, "http://downloads.test/v1/occurrence/download/request/"+key+".zip") ||
		!strings.Contains(ms[0].Subject, key) {
		t.Fatalf("mail %q:\n%s", ms[0].Subject, ms[0].Text)
	}
	time.Sleep(3 * time.Second) // several retry intervals: nothing more comes
	if n := len(pit.Messages(t, to)); n != 1 || sent.Load() != 1 {
		t.Fatalf("%d messages, %d sends after SMTP came back", n, sent.Load())
	}
}

// A worker process is killed (SIGKILL, by fault injection) while it
// delivers a notice. After the notice was recorded: its job is complete
// and no second message ever comes. After the server accepted the message
// but before the record: a new worker sends it once more, with the same
// Message-ID, and records it.
func TestMailWorkerKilled(t *testing.T) {
	pit := mailpit.Shared(t)
	mailFlags := []string{"--smtp", pit.SMTP, "--smtp-from", "downloads@example.org", "--smtp-connect-timeout", "1s",
		"--smtp-command-timeout", "1s", "--smtp-retry-min", "200ms", "--smtp-retry-max", "1s", "--public-url", "http://downloads.test"}
	for i, stage := range []jobs.MailStage{jobs.MailRecorded, jobs.MailAccepted} {
		t.Run(string(stage), func(t *testing.T) {
			dsn, archive := sqliteDSN(t), t.TempDir()
			api := startServer(t, dsn, options{role: jobs.RoleAPI, archiveDir: archive})
			bin := buildFaultBinary(t)
			w1 := runWorker(t, bin, dsn, archive, append(mailFlags, "--test-mail-kill", string(stage))...)
			to := mailpit.Address("killed-" + string(stage))
			key := api.submit("alice", notifyBody(to, 1800+i))
			api.waitStatus(key, time.Minute, jobs.StatusSucceeded)
			select {
			case <-w1.done:
			case <-time.After(time.Minute):
				t.Fatal("the worker did not kill itself")
			}
			if !strings.Contains(w1.logs.String(), "fault injection: killing this worker") {
				t.Fatalf("worker log:\n%s", w1.logs)
			}
			first := pit.Wait(t, to, 1, 10*time.Second)[0]
			recorded := func() string {
				var id string
				_ = api.db.SQL.QueryRow("SELECT message_id FROM mail_notices WHERE download_key = '" + key + "'").Scan(&id)
				return id
			}
			noticeJob := func() string {
				var st string
				if err := api.db.SQL.QueryRow("SELECT state FROM river_job WHERE kind = 'download_notify'").Scan(&st); err != nil {
					t.Fatal(err)
				}
				return st
			}
			if stage == jobs.MailRecorded {
				if recorded() != first.MessageID || noticeJob() != "completed" {
					t.Fatalf("after a kill past the record: recorded %q, job %s", recorded(), noticeJob())
				}
				startWorker(t, dsn, archive, mailFlags...)
				time.Sleep(10 * time.Second)
				if n := len(pit.Messages(t, to)); n != 1 {
					t.Fatalf("%d messages after a kill past the record", n)
				}
				return
			}
			if recorded() != "" || noticeJob() != "running" {
				t.Fatalf("after a kill before the record: recorded %q, job %s", recorded(), noticeJob())
			}
			// River rescues the dead worker's job (its rescuer runs every
			// 30 s) and the new worker sends the notice again.
			startWorker(t, dsn, archive, mailFlags...)
			ms := pit.Wait(t, to, 2, 3*time.Minute)
			if ms[0].MessageID != ms[1].MessageID || ms[0].MessageID != first.MessageID || ms[0].Subject != ms[1].Subject {
				t.Fatalf("the repeat differs: %q %q / %q %q", ms[0].MessageID, ms[0].Subject, ms[1].MessageID, ms[1].Subject)
			}
			for deadline := time.Now().Add(30 * time.Second); recorded() != first.MessageID || noticeJob() != "completed"; time.Sleep(100 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the repeat was not recorded: %q, job %s", recorded(), noticeJob())
				}
			}
			time.Sleep(3 * time.Second)
			if n := len(pit.Messages(t, to)); n != 2 {
				t.Fatalf("%d messages: want the first and one repeat", n)
			}
			if d := api.status(key, "alice"); d.Status != jobs.StatusSucceeded {
				t.Fatalf("status %s", d.Status)
			}
		})
	}
}

// A failure mail goes out only when a download has finally failed: an
// attempt that is retried mails nothing, a download that succeeds on its
// second attempt mails its success once, one that fails every attempt
// mails its failure once (even with sendNotification false, as GBIF does),
// and sendNotification false suppresses the success mail.
func TestMailOnlyFinalOutcome(t *testing.T) {
	pit := mailpit.Shared(t)
	mailer, err := jobs.NewMailer(jobs.MailConfig{Addr: pit.SMTP, From: "downloads@example.org", Help: "help@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	var f *flaky
	s := startServer(t, sqliteDSN(t), options{mailer: mailer, maxAttempt: 2, engine: func(e jobs.Engine) jobs.Engine {
		f = &flaky{Engine: e, failures: 1}
		return f
	}})
	var kinds sync.Map
	s.svc.ObserveMail(func(kind jobs.NoticeKind, err error) {
		n, _ := kinds.LoadOrStore(kind, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
	})
	count := func(k jobs.NoticeKind) int64 {
		if n, ok := kinds.Load(k); ok {
			return n.(*atomic.Int64).Load()
		}
		return 0
	}

	retried := mailpit.Address("retried")
	key := s.submit("alice", notifyBody(retried, 1900))
	s.waitStatus(key, 90*time.Second, jobs.StatusSucceeded)
	if f.calls.Load() != 2 {
		t.Fatalf("%d export calls, want a failed attempt and a retry", f.calls.Load())
	}
	if m := pit.Wait(t, retried, 1, 30*time.Second)[0]; !strings.Contains(m.Subject, "is ready") {
		t.Fatalf("after a retried attempt: %q", m.Subject)
	}

	f.calls.Store(0)
	f.failures = 2
	failed := mailpit.Address("failed")
	body := strings.Replace(notifyBody(failed, 1901), `"sendNotification":true`, `"sendNotification":false`, 1)
	key = s.submit("alice", body)
	d := s.waitStatus(key, 90*time.Second, jobs.StatusFailed)
	m := pit.Wait(t, failed, 1, 30*time.Second)[0]
	if m.Subject != "Your download "+key+" failed" || !strings.Contains(m.Text, "Something went wrong on our side") ||
		strings.Contains(m.Text, d.Error) || !strings.Contains(m.HTML, `href="mailto:help@example.org"`) {
		t.Fatalf("failure mail %q:\n%s", m.Subject, m.Text)
	}
	checkMailHTML(t, pit, m)

	f.calls.Store(0)
	f.failures = 0
	quiet := mailpit.Address("quiet")
	key = s.submit("alice", strings.Replace(notifyBody(quiet, 1902), `"sendNotification":true`, `"sendNotification":false`, 1))
	s.waitStatus(key, 90*time.Second, jobs.StatusSucceeded)
	time.Sleep(2 * time.Second)
	if n := len(pit.Messages(t, quiet)); n != 0 || count(jobs.NoticeSuccess) != 1 || count(jobs.NoticeFailure) != 1 {
		t.Fatalf("%d mails with sendNotification false; sends: %d success, %d failure", n, count(jobs.NoticeSuccess), count(jobs.NoticeFailure))
	}
}
