package web_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/biodiversity-downloads/downloader/jobs"
	"github.com/biodiversity-downloads/downloader/occurrence/parquet"
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

// TestDedupeTableChanged: an identical request made after the table
// changed is a new download of the new snapshot (it got the archive of the
// old one for 48 hours).
func TestDedupeTableChanged(t *testing.T) {
	_, shared := buildFixture(t)
	table := filepath.Join(t.TempDir(), "table")
	if err := os.CopyFS(table, os.DirFS(shared)); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, sqliteDSN(t), options{tableDir: table})
	body := `{"format":"SIMPLE_CSV"}` // every record
	key := s.submit("alice", body)
	before := s.waitStatus(key, time.Minute, jobs.StatusSucceeded)
	if k := s.submit("alice", body); k != key {
		t.Fatalf("same table: %s, want %s", k, key)
	}
	store, err := parquet.Open(table, parquet.Config{}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ds, err := store.Datasets(context.Background())
	if err != nil || len(ds) != 2 {
		t.Fatalf("datasets %+v (%v)", ds, err)
	}
	if err := store.DeleteDataset(context.Background(), ds[0].Key); err != nil {
		t.Fatal(err)
	}
	k := s.submit("alice", body)
	if k == key {
		t.Fatal("the table changed, and the archive of its old snapshot was returned")
	}
	after := s.waitStatus(k, time.Minute, jobs.StatusSucceeded)
	if after.TableSnapshot == before.TableSnapshot || after.TotalRecords >= before.TotalRecords {
		t.Fatalf("before: %s, %d records; after: %s, %d records", before.TableSnapshot, before.TotalRecords,
			after.TableSnapshot, after.TotalRecords)
	}
	if k2 := s.submit("alice", body); k2 != k {
		t.Fatalf("unchanged since: %s, want %s", k2, k)
	}
	// The description and the notification make another download.
	if k3 := s.submit("alice", strings.TrimSuffix(body, "}")+`,"description":"for the paper"}`); k3 == k {
		t.Fatal("a request with another description was deduplicated")
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
	// passwd reads the new password as add does; the server takes it at
	// once (the old one was remembered by its login cache).
	if out, err := run("dave-second-secret\n", "user", "passwd", "dave", "--db", dsn); err != nil {
		t.Fatalf("user passwd: %v %s", err, out)
	}
	unauthorized(t, s.do("GET", "/v1/occurrence/download/user/dave", "dave", nil))
	davePass := func(pw string) []string {
		return []string{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte("dave:"+pw))}
	}
	expect(t, s.do("GET", "/v1/occurrence/download/user/dave", "", nil, davePass("dave-second-secret")...), http.StatusOK)
	// A disabled user cannot authenticate; enabled again, can.
	if out, err := run("", "user", "disable", "dave", "--db", dsn); err != nil {
		t.Fatalf("user disable: %v %s", err, out)
	}
	r = unauthorized(t, s.do("GET", "/v1/occurrence/download/user/dave", "", nil, davePass("dave-second-secret")...))
	if !strings.Contains(string(r.body), "disabled") {
		t.Fatalf("a disabled user is told %q", r.body)
	}
	if out, err := run("", "user", "enable", "dave", "--db", dsn); err != nil {
		t.Fatalf("user enable: %v %s", err, out)
	}
	expect(t, s.do("GET", "/v1/occurrence/download/user/dave", "", nil, davePass("dave-second-secret")...), http.StatusOK)
	// list: name, e-mail, admin, state, created, last login.
	if out, err := run("erin-secret\n", "user", "add", "erin", "--admin", "--db", dsn); err != nil {
		t.Fatalf("add erin: %v %s", err, out)
	}
	out, err := run("", "user", "list", "--db", dsn)
	var lines []string // the table, without the log lines on stderr
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.Contains(l, "level=") {
			lines = append(lines, l)
		}
	}
	if err != nil || len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("user list: %v\n%s", err, out)
	}
	today := time.Now().UTC().Format("2006-01-02")
	dave, erin := strings.Fields(lines[1]), strings.Fields(lines[2])
	// dave dave@example.org no active DAY TIME DAY TIME
	if len(dave) != 8 || dave[0] != "dave" || dave[1] != "dave@example.org" || dave[2] != "no" || dave[3] != "active" ||
		dave[4] != today || dave[6] != today {
		t.Fatalf("dave listed as %q", lines[1])
	}
	if len(erin) != 7 || erin[0] != "erin" || erin[1] != "-" || erin[2] != "yes" || erin[6] != "-" {
		t.Fatalf("erin listed as %q", lines[2])
	}
	// remove: a user without downloads goes; one with downloads only with
	// --force, which keeps the downloads and closes the account.
	if out, err := run("", "user", "remove", "erin", "--db", dsn); err != nil || !strings.Contains(out, "removed user: erin") {
		t.Fatalf("remove erin: %v %s", err, out)
	}
	if out, err := run("", "user", "remove", "dave", "--db", dsn); err == nil || !strings.Contains(out, "has 1 downloads") {
		t.Fatalf("remove dave without --force: %v %s", err, out)
	}
	if out, err := run("", "user", "remove", "dave", "--force", "--db", dsn); err != nil || !strings.Contains(out, "1 downloads are kept") {
		t.Fatalf("remove dave --force: %v %s", err, out)
	}
	unauthorized(t, s.do("GET", "/v1/occurrence/download/user/dave", "", nil, davePass("dave-second-secret")...))
	if d := s.status(key, ""); d.Status != jobs.StatusSucceeded {
		t.Fatalf("dave's download after his removal: %+v", d)
	}
	if out, err := run("dave-secret\n", "user", "add", "dave", "--db", dsn); err == nil || !strings.Contains(out, "removed") {
		t.Fatalf("re-adding a removed name: %v %s", err, out)
	}
}
