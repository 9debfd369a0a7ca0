package dwca

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

const eventMeta = `<archive xmlns="http://rs.tdwg.org/dwc/text/" metadata="eml.xml">
  <core fieldsTerminatedBy="\t" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Event">
    <files><location>event.txt</location></files>
    <id index="0"/>
    <field index="0" term="http://rs.tdwg.org/dwc/terms/eventID"/>
    <field index="1" term="http://rs.tdwg.org/dwc/terms/eventDate"/>
    <field index="2" term="http://rs.tdwg.org/dwc/terms/locality"/>
    <field index="3" term="http://rs.tdwg.org/dwc/terms/decimalLatitude"/>
  </core>
  <extension fieldsTerminatedBy="\t" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Occurrence">
    <files><location>occurrence.txt</location></files>
    <coreid index="0"/>
    <field index="1" term="http://rs.tdwg.org/dwc/terms/occurrenceID"/>
    <field index="2" term="http://rs.tdwg.org/dwc/terms/scientificName"/>
    <field index="3" term="http://rs.tdwg.org/dwc/terms/locality"/>
  </extension>
  <extension fieldsTerminatedBy="\t" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/MeasurementOrFact">
    <files><location>mof.txt</location></files>
    <coreid index="0"/>
    <field index="1" term="http://rs.tdwg.org/dwc/terms/occurrenceID"/>
    <field index="2" term="http://rs.tdwg.org/dwc/terms/measurementType"/>
  </extension>
</archive>`

// eventArchive is a sample-based dataset: two events, three occurrences
// (listed out of event order), a measurement for the whole event e1 and one
// for occurrence o2, and an occurrence of an unknown event.
func eventArchive(t testing.TB) string {
	return writeDir(t, map[string]string{
		"meta.xml":       eventMeta,
		"event.txt":      "id\tdate\tlocality\tlat\ne1\t2020-05-01\tPond A\t55.1\ne2\t2021-06-02\tPond B\t56.2\ne3\t2022-01-01\tEmpty\t\n",
		"occurrence.txt": "eid\tocc\tname\tloc\ne2\to3\tRana arvalis\t\ne1\to1\tRana temporaria\tPond A, north shore\ne1\to2\tBufo bufo\t\nx9\to9\tOrphan\t\n",
		"mof.txt":        "eid\tocc\ttype\ne1\t\twater temperature\ne1\to2\tlength\n",
	})
}

func TestEventCoreWithOccurrenceExtension(t *testing.T) {
	for _, budget := range []int64{DefaultJoinBudget, 1} { // 1: forces the disk join
		t.Run(fmt.Sprint("budget", budget), func(t *testing.T) {
			a, err := Options{JoinBudget: budget}.Open(context.Background(), eventArchive(t))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			recs, sr := allRecords(t, a)
			var got []string
			for _, r := range recs {
				c := r.Core
				got = append(got, strings.Join([]string{c[occurrence.NSDwC+"occurrenceID"], c[occurrence.NSDwC+"eventID"],
					c[occurrence.NSDwC+"eventDate"], c[occurrence.NSDwC+"locality"], c[occurrence.NSDwC+"scientificName"],
					fmt.Sprint(len(r.Extensions[occurrence.RowTypeMeasurement])), r.Source}, "|"))
			}
			want := []string{
				// event e1 first (core order), its occurrences in file order; o1's own locality wins
				"o1|e1|2020-05-01|Pond A, north shore|Rana temporaria|1|occurrence.txt:3",
				"o2|e1|2020-05-01|Pond A|Bufo bufo|2|occurrence.txt:4",
				"o3|e2|2021-06-02|Pond B|Rana arvalis|0|occurrence.txt:2",
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if sr.Orphans() != 1 {
				t.Errorf("%d orphans, want 1 (o9 of unknown event x9)", sr.Orphans())
			}
		})
	}
}

func TestEventCoreWithoutOccurrences(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"meta.xml":  strings.Replace(eventMeta, "http://rs.tdwg.org/dwc/terms/Occurrence", "http://example.org/Other", 1),
		"event.txt": "id\n", "occurrence.txt": "", "mof.txt": "",
	})
	a, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Records(context.Background()); !errors.Is(err, ErrNotOccurrenceData) ||
		!strings.Contains(err.Error(), "Event core without an Occurrence extension") {
		t.Errorf("%v", err)
	}
}

