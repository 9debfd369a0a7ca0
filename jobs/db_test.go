package jobs

import (
	"context"
	"log/slog"
	"testing"

	"github.com/biodiversity-downloads/downloader/internal/pgtest"
	"github.com/biodiversity-downloads/downloader/migrations"
)

// forEachDB runs f on a fresh SQLite database and on a fresh PostgreSQL
// database (skipped without DOWNLOADER_TEST_POSTGRES, failed under CI=true).
func forEachDB(t *testing.T, f func(t *testing.T, db *DB)) {
	t.Run("sqlite", func(t *testing.T) { f(t, testDB(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, postgresTestDB(t)) })
}

// postgresTestDB creates a database for one test on the server named by
// DOWNLOADER_TEST_POSTGRES (see scripts/ci/postgres.sh), opens and migrates
// it, and drops it when the test ends.
func postgresTestDB(t *testing.T) *DB { return openMigrated(t, pgtest.Database(t, "jobstest")) }

// openMigrated opens the database dsn and migrates it; it is closed when
// the test ends (before pgtest drops a PostgreSQL one).
func openMigrated(t *testing.T, dsn string) *DB {
	t.Helper()
	ctx := context.Background()
	db, err := OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
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
