// Package pgtest gives tests a fresh database on the real PostgreSQL server
// of DOWNLOADER_TEST_POSTGRES (scripts/ci/postgres.sh sets it), dropped when
// the test ends. Without the variable a test skips with a one-line reason,
// or fails under CI=true.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/biodiversity-downloads/downloader/internal/testenv"
)

// env names the server's connection URL.
const env = "DOWNLOADER_TEST_POSTGRES"

var counter atomic.Int64

// Database creates a database named prefix_<pid>_<time>_<n> for one test
// and returns its connection URL; the database is dropped (its sessions
// ended) once the test and its other cleanups are done.
func Database(t testing.TB, prefix string) string {
	t.Helper()
	base := testenv.Need(t, env, "scripts/ci/postgres.sh")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("%s_%d_%d_%d", prefix, os.Getpid(), time.Now().UnixNano()%1e6, counter.Add(1))
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
	return u.String()
}
