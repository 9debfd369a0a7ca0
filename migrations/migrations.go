// Package migrations holds the job service's numbered SQL migrations, embedded
// in the binary, and applies them to SQLite or PostgreSQL.
//
// A file sql/NNNN_name.sql runs on both dialects; sql/NNNN_name.sqlite.sql or
// sql/NNNN_name.postgres.sql runs on that dialect only. Each migration runs in
// its own transaction together with the row that records it, so a failed
// migration leaves nothing half-applied. On PostgreSQL an advisory lock makes
// concurrent starts of several processes apply each migration once.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed sql/*.sql
var files embed.FS

// Dialect names a SQL dialect.
type Dialect string

// The supported dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// ErrBadMigration reports a malformed migration file name or duplicate version.
var ErrBadMigration = errors.New("bad migration")

// Migration is one numbered SQL script.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// advisoryLockID serializes migrations across processes on PostgreSQL.
const advisoryLockID = 7_301_554_211

// List returns the migrations for dialect in version order.
func List(dialect Dialect) ([]Migration, error) {
	entries, err := fs.ReadDir(files, "sql")
	if err != nil {
		return nil, err
	}
	seen := map[int]string{}
	var out []Migration
	for _, e := range entries {
		m, ok, err := parseName(e.Name(), dialect)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if prev, dup := seen[m.Version]; dup {
			return nil, fmt.Errorf("%w: version %d in both %s and %s", ErrBadMigration, m.Version, prev, e.Name())
		}
		seen[m.Version] = e.Name()
		b, err := files.ReadFile(path.Join("sql", e.Name()))
		if err != nil {
			return nil, err
		}
		m.SQL = string(b)
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// parseName reads NNNN_name[.dialect].sql; ok is false for another dialect's file.
func parseName(file string, dialect Dialect) (Migration, bool, error) {
	base, found := strings.CutSuffix(file, ".sql")
	if !found {
		return Migration{}, false, nil
	}
	if stem, d, has := strings.Cut(base, "."); has {
		if Dialect(d) != SQLite && Dialect(d) != Postgres {
			return Migration{}, false, fmt.Errorf("%w: %s: unknown dialect %q", ErrBadMigration, file, d)
		}
		if Dialect(d) != dialect {
			return Migration{}, false, nil
		}
		base = stem
	}
	num, name, _ := strings.Cut(base, "_")
	v, err := strconv.Atoi(num)
	if err != nil || v <= 0 {
		return Migration{}, false, fmt.Errorf("%w: %s: name must start with a positive number", ErrBadMigration, file)
	}
	return Migration{Version: v, Name: name}, true, nil
}

// Apply runs every migration not yet recorded in schema_migrations and
// returns the versions it applied; a nil logger discards.
func Apply(ctx context.Context, db *sql.DB, dialect Dialect, logger *slog.Logger) ([]int, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	all, err := List(dialect)
	if err != nil {
		return nil, err
	}
	var applied []int
	for _, m := range all {
		done, err := applyOne(ctx, db, dialect, m)
		if err != nil {
			return applied, fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
		}
		if done {
			logger.InfoContext(ctx, "applied migration", "version", m.Version, "name", m.Name)
			applied = append(applied, m.Version)
		}
	}
	return applied, nil
}

func applyOne(ctx context.Context, db *sql.DB, dialect Dialect, m Migration) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback() }()
	if dialect == Postgres {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", advisoryLockID); err != nil {
			return false, err
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied BIGINT NOT NULL)`); err != nil {
		return false, err
	}
	var n int
	q := "SELECT count(*) FROM schema_migrations WHERE version = " + strconv.Itoa(m.Version)
	if err := tx.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return false, err
	}
	ins := "INSERT INTO schema_migrations (version, name, applied) VALUES (" +
		strconv.Itoa(m.Version) + ", '" + strings.ReplaceAll(m.Name, "'", "''") + "', " +
		strconv.FormatInt(time.Now().UnixMilli(), 10) + ")"
	if _, err := tx.ExecContext(ctx, ins); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// Pending returns the versions of dialect's migrations that schema_migrations
// does not record (all of them when the table does not exist), without
// changing anything.
func Pending(ctx context.Context, db *sql.DB, dialect Dialect) ([]int, error) {
	all, err := List(dialect)
	if err != nil {
		return nil, err
	}
	exists := "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
	if dialect == Postgres {
		exists = "SELECT count(*) FROM pg_tables WHERE tablename = 'schema_migrations' AND schemaname = current_schema()"
	}
	var n int
	if err := db.QueryRowContext(ctx, exists).Scan(&n); err != nil {
		return nil, err
	}
	done := map[int]bool{}
	if n > 0 {
		rows, err := db.QueryContext(ctx, "SELECT version FROM schema_migrations")
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				return nil, err
			}
			done[v] = true
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	var pending []int
	for _, m := range all {
		if !done[m.Version] {
			pending = append(pending, m.Version)
		}
	}
	return pending, nil
}
