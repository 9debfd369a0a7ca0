package download

import (
	"fmt"
	"strings"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// dnaFile is the interpreted DNA-derived data of a DWCA (GBIF's
// interpretedExtensions DNA_DERIVED_DATA, dnaderiveddata.txt): one row per
// interpreted sequence of each record (occurrence.NucleotideSequences:
// repeats once), gbifID, the target gene's TargetGene concept and the
// cleaned sequence (empty when it is invalid), under GBIF's header
// (TermUtils.dnaTerms' simple names).
const dnaFile = "dnaderiveddata.txt"

// dnaTerms are dnaderiveddata.txt's columns.
var dnaTerms = []string{occurrence.NSGBIF + "gbifID", "https://w3id.org/mixs/0000044", "http://rs.gbif.org/terms/dna_sequence"}

// CheckInterpretedExtensions checks a request's interpretedExtensions: GBIF
// serves DNA_DERIVED_DATA for occurrence downloads (HUMBOLDT and OCCURRENCE
// are for event downloads), in a DWCA or a FASTA archive. It returns
// whether the DNA-derived data file is asked for.
func CheckInterpretedExtensions(names []string, f Format) (bool, error) {
	dna := false
	for _, n := range names {
		e, err := LookupExtension(n)
		if err != nil {
			return false, err
		}
		if e.RowType != occurrence.RowTypeDNADerivedData {
			return false, fmt.Errorf("%w: interpreted extension %s: an occurrence download interprets %s only (GBIF's others are for event downloads)", ErrFormat, e.Name, "DNA_DERIVED_DATA")
		}
		dna = true
	}
	if info, err := f.Info(); dna && (err != nil || !info.Extensions) {
		return false, fmt.Errorf("%w: interpreted extensions come in %s, not %s", ErrFormat, strings.Join(ExtensionFormats(), " or "), f)
	}
	return dna, nil
}

// openDNA adds dnaderiveddata.txt to the archive, with its header.
func (d *dwcaWriter) openDNA() error {
	w, err := d.aw.Extension(dwca.TextFile(occurrence.RowTypeDNADerivedData, dnaFile, dnaTerms, 0))
	if err != nil {
		return err
	}
	d.dna = dwca.NewExclusiveTextWriter(w)
	return d.dna.WriteRow([]string{"gbifID", "target_gene", "dna_sequence"})
}

// writeDNA writes one record's interpreted sequences, its extensions
// being js.
func (d *dwcaWriter) writeDNA(id cellFn, i int, js string) error {
	seqs := occurrence.NucleotideSequences(js)
	if len(seqs) == 0 {
		return nil
	}
	buf := d.dna.Rows()
	for _, s := range seqs {
		buf = append(id(buf, i), '\t')
		buf = append(append(buf, s.TargetGene...), '\t')
		buf = append(append(buf, s.Sequence...), '\n')
	}
	_, err := d.dna.SetRows(buf)
	return err
}

// hasDNA says whether the archive carries dnaderiveddata.txt.
func (d *dwcaWriter) hasDNA() bool { return d.dna != nil }
