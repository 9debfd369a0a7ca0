package taxonomy

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func dumpName(n *ParsedName) string {
	var b strings.Builder
	fmt.Fprintf(&b, "type=%s rank=%s code=%s", n.Type, n.Rank, n.Code)
	add := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, " %s=%q", k, v)
		}
	}
	add("uni", n.Uninomial)
	add("genus", n.Genus)
	add("infragen", n.InfragenericEpithet)
	add("sp", n.SpecificEpithet)
	add("infrasp", n.InfraspecificEpithet)
	add("cv", n.CultivarEpithet)
	add("phrase", n.Phrase)
	if !n.Combination.Empty() {
		fmt.Fprintf(&b, " comb=%q/%q/%q", n.Combination.Year, n.Combination.Authors, n.Combination.ExAuthors)
	}
	if !n.Basionym.Empty() {
		fmt.Fprintf(&b, " bas=%q/%q/%q", n.Basionym.Year, n.Basionym.Authors, n.Basionym.ExAuthors)
	}
	add("sanct", n.SanctioningAuthor)
	add("sensu", n.TaxonomicNote)
	add("nom", n.NomenclaturalNote)
	add("pub", n.PublishedIn)
	add("unparsed", n.Unparsed)
	if n.Notho != PartNone {
		add("notho", n.Notho.String())
	}
	if n.Qualifier != "" {
		add("qual", n.QualifierPart.String()+":"+n.Qualifier)
	}
	for _, f := range []struct {
		k string
		v bool
	}{{"extinct", n.Extinct}, {"doubtful", n.Doubtful}, {"ms", n.Manuscript}, {"sic", n.Sic}, {"corrig", n.Corrig}, {"candidatus", n.Candidatus}} {
		if f.v {
			b.WriteString(" " + f.k)
		}
	}
	if len(n.Warnings) > 0 {
		fmt.Fprintf(&b, " warn=%q", n.Warnings)
	}
	fmt.Fprintf(&b, " | canon=%q min=%q", n.CanonicalName(), n.CanonicalMinimal())
	return b.String()
}

// TestDumpNames prints the parse of the names in $NAMES_FILE (development aid).
func TestDumpNames(t *testing.T) {
	f := os.Getenv("NAMES_FILE")
	if f == "" {
		t.Skip("NAMES_FILE not set (development aid)")
	}
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if l == "" {
			continue
		}
		fmt.Printf("%-60s %s\n", l, dumpName(Parse(l, RankUnknown, CodeUnknown)))
	}
}
