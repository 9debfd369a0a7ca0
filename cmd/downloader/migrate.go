package main

import (
	"context"
	"fmt"

	"github.com/biodiversity-downloads/downloader/jobs"
)

func init() {
	register("migrate", "apply the job database's migrations (SQLite or PostgreSQL)", runMigrate)
}

const dbFlagHelp = "job database: sqlite:FILE or postgres://user:pass@host/db"

// runMigrate: downloader migrate --db DSN.
func runMigrate(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("migrate", env)
	dsn := fs.String("db", "sqlite:downloads.db", dbFlagHelp)
	if err := fs.Parse(args); err != nil {
		return err
	}
	db, err := openJobDB(ctx, *dsn, env)
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintf(env.Stdout, "%s: migrated\n", db.Dialect)
	return nil
}

// openJobDB opens and migrates the job database: serve and migrate only.
// The other commands use jobs.OpenMigratedDB, which refuses a database
// without this binary's schema instead of changing it.
func openJobDB(ctx context.Context, dsn string, env *Env) (*jobs.DB, error) {
	db, err := jobs.OpenDB(ctx, dsn)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, env.Logger); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}
