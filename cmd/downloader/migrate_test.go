package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyServeAndMigrateMigrate: the user and schedule commands neither
// create a SQLite file nor migrate a database; they refuse one without
// this binary's schema, naming downloader migrate, and work after it.
func TestOnlyServeAndMigrateMigrate(t *testing.T) {
	clearConfigEnv(t)
	file := filepath.Join(t.TempDir(), "jobs.db")
	dsn := "sqlite:" + file
	cfg := writeFile(t, "serve.yaml", "database:\n  url: "+dsn+"\ntable: "+tableDir(t)+"\n")
	fail := func(args ...string) string {
		t.Helper()
		return runFailsWithInput(t, "a long password\n", args...)
	}
	for _, args := range [][]string{{"user", "list", "--db", dsn}, {"user", "add", "alice", "--db", dsn}, {"schedule", "list", "--config", cfg}} {
		if msg := fail(args...); !strings.Contains(msg, "downloader migrate") {
			t.Errorf("%v on a missing file: %s", args, msg)
		}
		if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%v created the database: %v", args, err)
		}
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"user", "list", "--db", dsn}, {"schedule", "list", "--config", cfg}} {
		if msg := fail(args...); !strings.Contains(msg, "the job database is not migrated: it has no schema") {
			t.Errorf("%v on an empty database: %s", args, msg)
		}
	}
	runCmd(t, "migrate", "--db", dsn)
	if out, _ := runCmd(t, "user", "list", "--db", dsn); !strings.HasPrefix(out, "NAME") {
		t.Errorf("user list: %q", out)
	}
	runCmd(t, "schedule", "list", "--config", cfg)
}
