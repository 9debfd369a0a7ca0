package download

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

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
