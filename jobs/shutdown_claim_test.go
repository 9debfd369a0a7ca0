package jobs

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// shutdownAtDelete is fault injection: a shutdown that arrives while a
// worker deletes an earlier run's archive, right after its claim (a window
// too short to hit on demand with a real stop). Its Delete cancels the
// worker's context and fails as a cancelled storage call does.
type shutdownAtDelete struct {
	noStorage
	cancel context.CancelFunc
}

func (s *shutdownAtDelete) Delete(ctx context.Context, _ string) error {
	s.cancel()
	return ctx.Err()
}

// A shutdown between the claim and the export suspends the download (the
// next start resumes it) and gives the lease up, as one during the export
// does; the download stayed RUNNING under a lease nobody renewed
// (TestSuspendOnShutdownAndResume failed so once, in a loaded full run).
func TestShutdownRightAfterClaimSuspends(t *testing.T) {
	forEachDB(t, func(t *testing.T, db *DB) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		store := &shutdownAtDelete{cancel: cancel}
		if err := db.AddUser(context.Background(), alice, "correct horse"); err != nil {
			t.Fatal(err)
		}
		s, err := New(db, checkOnlyEngine{}, store, nil, Config{}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		bg := context.Background()
		key, err := s.Submit(bg, alice, testRequest())
		if err != nil {
			t.Fatal(err)
		}
		// An earlier run claimed it, named its archive and died: its lease
		// has run out, its object is left for the next run to delete.
		if ok, err := db.claim(bg, key, "dead/1", -time.Second); err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		if err := db.setObject(bg, key, "dead/1", key+"-1.zip"); err != nil {
			t.Fatal(err)
		}
		job := &river.Job[exportArgs]{JobRow: &rivertype.JobRow{ID: 7, Attempt: 2, MaxAttempts: 5}, Args: exportArgs{Key: key}}
		werr := (&exportWorker{s: s}).Work(ctx, job)
		var snooze *river.JobSnoozeError
		if !errors.As(werr, &snooze) {
			t.Errorf("Work returned %v, want the snooze of a suspended export", werr)
		}
		r, err := db.getDownload(bg, db.SQL, key)
		if err != nil {
			t.Fatal(err)
		}
		var owner string
		if err := db.SQL.QueryRowContext(bg, db.q("SELECT lease_owner FROM downloads WHERE key = ?"), key).Scan(&owner); err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusSuspended || owner != "" {
			t.Fatalf("after a shutdown right after the claim: %s, lease owner %q; want SUSPENDED and no lease", r.Status, owner)
		}
	})
}
