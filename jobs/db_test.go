package jobs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
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

// TestOpenMigratedDB: the commands that do not migrate refuse a database
// without this binary's schema, and a SQLite file that does not exist
// (which they used to create), naming downloader migrate.
func TestOpenMigratedDB(t *testing.T) {
	ctx := context.Background()
	t.Run("sqlite", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "jobs.db")
		if _, err := OpenMigratedDB(ctx, "sqlite:"+file); err == nil || !strings.Contains(err.Error(), "downloader migrate") {
			t.Errorf("a file that does not exist: %v", err)
		}
		if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the file was created: %v", err)
		}
		testOpenMigrated(t, "sqlite:"+file)
	})
	t.Run("postgres", func(t *testing.T) { testOpenMigrated(t, pgtest.Database(t, "jobstest")) })
}

func testOpenMigrated(t *testing.T, dsn string) {
	ctx := context.Background()
	db, err := OpenDB(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := OpenMigratedDB(ctx, dsn); !errors.Is(err, ErrNotMigrated) || !strings.Contains(err.Error(), "no schema") {
		t.Errorf("an empty database: %v", err)
	}
	if err := db.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	m, err := OpenMigratedDB(ctx, dsn)
	if err != nil {
		t.Fatalf("a migrated database: %v", err)
	}
	_ = m.Close()
	all, _ := migrations.List(db.Dialect)
	last := all[len(all)-1].Version
	if _, err := db.SQL.ExecContext(ctx, db.q("DELETE FROM schema_migrations WHERE version = ?"), last); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenMigratedDB(ctx, dsn); !errors.Is(err, ErrNotMigrated) || !strings.Contains(err.Error(), fmt.Sprintf("migrations [%d]", last)) {
		t.Errorf("an older database: %v", err)
	}
	if _, err := db.SQL.ExecContext(ctx, db.q("INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, 0)"), last, all[len(all)-1].Name); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL.ExecContext(ctx, "DELETE FROM river_migration WHERE version = (SELECT max(version) FROM river_migration)"); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenMigratedDB(ctx, dsn); !errors.Is(err, ErrNotMigrated) || !strings.Contains(err.Error(), "River's") {
		t.Errorf("River's migrations missing: %v", err)
	}
}
