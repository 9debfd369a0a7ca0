package jobs

import (
	"context"
	"log/slog"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"
)

func TestFormatKey(t *testing.T) {
	start := time.Date(2013, 9, 6, 15, 25, 12, 535_000_000, time.UTC)
	if k := formatKey(1005, start); k != "0001005-130906152512535" {
		t.Fatalf("key %q", k)
	}
	if k := formatKey(12_345_678, start); k != "12345678-130906152512535" {
		t.Fatalf("wide key %q", k)
	}
}

// Two handles on one database (as two processes have) never draw the same
// key, even when their processes started in the same millisecond.
func TestKeysUniqueAcrossHandles(t *testing.T) {
	ctx := context.Background()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	var dbs []*DB
	for i := 0; i < 2; i++ {
		db, err := OpenDB(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, db)
	}
	start := time.Now()
	re := regexp.MustCompile(`^[0-9]{7}-[0-9]{15}$`)
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for _, db := range dbs {
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					k, err := db.nextKey(ctx, db.SQL, start)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					if seen[k] || !re.MatchString(k) {
						t.Errorf("key %q repeated or malformed", k)
					}
					seen[k] = true
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if len(seen) != 400 {
		t.Fatalf("%d distinct keys, want 400", len(seen))
	}
}

func TestUsersAndAuth(t *testing.T) {
	ctx := context.Background()
	db := testDB(t)
	if err := db.AddUser(ctx, User{Name: "alice", Email: "a@example.org"}, "correct horse"); err != nil {
		t.Fatal(err)
	}
	if err := db.AddUser(ctx, User{Name: "alice"}, "another pass"); err == nil {
		t.Fatal("duplicate user accepted")
	}
	if err := db.AddUser(ctx, User{Name: "bad name"}, "whatever1"); err == nil {
		t.Fatal("bad name accepted")
	}
	if err := db.AddUser(ctx, User{Name: "short"}, "x"); err == nil {
		t.Fatal("short password accepted")
	}
	var hash string
	if err := db.SQL.QueryRow("SELECT password_hash FROM users WHERE name='alice'").Scan(&hash); err != nil || hash[:4] != "$2a$" {
		t.Fatalf("stored hash %q (%v) is not bcrypt", hash, err)
	}
	a := NewAuthenticator(db, AuthConfig{})
	if u, err := a.Check(ctx, "alice", "correct horse", "192.0.2.1:1234"); err != nil || u.Email != "a@example.org" {
		t.Fatalf("check: %+v %v", u, err)
	}
	for _, c := range [][2]string{{"alice", "wrong"}, {"nobody", "correct horse"}, {"alice", ""}} {
		if _, err := a.Check(ctx, c[0], c[1], "192.0.2.1:1234"); err != ErrUnauthorized {
			t.Errorf("%v: %v", c, err)
		}
	}
}
