package web_test

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// TestKilledWhenRiverGivesUp: a download whose River job ended without the
// export finishing (here cancelled behind the service's back, as River does
// when it discards a job after too many crashed attempts) is marked KILLED
// by the reconciliation.
func TestKilledWhenRiverGivesUp(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{role: jobs.RoleAPI}) // no workers: the job stays queued
	key := s.submit("alice", `{"predicate":`+familyPredicate+`}`)
	var id int64
	if err := s.db.SQL.QueryRow("SELECT river_job_id FROM downloads WHERE key = '" + key + "'").Scan(&id); err != nil || id == 0 {
		t.Fatalf("river job %d (%v)", id, err)
	}
	other, err := river.NewClient(riversqlite.New(s.db.SQL), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.JobCancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if n, err := s.svc.Reconcile(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("young download reconciled: %d %v", n, err)
	}
	if n, err := s.svc.Reconcile(ctx, time.Now().Add(time.Minute)); err != nil || n != 1 {
		t.Fatalf("reconciled %d (%v), want 1", n, err)
	}
	d := s.status(key, "alice")
	if d.Status != jobs.StatusKilled || d.Error == "" {
		t.Fatalf("after reconcile: %s %q", d.Status, d.Error)
	}
	// A killed download frees its slot and is not deduplicated.
	if k := s.submit("alice", `{"predicate":`+familyPredicate+`}`); k == key {
		t.Fatal("killed download returned as a duplicate")
	}
}

// TestDedupeWindow: an identical request older than 48 h is a new download.
func TestDedupeWindow(t *testing.T) {
	s := startServer(t, sqliteDSN(t), options{})
	body := `{"format":"SPECIES_LIST","predicate":` + familyPredicate + `}`
	key := s.submit("alice", body)
	s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
	if k := s.submit("alice", body); k != key {
		t.Fatalf("within the window: %s, want %s", k, key)
	}
	if k := s.submit("alice", `{"format":"SIMPLE_CSV","predicate":`+familyPredicate+`}`); k == key {
		t.Fatal("another format deduplicated")
	}
	old := time.Now().Add(-49 * time.Hour).UnixMilli()
	if _, err := s.db.SQL.Exec("UPDATE downloads SET created = ? WHERE key = ?", old, key); err != nil {
		t.Fatal(err)
	}
	if k := s.submit("alice", body); k == key {
		t.Fatal("a 49 h old download was returned as a duplicate")
	}
}

// TestUserCommand adds a user with the CLI (password on stdin) and uses it.
func TestUserCommand(t *testing.T) {
	bin, _ := buildFixture(t)
	dsn := sqliteDSN(t)
	run := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("", "migrate", "--db", dsn); err != nil || !strings.Contains(out, "migrated") {
		t.Fatalf("migrate: %v %s", err, out)
	}
	if out, err := run("dave-secret\n", "user", "add", "dave", "--email", "dave@example.org", "--db", dsn); err != nil {
		t.Fatalf("user add: %v %s", err, out)
	}
	if out, err := run("dave-secret\n", "user", "add", "dave", "--db", dsn); err == nil || !strings.Contains(out, "exists") {
		t.Fatalf("second add: %v %s", err, out)
	}
	if out, err := run("", "user", "add", "erin", "--db", dsn); err == nil || !strings.Contains(out, "password") {
		t.Fatalf("add without password: %v %s", err, out)
	}
	s := startServer(t, dsn, options{noUsers: true})
	r := s.do("POST", "/v1/occurrence/download/request", "dave", `{"sendNotification":true,"predicate":`+familyPredicate+`}`)
	key := string(expect(t, r, http.StatusCreated).body)
	// The user's e-mail became the notification address.
	var d jobs.Download
	deadline := time.Now().Add(time.Minute)
	for d.Status != jobs.StatusSucceeded && time.Now().Before(deadline) {
		d = s.status(key, "dave")
		time.Sleep(50 * time.Millisecond)
	}
	if d.Status != jobs.StatusSucceeded || len(d.Request.NotificationAddresses) != 1 || d.Request.NotificationAddresses[0] != "dave@example.org" {
		t.Fatalf("download %+v", d)
	}
}
