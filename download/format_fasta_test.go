package download

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/internal/dnaseq"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// dnaRow is one DNA-derived data row: dna_sequence and target_gene.
type dnaRow struct{ seq, gene string }

// fastaRecords are records 1..n with the DNA-derived rows rows[i] (none
// for a missing entry), in batches of batchRows.
func fastaRecords(t *testing.T, n, batchRows int, rows map[int][]dnaRow) []arrow.RecordBatch {
	t.Helper()
	idx := occurrence.ColumnIndex
	return batchesOf(batchRows, func(add func(*occurrence.Record)) {
		r := occurrence.NewRecord()
		for i := 1; i <= n; i++ {
			r.Reset()
			r.SetInt(idx(occurrence.ColGBIFID), int64(i))
			r.SetString(idx(occurrence.ColDatasetKey), testDatasets[i%2].key)
			r.SetString(idx(occurrence.ColLicense), testDatasets[i%2].license)
			r.SetString(idx(occurrence.ColVerbatim), `{"occurrenceID":"o`+string(rune('a'+i))+`"}`)
			if rs := rows[i]; len(rs) > 0 {
				var ext []map[string]string
				for _, d := range rs {
					m := map[string]string{"http://rs.gbif.org/terms/dna_sequence": d.seq}
					if d.gene != "" {
						m["https://w3id.org/mixs/0000044"] = d.gene
					}
					ext = append(ext, m)
				}
				js, _ := json.Marshal(map[string]any{occurrence.RowTypeDNADerivedData: ext})
				r.SetString(idx(occurrence.ColExtensions), string(js))
			}
			add(r)
		}
	})
}

