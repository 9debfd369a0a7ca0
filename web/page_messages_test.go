package web

import (
	"strings"
	"testing"
)

func TestParsePageCatalogue(t *testing.T) {
	m, err := parsePageCatalogue([]byte("{\n  \"a\": \"x {n}\",\n  \"b\": \"\"\n}\n"), "t.json")
	if err != nil || len(m) != 2 || m["a"] != "x {n}" {
		t.Fatalf("%v %v", m, err)
	}
	for in, want := range map[string]string{
		`[]`:                           "t.json:1: want a JSON object",
		"{\"a\": \"x\", \"a\": \"y\"}": `key "a" given twice`,
		"{\n\"a\": null}":              `t.json:2: key "a": want a string`,
		`{"a": "x"} {}`:                "more after the object",
		"{\n\"a\": \"x\",\n":           "t.json:3: the object is not closed",
	} {
		if _, err := parsePageCatalogue([]byte(in), "t.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

func FuzzParsePageCatalogue(f *testing.F) {
	f.Add(`{"a": "b"}`)
	f.Add(`{"a": {"b": 1}}`)
	f.Add("{\n\"a\": \"\\u00e9\",\n\"b\": \"x\"\n}")
	f.Fuzz(func(t *testing.T, in string) {
		m, err := parsePageCatalogue([]byte(in), "f.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "page catalogue f.json:") {
				t.Fatalf("error without its file and line: %v", err)
			}
			return
		}
		if m == nil {
			t.Fatal("no map and no error")
		}
	})
}
