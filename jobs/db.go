package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	_ "modernc.org/sqlite" // the embedded default database

	"github.com/biodiversity-downloads/downloader/migrations"
)

// ErrBadDSN reports a database address that is neither sqlite:FILE nor postgres://.
var ErrBadDSN = errors.New("bad database address")

// DB is the job service's database: SQLite (embedded default) or PostgreSQL.
type DB struct {
	SQL     *sql.DB
	Dialect migrations.Dialect
	pool    *pgxpool.Pool // PostgreSQL only; River's pgx driver uses it
	// read serves the API's reads. On SQLite it is a separate read-only pool
	// (WAL lets readers run beside the single writer connection); on
	// PostgreSQL it is SQL.
	read *sql.DB
}

// OpenDB opens "sqlite:FILE" or a "postgres://" / "postgresql://" URL. It
// does not migrate; call Migrate.
func OpenDB(ctx context.Context, dsn string) (*DB, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		file := sqliteFile(dsn)
		if file == "" {
			return nil, fmt.Errorf("%w: %q: sqlite: needs a file name", ErrBadDSN, dsn)
		}
		// Immediate transactions and a busy timeout let several processes
		// share the file; one connection per process is what River's SQLite
		// driver asks for.
		conn := "file:" + file + "?_pragma=busy_timeout(20000)&_pragma=journal_mode(WAL)" +
			"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
		db, err := sql.Open("sqlite", conn)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", file, err)
		}
		db.SetMaxOpenConns(1)
		if err := db.PingContext(ctx); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("open %s: %w", file, err)
		}
		read, err := sql.Open("sqlite", "file:"+file+"?_pragma=busy_timeout(20000)&_pragma=query_only(1)")
		if err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("open %s: %w", file, err)
		}
		read.SetMaxOpenConns(4)
		return &DB{SQL: db, Dialect: migrations.SQLite, read: read}, nil
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadDSN, err)
		}
		if err := pool.Ping(ctx); err != nil {
			pool.Close()
			return nil, fmt.Errorf("connect to postgres: %w", err)
		}
		sqlDB := stdlib.OpenDBFromPool(pool)
		return &DB{SQL: sqlDB, Dialect: migrations.Postgres, pool: pool, read: sqlDB}, nil
	}
	return nil, fmt.Errorf("%w: %q (want sqlite:FILE or postgres://...)", ErrBadDSN, dsn)
}

// sqliteFile is the file of a "sqlite:FILE" address.
func sqliteFile(dsn string) string {
	return strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//")
}

// ErrNotMigrated reports a job database without the schema of this binary
// (none, or an older one): `downloader migrate` applies it.
var ErrNotMigrated = errors.New("the job database is not migrated")

// OpenMigratedDB opens an existing job database for a command that must not
// change its schema (the user and schedule commands): a SQLite file that
// does not exist is an error, not a new empty database, and a database
// whose schema is missing or older than this binary's is ErrNotMigrated.
// Only serve and migrate migrate.
func OpenMigratedDB(ctx context.Context, dsn string) (*DB, error) {
	if strings.HasPrefix(dsn, "sqlite:") {
		if file := sqliteFile(dsn); file != "" {
			if _, err := os.Stat(file); err != nil {
				return nil, fmt.Errorf("job database %s: %w (create it with downloader migrate)", file, err)
			}
		}
	}
	db, err := OpenDB(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := db.CheckMigrated(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// CheckMigrated returns ErrNotMigrated, saying what is missing, when a
// migration of the service's or River's is not applied; it changes nothing.
func (db *DB) CheckMigrated(ctx context.Context) error {
	all, err := migrations.List(db.Dialect)
	if err != nil {
		return err
	}
	pending, err := migrations.Pending(ctx, db.SQL, db.Dialect)
	if err != nil {
		return fmt.Errorf("job database: reading its migrations: %w", err)
	}
	river, err := db.riverPending(ctx)
	if err != nil {
		return fmt.Errorf("job database: reading River's migrations: %w", err)
	}
	if len(pending) == len(all) {
		return fmt.Errorf("%w: it has no schema (a new or wrong database?): run downloader migrate on it first", ErrNotMigrated)
	}
	var missing []string
	if len(pending) > 0 {
		missing = append(missing, fmt.Sprintf("migrations %v", pending))
	}
	if len(river) > 0 {
		missing = append(missing, "River's: "+strings.Join(river, "; "))
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: its schema is older than this binary's (not applied: %s): run downloader migrate on it first",
			ErrNotMigrated, strings.Join(missing, "; "))
	}
	return nil
}

// riverPending lists River's migrations that are not applied.
func (db *DB) riverPending(ctx context.Context) ([]string, error) {
	cfg := &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)}
	var res *rivermigrate.ValidateResult
	var err error
	if db.Dialect == migrations.Postgres {
		var m *rivermigrate.Migrator[pgx.Tx]
		if m, err = rivermigrate.New(riverpgxv5.New(db.pool), cfg); err == nil {
			res, err = m.Validate(ctx, nil)
		}
	} else {
		var m *rivermigrate.Migrator[*sql.Tx]
		if m, err = rivermigrate.New(riversqlite.New(db.SQL), cfg); err == nil {
			res, err = m.Validate(ctx, nil)
		}
	}
	if err != nil {
		return nil, err
	}
	if res.OK {
		return nil, nil
	}
	return res.Messages, nil
}

// Close closes the database.
func (db *DB) Close() error {
	err := db.SQL.Close()
	if db.read != db.SQL {
		_ = db.read.Close()
	}
	if db.pool != nil {
		db.pool.Close()
	}
	return err
}

// Migrate applies the service's migrations and River's own; a nil logger
// discards.
func (db *DB) Migrate(ctx context.Context, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if _, err := migrations.Apply(ctx, db.SQL, db.Dialect, logger); err != nil {
		return err
	}
	if db.Dialect == migrations.Postgres {
		return db.migrateRiverPostgres(ctx, logger)
	}
	m, err := rivermigrate.New(riversqlite.New(db.SQL), &rivermigrate.Config{Logger: logger})
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return nil
}

// migrateRiverPostgres runs River's migrations while holding a session
// advisory lock, so processes starting together do not race. (River's
// migrations cannot share one transaction: a new enum value may not be used
// in the transaction that adds it.)
func (db *DB) migrateRiverPostgres(ctx context.Context, logger *slog.Logger) error {
	m, err := rivermigrate.New(riverpgxv5.New(db.pool), &rivermigrate.Config{Logger: logger})
	if err != nil {
		return err
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(7301554212)"); err != nil {
		return err
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(7301554212)") }()
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return nil
}

// inTx runs f in a transaction on db.SQL and commits it when f succeeds.
func (db *DB) inTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := db.SQL.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// q rewrites ? placeholders to $n for PostgreSQL. Queries in this package
// never contain a literal question mark.
func (db *DB) q(query string) string {
	if db.Dialect != migrations.Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