// TestFastaArchive: the archive holds the records with a usable sequence,
// each once, across batch boundaries; sequences.fasta and sequences.txt
// hold each usable sequence once per record, cleaned and identified as
// GBIF does, with the target gene's concept; the DNA-derived verbatim rows
// of the records kept are in verbatim/dnaderiveddata.txt; meta.xml does
// not list the sequence files; the datasets and counts are the kept
// records'.
func TestFastaArchive(t *testing.T) {
	coi := "AACATTATATTTTATTTTTGG" // 21 anchors
	rows := map[int][]dnaRow{
		2: {{"aacattatat tttattttt-gg", "COX1"}, {coi, "CO1"}}, // the same sequence and gene (COI) twice
		3: {{"ACGTACGTXACGTACGT", "18S"}},                      // invalid: X
		4: {{"ACGT", ""}},                                      // emptied by cleaning
		5: {{"ACGTACGTACGTNNNNNNNNNNACGTACGT", "12S rRNA"}, {coi, "not a gene"}},
		6: {{"UNMERGED ACGTACGTACGT", "COI"}},
		7: {{coi, "COI"}},
	}
	recs := fastaRecords(t, 8, 3, rows)
	pred, err := occurrence.ParsePredicateJSON([]byte(`{"type":"and","predicates":[
		{"type":"in","key":"TAXON_KEY","values":["2351214","5206040"]},
		{"type":"equals","key":"COUNTRY","value":"DK"},
		{"type":"not","predicate":{"type":"equals","key":"CONTINENT","value":"ASIA"}},
		{"type":"equals","key":"CONTINENT","value":"EUROPE"}]}`), occurrence.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	spec := ExportSpec{Format: FormatFastaArchive, Key: "0001234-260101000000000", Predicate: pred}
	data, res := exportRecords(t, spec, ExportOptions{Catalog: testSource()}, recs)
	for _, r := range recs {
		r.Release()
	}
	names, content := entries(t, data)
	for _, want := range []string{"occurrence.txt", "verbatim.txt", "multimedia.txt", "verbatim/dnaderiveddata.txt", "sequences.fasta", "sequences.txt", "meta.xml", "metadata.xml", "citations.txt", "rights.txt"} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s in %v", want, names)
		}
	}
	occ := table(t, "occurrence.txt", content["occurrence.txt"])
	var ids []string
	for _, row := range occ[1:] {
		ids = append(ids, row[0])
	}
	if !slices.Equal(ids, []string{"2", "5", "7"}) || res.Records != 3 {
		t.Errorf("occurrence.txt gbifIDs %v, records %d; want 2, 5, 7", ids, res.Records)
	}
	if n := res.Datasets[testDatasets[1].key] + res.Datasets[testDatasets[0].key]; n != 3 {
		t.Errorf("datasets count %d records: %v", n, res.Datasets)
	}
	id := func(s string) string { return dnaseq.Clean(s).ID }
	capped := "ACGTACGTACGTNNNNNACGTACGT"
	wantFasta := ">" + id(coi) + "|2|COI\n" + coi + "\n" +
		">" + id(capped) + "|5|SSU_rRNA_12S_mitochondrial\n" + capped + "\n" +
		">" + id(coi) + "|5|\n" + coi + "\n" +
		">" + id(coi) + "|7|COI\n" + coi + "\n"
	if got := content["sequences.fasta"]; got != wantFasta {
		t.Errorf("sequences.fasta:\n%s\nwant\n%s", got, wantFasta)
	}
	seqs := table(t, "sequences.txt", content["sequences.txt"])
	if !slices.Equal(seqs[0], sequencesHeader) || len(seqs) != 5 {
		t.Fatalf("sequences.txt: %q", seqs)
	}
	// The capped sequence: 25 characters, 5 N, 10 G or C of 20 A, C, G or
	// T, one run of N capped.
	if got, want := seqs[2], []string{"5", id(capped), "SSU_rRNA_12S_mitochondrial", "25", "0.5", "0.0", "0.0", "0.2", "1", "false", "false", "false", "false"}; !slices.Equal(got, want) {
		t.Errorf("sequences.txt row %q\nwant %q", got, want)
	}
	if got := seqs[1]; got[1] != id(coi) || got[3] != "21" || got[9] != "false" {
		t.Errorf("sequences.txt row %q", got)
	}
	dna := table(t, "verbatim/dnaderiveddata.txt", content["verbatim/dnaderiveddata.txt"])
	var dnaIDs []string
	for _, row := range dna[1:] {
		dnaIDs = append(dnaIDs, row[0])
	}
	if !slices.Equal(dnaIDs, []string{"2", "2", "5", "5", "7"}) {
		t.Errorf("verbatim/dnaderiveddata.txt gbifids %v", dnaIDs)
	}
	// GBIF's FastaCitationBuilder's words, with the portal's name.
	cite := "FASTA Archive Download of sequences from 2351214, 5206040 in Denmark, Europe. " + DefaultPortalName + " (6 May 2024). 0001234-260101000000000"
	if !strings.Contains(content["citations.txt"], "\n"+cite+"\n") {
		t.Errorf("citations.txt:\n%s\nwant the line %q", content["citations.txt"], cite)
	}
	meta := content["meta.xml"]
	if strings.Contains(meta, "sequences.") || !strings.Contains(meta, "verbatim/dnaderiveddata.txt") {
		t.Errorf("meta.xml:\n%s", meta)
	}
}

// TestFastaArchiveNoSequences: a download without any usable sequence is
// an archive with the files' headers and no rows.
func TestFastaArchiveNoSequences(t *testing.T) {
	recs := fastaRecords(t, 3, 2, map[int][]dnaRow{1: {{"xxxx", "COI"}}})
	data, res := exportRecords(t, ExportSpec{Format: FormatFastaArchive}, ExportOptions{}, recs)
	for _, r := range recs {
		r.Release()
	}
	_, content := entries(t, data)
	if res.Records != 0 || content["sequences.fasta"] != "" || strings.Count(content["sequences.txt"], "\n") != 1 || strings.Count(content["occurrence.txt"], "\n") != 1 {
		t.Errorf("records %d, sequences.fasta %q, sequences.txt %q", res.Records, content["sequences.fasta"], content["sequences.txt"])
	}
}

