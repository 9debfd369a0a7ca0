package download

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/internal/readers"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// bionomiaRecords are the test records with the collectors, identifiers,
// their IDs and families the BIONOMIA groupings read; want are the groups
// GBIF's query makes of them (agent, family or identifier -> the gbifIDs
// under each of its two columns).
func bionomiaRecords(t *testing.T) (recs []arrow.RecordBatch, want [3]map[string][2][]string) {
	t.Helper()
	for f := range want {
		want[f] = map[string][2][]string{}
	}
	add := func(f int, key string, side int, id int64) {
		if key == "" {
			return
		}
		g := want[f][key]
		g[side] = append(g[side], strconv.FormatInt(id, 10))
		want[f][key] = g
	}
	idx := occurrence.ColumnIndex
	agents := []string{"Smith, J.", "Doe, A. | Smith, J.", "Ærø, K."}
	n := 0
	recs = batchesOf(4, func(addRec func(*occurrence.Record)) {
		eachTestRecord(func(_ testDataset, r *occurrence.Record) {
			id := int64(1000 + n)
			recorded, identified, recordedID := agents[n%3], "", ""
			if n%4 == 0 {
				identified = "Smith, J." // both a collector and an identifier
			}
			if n%5 == 0 {
				recorded, identified = "", "Lee, B." // an identifier only
			}
			if n%3 == 0 {
				recordedID = "https://orcid.org/0000-0002-1825-0097"
			}
			family := []string{"Felidae", "Strigidae", "Bufonidae"}[n%3]
			verb, _ := json.Marshal(map[string]string{"recordedBy": recorded, "identifiedBy": identified,
				"recordedByID": recordedID, "identifiedByID": "", "catalogNumber": fmt.Sprintf("C-%d", n), "year": "2020"})
			r.SetString(idx(occurrence.ColVerbatim), string(verb))
			r.SetString(idx(occurrence.ColFamily), family)
			if n%2 == 0 { // as ingest derives it from the images eachTestRecord gives
				r.SetString(idx(occurrence.ColMediaType), []string{"Sound;StillImage", "StillImage"}[n%4/2])
			}
			r.SetTime(idx(occurrence.ColEventDateStart), time.Date(2020, 6, 1+n%20, 0, 0, 0, 0, time.UTC))
			add(0, recorded, 0, id)
			add(0, identified, 1, id)
			add(1, family, 0, id)
			add(2, recordedID, 0, id)
			n++
			addRec(r)
		})
	})
	return recs, want
}

// bionomiaExport writes the BIONOMIA download of bionomiaRecords with a
// sort chunk of seven items, so that the groupings go through runs on
// disk and their merge.
func bionomiaExport(t *testing.T) (map[string][]byte, [3]map[string][2][]string) {
	t.Helper()
	defer func(n int) { bionomiaSortChunk = n }(bionomiaSortChunk)
	bionomiaSortChunk = 7
	recs, want := bionomiaRecords(t)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	data, res := exportRecords(t, ExportSpec{Format: FormatBionomia}, ExportOptions{Catalog: testSource(), ParquetPartBytes: 1, TempDir: t.TempDir()}, recs)
	if res.Records != int64(testRecordCount()) {
		t.Fatalf("%d records, want %d", res.Records, testRecordCount())
	}
	names, content := entries(t, data)
	if !slices.Equal(names, []string{"occurrence.avro/000000", "agents.avro/000000", "families.avro/000000", "identifiers.avro/000000"}) {
		t.Fatalf("entries %v, want GBIF's four", names)
	}
	files := map[string][]byte{}
	for name, c := range content {
		files[name] = []byte(c)
	}
	return files, want
}

