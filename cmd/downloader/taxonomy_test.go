package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func runTaxonomyCmd(args ...string) (code int, stdout, stderr string) {
	return runCommand("taxonomy", args...)
}

func TestTaxonomyLoadAndMatch(t *testing.T) {
	table := t.TempDir()
	code, out, errs := runTaxonomyCmd("load", "../../taxonomy/testdata/gbif-backbone-cut.zip", "--table", table)
	if code != 0 {
		t.Fatalf("load: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, `checklist d7dddbf4-2cf0-4f39-9b2a-bb099caae36c "GBIF Backbone Taxonomy (cut)" version 1: 6889 usages`) {
		t.Errorf("load summary %q", out)
	}
	code, out, errs = runTaxonomyCmd("match", "--table", table, "--kingdom", "Plantae", "Oenanthe")
	if code != 0 {
		t.Fatalf("match: exit %d: %s", code, errs)
	}
	var m struct {
		MatchType string `json:"matchType"`
		Usage     struct{ Key int64 }
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil || m.MatchType != "EXACT" || m.Usage.Key != 3034893 {
		t.Errorf("match Oenanthe in plants: %s (%v)", out, err)
	}
	if code, _, errs = runTaxonomyCmd("load", "x.zip", "--table", "hbase://h:1/t"); code == 0 || !strings.Contains(errs, "--dir") {
		t.Errorf("HBase table without --dir: exit %d %q", code, errs)
	}
}

// TestTaxonomyLoadReinterprets: records ingested without a checklist carry
// derived keys; loading the backbone cut re-interprets the table, after
// which the backbone's keys find them (synonyms under the accepted taxon).
func TestTaxonomyLoadReinterprets(t *testing.T) {
	table := t.TempDir()
	if code, _, errs := runCommand("ingest", "--table", table, "../../ingest/testdata/taxa-mess.txt"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errs)
	}
	count := func(query string) string {
		t.Helper()
		code, out, errs := runCommand("count", "--table", table, "--query", query)
		if code != 0 {
			t.Fatalf("count %s: exit %d: %s", query, code, errs)
		}
		return strings.TrimSpace(out)
	}
	// Puma concolor, its records and its synonym's (Felis concolor)
	if n := count("taxonKey=2435099"); n != "0" {
		t.Fatalf("before the checklist: %s records under the backbone's Puma concolor", n)
	}
	code, out, errs := runTaxonomyCmd("load", "../../taxonomy/testdata/gbif-backbone-cut.zip", "--table", table)
	if code != 0 {
		t.Fatalf("load: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "re-interpreted 25 records of 1 datasets") || !strings.Contains(out, "in one snapshot") {
		t.Errorf("load output %q", out)
	}
	if n := count("taxonKey=2435099"); n != "8" {
		t.Errorf("after the checklist: %s records under Puma concolor, want 8", n)
	}
	if n := count("familyKey=9703"); n != "15" {
		t.Errorf("after the checklist: %s records under Felidae, want 15", n)
	}
}
