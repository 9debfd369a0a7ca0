package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/biodiversity-downloads/downloader/migrations"
)

// forEachDB runs f on a fresh SQLite database and on a fresh PostgreSQL
// database (skipped without DOWNLOADER_TEST_POSTGRES, failed under CI=true).
func forEachDB(t *testing.T, f func(t *testing.T, db *DB)) {
	t.Run("sqlite", func(t *testing.T) { f(t, testDB(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, postgresTestDB(t)) })
}

var pgCounter atomic.Int64

// postgresTestDB creates a database for one test on the server named by
// DOWNLOADER_TEST_POSTGRES (see scripts/ci/postgres.sh), opens and migrates
// it, and drops it when the test ends.
func postgresTestDB(t *testing.T) *DB {
	t.Helper()
	base := os.Getenv("DOWNLOADER_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("DOWNLOADER_TEST_POSTGRES is not set (run scripts/ci/postgres.sh)")
		}
		t.Skip("DOWNLOADER_TEST_POSTGRES not set; run scripts/ci/postgres.sh to test against PostgreSQL")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("jobstest_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6, pgCounter.Add(1))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			return
		}
		defer c.Close(ctx)
		_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	db, err := OpenDB(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() }) // runs before the drop above
	if err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	return db
}

// failRiverInserts makes every insert into River's job table fail until
// the returned function is called: a fault in the middle of a transaction
// that inserts a job.
func failRiverInserts(t *testing.T, db *DB) (restore func()) {
	t.Helper()
	ctx := context.Background()
	create := []string{`CREATE TRIGGER fail_river_insert BEFORE INSERT ON river_job
		BEGIN SELECT RAISE(ABORT, 'injected river_job insert failure'); END`}
	drop := []string{"DROP TRIGGER fail_river_insert"}
	if db.Dialect == migrations.Postgres {
		create = []string{`CREATE FUNCTION fail_river_insert() RETURNS trigger LANGUAGE plpgsql AS
			$$ BEGIN RAISE EXCEPTION 'injected river_job insert failure'; END $$`,
			`CREATE TRIGGER fail_river_insert BEFORE INSERT ON river_job
			FOR EACH ROW EXECUTE FUNCTION fail_river_insert()`}
		drop = []string{"DROP TRIGGER fail_river_insert ON river_job", "DROP FUNCTION fail_river_insert()"}
	}
	for _, q := range create {
		if _, err := db.SQL.ExecContext(ctx, q); err != nil {
			t.Fatalf("inject river_job failure: %v", err)
		}
	}
	return func() {
		t.Helper()
		for _, q := range drop {
			if _, err := db.SQL.ExecContext(ctx, q); err != nil {
				t.Fatalf("remove river_job failure: %v", err)
			}
		}
	}
}
