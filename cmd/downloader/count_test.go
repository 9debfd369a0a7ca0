package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestCountRepeatAndMaterialize: --repeat counts on the open table as many
// times as asked (one report line each with -v) and prints the count once;
// --materialize reads the matching records and finds as many as the count.
func TestCountRepeatAndMaterialize(t *testing.T) {
	table := exportTable(t)
	q := "country=DK&year=2000,2010"
	want, _ := runCmd(t, "count", "--table", table, "--query", q)
	// DK is every third record, 2000-2010 eleven of each 30 years: 3 of
	// each 30 records, 600 in all.
	if want != "60\n" {
		t.Fatalf("count printed %q, want 60", want)
	}
	out, stderr := runCmd(t, "count", "--table", table, "--query", q, "--repeat", "3", "-v")
	if out != want {
		t.Errorf("--repeat printed %q, want %q", out, want)
	}
	if n := strings.Count(stderr, "snapshot "); n != 3 {
		t.Errorf("--repeat 3 -v reported %d scans:\n%s", n, stderr)
	}
	if out, _ := runCmd(t, "count", "--table", table, "--query", q, "--materialize"); out != want {
		t.Errorf("--materialize printed %q, want %q", out, want)
	}
}

// runFails runs the command, which must fail, and returns its stderr.
func runFails(t *testing.T, args ...string) string {
	t.Helper()
	return runFailsWithInput(t, "", args...)
}

// runFailsWithInput is runFails with stdin (a password, for one).
func runFailsWithInput(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(stdin), Logger: slog.New(slog.DiscardHandler)}
	if code := run(context.Background(), args, env); code == 0 {
		t.Fatalf("downloader %s succeeded: %s", strings.Join(args, " "), out.String())
	}
	return errb.String()
}

// A comma list where a range goes says what was meant; the predicate
// limits apply to the command line too, and --predicate-max-* lift them.
func TestCountQueryAdviceAndLimits(t *testing.T) {
	table := exportTable(t)
	if msg := runFails(t, "count", "--table", table, "--query", "taxonKey=1,2,3"); !strings.Contains(msg, "several values") ||
		!strings.Contains(msg, "taxonKey=1&taxonKey=2&taxonKey=3") {
		t.Errorf("taxonKey=1,2,3: %s", msg)
	}
	var geo []string
	for i := range 30 {
		geo = append(geo, fmt.Sprintf("geometry=POLYGON((%d 0,%d 0,%d 1,%d 1,%d 0))", i, i+1, i+1, i, i))
	}
	q := strings.Join(geo, "&")
	if msg := runFails(t, "count", "--table", table, "--query", q, "--predicate-max-cost", "100"); !strings.Contains(msg, "maxCost") {
		t.Errorf("30 polygons over --predicate-max-cost 100: %s", msg)
	}
	if out, _ := runCmd(t, "count", "--table", table, "--query", q, "--predicate-max-cost", "100000"); out == "" {
		t.Error("no count under a lifted limit")
	}
}
