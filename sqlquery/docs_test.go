package sqlquery

import (
	"os"
	"strings"
	"testing"
)

// docs/sql.md names every function a query may use, as code: the list of
// functions is the code's, and the page must not fall behind it.
func TestDocsNameEveryFunction(t *testing.T) {
	b, err := os.ReadFile("../docs/sql.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.ToLower(string(b))
	fs := Functions()
	if len(fs) < 50 {
		t.Fatalf("Functions lists %d functions", len(fs))
	}
	for _, f := range fs {
		name := strings.ToLower(f.Name)
		if f.Description == "" || !strings.Contains(doc, "`"+name+"(") && !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("%s (%q) is not named in docs/sql.md", f.Name, f.Description)
		}
	}
}
