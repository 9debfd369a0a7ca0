package occurrence

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/internal/dnaseq"
)

// dnaRecord is a record whose DNA-derived data rows are rows (term URI ->
// value).
func dnaRecord(rows ...Terms) RawRecord {
	return RawRecord{Core: Terms{NSDwC + "occurrenceID": "asv1"}, Extensions: map[string][]Terms{RowTypeDNADerivedData: rows}}
}

const (
	seqTerm  = "http://rs.gbif.org/terms/dna_sequence"
	geneTerm = "https://w3id.org/mixs/0000044"
)

// TestInterpretDNAIssues: ingest flags the issues GBIF's
// DnaDerivedDataInterpreter raises on a record's DNA-derived rows, and
// predicates accept them.
func TestInterpretDNAIssues(t *testing.T) {
	clean := "ACGTACGTACGTACGTACGTACGT"
	cases := []struct {
		raw  RawRecord
		want []string
	}{
		{dnaRecord(Terms{seqTerm: clean, geneTerm: "COI"}), nil},
		{dnaRecord(Terms{seqTerm: "acgtacgt acgt-acgtacgt"}), []string{IssueNucleotideSequenceGapsRemoved}},
		{dnaRecord(Terms{seqTerm: "xx" + clean}), []string{IssueNucleotideSequenceEndsTrimmed}},
		// J is no IUPAC code, and one of 17 is over 5% ambiguous
		{dnaRecord(Terms{seqTerm: "ACGTACGTJACGTACGT"}), []string{IssueNucleotideSequenceInvalid, IssueNucleotideSequenceHighAmbiguity}},
		// the note is cut off as text before the first anchor, after it was seen
		{dnaRecord(Terms{seqTerm: "UNMERGED " + clean}), []string{IssueNucleotideSequenceGapsRemoved, IssueNucleotideSequenceInvalid, IssueNucleotideSequenceNaturalLanguage, IssueNucleotideSequenceEndsTrimmed}},
		// 2 N of 26: over 5%; 2 R of 26 too
		{dnaRecord(Terms{seqTerm: "ACGTACGTACGTNNACGTACGTACGT"}), []string{IssueNucleotideSequenceHighNFraction}},
		{dnaRecord(Terms{seqTerm: "ACGTACGTACGTRRACGTACGTACGT"}), []string{IssueNucleotideSequenceHighAmbiguity}},
		// one N of 21 is below 5% (4.8%)
		{dnaRecord(Terms{seqTerm: "ACGTACGTACNGTACGTACGT"}), nil},
		{dnaRecord(Terms{seqTerm: clean, geneTerm: "not a marker"}), []string{IssueTargetGeneInvalid}},
		{dnaRecord(Terms{seqTerm: clean, geneTerm: "COX1"}, Terms{seqTerm: strings.ToLower(clean), geneTerm: "CO1"}),
			[]string{IssueDuplicateNucleotideSequences}},
		{RawRecord{Core: Terms{NSDwC + "occurrenceID": "x"}}, nil},
	}
	rec := NewRecord()
	for i, c := range cases {
		Interpret(c.raw, DatasetContext{Key: "d"}, rec)
		var got []string
		for _, is := range strings.Split(rec.Get(mustIndex(ColIssue)).S, ";") {
			if strings.Contains(is, "NUCLEOTIDE") || strings.Contains(is, "TARGET_GENE") {
				got = append(got, is)
			}
		}
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("case %d: issues %v, want %v", i, got, want)
		}
	}
	for _, is := range []string{IssueNucleotideSequenceInvalid, IssueDuplicateNucleotideSequences, IssueTargetGeneInvalid} {
		if _, err := ParsePredicateJSON([]byte(`{"type":"equals","key":"ISSUE","value":"`+is+`"}`), Limits{}); err != nil {
			t.Errorf("ISSUE %s: %v", is, err)
		}
	}
}

// NucleotideSequences reads the extensions column's JSON as ingest reads
// the rows: the same sequences, genes and order.
func TestNucleotideSequencesFromJSON(t *testing.T) {
	rows := []Terms{{seqTerm: "ACGTACGTACGT", geneTerm: "18S"}, {geneTerm: "COI"}, {seqTerm: "acgtacgtacgt", geneTerm: "18S rRNA"}}
	byKey := map[string][]map[string]string{}
	for _, r := range rows {
		m := map[string]string{}
		for k, v := range r {
			m[VerbatimKey(k)] = v
		}
		byKey[RowTypeDNADerivedData] = append(byKey[RowTypeDNADerivedData], m)
	}
	js, _ := json.Marshal(byKey)
	got := NucleotideSequences(string(js))
	dna := make([]dnaRow, len(rows))
	for i, r := range rows {
		dna[i] = dnaRowOf(func(term string) string { return r[term] })
	}
	want := interpretDNA(dna, nil)
	if len(got) != 2 || !slices.Equal(got, want) || got[0].TargetGene != "SSU_rRNA_18S_eukaryotic" || got[1].TargetGene != "COI" || got[1].Sequence != "" {
		t.Errorf("NucleotideSequences = %+v\nwant %+v", got, want)
	}
}