// TestInterpretedDNADerivedData: a DWCA asked for the interpreted
// DNA-derived data (interpretedExtensions DNA_DERIVED_DATA) carries
// dnaderiveddata.txt: one row per interpreted sequence of every record
// (repeats once), the gene's concept and the cleaned sequence, empty when
// invalid; meta.xml describes it. Other formats and extensions are refused.
func TestInterpretedDNADerivedData(t *testing.T) {
	coi := "AACATTATATTTTATTTTTGG"
	rows := map[int][]dnaRow{
		2: {{"aacattatat tttattttt-gg", "COX1"}, {coi, "CO1"}},
		3: {{"ACGTACGTXACGTACGT", "18S"}},
		5: {{coi, "not a gene"}},
	}
	recs := fastaRecords(t, 6, 4, rows)
	data, res := exportRecords(t, ExportSpec{Format: FormatDWCA, InterpretedExtensions: []string{"DNA_DERIVED_DATA"}}, ExportOptions{}, recs)
	for _, r := range recs {
		r.Release()
	}
	_, content := entries(t, data)
	got := table(t, dnaFile, content[dnaFile])
	want := [][]string{{"gbifID", "target_gene", "dna_sequence"}, {"2", "COI", coi}, {"3", "SSU_rRNA_18S_eukaryotic", ""}, {"5", "", coi}}
	if !slices.EqualFunc(got, want, slices.Equal[[]string]) || res.Records != 6 {
		t.Errorf("%s: %q, want %q (records %d)", dnaFile, got, want, res.Records)
	}
	if !strings.Contains(content["meta.xml"], "<location>"+dnaFile+"</location>") {
		t.Errorf("meta.xml:\n%s", content["meta.xml"])
	}
	for _, spec := range []ExportSpec{
		{Format: FormatSimpleCSV, InterpretedExtensions: []string{"DNA_DERIVED_DATA"}},
		{Format: FormatDWCA, InterpretedExtensions: []string{"HUMBOLDT"}},
		{Format: FormatDWCA, InterpretedExtensions: []string{"NO_SUCH_EXTENSION"}},
	} {
		var buf bytes.Buffer
		if _, err := NewExport(context.Background(), &buf, spec, ExportOptions{TempDir: t.TempDir()}); !errors.Is(err, ErrFormat) {
			t.Errorf("%s with %v: %v, want ErrFormat", spec.Format, spec.InterpretedExtensions, err)
		}
	}
}

// TestFastaScanPredicate: a FASTA archive's scan reads only records that
// may have a sequence: isSequenced false is left out, true and null (a
// table older than the column) kept, within the request's predicate.
func TestFastaScanPredicate(t *testing.T) {
	pred, err := occurrence.ParsePredicateJSON([]byte(`{"type":"equals","key":"GBIF_ID","value":"2"}`), occurrence.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	b := occurrence.NewBuilder()
	defer b.Release()
	r := occurrence.NewRecord()
	idx := occurrence.ColumnIndex
	// Every record is GBIF_ID 2: the predicate keeps them all, the
	// narrowing only those that may have a sequence.
	for _, seq := range []string{"false", "true", "null", "true"} {
		r.Reset()
		r.SetInt(idx(occurrence.ColGBIFID), 2)
		if seq != "null" {
			r.SetBool(idx("isSequenced"), seq == "true")
		}
		b.Append(r)
	}
	rec := b.NewBatch()
	defer rec.Release()
	for _, c := range []struct {
		spec ExportSpec
		want []bool
	}{
		{ExportSpec{Format: FormatFastaArchive}, []bool{false, true, true, true}},
		{ExportSpec{Format: FormatFastaArchive, Predicate: pred}, []bool{false, true, true, true}},
		{ExportSpec{Format: FormatDWCA, Predicate: pred}, []bool{true, true, true, true}},
		{ExportSpec{Format: FormatDWCA}, nil},
	} {
		info, _ := c.spec.Format.Info()
		x := &Export{spec: c.spec, format: info}
		p := x.scanPredicate()
		if c.want == nil {
			if p != nil {
				t.Errorf("%s without a predicate scans with %v", c.spec.Format, p)
			}
			continue
		}
		var got []bool
		for i := range int(rec.NumRows()) {
			got = append(got, p.MatchRow(rec, i))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s, predicate %v: matches %v, want %v", c.spec.Format, c.spec.Predicate != nil, got, c.want)
		}
	}
}
