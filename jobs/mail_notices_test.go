package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/internal/mailpit"
)

// noticeService is a service (never started) on db that mails through
// mailpit at smtpAddr, with user alice reading Spanish and bob with no
// language set.
func noticeService(t *testing.T, db *DB, smtpAddr string, mc MailConfig) *Service {
	t.Helper()
	ctx := context.Background()
	for _, u := range []User{{Name: "alice", Email: mailpit.Address("alice"), Language: "es-MX"}, {Name: "bob", Email: mailpit.Address("bob")}} {
		if err := db.AddUser(ctx, u, "correct horse"); err != nil {
			t.Fatal(err)
		}
	}
	mc.Addr, mc.From = smtpAddr, "Downloads <downloads@example.org>"
	m, err := NewMailer(mc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(db, checkOnlyEngine{}, nil, m, Config{PublicURL: "http://downloads.test", Portal: portalForTests},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var portalForTests = download.Portal{Name: "Test portal"}

// finishedDownload records req and gives the download status st.
func finishedDownload(t *testing.T, s *Service, req Request, st Status, errText string) row {
	t.Helper()
	ctx := context.Background()
	key, err := s.insert(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.SQL.ExecContext(ctx, s.db.q(`UPDATE downloads SET status = ?, error = ?, total_records = 1234,
		number_datasets = 2, size = 5600000, modified = ? WHERE key = ?`), st, errText, time.Now().UnixMilli(), key); err != nil {
		t.Fatal(err)
	}
	r, err := s.db.getDownload(ctx, s.db.SQL, key)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func userEmail(t *testing.T, s *Service, name string) string {
	t.Helper()
	u, err := s.db.GetUser(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return u.Email
}

// Each notice is sent once however often its job runs, with a Message-ID
// derived from its idempotency key; a fault between the server's
// acceptance and the record repeats it once with the same Message-ID; a
// fault after the record sends nothing more.
func TestNoticeOnce(t *testing.T) {
	pit := mailpit.Shared(t)
	forEachDB(t, func(t *testing.T, db *DB) {
		s := noticeService(t, db, pit.SMTP, MailConfig{})
		ctx := context.Background()
		req := testRequest()
		req.Creator = "alice"
		r := finishedDownload(t, s, req, StatusSucceeded, "")
		to := userEmail(t, s, "alice")
		a := notifyArgs{Key: r.Key}
		for range 3 {
			if err := s.deliver(ctx, a, nil); err != nil {
				t.Fatal(err)
			}
		}
		ms := pit.Wait(t, to, 1, 10*time.Second)
		if want := messageID("success/"+r.Key, "downloads@example.org"); ms[0].MessageID != want {
			t.Fatalf("Message-ID %s, want %s", ms[0].MessageID, want)
		}
		var recorded string
		if err := db.SQL.QueryRow(db.q("SELECT message_id FROM mail_notices WHERE idempotency_key = ?"), "success/"+r.Key).
			Scan(&recorded); err != nil || recorded != ms[0].MessageID {
			t.Fatalf("recorded %q (%v)", recorded, err)
		}

		// Killed between acceptance and record: one repeat, same Message-ID.
		req.Description = "window"
		r2 := finishedDownload(t, s, withPredicate(req, `{"type":"equals","key":"YEAR","value":"2001"}`), StatusSucceeded, "")
		errDied := errors.New("worker died")
		faults := 0
		s.InjectMailFault(func(stage MailStage, idem string) error {
			if stage == MailAccepted && faults == 0 {
				faults++
				return errDied
			}
			return nil
		})
		if err := s.deliver(ctx, notifyArgs{Key: r2.Key}, nil); !errors.Is(err, errDied) {
			t.Fatalf("delivery with a fault: %v", err)
		}
		for range 2 {
			if err := s.deliver(ctx, notifyArgs{Key: r2.Key}, nil); err != nil {
				t.Fatal(err)
			}
		}
		ms = pit.Wait(t, to, 3, 10*time.Second)
		ids := map[string]int{}
		for _, m := range ms {
			ids[m.MessageID]++
		}
		if len(ids) != 2 || ids[messageID("success/"+r2.Key, "downloads@example.org")] != 2 {
			t.Fatalf("Message-IDs %v: want the first once and the second twice", ids)
		}

		// Killed after the record: nothing more is sent.
		r3 := finishedDownload(t, s, withPredicate(req, `{"type":"equals","key":"YEAR","value":"2002"}`), StatusSucceeded, "")
		s.InjectMailFault(func(stage MailStage, idem string) error {
			if stage == MailRecorded {
				return errDied
			}
			return nil
		})
		if err := s.deliver(ctx, notifyArgs{Key: r3.Key}, nil); !errors.Is(err, errDied) {
			t.Fatalf("delivery with a fault after the record: %v", err)
		}
		s.InjectMailFault(nil)
		if err := s.deliver(ctx, notifyArgs{Key: r3.Key}, nil); err != nil {
			t.Fatal(err)
		}
		pit.Wait(t, to, 4, 10*time.Second)
	})
}

func withPredicate(r Request, p string) Request {
	r.Predicate = json.RawMessage(p)
	return r
}

// Who gets what: sendNotification=false suppresses the success mail, not
// the failure mail; the request's addresses, else the user's; the user's
// language, else the request's, else English; failures in words.
func TestNoticeRecipientsAndLanguages(t *testing.T) {
	pit := mailpit.Shared(t)
	s := noticeService(t, testDB(t), pit.SMTP, MailConfig{Help: "https://help.example.org", Operators: []string{mailpit.Address("ops")}})
	ctx := context.Background()
	deliver := func(a notifyArgs) {
		t.Helper()
		if err := s.deliver(ctx, a, nil); err != nil {
			t.Fatal(err)
		}
	}
	alice, bob := userEmail(t, s, "alice"), userEmail(t, s, "bob")

	quiet := testRequest()
	quiet.Creator, quiet.SendNotification = "alice", false
	deliver(notifyArgs{Key: finishedDownload(t, s, quiet, StatusSucceeded, "").Key})
	failed := finishedDownload(t, s, withPredicate(quiet, `{"type":"equals","key":"YEAR","value":"1999"}`), StatusFailed,
		"invalid request: unknown search parameter")
	deliver(notifyArgs{Key: failed.Key, Reason: reasonQuery})
	ms := pit.Wait(t, alice, 1, 10*time.Second)
	m := ms[0]
	if m.Subject != "Su descarga "+failed.Key+" ha fallado" || !strings.Contains(m.Text, "La solicitud no puede ejecutarse") ||
		!strings.Contains(m.Text, "unknown search parameter") || !strings.Contains(m.HTML, `href="https://help.example.org"`) {
		t.Fatalf("failure mail in Spanish: %q\n%s", m.Subject, m.Text)
	}

	// Bob has no language: the request's Accept-Language decides; the
	// request's addresses get it, not bob.
	other := mailpit.Address("carol")
	req := testRequest()
	req.Creator, req.NotificationAddresses, req.Language = "bob", []string{other}, "fr-CA,fr;q=0.9,en;q=0.5"
	ok := finishedDownload(t, s, req, StatusSucceeded, "")
	deliver(notifyArgs{Key: ok.Key})
	m = pit.Wait(t, other, 1, 10*time.Second)[0]
	if m.Subject != "Votre téléchargement "+ok.Key+" est prêt" || !strings.Contains(m.Text, "1\u00a0234 enregistrements issus de 2 jeux de données") ||
		!strings.Contains(m.Text, "5,6 Mo") || !strings.Contains(m.Text, "http://downloads.test/v1/occurrence/download/request/"+ok.Key+".zip") ||
		!strings.Contains(m.Text, `predicate {"type":"equals","key":"FAMILY","value":"Felidae"}`) {
		t.Fatalf("success mail in French: %q\n%s", m.Subject, m.Text)
	}
	if len(pit.Messages(t, bob)) != 0 {
		t.Fatal("the user got mail although the request named other addresses")
	}

	// Neither language: English. The erasure warning names its day.
	req = withPredicate(testRequest(), `{"type":"equals","key":"YEAR","value":"2010"}`)
	req.Creator = "bob"
	plain := finishedDownload(t, s, req, StatusSucceeded, "")
	if err := s.QueueErasureWarning(ctx, plain.Download, time.Date(2031, 3, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	js := riverJobs(t, s.db)
	var a notifyArgs
	if err := json.Unmarshal(js[len(js)-1].args, &a); err != nil || a != (notifyArgs{Key: plain.Key, Notice: NoticeErasureWarning, Date: "2031-03-01"}) {
		t.Fatalf("queued warning %+v (%v)", a, err)
	}
	if err := s.QueueErasureWarning(ctx, plain.Download, time.Date(2031, 3, 1, 0, 0, 0, 0, time.UTC)); err != nil || len(riverJobs(t, s.db)) != len(js) {
		t.Fatalf("the same warning queued twice (%v)", err)
	}
	deliver(a)
	deliver(notifyArgs{Key: plain.Key})
	ms = pit.Wait(t, bob, 2, 10*time.Second)
	subjects := ms[0].Subject + " | " + ms[1].Subject
	if !strings.Contains(subjects, "Your download "+plain.Key+" will be erased on 1 March 2031") ||
		!strings.Contains(subjects, "Your download "+plain.Key+" is ready") {
		t.Fatalf("English mails: %s", subjects)
	}

	// The operators' digest lists the day's failures.
	if err := s.QueueDigest(ctx, time.Now().Add(24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	deliver(notifyArgs{Notice: NoticeDigest, Date: time.Now().Add(24 * time.Hour).UTC().Format(time.DateOnly)})
	ops := s.mailer.cfg.Operators[0]
	m = pit.Wait(t, ops, 1, 10*time.Second)[0]
	if !strings.Contains(m.Subject, "1 failed download on") || !strings.Contains(m.Text, failed.Key) ||
		!strings.Contains(m.Text, "unknown search parameter") {
		t.Fatalf("digest: %q\n%s", m.Subject, m.Text)
	}
	// A day without failures sends nothing.
	deliver(notifyArgs{Notice: NoticeDigest, Date: "2020-01-02"})
	pit.Wait(t, ops, 1, 10*time.Second)
}

// Every notice through a real SMTP server in two languages: subject, text
// and HTML parts as mailpit received them, with their links and counts.
func TestNoticeContentOnMailpit(t *testing.T) {
	pit := mailpit.Shared(t)
	type want struct{ success, failure, warning, counts, size, filter, format string }
	langs := map[string]want{
		"alice": {"Su descarga %s está lista", "Su descarga %s ha fallado", "Su descarga %s se borrará el 1 de marzo de 2031",
			"1.234 registros de 2 conjuntos de datos", "5,6 MB", "Filtro", "tabla simple (valores separados por tabuladores)"},
		"bob": {"Your download %s is ready", "Your download %s failed", "Your download %s will be erased on 1 March 2031",
			"1,234 records from 2 datasets", "5.6 MB", "Filter", "simple table (tab-separated values)"},
	}
	ctx := context.Background()
	for lang, digestSubject := range map[string]string{"en": "Test portal: 2 failed downloads on ", "es": "Test portal: 2 descargas fallidas el "} {
		ops := mailpit.Address("ops-" + lang)
		s := noticeService(t, testDB(t), pit.SMTP, MailConfig{Operators: []string{ops}, OperatorLanguage: lang, Help: "https://help.example.org/"})
		for user, w := range langs {
			to := userEmail(t, s, user)
			req := withPredicate(testRequest(), `{"type":"equals","key":"YEAR","value":"1950"}`)
			req.Creator = user
			ok := finishedDownload(t, s, req, StatusSucceeded, "")
			bad := finishedDownload(t, s, withPredicate(req, `{"type":"equals","key":"YEAR","value":"1951"}`), StatusFailed,
				"invalid request: YEAR: 1951x is not a number")
			for _, a := range []notifyArgs{{Key: ok.Key}, {Key: bad.Key, Reason: reasonQuery},
				{Key: ok.Key, Notice: NoticeErasureWarning, Date: "2031-03-01"}} {
				if err := s.deliver(ctx, a, nil); err != nil {
					t.Fatal(err)
				}
			}
			bySubject := map[string]mailpit.Message{}
			for _, m := range pit.Wait(t, to, 3, 10*time.Second) {
				bySubject[m.Subject] = m
			}
			link := "http://downloads.test/v1/occurrence/download/request/" + ok.Key + ".zip"
			page := "http://downloads.test/v1/occurrence/download/"
			checks := []struct {
				subject string
				parts   []string
			}{
				{fmt.Sprintf(w.success, ok.Key), []string{link, w.counts, w.size, w.format, w.filter, page + ok.Key}},
				{fmt.Sprintf(w.failure, bad.Key), []string{"1951x is not a number", page + bad.Key, "https://help.example.org/", w.filter}},
				{fmt.Sprintf(w.warning, ok.Key), []string{"curl -u " + user + " -X PUT " + page + ok.Key, w.size, "Test portal ("}},
			}
			for _, c := range checks {
				m, found := bySubject[c.subject]
				if !found {
					t.Fatalf("no mail %q to %s among %v", c.subject, user, keys(bySubject))
				}
				for _, p := range c.parts {
					if !strings.Contains(m.Text, p) || !strings.Contains(m.HTML, htmlEscape(p)) {
						t.Errorf("%q lacks %q in a part:\n%s", c.subject, p, m.Text)
					}
				}
			}
		}
		// The digest of the day before tomorrow: today's failures.
		if err := s.deliver(ctx, notifyArgs{Notice: NoticeDigest, Date: time.Now().Add(24 * time.Hour).UTC().Format(time.DateOnly)}, nil); err != nil {
			t.Fatal(err)
		}
		m := pit.Wait(t, ops, 1, 10*time.Second)[0]
		// Both failures are listed (alice's and bob's); the subject counts them.
		if !strings.HasPrefix(m.Subject, digestSubject) {
			t.Errorf("digest subject %q, want it to start %q", m.Subject, digestSubject)
		}
		if strings.Count(m.Text, "1951x is not a number") != 2 || strings.Count(m.HTML, "1951x is not a number") != 2 {
			t.Errorf("digest (%s):\n%s", lang, m.Text)
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
