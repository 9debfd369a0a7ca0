package web

import (
	"os"
	"path/filepath"
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

// The page and the success notice say how to open a format in the same
// words: the page's format.open.* strings equal the mail catalogue's
// open.* in every language.
func TestOpeningWordsAgreeWithTheMail(t *testing.T) {
	langs, err := filepath.Glob(filepath.Join("ui", "messages", "*.json"))
	if err != nil || len(langs) == 0 {
		t.Fatalf("page catalogues: %v %v", langs, err)
	}
	for _, path := range langs {
		page := readCatalogue(t, path)
		mail := readCatalogue(t, filepath.Join("..", "jobs", "mail", "messages", filepath.Base(path)))
		n := 0
		for k, v := range page {
			name, ok := strings.CutPrefix(k, "format.open.")
			if !ok {
				continue
			}
			n++
			if mail["open."+name] != v {
				t.Errorf("%s: %s is %q in the page, %q in the mail", filepath.Base(path), name, v, mail["open."+name])
			}
		}
		if n < 4 {
			t.Errorf("%s: %d format.open strings", path, n)
		}
	}
}

func readCatalogue(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parsePageCatalogue(b, path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
