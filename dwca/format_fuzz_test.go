package dwca

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRowWriter checks the fast row path against CleanValue: any value
// written as a cell reads back as CleanValue of it, and the row stays one
// line of tab-separated cells.
func FuzzRowWriter(f *testing.F) {
	for _, s := range tricky {
		f.Add(s, "x")
	}
	f.Add("\xff\xfe bad utf8 \u2028", "plain ascii text longer than eight")
	f.Fuzz(func(t *testing.T, a, b string) {
		var out bytes.Buffer
		rw := newRowWriter(&out)
		rw.str(a)
		rw.cell(func(dst []byte, _ int) []byte { return append(dst, b...) }, 0)
		if err := rw.end(); err != nil {
			t.Fatal(err)
		}
		rw.flush()
		want := CleanValue(a) + "\t" + CleanValue(b) + "\n"
		if out.String() != want {
			t.Fatalf("row %q, want %q", out.String(), want)
		}
		if strings.Count(out.String(), "\n") != 1 || strings.Count(out.String(), "\t") != 1 {
			t.Fatalf("row %q is not one line of two cells", out.String())
		}
	})
}

func TestPlainASCII(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 17; pos++ {
			b := bytes.Repeat([]byte("a"), 17)
			b[pos] = byte(c)
			if got, want := plainASCII(b), c >= 0x20 && c < 0x80; got != want {
				t.Fatalf("byte %#x at %d: %v", c, pos, got)
			}
		}
	}
}

// FuzzVerbatimRow parses verbatim JSON: never panics, and an object the
// store wrote (encoding/json) gives back its values.
func FuzzVerbatimRow(f *testing.F) {
	f.Add(`{"locality":"Aarhus","dcterms:modified":"2020"}`, "Aarhus")
	f.Add(`[1,2]`, "")
	f.Add(`{"locality":`, "x")
	f.Add(`{"locality":"\ud83e\udd89 \"q\" \\ \n"}`, "🦉")
	f.Fuzz(func(t *testing.T, js, v string) {
		r := newVerbatimRow([]string{"locality", "dcterms:modified"})
		r.parse(js) // arbitrary input: must not panic
		if !utf8.ValidString(v) {
			return
		}
		data, _ := json.Marshal(map[string]string{"locality": v, "other": "o"})
		unknown := 0
		r.unknown = func(string) { unknown++ }
		if !r.parse(string(data)) || r.values[0] != v || r.values[1] != "" || unknown != 1 {
			t.Fatalf("%s: values %q, unknown %d", data, r.values, unknown)
		}
	})
}
