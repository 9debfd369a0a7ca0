package taxonomy

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzStoreFile opens damaged store files: they must be rejected or read
// without panics.
func FuzzStoreFile(f *testing.F) {
	dir := f.TempDir()
	if _, err := Load(context.Background(), dir, "../dwca/testdata/dwca-io-archive-tax.zip", LoadOptions{}); err != nil {
		f.Fatal(err)
	}
	cur, err := readCurrent(dir)
	if err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(dir, cur.Store))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good, uint32(0), byte(0))
	f.Add(good[:len(good)/2], uint32(100), byte(1))
	f.Fuzz(func(t *testing.T, data []byte, at uint32, v byte) {
		if len(data) > 0 {
			data = append([]byte(nil), data...)
			data[int(at)%len(data)] ^= v
		}
		c, err := newChecklist("fuzz", data)
		if err != nil {
			return
		}
		for _, k := range []int64{1, 105838, 105909} {
			c.Usage(k)
			c.Classification(k)
			c.Children(k)
			c.Synonyms(k)
		}
		c.Suggest("Sot", 10)
		if _, err := c.Match(context.Background(), Query{ScientificName: "Sotalia fluviatilis", Family: "Delphinidae"}); err != nil {
			t.Fatal(err)
		}
		c.Match(context.Background(), Query{ScientificName: "Stenno bredanensis"})
	})
}
