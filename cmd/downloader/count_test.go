package main

import (
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
