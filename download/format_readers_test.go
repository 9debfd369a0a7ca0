package download

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/internal/readers"
	"github.com/biodiversity-downloads/downloader/internal/testenv"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Every format of a sample download read back by readers nobody here wrote:
// Info-ZIP unzip, 7-Zip, Python zipfile, python-dwca-reader, DuckDB,
// pyarrow, fastavro and Apache Avro's Python library
// (scripts/ci/export-readers.sh installs them) and its Java library
// (scripts/ci/java-avro.sh).

func writeExport(t *testing.T, spec ExportSpec) string {
	t.Helper()
	data, _ := export(t, spec, testSource())
	path := filepath.Join(t.TempDir(), strings.ToLower(string(spec.Format))+".zip")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const pyDwCAReader = `
import sys, json
from dwca.read import DwCAReader
out = {"core": 0, "ext": {}, "files": {}, "loc": [], "ids": []}
with DwCAReader(sys.argv[1]) as d:
    for row in d:
        out["core"] += 1
        out["ids"].append(row.id)
        out["loc"].append(row.data.get("http://rs.tdwg.org/dwc/terms/locality", ""))
        for e in row.extensions:
            out["ext"][e.rowtype] = out["ext"].get(e.rowtype, 0) + 1
    for f in d.extension_files:
        n = 0
        for line in f:
            n += 1
        out["files"][f.file_descriptor.file_location] = n
    out["metadata"] = d.metadata is not None
print(json.dumps(out))
`

func TestReadersDWCA(t *testing.T) {
	path := writeExport(t, ExportSpec{Format: FormatDWCA, Key: "0000002-240506070809000"})
	n := testRecordCount()
	if got := readers.Verify(t, path, time.Minute); got != 10 {
		t.Errorf("python zipfile saw %d entries", got)
	}
	readers.RequirePython(t, "dwca")
	var out struct {
		Core     int
		Ext      map[string]int
		Files    map[string]int
		Loc, IDs []string
		Metadata bool
	}
	if err := json.Unmarshal([]byte(readers.Python(t, time.Minute, pyDwCAReader, path)), &out); err != nil {
		t.Fatal(err)
	}
	wantMedia := 0
	for i := 0; i < n; i += 2 {
		wantMedia += 1 + btoi(i%4 == 0)
	}
	if out.Core != n || out.Ext[occurrence.RowTypeOccurrence] != n || out.Ext[occurrence.RowTypeMultimedia] != wantMedia {
		t.Fatalf("python-dwca-reader: core %d ext %v, want %d / %d / %d", out.Core, out.Ext, n, n, wantMedia)
	}
	if out.Files["verbatim.txt"] != n || out.Files["multimedia.txt"] != wantMedia || !out.Metadata {
		t.Fatalf("python-dwca-reader extension files %v metadata %v", out.Files, out.Metadata)
	}
	for i := range n {
		if out.IDs[i] != strconv.Itoa(1000+i) || out.Loc[i] != dwca.CleanValue(tricky[i%len(tricky)]) {
			t.Errorf("row %d: id %q locality %q, want %q", i, out.IDs[i], out.Loc[i], dwca.CleanValue(tricky[i%len(tricky)]))
		}
	}
}

const pyCSV = `
import sys, csv, json
csv.field_size_limit(1 << 30)
with open(sys.argv[1], newline="", encoding="utf-8") as f:
    rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE, lineterminator="\n"))
print(json.dumps({"header": rows[0], "rows": rows[1:]}))
`

func TestReadersSimpleCSVAndSpeciesList(t *testing.T) {
	for _, f := range []Format{FormatSimpleCSV, FormatSpeciesList} {
		path := writeExport(t, ExportSpec{Format: f, Key: "k"})
		if got := readers.Verify(t, path, time.Minute); got != 1 {
			t.Errorf("%s: %d entries", f, got)
		}
		dir := t.TempDir()
		readers.Run(t, time.Minute, "unzip", "-q", path, "-d", dir)
		var out struct {
			Header []string
			Rows   [][]string
		}
		if err := json.Unmarshal([]byte(readers.Python(t, time.Minute, pyCSV, filepath.Join(dir, "k.csv"))), &out); err != nil {
			t.Fatal(err)
		}
		wantRows, wantCols := testRecordCount(), 50
		if f == FormatSpeciesList {
			wantRows, wantCols = 3, len(speciesListColumns)
		}
		if len(out.Header) != wantCols || len(out.Rows) != wantRows {
			t.Fatalf("%s: python csv sees %d columns, %d rows", f, len(out.Header), len(out.Rows))
		}
		for i, r := range out.Rows {
			if len(r) != wantCols {
				t.Fatalf("%s row %d: %d cells", f, i, len(r))
			}
			if f == FormatSimpleCSV && r[16] != dwca.CleanValue(tricky[i%len(tricky)]) {
				t.Errorf("row %d locality %q", i, r[16])
			}
		}
		readers.RequirePython(t, "duckdb")
		got := readers.Python(t, time.Minute, `
import sys, duckdb
print(duckdb.sql("SELECT count(*) FROM read_csv(?, delim='\t', quote='', escape='', header=true, all_varchar=true)", params=[sys.argv[1]]).fetchone()[0])
`, filepath.Join(dir, "k.csv"))
		if strings.TrimSpace(got) != strconv.Itoa(wantRows) {
			t.Errorf("%s: duckdb counts %s rows, want %d", f, got, wantRows)
		}
	}
}

func TestReadersSimpleParquet(t *testing.T) {
	path := writeExport(t, ExportSpec{Format: FormatSimpleParquet})
	readers.Verify(t, path, time.Minute)
	readers.RequirePython(t, "duckdb", "pyarrow")
	dir := t.TempDir()
	readers.Run(t, time.Minute, "unzip", "-q", path, "-d", dir)
	// GBIF's layout: parts named occurrence.parquet/000000, ... (no
	// extension), GBIF's 50 columns with lower-case names and GBIF's types.
	glob := filepath.Join(dir, "occurrence.parquet", "*")
	got := readers.Python(t, time.Minute, `
import sys, duckdb, pyarrow.dataset as ds
n = duckdb.sql("SELECT count(*), count(DISTINCT gbifid), max(decimallatitude) FROM read_parquet(?)", params=[sys.argv[1]]).fetchone()
t = ds.dataset(sys.argv[2], format="parquet").to_table()
s = t.schema
print(n[0], n[1], n[2], t.num_rows, len(s), s.field("gbifid").type, s.field("issue").type, s.field("typestatus").type,
      s.field("lastinterpreted").type, s.field("license").type, t.column("typestatus")[0].as_py(), t.column("locality")[5].as_py())
`, glob, filepath.Join(dir, "occurrence.parquet"))
	f := strings.Fields(got)
	n := strconv.Itoa(testRecordCount())
	if len(f) < 5 || f[0] != n || f[1] != n || f[3] != n || f[4] != "50" {
		t.Fatalf("duckdb/pyarrow: %q, want %s rows of 50 columns", got, n)
	}
	types := regexp.MustCompile(`^\d+ \d+ \S+ \d+ 50 string list<\w+: string> list<\w+: string> timestamp\[ms\] string \['HOLOTYPE', 'PARATYPE'\] `)
	if !types.MatchString(got) {
		t.Errorf("pyarrow reads %q, want GBIF's types (gbifid string, issue and typestatus lists, lastinterpreted a timestamp)", got)
	}
	if !strings.Contains(got, "🦉") {
		t.Errorf("non-BMP value lost in Parquet: %q", got)
	}
	// Text values are the text formats' (GBIF's table cleans every text
	// column its downloads read): each locality as SIMPLE_CSV writes it.
	var loc []*string
	if err := json.Unmarshal([]byte(readers.Python(t, time.Minute, `
import sys, json, pyarrow.dataset as ds
print(json.dumps(ds.dataset(sys.argv[1], format="parquet").to_table(columns=["locality"]).column("locality").to_pylist()))
`, filepath.Join(dir, "occurrence.parquet"))), &loc); err != nil {
		t.Fatal(err)
	}
	if len(loc) != testRecordCount() {
		t.Fatalf("pyarrow read %d localities", len(loc))
	}
	for i, v := range loc {
		got, want := "", dwca.CleanValue(tricky[i%len(tricky)])
		if v != nil {
			got = *v
		}
		if got != want {
			t.Errorf("row %d: Parquet locality %q, want %q as the text formats write it", i, got, want)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pythonAvro is what fastavro and Apache Avro's own Python library read
// from an Avro container.
type pythonAvro struct {
	Same      bool               `json:"same"`
	Schema    map[string]any     `json:"schema"`
	Records   []map[string]any   `json:"records"`
	Codec     string             `json:"codec"`
	Fastavro  int                `json:"fastavro"`
	Reference int                `json:"reference"`
	Types     map[string]float64 `json:"types"`
}

// readAvroInPython reads an Avro container with fastavro and with Apache
// Avro's Python library, and checks that both read every test record
// alike, deflated, of GBIF's record name (in its namespace); out is the
// readers' raw output.
func readAvroInPython(t *testing.T, data []byte, record string) (got pythonAvro, out string) {
	t.Helper()
	readers.RequirePython(t, "fastavro", "avro")
	path := filepath.Join(t.TempDir(), "0000001-240506070809000.avro")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out = readers.Python(t, time.Minute, `
import sys, json, fastavro
from avro.datafile import DataFileReader
from avro.io import DatumReader
with open(sys.argv[1], "rb") as f:
    r = fastavro.reader(f)
    fast = list(r)
    schema, codec = r.writer_schema, r.codec
with open(sys.argv[1], "rb") as f:
    ref = list(DataFileReader(f, DatumReader()))
types = {"float": sum(isinstance(v, float) for rec in ref for v in rec.values()),
         "int": sum(type(v) is int for rec in ref for v in rec.values()),
         "list": sum(isinstance(v, list) for rec in ref for v in rec.values())}
print(json.dumps({"same": fast == ref, "schema": schema, "records": ref, "codec": codec,
                  "fastavro": len(fast), "reference": len(ref), "types": types}))
`, path)
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %.300s", err, out)
	}
	n := testRecordCount()
	if got.Fastavro != n || got.Reference != n || !got.Same {
		t.Fatalf("fastavro read %d records, avro %d, the same: %v; want %d", got.Fastavro, got.Reference, got.Same, n)
	}
	if got.Codec != "deflate" || got.Schema["name"] != "org.gbif.occurrence.download.avro."+record {
		t.Errorf("codec %q, record %v", got.Codec, got.Schema["name"])
	}
	return got, out
}

// SIMPLE_AVRO read by fastavro and by Apache Avro's own Python library:
// both read every record alike, with GBIF's schema, and the text values
// are the text formats'.
func TestReadersSimpleAvro(t *testing.T) {
	data, _ := export(t, ExportSpec{Format: FormatSimpleAvro}, testSource())
	got, out := readAvroInPython(t, data, "SimpleOccurrence")
	if got.Types["float"] == 0 || got.Types["int"] == 0 || got.Types["list"] == 0 {
		t.Errorf("value types read %v, want doubles, ints and lists", got.Types)
	}
	for i, r := range got.Records {
		want := dwca.CleanValue(tricky[i%len(tricky)])
		if loc, _ := r["locality"].(string); loc != want {
			t.Errorf("record %d: locality %q, want %q as the text formats write it", i, loc, want)
		}
	}
	if r := got.Records[0]; r["gbifID"] != "1000" || r["lastInterpreted"] != "2024-01-02T03:04:05.006Z" {
		t.Errorf("record 0: gbifID %v lastInterpreted %v", r["gbifID"], r["lastInterpreted"])
	}
	if !strings.Contains(out, "🦉") && !strings.Contains(out, `\ud83e\udd89`) {
		t.Error("non-BMP value lost in Avro")
	}
}

// SIMPLE_WITH_VERBATIM_AVRO's entry read by fastavro and Apache Avro's
// Python library: every record alike, GBIF's record name, and the
// verbatim values as verbatim.txt writes them.
func TestReadersSimpleWithVerbatimAvro(t *testing.T) {
	got, _ := readAvroInPython(t, verbatimAvroFile(t), "SimpleWithVerbatimOccurrence")
	for i, r := range got.Records {
		if r["v_habitat"] != "forest edge" || r["v_modified"] != "2020-01-01" || r["habitat"] != nil {
			t.Fatalf("record %d: v_habitat %#v v_modified %#v habitat %#v", i, r["v_habitat"], r["v_modified"], r["habitat"])
		}
		want := dwca.CleanValue(tricky[i%len(tricky)])
		if loc, _ := r["v_locality"].(string); loc != want {
			t.Errorf("record %d: v_locality %q, want %q as verbatim.txt writes it", i, loc, want)
		}
	}
}

// SIMPLE_AVRO read by Apache Avro's Java library (1.12.2, from Maven
// Central; scripts/ci/java-avro.sh), which Spark and Hive, GBIF's own Avro
// writers, read Avro with: every record, GBIF's record name, and the
// values SIMPLE_CSV writes; and SIMPLE_WITH_VERBATIM_AVRO's entry.
func TestReadersSimpleAvroJava(t *testing.T) {
	cp := testenv.Need(t, "DOWNLOADER_TEST_AVRO_CLASSPATH", "scripts/ci/java-avro.sh")
	readers.Require(t, "java")
	data, _ := export(t, ExportSpec{Format: FormatSimpleAvro}, testSource())
	path := filepath.Join(t.TempDir(), "0000001-240506070809000.avro")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "AvroRead.java"))
	if err != nil {
		t.Fatal(err)
	}
	// SIMPLE_WITH_VERBATIM_AVRO's entry, with its record's name.
	vpath := filepath.Join(t.TempDir(), "000000")
	if err := os.WriteFile(vpath, verbatimAvroFile(t), 0o644); err != nil {
		t.Fatal(err)
	}
	vout := readers.Run(t, 2*time.Minute, "java", "-cp", cp, src, vpath)
	vlines := strings.Split(strings.TrimSuffix(vout, "\n"), "\n")
	if vlines[0] != "org.gbif.occurrence.download.avro.SimpleWithVerbatimOccurrence\tdeflate" || len(vlines) != testRecordCount()+1 ||
		!strings.Contains(vlines[1], `"v_habitat": "forest edge"`) {
		t.Errorf("Java reads SIMPLE_WITH_VERBATIM_AVRO as %q and %d records: %.300s", vlines[0], len(vlines)-1, vlines[min(1, len(vlines)-1)])
	}

	// The project formats' files: MAP_OF_LIFE's, and BIONOMIA's four.
	molRecs := molRecords(t)
	defer func() {
		for _, r := range molRecs {
			r.Release()
		}
	}()
	mol, _ := exportRecords(t, ExportSpec{Format: FormatMapOfLife}, ExportOptions{Catalog: testSource(), ParquetPartBytes: 1}, molRecs)
	bio, _ := bionomiaExport(t)
	for record, data := range map[string][]byte{"org.gbif.occurrence.download.avro.MapOfLife": mol,
		bionomiaNamespace + ".Bionomia": bio["occurrence.avro/000000"], bionomiaNamespace + ".BionomiaAgents": bio["agents.avro/000000"],
		bionomiaNamespace + ".BionomiaFamilies": bio["families.avro/000000"], bionomiaNamespace + ".BionomiaIdentifiers": bio["identifiers.avro/000000"]} {
		out := readers.Run(t, 2*time.Minute, "java", "-cp", cp, src, writeTemp(t, data))
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if lines[0] != record+"\tdeflate" || len(lines) < 2 {
			t.Errorf("Java reads %s as %q and %d records", record, lines[0], len(lines)-1)
		}
	}

	out := readers.Run(t, 2*time.Minute, "java", "-cp", cp, src, path)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != "org.gbif.occurrence.download.avro.SimpleOccurrence\tdeflate" {
		t.Fatalf("Java reads the record and codec as %q", lines[0])
	}
	recs := lines[1:]
	if len(recs) != testRecordCount() {
		t.Fatalf("Java read %d records, want %d", len(recs), testRecordCount())
	}
	for i, line := range recs {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("record %d: %v: %.200s", i, err, line)
		}
		want := dwca.CleanValue(tricky[i%len(tricky)])
		if loc, _ := r["locality"].(string); loc != want {
			t.Errorf("record %d: locality %q, want %q as the text formats write it", i, loc, want)
		}
		if i == 0 && (r["gbifID"] != "1000" || r["lastInterpreted"] != "2024-01-02T03:04:05.006Z" || r["typeStatus"] != "HOLOTYPE;PARATYPE" || fmt.Sprint(r["recordedBy"]) != "[Smith, J. Doe, A.]") {
			t.Errorf("record 0: gbifID %v lastInterpreted %v typeStatus %v recordedBy %v", r["gbifID"], r["lastInterpreted"], r["typeStatus"], r["recordedBy"])
		}
	}
}
