package taxonomy

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDerivedReader reads a derived log written in two appends (a torn
// line in between, as when ingest is caught mid-write): after both, the
// reader holds what OpenDerived reads of the whole log, and never mints.
func FuzzDerivedReader(f *testing.F) {
	log := "1\t0\tKINGDOM\tANIMALIA\tAnimalia\tAnimalia\n2\t1\tGENUS\tANIMALIA\tPuma\tPuma\n3\t2\tSPECIES\tANIMALIA\tPuma concolor\tPuma concolor (L.)\n"
	f.Add([]byte(log), 30)
	f.Add([]byte(log), len(log)/2)
	f.Add([]byte("1\t0\tKINGDOM\t\tX\tX\n2\t5\tGENUS\t\tY\tY\n"), 3)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		if cut < 0 || cut > len(data) {
			return
		}
		dir := t.TempDir()
		path := filepath.Join(dir, derivedName)
		if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := OpenDerivedReader(dir)
		if err != nil {
			return
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rerr := r.Refresh()
		whole, err := OpenDerived(dir)
		if err != nil {
			return
		}
		defer whole.Close()
		if rerr != nil {
			t.Fatalf("the whole log opens but the reader failed on its second part: %v", rerr)
		}
		if r.Len() != whole.Len() {
			t.Fatalf("reader %d taxa, whole log %d", r.Len(), whole.Len())
		}
		for k := int64(1); k <= int64(whole.Len()); k++ {
			if a, b := r.Usage(k), whole.Usage(k); a == nil || *a != *b {
				t.Fatalf("taxon %d: reader %v, whole log %v", k, a, b)
			}
		}
		n := r.Len()
		if _, err := r.Match(context.Background(), Query{ScientificName: "Lynx lynx", Kingdom: "Animalia", Family: "Felidae"}); err != nil || r.Len() != n {
			t.Fatalf("the reader's match minted: %d taxa, was %d (%v)", r.Len(), n, err)
		}
	})
}
