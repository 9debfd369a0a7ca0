package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/jobs"
)

type openAPIDocument struct {
	OpenAPI string                                `json:"openapi"`
	Paths   map[string]map[string]json.RawMessage `json:"paths"`
}

func loadDoc(t *testing.T) openAPIDocument {
	t.Helper()
	var d openAPIDocument
	if err := json.Unmarshal(openAPIDoc, &d); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if !strings.HasPrefix(d.OpenAPI, "3.") {
		t.Fatalf("openapi version %q", d.OpenAPI)
	}
	return d
}

// docOps lists "METHOD path" of every documented operation.
func docOps(d openAPIDocument) []string {
	var ops []string
	for p, methods := range d.Paths {
		for m := range methods {
			ops = append(ops, strings.ToUpper(m)+" "+p)
		}
	}
	sort.Strings(ops)
	return ops
}

// TestOpenAPIMatchesRoutes keeps openapi.json true: every registered route is
// documented, every documented operation is registered, and a request to
// each documented path reaches the handler the mux registered for it.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	d := loadDoc(t)
	s := New(nil, nil, Config{}, nil)
	registered := map[string]string{} // "METHOD docpath" -> pattern
	for _, r := range s.routes() {
		docs := r.docs
		if docs == nil {
			docs = []string{r.pattern}
		}
		for _, p := range docs {
			registered[r.method+" "+p] = r.method + " " + r.pattern
		}
	}
	documented := map[string]bool{}
	for _, op := range docOps(d) {
		documented[op] = true
		if _, ok := registered[op]; !ok {
			t.Errorf("documented but not served: %s", op)
		}
	}
	for op := range registered {
		if !documented[op] {
			t.Errorf("served but not documented: %s", op)
		}
	}
	// Route a concrete request for every documented operation.
	param := regexp.MustCompile(`\{[a-zA-Z]+\}`)
	for op, pattern := range registered {
		method, path, _ := strings.Cut(op, " ")
		concrete := param.ReplaceAllStringFunc(path, func(p string) string {
			if p == "{user}" {
				return "alice"
			}
			return "0000001-261130010203004"
		})
		req := httptest.NewRequest(method, concrete, nil)
		_, got := s.mux.Handler(req)
		if got != pattern {
			t.Errorf("%s %s is routed to %q, want %q", method, concrete, got, pattern)
		}
	}
}

func TestOpenAPIServed(t *testing.T) {
	s := New(nil, nil, Config{}, nil)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/openapi.json", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", rec.Code, rec.Header())
	}
	var d openAPIDocument
	if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil || len(d.Paths) == 0 {
		t.Fatalf("served document: %v", err)
	}
}

// TestOpenAPIListsWhatTheCodeDefines: the served document's Format and
// Status enums are the format registry's and the job service's lists, and
// every documented property of those types refers to them.
func TestOpenAPIListsWhatTheCodeDefines(t *testing.T) {
	var d struct {
		Components struct {
			Schemas map[string]struct {
				Enum []string `json:"enum"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPIDoc, &d); err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, s := range jobs.Statuses() {
		statuses = append(statuses, string(s))
	}
	for name, want := range map[string][]string{"Format": download.FormatNames(), "Status": statuses} {
		got := d.Components.Schemas[name].Enum
		if len(want) < 4 || !slices.Equal(got, want) {
			t.Errorf("schema %s enum %v, the code defines %v", name, got, want)
		}
	}
	// The source document holds no copy of the lists.
	for _, f := range download.FormatNames() {
		if strings.Contains(string(openAPISource), `"`+f+`"`) {
			t.Errorf("openapi.json spells out format %s; the registry is the one list", f)
		}
	}
}
