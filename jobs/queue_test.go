package jobs

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/biodiversity-downloads/downloader/migrations"
)

// checkOnlyEngine accepts every predicate as it is. The services of these
// tests are never started, so nothing is counted or exported.
type checkOnlyEngine struct{}

var errNotExporting = errors.New("this test engine does not export")

func (checkOnlyEngine) CheckPredicate(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 {
		return json.RawMessage("null"), nil
	}
	return raw, nil
}
func (checkOnlyEngine) PredicateFromQuery(url.Values) (json.RawMessage, error) {
	return nil, errNotExporting
}
func (checkOnlyEngine) TableSnapshot(context.Context) (TableSnapshot, error) {
	return TableSnapshot{ID: "snapshot-1"}, nil
}
func (checkOnlyEngine) Count(context.Context, json.RawMessage) (int64, error) {
	return 0, errNotExporting
}
func (checkOnlyEngine) Export(context.Context, ExportRequest, io.Writer, func(Progress)) (ExportResult, error) {
	return ExportResult{}, errNotExporting
}

// noStorage stores nothing (these services export nothing) and records
// which partial uploads the service asked it to drop.
type noStorage struct {
	mu      sync.Mutex
	dropped []string
}

func (*noStorage) Create(context.Context, string, File) (Upload, error) {
	return nil, errNotExporting
}
func (*noStorage) Open(context.Context, string) (Object, error) { return Object{}, ErrNotFound }
func (*noStorage) Delete(context.Context, string) error         { return nil }
func (*noStorage) Sweep(context.Context, time.Time) error       { return nil }
func (n *noStorage) AbortUploads(_ context.Context, prefix string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.dropped = append(n.dropped, prefix)
	return nil
}

func (n *noStorage) drops() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.dropped)
}