// unsortedArchive writes n core rows with shuffled ids and an extension whose
// rows are shuffled independently, k per core row, plus some orphans.
func unsortedArchive(t testing.TB, n, k, orphans int) string {
	rng := rand.New(rand.NewPCG(1, 2))
	var core, ext strings.Builder
	core.WriteString("id\tname\n")
	for _, i := range rng.Perm(n) {
		fmt.Fprintf(&core, "id%d\tname %d\n", i, i)
	}
	type row struct{ id, v string }
	var rows []row
	for i := range n {
		for j := range k {
			rows = append(rows, row{fmt.Sprintf("id%d", i), fmt.Sprintf("m%d-%d", i, j)})
		}
	}
	for i := range orphans {
		rows = append(rows, row{fmt.Sprintf("zz%d", i), "orphan"})
	}
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	ext.WriteString("coreid\tmedia\n")
	// first, one broken row (invalid UTF-8) and one row without a coreid
	ext.WriteString("id1\tbad \xff\n\tno core id\n")
	for _, r := range rows {
		fmt.Fprintf(&ext, "%s\t%s\n", r.id, r.v)
	}

	meta := strings.NewReplacer(`fieldsTerminatedBy=","`, `fieldsTerminatedBy="\t" ignoreHeaderLines="1"`,
		`ignoreHeaderLines="0"`, "", `<coreid index="1"/>`, `<coreid index="0"/>`,
		`<field index="0" term="http://purl.org/dc/terms/identifier"/>`,
		`<field index="1" term="http://purl.org/dc/terms/identifier"/>`).Replace(fixtureMeta)
	return writeDir(t, map[string]string{"meta.xml": meta, "occ.txt": core.String(), "sub/media.csv": ext.String()})
}

func TestUnsortedExtensionJoinMemoryAndDisk(t *testing.T) {
	const n, k, orphans = 3000, 3, 500
	dir := unsortedArchive(t, n, k, orphans)
	var results [][]occurrence.RawRecord
	for _, budget := range []int64{DefaultJoinBudget, 64 << 10} {
		tmp := t.TempDir()
		a, err := Options{JoinBudget: budget, TempDir: tmp}.Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		sr, err := a.Records(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if budget != DefaultJoinBudget {
			// The runs are unlinked while open (internal/tmpfile): counted
			// among the process's descriptors.
			if n, ok := openIn(tmp); ok && n < 3 {
				t.Errorf("budget %d: %d spill files, expected the disk join to spill several runs", budget, n)
			}
		}
		var recs []occurrence.RawRecord
		for {
			r, err := sr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("budget %d: %v", budget, err)
			}
			recs = append(recs, r)
		}
		if sr.Orphans() != orphans+1 {
			t.Errorf("budget %d: %d orphans, want %d", budget, sr.Orphans(), orphans+1)
		}
		if b := sr.Broken(); b.Count != 1 || b.Rows[0].File != "sub/media.csv" {
			t.Errorf("budget %d: broken rows %+v, want the one invalid UTF-8 row once", budget, b)
		}
		sr.Close()
		a.Close()
		if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
			t.Errorf("budget %d: temporary files left: %d", budget, len(entries))
		}
		if n, ok := openIn(tmp); ok && n != 0 {
			t.Errorf("budget %d: %d spill files still open", budget, n)
		}
		results = append(results, recs)
	}
	mem, disk := results[0], results[1]
	if len(mem) != n || len(disk) != n {
		t.Fatalf("%d and %d records, want %d", len(mem), len(disk), n)
	}
	for i := range mem {
		id := mem[i].Core[occurrence.NSDwC+"occurrenceID"]
		media := mem[i].Extensions[occurrence.RowTypeMultimedia]
		if len(media) != k {
			t.Fatalf("record %s: %d media rows, want %d", id, len(media), k)
		}
		for _, m := range media {
			if !strings.HasPrefix(m[occurrence.NSDC+"identifier"], "m"+strings.TrimPrefix(id, "id")+"-") {
				t.Fatalf("record %s got media %v", id, m)
			}
		}
		if !reflect.DeepEqual(mem[i], disk[i]) {
			t.Fatalf("record %d differs between memory and disk join:\n%+v\n%+v", i, mem[i], disk[i])
		}
	}
}

