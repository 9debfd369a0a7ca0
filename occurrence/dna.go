package occurrence

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/internal/dnaseq"
)

// RowTypeDNADerivedData is the DNA-derived data extension's row type.
const RowTypeDNADerivedData = "http://rs.gbif.org/terms/1.0/DNADerivedData"

// The DNA-derived data terms interpretation reads: GBIF's dna_sequence and
// MIxS's target_gene, under the URIs publishers' archives use for it.
var (
	dnaSequenceTerm = "http://rs.gbif.org/terms/dna_sequence"
	targetGeneTerms = [...]string{"https://w3id.org/mixs/0000044", "https://w3id.org/mixs/target_gene", "http://gensc.org/ns/mixs/target_gene"}
)

// The DNA-derived data's issues (GBIF's OccurrenceIssue).
const (
	IssueNucleotideSequenceNaturalLanguage = "NUCLEOTIDE_SEQUENCE_NATURAL_LANGUAGE"
	IssueNucleotideSequenceEndsTrimmed     = "NUCLEOTIDE_SEQUENCE_ENDS_TRIMMED"
	IssueNucleotideSequenceGapsRemoved     = "NUCLEOTIDE_SEQUENCE_GAPS_REMOVED"
	IssueNucleotideSequenceInvalid         = "NUCLEOTIDE_SEQUENCE_INVALID"
	IssueNucleotideSequenceHighNFraction   = "NUCLEOTIDE_SEQUENCE_HIGH_N_FRACTION"
	IssueNucleotideSequenceHighAmbiguity   = "NUCLEOTIDE_SEQUENCE_HIGH_AMBIGUITY"
	IssueTargetGeneInvalid                 = "TARGET_GENE_INVALID"
	IssueDuplicateNucleotideSequences      = "DUPLICATE_NUCLEOTIDE_SEQUENCES_COLLAPSED"
)

// The fractions of N and of ambiguity codes over which a sequence is
// flagged: GBIF's pipelines' DnaConfig defaults, Java floats compared with
// doubles.
var (
	highNFraction = float64(float32(0.05))
	highAmbiguity = float64(float32(0.05))
)

// NucleotideSequence is one interpreted row of a record's DNA-derived data
// (GBIF's NucleotideSequence): the cleaned sequence with its figures
// (dnaseq; zero for a row without a dna_sequence) and its target gene.
type NucleotideSequence struct {
	dnaseq.Result
	// TargetGene is the concept of GBIF's TargetGene vocabulary the row's
	// target_gene names ("COI", "SSU_rRNA_18S_eukaryotic"); empty when the
	// row has none or the vocabulary does not know it.
	TargetGene string
	// Raw is the row's dna_sequence as published.
	Raw string
}

// dnaRow is what interpretation reads of a DNA-derived data row: its
// dna_sequence and its target_gene (the first of targetGeneTerms it has).
type dnaRow struct{ seq, gene string }

// conceptsTargetGene is GBIF's TargetGene vocabulary.
var conceptsTargetGene = newConceptVocabulary("TargetGene", nil)

// TargetGeneConcept returns the TargetGene concept a target_gene value
// names, as GBIF's vocabulary lookup finds it.
func TargetGeneConcept(value string) (string, bool) { return conceptsTargetGene.lookup(value) }

// interpretDNA interprets DNA-derived data rows as GBIF's pipelines'
// DnaDerivedDataInterpreter does: each dna_sequence cleaned
// (dnaseq.Clean), each target_gene looked up in GBIF's vocabulary, rows
// with the same cleaned sequence and target gene once (the first kept).
// With flag not nil, it flags the issues those steps raise (ingest; a
// download has no use for them).
func interpretDNA(rows []dnaRow, flag func(issue string)) []NucleotideSequence {
	if len(rows) == 0 {
		return nil
	}
	if flag == nil {
		flag = func(string) {}
	}
	var out []NucleotideSequence
	seen := map[[2]string]bool{}
	for _, row := range rows {
		s := NucleotideSequence{Raw: row.seq}
		if row.seq != "" {
			s.Result = dnaseq.Clean(row.seq)
			sequenceIssues(s.Result, flag)
		}
		if row.gene != "" {
			var ok bool
			if s.TargetGene, ok = TargetGeneConcept(row.gene); !ok {
				flag(IssueTargetGeneInvalid)
			}
		}
		k := [2]string{s.ID, s.TargetGene}
		if seen[k] {
			flag(IssueDuplicateNucleotideSequences)
			continue
		}
		seen[k] = true
		out = append(out, s)
	}
	return out
}

// dnaRowOf reads a row's terms through value.
func dnaRowOf(value func(term string) string) dnaRow {
	r := dnaRow{seq: value(dnaSequenceTerm)}
	for _, t := range targetGeneTerms {
		if r.gene = value(t); r.gene != "" {
			break
		}
	}
	return r
}