// queueTestService returns a service on db that is never started (its River
// client works no job), with user alice and, when mail is true, a mailer
// (it never connects: no notification job runs).
func queueTestService(t *testing.T, db *DB, mail bool) *Service {
	t.Helper()
	if err := db.AddUser(context.Background(), User{Name: "alice", Email: "alice@example.org"}, "correct horse"); err != nil {
		t.Fatal(err)
	}
	var m *Mailer
	if mail {
		var err error
		if m, err = NewMailer(MailConfig{Addr: "127.0.0.1:1", From: "downloads@example.org"}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(db, checkOnlyEngine{}, &noStorage{}, m, Config{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var alice = User{Name: "alice", Email: "alice@example.org"}

func testRequest() Request {
	return Request{Format: "SIMPLE_CSV", Predicate: json.RawMessage(`{"type":"equals","key":"FAMILY","value":"Felidae"}`),
		SendNotification: true}
}

type jobRecord struct {
	id          int64
	kind, state string
	args        []byte
}

// riverJobs returns every row of River's job table, oldest first.
func riverJobs(t *testing.T, db *DB) []jobRecord {
	t.Helper()
	args := "args"
	if db.Dialect == migrations.SQLite {
		args = "json(args)" // River's SQLite driver stores args as JSONB
	}
	out, err := collect(context.Background(), db.SQL, "SELECT id, kind, state, "+args+" FROM river_job ORDER BY id", nil,
		func(s scanner) (jobRecord, error) {
			var j jobRecord
			err := s.Scan(&j.id, &j.kind, &j.state, &j.args)
			return j, err
		})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func countDownloads(t *testing.T, db *DB) int {
	t.Helper()
	var n int
	if err := db.SQL.QueryRow("SELECT count(*) FROM downloads").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func recordedJob(t *testing.T, db *DB, key string) int64 {
	t.Helper()
	id, err := db.riverJob(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// exportJobOf checks that j is the export job of key, run run, waiting to
// be worked, and returns it.
func exportJobOf(t *testing.T, j jobRecord, key string, run int) jobRecord {
	t.Helper()
	var a exportArgs
	if err := json.Unmarshal(j.args, &a); err != nil {
		t.Fatalf("job %d args %q: %v", j.id, j.args, err)
	}
	if j.kind != (exportArgs{}).Kind() || a != (exportArgs{Key: key, Run: run}) ||
		j.state != string(rivertype.JobStateAvailable) {
		t.Fatalf("job %d is %s %s %+v, want an available %s of %s run %d",
			j.id, j.state, j.kind, a, (exportArgs{}).Kind(), key, run)
	}
	return j
}

// A committed Submit has written, in that commit, both the download and its
// export job, and the download names the job; nothing has to run for the
// job to exist when Submit returns.
func TestSubmitCommitsDownloadWithItsJob(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *DB) {
		s := queueTestService(t, db, false)
		key, err := s.Submit(context.Background(), alice, testRequest())
		if err != nil {
			t.Fatal(err)
		}
		js := riverJobs(t, db)
		if len(js) != 1 {
			t.Fatalf("%d river jobs after one Submit, want 1: %+v", len(js), js)
		}
		exportJobOf(t, js[0], key, 0)
		if id := recordedJob(t, db, key); id != js[0].id {
			t.Fatalf("downloads.river_job_id %d, river job %d", id, js[0].id)
		}
	})
}

// When the job cannot be inserted, nothing is recorded: Submit fails and
// no download is left PREPARING without a job. (Before the job was inserted
// in the download's transaction, Submit returned the key of such a
// download and left it to the hourly reconciliation.)
func TestSubmitFailsWhenItsJobCannotBeInserted(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *DB) {
		s := queueTestService(t, db, false)
		ctx := context.Background()
		restore := failRiverInserts(t, db)
		if key, err := s.Submit(ctx, alice, testRequest()); err == nil {
			t.Fatalf("Submit returned %s although its job could not be inserted", key)
		}
		if n, js := countDownloads(t, db), riverJobs(t, db); n != 0 || len(js) != 0 {
			t.Fatalf("after a failed Submit: %d downloads, river jobs %+v; want neither", n, js)
		}
		restore()
		key, err := s.Submit(ctx, alice, testRequest())
		if err != nil {
			t.Fatal(err)
		}
		if js := riverJobs(t, db); len(js) != 1 || exportJobOf(t, js[0], key, 0).id != recordedJob(t, db, key) {
			t.Fatalf("river jobs after the retried Submit: %+v", js)
		}
	})
}

var errInjected = errors.New("injected failure before commit")

// A Submit whose transaction fails after the job insert, just before the
// commit, leaves neither the download nor an orphan job.
func TestSubmitRolledBackLeavesNoJob(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *DB) {
		s := queueTestService(t, db, false)
		var inTx []jobRecord
		s.beforeSubmitCommit = func(ctx context.Context, tx *sql.Tx, key string) error {
			// The transaction holds the download and its job at this point.
			js, err := collect(ctx, tx, "SELECT id, kind, state FROM river_job", nil, func(s scanner) (jobRecord, error) {
				var j jobRecord
				err := s.Scan(&j.id, &j.kind, &j.state)
				return j, err
			})
			if err != nil {
				return err
			}
			var id int64
			if err := tx.QueryRowContext(ctx, db.q("SELECT river_job_id FROM downloads WHERE key = ?"), key).Scan(&id); err != nil {
				return err
			}
			if len(js) == 1 && js[0].id != id {
				t.Errorf("in the transaction: downloads.river_job_id %d, river job %d", id, js[0].id)
			}
			inTx = js
			return errInjected
		}
		_, err := s.Submit(context.Background(), alice, testRequest())
		if !errors.Is(err, errInjected) {
			t.Fatalf("Submit: %v, want the injected failure", err)
		}
		if len(inTx) != 1 || inTx[0].kind != (exportArgs{}).Kind() {
			t.Fatalf("river jobs in the transaction before commit: %+v, want its export job", inTx)
		}
		if n, js := countDownloads(t, db), riverJobs(t, db); n != 0 || len(js) != 0 {
			t.Fatalf("after the rollback: %d downloads, river jobs %+v; want neither", n, js)
		}
	})
}

// Requeueing a download of a dead worker clears its lease and inserts the
// new job together: when the insert fails the stale lease stays, so the next
// recovery pass queues the download again. (Clearing the lease first left a
// download that no recovery pass would find again.)
func TestRequeueIsAtomic(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *DB) {
		s := queueTestService(t, db, false)
		ctx := context.Background()
		key, err := s.Submit(ctx, alice, testRequest())
		if err != nil {
			t.Fatal(err)
		}
		dead := recordedJob(t, db, key)
		if ok, err := db.claim(ctx, key, "dead-worker/1", time.Minute); err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		later := time.Now().Add(2 * time.Minute) // the lease has expired by then
		lease := func() string {
			var owner string
			if err := db.SQL.QueryRow(db.q("SELECT lease_owner FROM downloads WHERE key = ?"), key).Scan(&owner); err != nil {
				t.Fatal(err)
			}
			return owner
		}
		restore := failRiverInserts(t, db)
		if n, err := s.RecoverExpired(ctx, later); err == nil {
			t.Fatalf("recovery with failing job inserts requeued %d without an error", n)
		}
		if owner, job := lease(), recordedJob(t, db, key); owner != "dead-worker/1" || job != dead {
			t.Fatalf("after the failed requeue: lease %q, job %d; want the stale lease and job %d kept", owner, job, dead)
		}
		restore()
		if n, err := s.RecoverExpired(ctx, later); err != nil || n != 1 {
			t.Fatalf("requeued %d (%v), want 1", n, err)
		}
		js := riverJobs(t, db)
		if len(js) != 2 || js[0].id != dead || js[0].state != string(rivertype.JobStateCancelled) {
			t.Fatalf("river jobs after the requeue: %+v; want the dead one cancelled and a new one", js)
		}
		if exportJobOf(t, js[1], key, 1).id != recordedJob(t, db, key) || lease() != "" {
			t.Fatalf("after the requeue: job %d, lease %q", recordedJob(t, db, key), lease())
		}
	})
}

// A finished download and the job that mails its creator are committed
// together: when the notification cannot be queued the download is not
// marked finished either (before, it became SUCCEEDED or FAILED and the mail
// was lost).
func TestNotificationQueuedWithFinalStatus(t *testing.T) {
	for _, final := range []Status{StatusSucceeded, StatusFailed} {
		t.Run(string(final), func(t *testing.T) {
			forEachDB(t, func(t *testing.T, db *DB) {
				s := queueTestService(t, db, true)
				ctx := context.Background()
				key, err := s.Submit(ctx, alice, testRequest())
				if err != nil {
					t.Fatal(err)
				}
				const owner = "worker/1"
				if ok, err := db.claim(ctx, key, owner, time.Minute); err != nil || !ok {
					t.Fatalf("claim: %v %v", ok, err)
				}
				end := func() error {
					if final == StatusSucceeded {
						return s.finish(ctx, key, owner, key+".zip", ExportResult{Records: 3, Bytes: 100, SHA256: "00"})
					}
					job := &river.Job[exportArgs]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 5},
						Args: exportArgs{Key: key}}
					err := s.exportFailed(ctx, job, owner, &PermanentError{Err: errors.New("bad predicate")})
					var cancel *river.JobCancelError
					if errors.As(err, &cancel) {
						return nil // failed for good, as it should
					}
					return err
				}
				status := func() Status {
					r, err := db.getDownload(ctx, db.SQL, key)
					if err != nil {
						t.Fatal(err)
					}
					return r.Status
				}
				restore := failRiverInserts(t, db)
				if err := end(); err == nil {
					t.Fatal("the export ended without an error although its notification could not be queued")
				}
				if st := status(); st != StatusRunning {
					t.Fatalf("status %s after the notification failed to queue, want RUNNING", st)
				}
				restore()
				if err := end(); err != nil {
					t.Fatal(err)
				}
				if st := status(); st != final {
					t.Fatalf("status %s, want %s", st, final)
				}
				js := riverJobs(t, db)
				if len(js) != 2 || js[1].kind != (notifyArgs{}).Kind() || string(js[1].args) == "" {
					t.Fatalf("river jobs: %+v, want the export and a notification", js)
				}
				var a notifyArgs
				if err := json.Unmarshal(js[1].args, &a); err != nil || a.Key != key {
					t.Fatalf("notification args %q (%v)", js[1].args, err)
				}
			})
		})
	}
}