// FuzzNucleotideSequences: any extensions JSON, well-formed or not, gives
// sequences whose cleaned text is IUPAC codes only and identified, and
// never the same sequence and gene twice.
func FuzzNucleotideSequences(f *testing.F) {
	f.Add(`{"http://rs.gbif.org/terms/1.0/DNADerivedData":[{"http://rs.gbif.org/terms/dna_sequence":"acgtacgt acgt","https://w3id.org/mixs/0000044":"COX1"}]}`)
	f.Add(`{"http://rs.gbif.org/terms/1.0/DNADerivedData":[{"http://rs.gbif.org/terms/dna_sequence":3},{}]}`)
	f.Add(`{"http://rs.gbif.org/terms/1.0/DNADerivedData":{"x":1}}`)
	f.Add(`[`)
	f.Fuzz(func(t *testing.T, js string) {
		seen := map[[2]string]bool{}
		for _, s := range NucleotideSequences(js) {
			k := [2]string{s.ID, s.TargetGene}
			if seen[k] {
				t.Fatalf("%q: %v twice", js, k)
			}
			seen[k] = true
			if s.Sequence != "" && (s.ID == "" || strings.Trim(s.Sequence, "ACGTRYSWKMBDHVN") != "") {
				t.Fatalf("%q: sequence %q, id %q", js, s.Sequence, s.ID)
			}
		}
	})
}

// TestNucleotideSequencePredicates: GBIF's NUCLEOTIDE_SEQUENCE_SEQUENCE
// finds a record by a cleaned sequence in any case, through the
// identifiers the record keeps, and shows the sequence, not its
// identifier; _NUCLEOTIDE_SEQUENCE_ID by the identifier; a value no
// cleaned sequence can be, and like, are refused saying why.
func TestNucleotideSequencePredicates(t *testing.T) {
	seq := "ACGTACGTTTGACCANNNNNGT"
	rows := []row{{ColNucleotideSequenceID: "0123abcd;" + dnaseq.SequenceID(seq)}, {ColNucleotideSequenceID: "0123abcd"}, {}}
	cols := []string{ColNucleotideSequenceID}
	batch := buildBatch(t, cols, rows)
	defer batch.Release()
	for js, want := range map[string][]int{
		`{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE","value":"acgtacgtttgaccannnnngt"}`:                       {0},
		`{"type":"in","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE","values":["ACGT","` + seq + `"]}`:                            {0},
		`{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_NUCLEOTIDE_SEQUENCE_ID","value":"0123ABCD"}`:                       {0, 1},
		`{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_NUCLEOTIDE_SEQUENCE_ID","value":"` + dnaseq.SequenceID(seq) + `"}`: {0},
	} {
		p := mustParse(t, js)
		if got := matchingRows(t, p, batch); !slices.Equal(got, want) {
			t.Errorf("%s: rows %v, want %v", js, got, want)
		}
	}
	if p := mustParse(t, `{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE","value":" acgtacgtttgaccannnnngt "}`); p.Value != seq {
		t.Errorf("the predicate shows %q, want the sequence %q", p.Value, seq)
	}
	for js, want := range map[string]string{
		`{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE","value":"ACGU"}`:      `"U" at position 4`,
		`{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE","value":"ACG-TT"}`:    `"-" at position 4`,
		`{"type":"like","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE","value":"ACGT*"}`:       "like is not available",
		`{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE","value":"ACGT TTGA"}`: `" " at position 5`,
	} {
		_, err := ParsePredicateJSON([]byte(js), DefaultLimits())
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "NUCLEOTIDE_SEQUENCE_SEQUENCE") {
			t.Errorf("%s: %v, want an error saying %s", js, err, want)
		}
	}
}