// sequenceIssues flags the issues GBIF raises on a cleaned sequence.
func sequenceIssues(r dnaseq.Result, flag func(issue string)) {
	for _, c := range []struct {
		on    bool
		issue string
	}{
		{r.NaturalLanguage, IssueNucleotideSequenceNaturalLanguage},
		{r.EndsTrimmed, IssueNucleotideSequenceEndsTrimmed},
		{r.GapsOrWhitespaceRemoved, IssueNucleotideSequenceGapsRemoved},
		{r.Invalid, IssueNucleotideSequenceInvalid},
		{r.Length > 0 && r.NFraction > highNFraction, IssueNucleotideSequenceHighNFraction},
		{r.Length > 0 && r.NonACGTNFraction > highAmbiguity, IssueNucleotideSequenceHighAmbiguity},
	} {
		if c.on {
			flag(c.issue)
		}
	}
}

// NucleotideSequences interprets the DNA-derived data rows of a record's
// extensions (the extensions column's JSON) as ingest does (interpretDNA).
// Invalid sequences and rows without one are kept, with no sequence. A
// sequence may share memory with extensions (dnaseq.Clean): keep it past
// extensions' life only as a copy.
func NucleotideSequences(extensions string) []NucleotideSequence {
	if extensions == "" {
		return nil
	}
	rows := gjson.Get(extensions, gjson.Escape(RowTypeDNADerivedData))
	if !rows.IsArray() {
		return nil
	}
	list := rows.Array()
	// Each row's members are read once (a Get per term would scan the row
	// each time), by the terms' stored keys.
	dna := make([]dnaRow, len(list))
	for i, row := range list {
		var vals [1 + len(targetGeneTerms)]string // dna_sequence, then targetGeneTerms
		row.ForEach(func(k, v gjson.Result) bool {
			if slot, ok := dnaKeySlots[k.Str]; ok {
				vals[slot] = v.String()
			}
			return true
		})
		dna[i] = dnaRowOf(func(term string) string { return vals[dnaTermSlots[term]] })
	}
	return interpretDNA(dna, nil)
}

// dnaTermSlots number the terms interpretation reads (dna_sequence 0, then
// targetGeneTerms), dnaKeySlots the same by their keys in the extensions
// column (VerbatimKey).
var dnaTermSlots, dnaKeySlots = func() (terms, keys map[string]int) {
	terms, keys = map[string]int{}, map[string]int{}
	for i, t := range append([]string{dnaSequenceTerm}, targetGeneTerms[:]...) {
		terms[t], keys[VerbatimKey(t)] = i, i
	}
	return terms, keys
}()

// dna sets a record's sequence identifiers (of the raw and of the cleaned
// sequences) and target genes from its
// DNA-derived data, and flags the issues interpreting them raises.
func (in *interpreter) dna(rows []Terms) {
	dna := make([]dnaRow, len(rows))
	for i, r := range rows {
		dna[i] = dnaRowOf(func(term string) string { return r[term] })
	}
	seqs := interpretDNA(dna, in.flag)
	var ids, genes, cleaned []string
	for _, s := range seqs {
		if s.ID != "" {
			cleaned = appendUnique(cleaned, s.ID)
		}
		switch {
		case s.Raw == "":
		case s.Sequence == s.Raw:
			ids = appendUnique(ids, s.ID) // upper-case IUPAC letters only: the same MD5
		default:
			ids = appendUnique(ids, dnaseq.RawID(s.Raw))
		}
		if s.TargetGene != "" {
			genes = appendUnique(genes, s.TargetGene)
		}
	}
	in.setList(iDNASequenceID, ids)
	in.setList(iTargetGene, genes)
	in.setList(iNucleotideSequenceID, cleaned)
	in.setSequenceFigures(seqs)
}

var (
	iDNASequenceID = mustIndex(ColDNASequenceID)
	iTargetGene    = mustIndex(ColTargetGene)

	iNucleotideSequenceID = mustIndex(ColNucleotideSequenceID)
)

// normSequence normalizes a NUCLEOTIDE_SEQUENCE_SEQUENCE value: upper
// case, as GBIF compares sequences ignoring case. A value no cleaned
// sequence can equal (a gap, whitespace, U, a letter that is no IUPAC
// code) is refused, where GBIF's search answers it with no records.
func normSequence(v string) (string, error) {
	u := strings.ToUpper(strings.TrimSpace(v))
	for pos, r := range []rune(u) {
		if !strings.ContainsRune(cleanedCodes, r) {
			return "", fmt.Errorf("%q at position %d: a cleaned sequence holds only the IUPAC codes %s (no gaps, whitespace or U)", string(r), pos+1, cleanedCodes)
		}
	}
	return u, nil
}

// cleanedCodes are the letters a cleaned sequence may hold.
const cleanedCodes = "ACGTRYSWKMBDHVN"
