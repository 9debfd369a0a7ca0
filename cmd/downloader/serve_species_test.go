package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeSpecies runs serve on a table with the backbone cut loaded into
// its taxonomy: /v1/species/match answers from it without any flag.
func TestServeSpecies(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	runCmd(t, "ingest", "--table", table, "testdata/export/gbif-validator-Archive.zip")
	runCmd(t, "taxonomy", "load", filepath.Join("..", "..", "taxonomy", "testdata", "gbif-backbone-cut.zip"), "--table", table)
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan int, 1)
	var out syncBuffer
	go func() {
		env := &Env{Stdout: &out, Stderr: &out, Stdin: strings.NewReader(""), Logger: slog.New(slog.DiscardHandler)}
		served <- run(ctx, []string{"serve", "--table", table, "--db", "sqlite:" + filepath.Join(dir, "jobs.db"),
			"--storage", filepath.Join(dir, "files"), "--listen", "127.0.0.1:0"}, env)
	}()
	defer func() {
		stop()
		if code := <-served; code != 0 {
			t.Errorf("serve exited %d:\n%s", code, out.String())
		}
	}()
	addr := regexp.MustCompile(`serving all on (http://\S+)`)
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == ""; time.Sleep(20 * time.Millisecond) {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", out.String())
		}
	}
	resp, err := http.Get(base + "/v1/species/match?name=Felis%20concolor")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct{ UsageKey, AcceptedUsageKey int64 }
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || m.UsageKey != 2435104 || m.AcceptedUsageKey != 2435099 {
		t.Fatalf("species/match Felis concolor: %+v, %v", m, err)
	}
}

// TestSpeciesDir: the species API reads --taxonomy-dir, else the table
// directory's taxonomy; an HBase table has none without the flag.
func TestSpeciesDir(t *testing.T) {
	for _, c := range []struct{ table, flag, want string }{
		{"/data/table", "", filepath.Join("/data/table", "taxonomy")},
		{"/data/table", "/srv/taxonomy", "/srv/taxonomy"},
		{"hbase://zk:2181/occurrence", "", ""},
		{"hbase://zk:2181/occurrence", "/srv/taxonomy", "/srv/taxonomy"},
	} {
		f := serveFlags{table: c.table, taxonomyDir: c.flag}
		if got := f.speciesDir(); got != c.want {
			t.Errorf("--table %s --taxonomy-dir %q: %q, want %q", c.table, c.flag, got, c.want)
		}
	}
}