// BIONOMIA is GBIF's zip of four Avro files (execute-bionomia-query.ftl and
// its schemas): the records with the values GBIF selects, and their
// gbifIDs grouped by the published collector and identifier (one agent
// holding both as GBIF's full outer join pairs them), by family and by the
// published IDs, each count the length of its list.
func TestBionomia(t *testing.T) {
	files, want := bionomiaExport(t)
	schema, rows := readAvro(t, files["occurrence.avro/000000"])
	if schema["name"] != "Bionomia" || schema["namespace"] != "org.gbif.occurrence.download.bionomia.avro" || len(schema["fields"].([]any)) != 27 {
		t.Errorf("record %v in %v with %d fields, want GBIF's Bionomia of 27", schema["name"], schema["namespace"], len(schema["fields"].([]any)))
	}
	if len(rows) != testRecordCount() {
		t.Fatalf("%d records, want %d", len(rows), testRecordCount())
	}
	for i, r := range rows {
		if r["gbifID"] != strconv.Itoa(1000+i) || r["v_catalogNumber"] != fmt.Sprintf("C-%d", i) || r["v_year"] != "2020" ||
			r["eventDate"] != fmt.Sprintf("2020-06-%02dT00:00:00", 1+i%20) || r["hasImage"] != (i%2 == 0) || r["basisOfRecord"] != "HUMAN_OBSERVATION" {
			t.Errorf("record %d: %v", i, r)
		}
	}
	if l := rows[0]["license"]; l != "CC_BY_4_0" {
		t.Errorf("license %v, want GBIF's name", l)
	}
	for f, file := range []string{"agents.avro/000000", "families.avro/000000", "identifiers.avro/000000"} {
		schema, rows := readAvro(t, files[file])
		got := map[string][2][]string{}
		var keys []string
		for _, r := range rows {
			var key string
			var g [2][]string
			var totals [2]int64
			switch f {
			case 0:
				key, totals = r["agent"].(string), [2]int64{r["totalRecordedBy"].(int64), r["totalIdentifiedBy"].(int64)}
				g = [2][]string{strs(r["gbifIDsRecordedBy"]), strs(r["gbifIDsIdentifiedBy"])}
			case 1:
				key, totals = r["family"].(string), [2]int64{r["total"].(int64), 0}
				g = [2][]string{strs(r["gbifIDsFamily"]), nil}
			case 2:
				key, totals = r["identifier"].(string), [2]int64{r["totalRecordedByID"].(int64), r["totalIdentifiedByID"].(int64)}
				g = [2][]string{strs(r["gbifIDsRecordedByID"]), strs(r["gbifIDsIdentifiedByID"])}
			}
			if totals[0] != int64(len(g[0])) || totals[1] != int64(len(g[1])) {
				t.Errorf("%s %q: totals %v for %d and %d gbifIDs", file, key, totals, len(g[0]), len(g[1]))
			}
			keys = append(keys, key)
			got[key] = g
		}
		if !maps.EqualFunc(got, want[f], func(a, b [2][]string) bool {
			return slices.Equal(a[0], b[0]) && slices.Equal(a[1], b[1])
		}) {
			t.Errorf("%s (%v): %v, want %v", file, schema["name"], got, want[f])
		}
		if !slices.IsSorted(keys) || len(keys) == 0 {
			t.Errorf("%s: keys %q", file, keys)
		}
	}
	if g := want[0]["Smith, J."]; len(g[0]) == 0 || len(g[1]) == 0 {
		t.Error("the test records have no agent who collected and identified")
	}
	d, err := Describe(FormatBionomia)
	if err != nil || len(d.(DescribedBionomia).Occurrence.Fields) != 27 || len(d.(DescribedBionomia).Agents.Fields) != 5 {
		t.Errorf("Describe: %+v %v", d, err)
	}
}

// strs is an Avro array of strings (or null) as read.
func strs(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, s := range l {
		out = append(out, s.(string))
	}
	return out
}

// BIONOMIA's four files read by fastavro and Apache Avro's Python library.
func TestReadersBionomia(t *testing.T) {
	readers.RequirePython(t, "fastavro", "avro")
	files, want := bionomiaExport(t)
	for name, record := range map[string]string{"agents.avro/000000": "BionomiaAgents", "families.avro/000000": "BionomiaFamilies",
		"identifiers.avro/000000": "BionomiaIdentifiers", "occurrence.avro/000000": "Bionomia"} {
		out := readers.Python(t, time.Minute, `
import sys, json, io, fastavro
from avro.datafile import DataFileReader
from avro.io import DatumReader
data = open(sys.argv[1], "rb").read()
r = fastavro.reader(io.BytesIO(data))
fast = list(r)
ref = list(DataFileReader(io.BytesIO(data), DatumReader()))
print(json.dumps({"same": fast == ref, "name": r.writer_schema["name"], "n": len(fast)}))
`, writeTemp(t, files[name]))
		var got struct {
			Same bool
			Name string
			N    int
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || !got.Same || got.Name != bionomiaNamespace+"."+record || got.N == 0 {
			t.Errorf("%s: %s (%v)", name, out, err)
		}
		if name == "agents.avro/000000" && got.N != len(want[0]) {
			t.Errorf("agents: %d records, want %d", got.N, len(want[0]))
		}
	}
}

// writeTemp writes data to a file in the test's folder and returns its path.
func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "part.avro")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// An export aborted mid-way, its context cancelled first or not, stops
// the sort: the file of its runs, which the sort unlinks as soon as it
// makes it, is closed when Abort returns (its disk space given back), and
// the folder is empty.
func TestBionomiaAbort(t *testing.T) {
	defer func(n int) { bionomiaSortChunk = n }(bionomiaSortChunk)
	bionomiaSortChunk = 3
	recs, _ := bionomiaRecords(t)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, cancelFirst := range []bool{false, true} {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		x, err := NewExport(ctx, io.Discard, ExportSpec{Format: FormatBionomia}, ExportOptions{TempDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs[:2] {
			if err := x.Write(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		// The sort has its runs' file open before the abort (unlinked
		// as soon as made: an open descriptor is what holds its disk
		// space), else the check below would say nothing.
		for deadline := time.Now().Add(10 * time.Second); openFilesIn(t, dir) == 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the sort has no file open in its temporary folder")
			}
		}
		if cancelFirst {
			cancel()
		}
		done := make(chan struct{})
		go func() { x.Abort(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("Abort (context cancelled first: %v) did not return", cancelFirst)
		}
		// Checked before the export's own context is cancelled: Abort
		// alone must stop the sort.
		if n := openFilesIn(t, dir); n != 0 {
			t.Errorf("%d files of the temporary folder still open after Abort", n)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("left in the temporary folder: %v", left)
		}
		cancel()
	}
}

// openFilesIn counts this process's open files under dir, deleted ones
// too (Linux's /proc/self/fd; the test is skipped elsewhere).
func openFilesIn(t *testing.T, dir string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd to see open files: %v", err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n
}
