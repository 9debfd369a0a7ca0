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
