package dwca

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// wideExtensionArchive has n core rows and one verbatim-like extension row
// each with 220 fields of which 12 are filled, the shape of a GBIF download's
// verbatim.txt.
func wideExtensionArchive(t testing.TB, n int) string {
	const fields, filled = 220, 12
	var meta, core, ext strings.Builder
	meta.WriteString(`<archive xmlns="http://rs.tdwg.org/dwc/text/">
  <core fieldsTerminatedBy="\t" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Occurrence">
    <files><location>occ.txt</location></files>
    <id index="0"/>
    <field index="0" term="http://rs.tdwg.org/dwc/terms/occurrenceID"/>
  </core>
  <extension fieldsTerminatedBy="\t" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Verbatim">
    <files><location>verbatim.txt</location></files>
    <coreid index="0"/>
`)
	for f := 1; f <= fields; f++ {
		fmt.Fprintf(&meta, "    <field index=\"%d\" term=\"http://example.org/terms/t%03d\"/>\n", f, f)
	}
	meta.WriteString("  </extension>\n</archive>")
	core.WriteString("id\n")
	ext.WriteString("coreid" + strings.Repeat("\tt", fields) + "\n")
	for i := range n {
		fmt.Fprintf(&core, "id%d\n", i)
		fmt.Fprintf(&ext, "id%d", i)
		for f := 1; f <= fields; f++ {
			ext.WriteByte('\t')
			if f%(fields/filled) == 0 && f/(fields/filled) <= filled {
				fmt.Fprintf(&ext, "value-%d-%d", f, i)
			}
		}
		ext.WriteByte('\n')
	}
	return writeDir(t, map[string]string{"meta.xml": meta.String(), "occ.txt": core.String(), "verbatim.txt": ext.String()})
}

// TestInMemoryJoinHeapWithinEstimate holds a wide, mostly empty extension in
// memory: the heap it takes must stay near the estimate the join budget is
// charged with (a terms map sized for every field took ~10x more).
func TestInMemoryJoinHeapWithinEstimate(t *testing.T) {
	const n = 8000
	dir := wideExtensionArchive(t, n)
	a, err := Options{TempDir: t.TempDir()}.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sr, err := a.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Close()
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if sr.held == 0 || sr.records != nil {
		t.Fatalf("the extension was not joined in memory (estimate %d bytes)", sr.held)
	}
	t.Logf("%d rows: heap %d bytes, estimate %d bytes", n, held, sr.held)
	if held > sr.held*5/4 || held < sr.held/4 {
		t.Errorf("the in-memory extension takes %d bytes of heap, estimated %d", held, sr.held)
	}
	// the join still gives every row its 12 values
	r, err := sr.Next()
	if err != nil {
		t.Fatal(err)
	}
	v := r.Extensions["http://rs.tdwg.org/dwc/terms/Verbatim"]
	if len(v) != 1 || len(v[0]) != 12 || v[0]["http://example.org/terms/t018"] != "value-18-0" {
		t.Errorf("first record's verbatim row: %v", v)
	}
}

// TestSorterDropsSpilledValues: once a run is on disk its values must not
// stay reachable through the sorter's buffer (the record sorter of a disk
// join lives as long as the ingest reading it).
func TestSorterDropsSpilledValues(t *testing.T) {
	s := newExtSorter(t.TempDir(), 16<<10)
	defer s.close()
	const n = 1000
	for i := range n {
		if err := s.add(fmt.Sprintf("k%04d", n-i), uint64(i), make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.runs) < 2 {
		t.Fatalf("%d runs, want the sorter to spill", len(s.runs))
	}
	for i, it := range s.buf[len(s.buf):cap(s.buf)] {
		if it.val != nil || it.key != "" {
			t.Fatalf("spilled item %d still referenced by the buffer", len(s.buf)+i)
		}
	}
	it, err := s.iter()
	if err != nil {
		t.Fatal(err)
	}
	defer it.close()
	if s.buf != nil {
		t.Errorf("the buffer (%d items) is kept after the last spill", cap(s.buf))
	}
	prev := ""
	for i := 0; ; i++ {
		x, ok, err := it.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			if i != n {
				t.Errorf("%d items back, want %d", i, n)
			}
			break
		}
		if x.key <= prev || len(x.val) != 100 {
			t.Fatalf("item %d: key %q after %q, %d bytes", i, x.key, prev, len(x.val))
		}
		prev = x.key
	}
}

// TestMapBytes compares mapBytes with the heap that maps of n entries made
// with size hint n (as Row.Terms makes them) take.
func TestMapBytes(t *testing.T) {
	const reps = 1000
	keys := make([]string, 240)
	for i := range keys {
		keys[i] = fmt.Sprintf("http://example.org/terms/t%03d", i)
	}
	for _, n := range []int{1, 8, 9, 12, 14, 15, 28, 29, 56, 57, 112, 113, 220, 224} {
		maps := make([]map[string]string, reps)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for r := range maps {
			m := make(map[string]string, n)
			for _, k := range keys[:n] {
				m[k] = "v"
			}
			maps[r] = m
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(maps)
		got := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / reps
		if est := mapBytes(n); got > est*11/10 || got < est*9/10 {
			t.Errorf("%d entries: a map takes %d bytes, mapBytes says %d", n, got, est)
		}
	}
}