func TestKewJoinOrphansAndMedia(t *testing.T) {
	// identification.txt keys its 167,663 rows by numbers like "10021.000"
	// that match none of the 19 core catalogue numbers (checked with Python's
	// csv module); image.txt has one row per core row. The identification file
	// (26 MB) is over the default budget, so this joins it on disk.
	a := openSample(t, "dissco-dwca-kew-gbif-media.zip")
	recs, sr := allRecords(t, a)
	for _, r := range recs {
		if len(r.Extensions[occurrence.RowTypeMultimedia]) != 1 || r.Extensions[occurrence.RowTypeIdentification] != nil {
			t.Fatalf("%s: extensions %v", r.Source, r.Extensions)
		}
		id := r.Core[occurrence.NSDwC+"catalogNumber"]
		// (the image row of K000001864 has only its id: empty references)
		if ref := r.Extensions[occurrence.RowTypeMultimedia][0][occurrence.NSDC+"references"]; ref != "" && !strings.HasSuffix(ref, "/"+id) {
			t.Errorf("%s got media of %s", id, ref)
		}
	}
	if sr.Orphans() != 167663 {
		t.Errorf("%d orphans, want 167663", sr.Orphans())
	}
}

func TestBrokenRowsCountedAndSkipped(t *testing.T) {
	meta := strings.Replace(fixtureMeta, `fieldsEnclosedBy=""`, `fieldsEnclosedBy="&quot;"`, 1)
	meta = strings.Replace(meta, "sub/media.csv", "m.csv", 1)
	occ := "id\tname\tcountry\n" +
		"o1\tok\tDK\n" +
		"o2\t\"never closed\tDK\n" + // line 3: unclosed quote
		"o3\tfine\tSE\n" +
		"o4\tbad \xff byte\tNO\n" + // line 5: invalid UTF-8
		"o5\tshifted\tDK\textra\n" + // line 6: more columns than the header
		"o6\t\"multi\nline\"\tFI\n" + // lines 7-8: a quoted line break is fine
		"o7\ttrailing empty cells\tIS\t\t\n"
	dir := writeDir(t, map[string]string{"meta.xml": meta, "occ.txt": occ, "m.csv": ""})
	a, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	rr, _ := a.Rows(context.Background(), a.Meta.Core)
	var ids []string
	var errs []string
	for {
		row, err := rr.Next()
		if err != nil {
			var re *RowError
			if !errors.As(err, &re) {
				break
			}
			errs = append(errs, fmt.Sprintf("%s:%d:%v", re.File, re.Line, errors.Unwrap(re)))
			continue
		}
		ids = append(ids, fmt.Sprintf("%s@%d", row.Get(occurrence.NSDwC+"occurrenceID"), row.Line()))
	}
	if got := strings.Join(ids, " "); got != "o1@2 o3@4 o6@7 o7@9" {
		t.Errorf("rows %s", got)
	}
	wantErrs := []string{"occ.txt:3:" + ErrUnclosedQuote.Error(), "occ.txt:5:" + ErrInvalidUTF8.Error(),
		"occ.txt:6:" + ErrTooManyColumns.Error() + ": 4 columns, header has 3"}
	if !reflect.DeepEqual(errs, wantErrs) {
		t.Errorf("errors\n%q\nwant\n%q", errs, wantErrs)
	}
	_, sr := allRecords(t, a)
	if b := sr.Broken(); b.Count != 3 || len(b.Rows) != 3 || b.Rows[0].Line != 3 {
		t.Errorf("star reader broken rows %+v", b)
	}
}

