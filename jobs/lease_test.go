package jobs

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// testDB opens a migrated SQLite database in a temporary directory, closed
// when the test ends.
func testDB(t *testing.T) *DB {
	return openMigrated(t, "sqlite:"+filepath.Join(t.TempDir(), "test.db"))
}

func leaseTestDB(t *testing.T) *DB {
	t.Helper()
	ctx := context.Background()
	db := testDB(t)
	if err := db.AddUser(ctx, User{Name: "alice"}, "correct horse"); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	r := row{Creator: "alice"}
	r.Key, r.Status, r.Request = "0000001-k", StatusPreparing, Request{Format: "DWCA", Type: "OCCURRENCE"}
	r.Created, r.Modified, r.EraseAfter = Time{now}, Time{now}, Time{now.Add(time.Hour)}
	if err := db.insertDownload(ctx, db.SQL, r, "h"); err != nil {
		t.Fatal(err)
	}
	return db
}

// renew reports the status and whether the lease is still held, whether it
// renewed the lease or not, and saves progress only while the lease is held.
func TestRenew(t *testing.T) {
	ctx := context.Background()
	db := leaseTestDB(t)
	const key = "0000001-k"
	if ok, err := db.claim(ctx, key, "w1", time.Minute); err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	p := Progress{RecordsScanned: 10, RecordsWritten: 5, BytesWritten: 100}
	if st, held, err := db.renew(ctx, key, "w1", time.Minute, p); err != nil || st != StatusRunning || !held {
		t.Fatalf("renew by holder: %s %v %v", st, held, err)
	}
	r, err := db.getDownload(ctx, db.SQL, key)
	if err != nil || r.Progress == nil || *r.Progress != p {
		t.Fatalf("progress after renew: %+v %v", r.Progress, err)
	}
	if st, held, err := db.renew(ctx, key, "w2", time.Minute, Progress{RecordsScanned: 99}); err != nil || st != StatusRunning || held {
		t.Fatalf("renew by another worker: %s %v %v", st, held, err)
	}
	if r, _ := db.getDownload(ctx, db.SQL, key); r.Progress == nil || *r.Progress != p {
		t.Fatalf("another worker's renew saved progress: %+v", r.Progress)
	}
	if ok, err := db.setStatus(ctx, key, StatusCancelled, "", StatusRunning); err != nil || !ok {
		t.Fatalf("cancel: %v %v", ok, err)
	}
	if st, held, err := db.renew(ctx, key, "w1", time.Minute, p); err != nil || st != StatusCancelled || !held {
		t.Fatalf("renew after cancel: %s %v %v", st, held, err)
	}
	if st, held, err := db.renew(ctx, "missing", "w1", time.Minute, p); err != nil || st != "" || held {
		t.Fatalf("renew of a missing download: %s %v %v", st, held, err)
	}
}
