package taxonomy

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDerivedLog opens damaged derived-taxonomy logs: each is read, or
// refused with an error naming its line; never a panic, and whatever is
// read answers matches.
func FuzzDerivedLog(f *testing.F) {
	f.Add([]byte("1\t0\tKINGDOM\tANIMALIA\tAnimalia\tAnimalia\n2\t1\tGENUS\tANIMALIA\tPuma\tPuma\n"))
	f.Add([]byte("1\t0\tKINGDOM\t\tX\tX\n2\t5\tGENUS\t\tY\tY\n"))
	f.Add([]byte("1\t0\tSPECIES\t\tPuma concolor\tPuma concolor (L.)"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, derivedName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := OpenDerived(dir)
		if err != nil {
			return
		}
		defer d.Close()
		for k := int64(0); k <= int64(d.Len())+1; k++ {
			d.Classification(k)
			d.Usage(k)
		}
		if _, err := d.Match(context.Background(), Query{ScientificName: "Puma concolor", Kingdom: "Animalia"}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzKeyLookup opens damaged key lookup files.
func FuzzKeyLookup(f *testing.F) {
	dir := f.TempDir()
	l, _ := openKeyLookup(filepath.Join(dir, "k.bin"))
	l.setMode(false)
	for i := range 5 {
		l.mint(uint64(i) * 7919)
	}
	if err := l.save(); err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(filepath.Join(dir, "k.bin"))
	f.Add(good)
	f.Add(good[:40])
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "k.bin")
		os.WriteFile(p, data, 0o644)
		l, err := openKeyLookup(p)
		if err != nil {
			return
		}
		l.setMode(true)
		l.mint(42)
		l.find(7919)
	})
}