func TestNotOccurrenceDataNamesRowType(t *testing.T) {
	a := openSample(t, "pydwca-dwca-2extensions.zip")
	_, err := a.Records(context.Background())
	if !errors.Is(err, ErrNotOccurrenceData) || !strings.Contains(err.Error(), RowTypeTaxon) {
		t.Errorf("%v", err)
	}
}

func TestReadDatasetInfo(t *testing.T) {
	cases := map[string]occurrence.DatasetInfo{
		"dissco-dwca-lux-associated-media.zip": {
			Title:   "Palaeontological collections National Museum of Natural History Luxembourg",
			License: "http://creativecommons.org/publicdomain/zero/1.0/legalcode",
			Key:     "2814930a-3b93-48d6-b887-00979481ac9e",
		},
		"dissco-dwca-kew-gbif-media.zip": { // no intellectualRights: no licence
			Title:    "Royal Botanic Gardens, Kew - Herbarium Specimens",
			Citation: "http://apps.kew.org/herbcat/gotoCiteUs.do",
			Key:      "619a4b95-1a82-4006-be6a-7dbe3c9b33c5",
		},
	}
	for file, want := range cases {
		a := openSample(t, file)
		rc, err := a.EML()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadDatasetInfo(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", file, got, want)
		}
	}
	// a document that gives only a licence or only a dataset key is not empty
	for doc, want := range map[string]occurrence.DatasetInfo{
		"<eml><dataset><intellectualRights><para>CC0</para></intellectualRights></dataset></eml>": {License: "CC0"},
		"<eml><dataset><alternateIdentifier>2814930A-3B93-48D6-B887-00979481AC9E</alternateIdentifier></dataset></eml>": {
			Key: "2814930a-3b93-48d6-b887-00979481ac9e"},
	} {
		if got, err := ReadDatasetInfo(strings.NewReader(doc)); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, %v; want %+v", doc, got, err, want)
		}
	}
	if _, err := ReadDatasetInfo(strings.NewReader("<eml><dataset/></eml>")); err == nil ||
		!strings.Contains(err.Error(), "empty document") {
		t.Errorf("EML without anything to read: %v", err)
	}
	if _, err := ReadDatasetInfo(strings.NewReader("<eml>\n<dataset>\n<title>x</dataset>")); err == nil ||
		!strings.Contains(err.Error(), "line 3") {
		t.Errorf("malformed EML: %v", err)
	}
}

