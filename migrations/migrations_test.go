package migrations

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

func TestParseName(t *testing.T) {
	cases := []struct {
		file    string
		dialect Dialect
		ok      bool
		version int
		bad     bool
	}{
		{"0001_init.sql", SQLite, true, 1, false},
		{"0002_x.postgres.sql", SQLite, false, 0, false},
		{"0002_x.postgres.sql", Postgres, true, 2, false},
		{"README.md", SQLite, false, 0, false},
		{"x_init.sql", SQLite, false, 0, true},
		{"0003_y.oracle.sql", SQLite, false, 0, true},
	}
	for _, c := range cases {
		m, ok, err := parseName(c.file, c.dialect)
		if (err != nil) != c.bad || ok != c.ok || (ok && m.Version != c.version) {
			t.Errorf("%s/%s: %+v %v %v", c.file, c.dialect, m, ok, err)
		}
		if err != nil && !errors.Is(err, ErrBadMigration) {
			t.Errorf("%s: error kind %v", c.file, err)
		}
	}
}

// Applying twice applies nothing the second time, and the schema is usable.
func TestApplySQLiteIdempotent(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	log := slog.New(slog.DiscardHandler)
	all, err := List(SQLite)
	if err != nil || len(all) == 0 {
		t.Fatalf("list: %v %v", all, err)
	}
	if pending, err := Pending(ctx, db, SQLite); err != nil || len(pending) != len(all) {
		t.Fatalf("pending before apply: %v %v", pending, err)
	}
	first, err := Apply(ctx, db, SQLite, log)
	if err != nil || len(first) != len(all) {
		t.Fatalf("first apply %v %v", first, err)
	}
	second, err := Apply(ctx, db, SQLite, log)
	if err != nil || len(second) != 0 {
		t.Fatalf("second apply %v %v", second, err)
	}
	if pending, err := Pending(ctx, db, SQLite); err != nil || len(pending) != 0 {
		t.Fatalf("pending after apply: %v %v", pending, err)
	}
	last := all[len(all)-1].Version
	if _, err := db.Exec("DELETE FROM schema_migrations WHERE version = ?", last); err != nil {
		t.Fatal(err)
	}
	if pending, err := Pending(ctx, db, SQLite); err != nil || len(pending) != 1 || pending[0] != last {
		t.Fatalf("pending without the last: %v %v, want [%d]", pending, err, last)
	}
	var v int64
	if err := db.QueryRow("SELECT value FROM key_sequence WHERE name = 'download'").Scan(&v); err != nil || v != 0 {
		t.Fatalf("key sequence %d %v", v, err)
	}
}
