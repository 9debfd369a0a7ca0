package occurrence

import (
	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/internal/dnaseq"
)

// RowTypeDNADerivedData is the DNA-derived data extension's row type.
const RowTypeDNADerivedData = "http://rs.gbif.org/terms/1.0/DNADerivedData"

// The DNA-derived data terms interpretation reads: GBIF's dna_sequence and
// MIxS's target_gene, under the URIs publishers' archives use for it.
var (
	dnaSequenceKey  = VerbatimKey("http://rs.gbif.org/terms/dna_sequence")
	targetGeneTerms = []string{"https://w3id.org/mixs/0000044", "https://w3id.org/mixs/target_gene", "http://gensc.org/ns/mixs/target_gene"}
)

// NucleotideSequence is one interpreted sequence of a record's DNA-derived
// data (GBIF's NucleotideSequence): the cleaned sequence with its figures
// (dnaseq) and its target gene.
type NucleotideSequence struct {
	dnaseq.Result
	// TargetGene is the concept of GBIF's TargetGene vocabulary the row's
	// target_gene names ("COI", "SSU_rRNA_18S_eukaryotic"); empty when the
	// row has none or the vocabulary does not know it.
	TargetGene string
}

// conceptsTargetGene is GBIF's TargetGene vocabulary.
var conceptsTargetGene = newConceptVocabulary("TargetGene", nil)

// TargetGeneConcept returns the TargetGene concept a target_gene value
// names, as GBIF's vocabulary lookup finds it.
func TargetGeneConcept(value string) (string, bool) { return conceptsTargetGene.lookup(value) }

// NucleotideSequences interprets the DNA-derived data rows of a record's
// extensions (the extensions column's JSON) as GBIF's pipelines'
// DnaDerivedDataInterpreter does: each row with a dna_sequence is cleaned
// (dnaseq.Clean) and its target_gene looked up in GBIF's vocabulary; rows
// with the same cleaned sequence and target gene count once, the first
// kept. Invalid sequences are kept, with no sequence.
func NucleotideSequences(extensions string) []NucleotideSequence {
	if extensions == "" {
		return nil
	}
	rows := gjson.Get(extensions, gjson.Escape(RowTypeDNADerivedData))
	if !rows.IsArray() {
		return nil
	}
	var out []NucleotideSequence
	seen := map[[2]string]bool{}
	rows.ForEach(func(_, row gjson.Result) bool {
		raw := row.Get(gjson.Escape(dnaSequenceKey)).String()
		if raw == "" {
			return true
		}
		s := NucleotideSequence{Result: dnaseq.Clean(raw)}
		for _, t := range targetGeneTerms {
			if v := row.Get(gjson.Escape(VerbatimKey(t))).String(); v != "" {
				s.TargetGene, _ = TargetGeneConcept(v)
				break
			}
		}
		if k := [2]string{s.ID, s.TargetGene}; !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
		return true
	})
	return out
}
