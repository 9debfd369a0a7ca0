package occurrence

import (
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
	targetGeneTerms = []string{"https://w3id.org/mixs/0000044", "https://w3id.org/mixs/target_gene", "http://gensc.org/ns/mixs/target_gene"}
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
	// DNASequenceID is GBIF's dnaSequenceID of the raw sequence
	// (dnaseq.RawID); empty for a row without one.
	DNASequenceID string
}

// conceptsTargetGene is GBIF's TargetGene vocabulary.
var conceptsTargetGene = newConceptVocabulary("TargetGene", nil)

// TargetGeneConcept returns the TargetGene concept a target_gene value
// names, as GBIF's vocabulary lookup finds it.
func TargetGeneConcept(value string) (string, bool) { return conceptsTargetGene.lookup(value) }

// interpretDNA interprets n DNA-derived data rows, value giving a row's
// value of a term, as GBIF's pipelines' DnaDerivedDataInterpreter does:
// each dna_sequence cleaned (dnaseq.Clean), each target_gene looked up in
// GBIF's vocabulary, rows with the same cleaned sequence and target gene
// once (the first kept), and the issues those steps raise.
func interpretDNA(n int, value func(row int, term string) string) (out []NucleotideSequence, issues []string) {
	if n == 0 {
		return nil, nil
	}
	seen := map[[2]string]bool{}
	for i := range n {
		var s NucleotideSequence
		if raw := value(i, dnaSequenceTerm); raw != "" {
			s.Result = dnaseq.Clean(raw)
			if s.Sequence == raw {
				s.DNASequenceID = s.ID // upper-case IUPAC letters only: the same MD5
			} else {
				s.DNASequenceID = dnaseq.RawID(raw)
			}
			for _, is := range sequenceIssues(s.Result) {
				issues = appendUnique(issues, is)
			}
		}
		for _, t := range targetGeneTerms {
			if v := value(i, t); v != "" {
				var ok bool
				if s.TargetGene, ok = TargetGeneConcept(v); !ok {
					issues = appendUnique(issues, IssueTargetGeneInvalid)
				}
				break
			}
		}
		k := [2]string{s.ID, s.TargetGene}
		if seen[k] {
			issues = appendUnique(issues, IssueDuplicateNucleotideSequences)
			continue
		}
		seen[k] = true
		out = append(out, s)
	}
	return out, issues
}

// sequenceIssues are the issues GBIF flags on a cleaned sequence.
func sequenceIssues(r dnaseq.Result) []string {
	var out []string
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
			out = append(out, c.issue)
		}
	}
	return out
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
	vals := make([]map[string]string, len(list))
	for i, row := range list {
		row.ForEach(func(k, v gjson.Result) bool {
			if t, ok := dnaKeyTerms[k.Str]; ok {
				if vals[i] == nil {
					vals[i] = make(map[string]string, 2)
				}
				vals[i][t] = v.String()
			}
			return true
		})
	}
	out, _ := interpretDNA(len(list), func(i int, term string) string { return vals[i][term] })
	return out
}

// dnaKeyTerms are the terms interpretation reads by their keys in the
// extensions column (VerbatimKey).
var dnaKeyTerms = func() map[string]string {
	m := map[string]string{VerbatimKey(dnaSequenceTerm): dnaSequenceTerm}
	for _, t := range targetGeneTerms {
		m[VerbatimKey(t)] = t
	}
	return m
}()

// dna sets a record's sequence identifiers and target genes from its
// DNA-derived data, and flags the issues interpreting them raises.
func (in *interpreter) dna(rows []Terms) {
	seqs, issues := interpretDNA(len(rows), func(i int, term string) string { return rows[i][term] })
	for _, is := range issues {
		in.flag(is)
	}
	var ids, genes []string
	for _, s := range seqs {
		if s.DNASequenceID != "" {
			ids = appendUnique(ids, s.DNASequenceID)
		}
		if s.TargetGene != "" {
			genes = appendUnique(genes, s.TargetGene)
		}
	}
	if len(ids) > 0 {
		in.r.SetString(iDNASequenceID, strings.Join(ids, ";"))
	}
	if len(genes) > 0 {
		in.r.SetString(iTargetGene, strings.Join(genes, ";"))
	}
}

var (
	iDNASequenceID = mustIndex(ColDNASequenceID)
	iTargetGene    = mustIndex(ColTargetGene)
)
