package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeSpecies runs serve on a table with the backbone cut loaded into
// its taxonomy: /v1/species/match answers from it without any flag.
func TestServeSpecies(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	runCmd(t, "ingest", "--table", table, "testdata/export/gbif-validator-Archive.zip")
	runCmd(t, "taxonomy", "load", backboneCut, "--table", table)
	base := startServe(t, dir, table)
	var m struct{ UsageKey, AcceptedUsageKey int64 }
	getJSON(t, base+"/v1/species/match?name=Felis%20concolor", &m)
	if m.UsageKey != 2435104 || m.AcceptedUsageKey != 2435099 {
		t.Fatalf("species/match Felis concolor: %+v", m)
	}
}

var backboneCut = filepath.Join("..", "..", "taxonomy", "testdata", "gbif-backbone-cut.zip")

// TestSearchByScientificName: an occurrence search by scientificName finds
// what GBIF's finds, the records of the taxon the name matches exactly
// (a synonym's accepted taxon, a genus' species) rather than the records
// whose interpreted name is that text, which after matching carries the
// authorship ("Puma concolor (Linnaeus, 1771)"). A name the taxonomy does
// not know finds the records published with it (GBIF's finds none: their
// interpreted name is "incertae sedis"); a blank parameter selects
// nothing, as in GBIF.
func TestSearchByScientificName(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	records := filepath.Join(dir, "pumas.csv")
	rows := "occurrenceID,scientificName,basisOfRecord,country\n" +
		"p1,Puma concolor,HUMAN_OBSERVATION,AR\n" +
		"p2,Puma concolor,HUMAN_OBSERVATION,CL\n" +
		"p3,Felis concolor,PRESERVED_SPECIMEN,AR\n" +
		"p4,Puma,HUMAN_OBSERVATION,AR\n" +
		"p5,Zzyzx unknownus,HUMAN_OBSERVATION,AR\n"
	if err := os.WriteFile(records, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	runCmd(t, "taxonomy", "load", backboneCut, "--table", table)
	runCmd(t, "ingest", "--table", table, records)
	base := startServe(t, dir, table)
	for _, c := range []struct {
		query string
		want  int64
	}{
		{"scientificName=Puma%20concolor", 3},   // p1, p2 and the synonym p3
		{"scientificName=Felis%20concolor", 3},  // the synonym's accepted taxon
		{"scientific_name=Puma%20concolor", 3},  // any spelling of the key
		{"scientificName=Puma", 4},              // the genus: its species too
		{"scientificName=Zzyzx%20unknownus", 1}, // no match: the records carrying the name
		{"scientificName=Puma%20concolor&scientificName=Zzyzx%20unknownus", 4},
		{"scientificName=Puma%20concolor&country=CL", 1},
		{"scientificName=Puma%20concolor&country=", 3}, // a blank value selects nothing
		{"scientificName=Puma%20concolor%20(Linnaeus,%201771)", 3},
		{"scientificName=Lynx%20lynx", 0},
	} {
		var page struct{ Count int64 }
		getJSON(t, base+"/v1/occurrence/search?limit=0&"+c.query, &page)
		if page.Count != c.want {
			t.Errorf("%s: %d records, want %d", c.query, page.Count, c.want)
		}
	}
	// The names of one search are bounded before any is matched.
	many := strings.Repeat("scientificName=Puma&", 1001)
	resp, err := http.Get(base + "/v1/occurrence/search?" + many)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("1001 names: %s, want 413", resp.Status)
	}
	// Multiselect: the scientificName facet counts as if no name were asked.
	var page struct {
		Count  int64
		Facets []struct {
			Field  string
			Counts []struct {
				Name  string
				Count int64
			}
		}
	}
	getJSON(t, base+"/v1/occurrence/search?limit=0&scientificName=Puma%20concolor&facet=scientificName&facetMultiselect=true&facet=country", &page)
	total := map[string]int64{}
	for _, f := range page.Facets {
		for _, c := range f.Counts {
			total[f.Field] += c.Count
		}
	}
	if page.Count != 3 || total["SCIENTIFIC_NAME"] != 5 || total["COUNTRY"] != 3 {
		t.Errorf("multiselect: count %d, facet sums %v; want 3, SCIENTIFIC_NAME 5 (every record), COUNTRY 3", page.Count, total)
	}
}

// startServe runs serve --role all on table with its files under dir until
// the test ends, and returns its base URL.
func startServe(t *testing.T, dir, table string) string {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan int, 1)
	var out syncBuffer
	go func() {
		env := &Env{Stdout: &out, Stderr: &out, Stdin: strings.NewReader(""), Logger: slog.New(slog.DiscardHandler)}
		served <- run(ctx, []string{"serve", "--table", table, "--db", "sqlite:" + filepath.Join(dir, "jobs.db"),
			"--storage", filepath.Join(dir, "files"), "--listen", "127.0.0.1:0"}, env)
	}()
	t.Cleanup(func() {
		stop()
		if code := <-served; code != 0 {
			t.Errorf("serve exited %d:\n%s", code, out.String())
		}
	})
	addr := regexp.MustCompile(`serving all on (http://\S+)`)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if m := addr.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", out.String())
		}
	}
}

// getJSON GETs u, wants 200 and decodes the body into v.
func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %s %s", u, resp.Status, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

// TestSpeciesDir: the species API reads --taxonomy-dir, else the table
// directory's taxonomy; an HBase table has none without the flag.
func TestSpeciesDir(t *testing.T) {
	for _, c := range []struct{ table, flag, want string }{
		{"/data/table", "", filepath.Join("/data/table", "taxonomy")},
		{"/data/table", "/srv/taxonomy", "/srv/taxonomy"},
		{"hbase://zk:2181/occurrence", "", ""},
		{"hbase://zk:2181/occurrence", "/srv/taxonomy", "/srv/taxonomy"},
	} {
		f := serveFlags{table: c.table, taxonomyDir: c.flag}
		if got := f.speciesDir(); got != c.want {
			t.Errorf("--table %s --taxonomy-dir %q: %q, want %q", c.table, c.flag, got, c.want)
		}
	}
}
