package occurrence

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestIssueValuesAreGBIFs: the issues predicates accept are GBIF's
// OccurrenceIssue constants in their order (testdata, from gbif-api's
// source), then this project's one.
func TestIssueValuesAreGBIFs(t *testing.T) {
	b, err := os.ReadFile("testdata/gbif-occurrence-issues.txt")
	if err != nil {
		t.Fatal(err)
	}
	var gbifIssues []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			gbifIssues = append(gbifIssues, l)
		}
	}
	if want := append(gbifIssues, IssueCountryDerivedFromName); !slices.Equal(issueValues, want) {
		t.Errorf("issueValues differ from GBIF's OccurrenceIssue:\n%v\nwant\n%v", issueValues, want)
	}
}
