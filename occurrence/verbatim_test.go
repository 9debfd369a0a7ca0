package occurrence

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
)

// marshalVerbatim is the verbatim documents as json.Marshal writes the
// maps they stand for: the reference verbatimDocs must equal.
func marshalVerbatim(t *testing.T, raw RawRecord) (string, string) {
	t.Helper()
	core, err := json.Marshal(verbatimKeyed(raw.Core))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]map[string]string{}
	for rt, list := range raw.Extensions {
		for _, terms := range list {
			rows[rt] = append(rows[rt], verbatimKeyed(terms))
		}
	}
	if len(rows) == 0 {
		return string(core), ""
	}
	ext, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	return string(core), string(ext)
}

// randomTerms draws a row: some of n terms in mixed namespaces (Darwin
// Core, dcterms, other URIs), some empty, values needing escapes.
func randomTerms(rng *rand.Rand, n int) Terms {
	ns := []string{NSDwC, NSDC, NSGBIF, "http://example.org/x/", "http://rs.tdwg.org/ac/terms/"}
	vals := []string{"", "plain", "<b>&amp;</b>", "line\nbreak \"q\"", "\u2028é\xff", "12.5"}
	t := Terms{}
	for i := 0; i < n; i++ {
		if rng.IntN(3) == 0 {
			continue
		}
		term := ns[rng.IntN(len(ns))] + "t" + strconv.Itoa(rng.IntN(3*n))
		t[term] = vals[rng.IntN(len(vals))]
	}
	return t
}

// TestVerbatimDocs checks the slot-table encoder against encoding/json on
// records whose terms keep growing the table, from several goroutines (as
// the ingest workers call it), with extension rows and rows of empty
// values only.
func TestVerbatimDocs(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for i := 0; i < 300; i++ {
				raw := RawRecord{Core: randomTerms(rng, 5+rng.IntN(80))}
				if i%3 == 0 {
					raw.Extensions = map[string][]Terms{
						RowTypeMultimedia:     {randomTerms(rng, 8), {NSDC + "title": ""}},
						RowTypeIdentification: {randomTerms(rng, 4)},
						RowTypeMeasurement:    {},
					}
				}
				core, ext := verbatimDocs(raw)
				wantCore, wantExt := marshalVerbatim(t, raw)
				if core != wantCore || ext != wantExt {
					t.Errorf("record %d:\n got  %s %s\n want %s %s", i, core, ext, wantCore, wantExt)
					return
				}
				// Interpret collects the values as it sets the Passed
				// columns, and writes the same documents.
				rec := NewRecord()
				Interpret(raw, DatasetContext{Key: "d"}, rec)
				if got := rec.Get(iVerbatim).S; got != wantCore {
					t.Errorf("record %d: Interpret's verbatim\n got  %s\n want %s", i, got, wantCore)
					return
				}
				if got := rec.Get(iExtensions).S; got != wantExt {
					t.Errorf("record %d: Interpret's extensions\n got  %s\n want %s", i, got, wantExt)
					return
				}
			}
		}()
	}
	wg.Wait()
	// A term that shares its verbatim key with another ("dcterms:x" as a
	// bare name) still gives the key once.
	raw := RawRecord{Core: Terms{NSDC + "x": "1", "dcterms:x": "1", NSDwC + "y": "2"}}
	if core, _ := verbatimDocs(raw); core != `{"dcterms:x":"1","y":"2"}` {
		t.Errorf("shared key: %s", core)
	}
	if core, ext := verbatimDocs(RawRecord{}); core != "{}" || ext != "" {
		t.Errorf("empty record: %q %q", core, ext)
	}
}

// BenchmarkVerbatimDocs encodes a wide record (~200 filled terms, a GBIF
// download's occurrence.txt row) with a multimedia row.
func BenchmarkVerbatimDocs(b *testing.B) {
	core := Terms{}
	for i := 0; i < 200; i++ {
		core[NSDwC+"term"+strconv.Itoa(i)] = "value " + strconv.Itoa(i)
	}
	raw := RawRecord{Core: core, Extensions: map[string][]Terms{RowTypeMultimedia: {{NSDC + "identifier": "https://example.org/1.jpg"}}}}
	b.ReportAllocs()
	for b.Loop() {
		verbatimDocs(raw)
	}
}

// TestVerbatimTableFullIsCheap: once the slot table cannot take a
// record's new terms, each such record (every one, for the rest of a
// long-running process) is told so without a copy of the table, which
// withTerms builds under the lock all interpretation workers share.
func TestVerbatimTableFullIsCheap(t *testing.T) {
	known := Terms{} // the table as a process has it: its columns' terms
	for _, c := range columns {
		if c.Term != "" {
			known[c.Term] = "x"
		}
	}
	withTerms(known, nil)
	defer func(n int) { maxVerbatimSlots = n }(maxVerbatimSlots)
	maxVerbatimSlots = len(verbatimTable.Load().term)
	terms := Terms{"urn:test:a-term-no-table-holds": "v"}
	allocs := testing.AllocsPerRun(10, func() {
		if withTerms(terms, nil) != nil {
			t.Fatal("a full table took a new term")
		}
	})
	if allocs != 0 {
		t.Errorf("withTerms on a full table: %.0f allocations, want none (no copy of the table)", allocs)
	}
	// Interpret then writes the documents without the table, and still
	// sets the Passed columns.
	var passed string
	for term, p := range passedByTerm {
		if p.kind == KindString {
			passed = term
			break
		}
	}
	raw := RawRecord{Core: Terms{"urn:test:a-term-no-table-holds": "new", passed: "kept", NSDwC + "country": ""}}
	rec := NewRecord()
	Interpret(raw, DatasetContext{Key: "d"}, rec)
	if want, _ := marshalVerbatim(t, raw); rec.Get(iVerbatim).S != want {
		t.Errorf("verbatim with a full table: %s, want %s", rec.Get(iVerbatim).S, want)
	}
	if got := rec.Get(passedByTerm[passed].col); got.S != "kept" {
		t.Errorf("%s with a full table: %q, want %q", passed, got.S, "kept")
	}
}

// TestVerbatimKeyCollision: two terms with one verbatim key (a bare name
// beside the Darwin Core URI, as sloppy meta.xml files declare) give the
// same document every time, the URI's value, through the slot table and
// the map fallback alike; map order decided it before.
func TestVerbatimKeyCollision(t *testing.T) {
	terms := Terms{NSDwC + "country": "Chile", "country": "Chili", NSDwC + "locality": "x", "locality": "y", "b": "1"}
	want := `{"b":"1","country":"Chile","locality":"x"}`
	for i := range 200 {
		if core, _ := verbatimDocs(RawRecord{Core: terms}); core != want {
			t.Fatalf("run %d: %s, want %s", i, core, want)
		}
		if m := string(appendVerbatimMap(nil, terms)); m != want {
			t.Fatalf("run %d: map fallback %s, want %s", i, m, want)
		}
	}
	if !preferTerm(NSDwC+"country", "country") || preferTerm("country", NSDwC+"country") || !preferTerm("a", "b") {
		t.Error("preferTerm: want the URI over a bare name, else the smaller name")
	}
}

// verbatimDocs returns the verbatim and extensions columns' documents of
// raw, encoded as Interpret encodes them.
func verbatimDocs(raw RawRecord) (core, ext string) {
	s := verbatimPool.Get().(*verbatimScratch)
	defer verbatimPool.Put(s)
	s.buf = s.appendVerbatim(s.buf[:0], raw.Core)
	core = string(s.buf) // before extensionsDoc reuses the buffer
	return core, s.extensionsDoc(raw.Extensions)
}