// TestSequenceFigures: ingest keeps each sequence's figures and flags as
// GBIF's pipelines compute them (one value per sequence that has it,
// repeats once), and GBIF's NUCLEOTIDE_SEQUENCE_* parameters match a
// record when one of its sequences does.
func TestSequenceFigures(t *testing.T) {
	clean := "ACGTACGTGGCCNNNNNNNNAACCGGTTAC"
	r := NewRecord()
	Interpret(dnaRecord(
		Terms{dnaSequenceTerm: clean},
		Terms{dnaSequenceTerm: "acgt-acgtgg ccaattaacc"},
		Terms{dnaSequenceTerm: "UNMERGED reads"},
		Terms{targetGeneTerms[0]: "COI"}), DatasetContext{Key: "d"}, r)
	a, b := dnaseq.Clean(clean), dnaseq.Clean("acgt-acgtgg ccaattaacc")
	for col, want := range map[string]string{
		"nucleotideSequenceLength":          strconv.FormatFloat(float64(a.Length), 'g', -1, 64) + ";" + strconv.FormatFloat(float64(b.Length), 'g', -1, 64) + ";0",
		"nucleotideGCContent":               strconv.FormatFloat(a.GCContent, 'g', -1, 64) + ";" + strconv.FormatFloat(b.GCContent, 'g', -1, 64),
		"nucleotideNFraction":               strconv.FormatFloat(a.NFraction, 'g', -1, 64) + ";0",
		"nucleotideNRunsCapped":             "1;0",
		"nucleotideInvalid":                 "false;true",
		"nucleotideGapsOrWhitespaceRemoved": "false;true",
		"nucleotideNaturalLanguageDetected": "false;true",
	} {
		if got := get(r, col).S; got != want {
			t.Errorf("%s = %q, want %q", col, got, want)
		}
	}
	rows := []row{{}, {}, {}} // the third has no sequences
	for _, f := range sequenceFigures {
		rows[0][f.col] = get(r, f.col).S
	}
	rows[1]["nucleotideSequenceLength"], rows[1]["nucleotideInvalid"] = "500", "false"
	batch := buildBatch(t, figureColumns(), rows)
	defer batch.Release()
	for js, want := range map[string][]int{
		`{"type":"greaterThan","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE_LENGTH","value":"25"}`:             {0, 1},
		`{"type":"range","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE_LENGTH","value":{"gte":"1","lte":"25"}}`: {0},
		`{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE_LENGTH","value":"0"}`:                   {0},
		`{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_N_RUNS_CAPPED","value":"1,3"}`:                   {0},
		`{"type":"lessThan","key":"NUCLEOTIDE_SEQUENCE_N_FRACTION","value":"0.01"}`:                   {0},
		`{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_INVALID","value":"TRUE"}`:                        {0},
		`{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_INVALID","value":"false"}`:                       {0, 1},
		`{"type":"isNotNull","parameter":"NUCLEOTIDE_SEQUENCE_GC_CONTENT"}`:                           {0},
		// Each condition holds for any of a record's sequences, as GBIF's
		// search answers: no single sequence of row 0 is both invalid and
		// 30 long, yet row 0 has both.
		`{"type":"and","predicates":[{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_INVALID","value":"true"},{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE_LENGTH","value":"` + strconv.Itoa(a.Length) + `"}]}`: {0},
		// A record without sequences is no more excluded than by any
		// other empty column (GBIF's download joins and drops it).
		`{"type":"or","predicates":[{"type":"isNull","parameter":"NUCLEOTIDE_SEQUENCE_GC_CONTENT"},{"type":"greaterThan","key":"NUCLEOTIDE_SEQUENCE_SEQUENCE_LENGTH","value":"400"}]}`: {1, 2},
		`{"type":"not","predicate":{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_INVALID","value":"true"}}`:                                                                              {1, 2},
	} {
		p := mustParse(t, js)
		if got := matchingRows(t, p, batch); !slices.Equal(got, want) {
			t.Errorf("%s: rows %v, want %v", js, got, want)
		}
		if len(want) > 0 && !p.MayMatch(statsOf(figureColumns(), rows, true)) {
			t.Errorf("%s: the statistics ruled out the matching rows", js)
		}
	}
	if _, err := ParsePredicateJSON([]byte(`{"type":"equals","key":"NUCLEOTIDE_SEQUENCE_ENDS_TRIMMED","value":"yes"}`), DefaultLimits()); err == nil ||
		!strings.Contains(err.Error(), "not true or false") {
		t.Errorf("a flag valued yes: %v", err)
	}
}

// figureColumns are the names of the sequences' figure columns.
func figureColumns() []string {
	out := make([]string, len(sequenceFigures))
	for i, f := range sequenceFigures {
		out[i] = f.col
	}
	return out
}
