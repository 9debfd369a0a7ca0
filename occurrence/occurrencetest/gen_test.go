package occurrencetest

import (
	"encoding/json"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// A generated record's verbatim column is what the interpreter stores:
// encoding/json's encoding of the term map (keys sorted), and it carries
// the ~45 terms a typical published record has.
func TestGeneratedVerbatimIsTheInterpretersEncoding(t *testing.T) {
	g := NewGenerator(7, 200)
	ds := g.Datasets(2000, 5)
	rec := occurrence.NewRecord()
	iv := occurrence.ColumnIndex(occurrence.ColVerbatim)
	terms, wide := 0, 0
	for d := range ds {
		for i := 0; i < ds[d].Records; i++ {
			g.Fill(rec, &ds[d], i)
			js := rec.Get(iv).S
			var m map[string]string
			if err := json.Unmarshal([]byte(js), &m); err != nil {
				t.Fatalf("record %d: %v: %s", i, err, js)
			}
			want, _ := json.Marshal(m)
			if string(want) != js {
				t.Fatalf("verbatim\n%s\nencoding/json\n%s", js, want)
			}
			terms += len(m)
			if len(m) >= 30 {
				wide++
			}
		}
	}
	t.Logf("%.1f verbatim terms per record", float64(terms)/2000)
	if avg := float64(terms) / 2000; avg < 28 || wide < 1000 {
		t.Errorf("%.1f verbatim terms per record, %d of 2000 with 30 or more", avg, wide)
	}
}