// Exports and notifications go to queues of their own, and jobs an older
// version left in River's default queue (which no process works any more)
// are moved to theirs when a worker starts; running jobs stay where they are.
func TestJobsInTheirOwnQueues(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *DB) {
		s := queueTestService(t, db, true)
		ctx := context.Background()
		key, err := s.Submit(ctx, alice, testRequest())
		if err != nil {
			t.Fatal(err)
		}
		if err := s.db.inTx(ctx, func(tx *sql.Tx) error { return s.notifyTx(ctx, tx, key, "") }); err != nil {
			t.Fatal(err)
		}
		legacy := func(args river.JobArgs) {
			t.Helper()
			if err := s.db.inTx(ctx, func(tx *sql.Tx) error {
				_, err := s.river.InsertTx(ctx, tx, args, &river.InsertOpts{Queue: river.QueueDefault})
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		legacy(exportArgs{Key: "old", Run: 1})
		legacy(notifyArgs{Key: "old"})
		legacy(maintenanceArgs{})
		if _, err := db.SQL.ExecContext(ctx, db.q("UPDATE river_job SET state = 'running' WHERE id = (SELECT max(id) FROM river_job)")); err != nil {
			t.Fatal(err)
		}
		queues := func() []string {
			t.Helper()
			out, err := collect(ctx, db.SQL, "SELECT queue FROM river_job ORDER BY id", nil, func(s scanner) (string, error) {
				var q string
				err := s.Scan(&q)
				return q, err
			})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		want := []string{queueExports, queueNotify, river.QueueDefault, river.QueueDefault, river.QueueDefault}
		if got := queues(); !slices.Equal(got, want) {
			t.Fatalf("queues %v, want %v", got, want)
		}
		if err := s.adoptDefaultQueueJobs(ctx); err != nil {
			t.Fatal(err)
		}
		want = []string{queueExports, queueNotify, queueExports, queueNotify, river.QueueDefault}
		if got := queues(); !slices.Equal(got, want) {
			t.Fatalf("queues after adoption %v, want %v", got, want)
		}
	})
}

// The partial archive of a run that died is dropped when the download runs
// again, ends, or is cancelled with no live worker (or, cancelled while a
// dead worker's lease ran, once that lease expires); a cancel does not
// touch the upload of a worker that is alive (it aborts its own).
func TestPartialUploadsDropped(t *testing.T) {
	db := testDB(t)
	s := queueTestService(t, db, false)
	store := s.store.(*noStorage)
	ctx := context.Background()
	// submitClaimed submits req and has owner claim it for lease.
	submitClaimed := func(req Request, owner string, lease time.Duration) string {
		t.Helper()
		key, err := s.Submit(ctx, alice, req)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := db.claim(ctx, key, owner, lease); err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		return key
	}
	key := submitClaimed(testRequest(), "live/1", time.Minute)
	if err := s.Cancel(ctx, alice, key); err != nil {
		t.Fatal(err)
	}
	if d := store.drops(); len(d) != 0 {
		t.Fatalf("cancelling a download a live worker exports dropped %v", d)
	}
	key2 := submitClaimed(Request{Format: "DWCA"}, "dead/1", time.Millisecond)
	time.Sleep(5 * time.Millisecond) // the lease runs out: the worker is dead
	if err := s.Cancel(ctx, alice, key2); err != nil {
		t.Fatal(err)
	}
	if d := store.drops(); !slices.Equal(d, []string{key2 + "-"}) {
		t.Fatalf("cancelling a dead worker's download dropped %v, want its uploads %s-", d, key2)
	}
	// Cancelled while a dead worker's lease still runs: the cancel cannot
	// tell, and the recovery of expired leases drops the upload once.
	key4 := submitClaimed(Request{Format: "DWCA"}, "dead/2", 30*time.Millisecond)
	if err := s.Cancel(ctx, alice, key4); err != nil {
		t.Fatal(err)
	}
	if d := store.drops(); len(d) != 1 {
		t.Fatalf("cancelling within a lease dropped %v", d)
	}
	time.Sleep(40 * time.Millisecond)
	for range 2 {
		if _, err := s.RecoverExpired(ctx, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if d := store.drops(); !slices.Equal(d, []string{key2 + "-", key4 + "-"}) {
		t.Fatalf("after the dead worker's lease ran out: dropped %v, want %s- once more", d, key4)
	}
	store.mu.Lock()
	store.dropped = store.dropped[:1]
	store.mu.Unlock()
	key3 := submitClaimed(Request{Format: "SPECIES_LIST"}, "w/1", time.Minute)
	if err := s.finish(ctx, key3, "w/1", key3+"-1.zip", ExportResult{Records: 1, Bytes: 1}); err != nil {
		t.Fatal(err)
	}
	if d := store.drops(); len(d) != 2 || d[1] != key3+"-" {
		t.Fatalf("a finished download dropped %v", d)
	}
}

// Reconciliation does not kill a download whose dead job was replaced
// after it read the row: the requeue of a worker that found the lease
// expired cancels the old job and records a new one, and a reconciliation
// holding the old job id saw it cancelled and marked the live download
// KILLED.
func TestReconcileKeepsRequeuedDownload(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *DB) {
		s := queueTestService(t, db, false)
		ctx := context.Background()
		key, err := s.Submit(ctx, alice, testRequest())
		if err != nil {
			t.Fatal(err)
		}
		old := recordedJob(t, db, key)
		if ok, err := db.claim(ctx, key, "dead/1", time.Millisecond); err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		time.Sleep(5 * time.Millisecond)
		// What Reconcile read before the requeue committed.
		stale := activeDownload{key: key, job: old, status: StatusRunning, attempts: 1}
		if n, err := s.RecoverExpired(ctx, time.Now()); err != nil || n != 1 {
			t.Fatalf("requeued %d (%v)", n, err)
		}
		if _, err := s.reconcileOne(ctx, stale); err != nil {
			t.Fatal(err)
		}
		r, err := db.getDownload(ctx, db.SQL, key)
		if err != nil || r.Status != StatusRunning || recordedJob(t, db, key) == old {
			t.Fatalf("after a stale reconciliation: %s (%v), job %d (old %d)", r.Status, err, recordedJob(t, db, key), old)
		}
		// The job it names now is the one that ended: then it is KILLED.
		if _, err := s.river.JobCancel(ctx, recordedJob(t, db, key)); err != nil {
			t.Fatal(err)
		}
		cur := activeDownload{key: key, job: recordedJob(t, db, key), status: StatusRunning, attempts: 1}
		if ok, err := s.reconcileOne(ctx, cur); err != nil || !ok {
			t.Fatalf("reconcile: %v %v", ok, err)
		}
		if r, _ := db.getDownload(ctx, db.SQL, key); r.Status != StatusKilled {
			t.Fatalf("a download whose job ended is %s, want KILLED", r.Status)
		}
	})
}

// A download's request and cancellation are logged with its key, creator
// and caller: who asked for a download that failed must be answerable
// from the logs.
func TestRequestAndCancelLogged(t *testing.T) {
	db := testDB(t)
	if err := db.AddUser(context.Background(), alice, "correct horse"); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	s, err := New(db, checkOnlyEngine{}, &noStorage{}, nil, Config{}, slog.New(slog.NewJSONHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	key, err := s.Submit(ctx, alice, testRequest())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Cancel(ctx, alice, key); err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{"download requested", "download cancelled"} {
		found := false
		for line := range strings.Lines(buf.String()) {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == msg {
				found = rec["key"] == key && rec["creator"] == "alice" && rec["caller"] == "alice"
			}
		}
		if !found {
			t.Errorf("no %q line with key, creator and caller in:\n%s", msg, buf.String())
		}
	}
}
