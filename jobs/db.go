package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

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
		file := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//")
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