// BenchmarkStarJoin joins 20,000 core rows with 40,000 shuffled extension
// rows in memory and, with a 256 KiB budget, on disk (external sort); and
// 20,000 core rows with ~30,000 extension rows in core order, in lockstep,
// then on disk after moving one extension row to the end.
func BenchmarkStarJoin(b *testing.B) {
	unsorted := unsortedArchive(b, 20000, 2, 1000)
	inOrder := coreOrderArchive(b, 20000, nil, nil)
	moved := coreOrderArchive(b, 20000, nil, func(r []string) []string { return append(r[1:], r[0]) })
	for _, bc := range []struct {
		name   string
		dir    string
		budget int64
	}{{"memory", unsorted, DefaultJoinBudget}, {"disk", unsorted, 256 << 10},
		{"core-order/lockstep", inOrder, 256 << 10}, {"core-order-but-one/disk", moved, 256 << 10}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				a, err := Options{JoinBudget: bc.budget, TempDir: b.TempDir()}.Open(context.Background(), bc.dir)
				if err != nil {
					b.Fatal(err)
				}
				recs, _ := allRecords(b, a)
				if len(recs) != 20000 {
					b.Fatalf("%d records", len(recs))
				}
				a.Close()
			}
			b.ReportMetric(float64(20000*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// TestDuplicateTermsMemoryAndDisk maps two columns onto one term in the core
// and in the extension: the later non-empty value wins, whether the rows are
// joined in memory or encoded for the disk join.
func TestDuplicateTermsMemoryAndDisk(t *testing.T) {
	loc := occurrence.NSDwC + "locality"
	ident := occurrence.NSDC + "identifier"
	meta := `<archive xmlns="http://rs.tdwg.org/dwc/text/">
  <core fieldsTerminatedBy="\t" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Occurrence">
    <files><location>occ.txt</location></files>
    <id index="0"/>
    <field index="0" term="http://rs.tdwg.org/dwc/terms/occurrenceID"/>
    <field index="1" term="` + loc + `"/>
    <field index="2" term="` + loc + `"/>
  </core>
  <extension fieldsTerminatedBy="\t" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.gbif.org/terms/1.0/Multimedia">
    <files><location>media.txt</location></files>
    <coreid index="0"/>
    <field index="1" term="` + ident + `"/>
    <field index="2" term="` + ident + `"/>
  </extension>
</archive>`
	dir := writeDir(t, map[string]string{"meta.xml": meta,
		"occ.txt":   "id\ta\tb\no1\tA\t\no2\t\tB\no3\tA\tB\n",
		"media.txt": "id\tx\ty\no3\tX\tY\no1\tX\t\no2\t\tY\n",
	})
	want := []string{"o1|A|X", "o2|B|Y", "o3|B|Y"}
	for _, budget := range []int64{DefaultJoinBudget, 1} { // 1: forces the disk join
		a, err := Options{JoinBudget: budget, TempDir: t.TempDir()}.Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := allRecords(t, a)
		var got []string
		for _, r := range recs {
			var media []string
			for _, m := range r.Extensions[occurrence.RowTypeMultimedia] {
				media = append(media, m[ident])
			}
			got = append(got, r.Core[occurrence.NSDwC+"occurrenceID"]+"|"+r.Core[loc]+"|"+strings.Join(media, ","))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("budget %d: got %q, want %q", budget, got, want)
		}
		a.Close()
	}
	// Rows by position are not offered for them: maps decide the merging.
	sr := openRecords(t, dir)
	sr.UseCells()
	if r, err := sr.Next(); err != nil || r.Cells != nil || r.Core[loc] != "A" {
		t.Errorf("with UseCells: record %+v, %v; want a map with locality A", r, err)
	}
}

// TestRecycledTerms reads archives (streamed cores) twice, the second time handing every
// record's core terms back to the reader as soon as they are copied: the
// refilled maps give the same records (no term left over from the row
// that filled the map before).
func TestRecycledTerms(t *testing.T) {
	for _, name := range []string{"dwca-io-archive-occ.zip", "gbif-validator-Archive.zip"} {
		reused := 0
		read := func(recycle bool) []occurrence.Terms {
			seen := map[uintptr]bool{}
			a, err := Open(context.Background(), filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			sr, err := a.Records(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer sr.Close()
			var out []occurrence.Terms
			for {
				r, err := sr.Next()
				if err == io.EOF {
					return out
				}
				if err != nil {
					var re *RowError
					if errors.As(err, &re) {
						continue
					}
					t.Fatalf("%s: %v", name, err)
				}
				out = append(out, maps.Clone(r.Core))
				p := reflect.ValueOf(r.Core).Pointer()
				if seen[p] {
					reused++
				}
				if recycle {
					seen[p] = true
					sr.Recycle(r.Core)
				}
			}
		}
		want, got := read(false), read(true)
		if len(want) < 2 {
			t.Fatalf("%s: %d records, want several to recycle", name, len(want))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: recycled maps read differently", name)
		}
		if reused != len(want)-1 {
			t.Errorf("%s: %d of %d records in a recycled map, want all but the first", name, reused, len(want))
		}
	}
}
