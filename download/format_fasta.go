package download

import (
	"bufio"
	"context"
	"slices"
	"strconv"

	"github.com/biodiversity-downloads/downloader/dwca"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// FormatFastaArchive is GBIF's FASTA archive: a DWCA of the records with a
// usable DNA sequence, with their sequences in FASTA.
const FormatFastaArchive Format = "FASTA_ARCHIVE"

func init() {
	register(FormatInfo{
		Name:        FormatFastaArchive,
		Description: "FASTA archive: a Darwin Core Archive of the records with a usable DNA sequence, with their DNA-derived data, sequences.fasta and each sequence's figures in sequences.txt",
		Extension:   ".zip", ContentType: "application/zip", Dictionaries: true, Extensions: true,
		ImpliedExtensions: []string{"DNA_DERIVED_DATA"},
		BytesPerRecord:    115, CompressionRatio: 10.5, Order: 10,
		open: newFastaWriter,
		// Records that may have a sequence: isSequenced not false (a table
		// loaded before the column existed reads it as null and keeps
		// its records).
		narrowing: &occurrence.Predicate{Type: occurrence.TypeNot,
			Predicate: &occurrence.Predicate{Type: occurrence.TypeEquals, Key: "IS_SEQUENCED", Value: "false"}},
	})
}

// sequencesHeader is sequences.txt's header: GBIF's sequence terms
// (TermUtils.sequenceTerms) by simple name, without "nucleotide_".
var sequencesHeader = []string{"gbifID", "nucleotideSequenceID", "target_gene", "sequenceLength", "gcContent",
	"nonIupacFraction", "nonACGTNFraction", "nFraction", "nRunsCapped", "naturalLanguageDetected",
	"endsTrimmed", "gapsOrWhitespaceRemoved", "invalid"}

// fastaWriter writes GBIF's FASTA_ARCHIVE (gbif/occurrence's FASTA
// download): a DWCA whose records are those of the predicate with at least
// one usable sequence in their DNA-derived data, with the DNA-derived
// data's verbatim rows always included (verbatim/dnaderiveddata.txt), and
// two more entries that meta.xml does not describe:
//
//   - sequences.fasta: each usable sequence of each record as
//     ">nucleotideSequenceID|gbifID|targetGene" and the cleaned sequence;
//   - sequences.txt: the same sequences' figures, one row each, under
//     sequencesHeader.
//
// The sequences are interpreted as GBIF's pipelines interpret them
// (occurrence.NucleotideSequences): cleaned, identified by the MD5 of the
// cleaned sequence, the target gene aligned to GBIF's TargetGene
// vocabulary, a record's repeats of the same sequence and gene once. A
// usable sequence is a valid one that cleaning did not empty (GBIF keeps
// an emptied one, which makes a FASTA entry without a sequence). Each
// record is written once, however many sequences it has.
type fastaWriter struct {
	*dwcaWriter
	fasta *bufio.Writer
	seqs  *dwca.TextWriter
	// seqsOf are the usable sequences of the current batch's rows.
	seqsOf [][]occurrence.NucleotideSequence
	kept   []bool
	cell   []byte
}

func newFastaWriter(ctx context.Context, x *Export) (formatWriter, error) {
	// A copy: the caller's slice is not written. resolveExtensions drops a repeat.
	x.spec.VerbatimExtensions = append(slices.Clone(x.spec.VerbatimExtensions), x.format.ImpliedExtensions...)
	fw, err := newDWCAWriter(ctx, x)
	if err != nil {
		return nil, err
	}
	f := &fastaWriter{dwcaWriter: fw.(*dwcaWriter)}
	fasta, err := f.aw.Spooled("sequences.fasta")
	if err != nil {
		f.abort()
		return nil, err
	}
	seqs, err := f.aw.Spooled("sequences.txt")
	if err != nil {
		f.abort()
		return nil, err
	}
	f.fasta = bufio.NewWriterSize(fasta, 64<<10)
	f.seqs = dwca.NewExclusiveTextWriter(seqs)
	f.seqs.WriteRow(sequencesHeader)
	return f, nil
}

// selectRows keeps the records with a usable sequence. The records are
// interpreted on two goroutines (shareRows).
func (f *fastaWriter) selectRows(b *batch) ([]bool, error) {
	ext := b.col(occurrence.ColExtensions)
	f.kept = append(f.kept[:0], make([]bool, b.n)...)
	f.seqsOf = append(f.seqsOf[:0], make([][]occurrence.NucleotideSequence, b.n)...)
	shareRows(b.n, func(from, to int) {
		for i := from; i < to; i++ {
			var usable []occurrence.NucleotideSequence
			for _, s := range occurrence.NucleotideSequences(str(ext, i)) {
				if s.Sequence != "" {
					usable = append(usable, s)
				}
			}
			f.seqsOf[i], f.kept[i] = usable, len(usable) > 0
		}
	})
	return f.kept, nil
}

// write writes the kept records' DWCA rows, a run of consecutive kept rows
// at a time (slices of the batch, not copies), and their sequences.
func (f *fastaWriter) write(b *batch) error {
	for i := 0; i < b.n; {
		if !f.kept[i] {
			i++
			continue
		}
		j := i
		for j < b.n && f.kept[j] {
			j++
		}
		run := b.rec.NewSlice(int64(i), int64(j))
		err := f.dwcaWriter.write(newBatch(run))
		run.Release()
		if err != nil {
			return err
		}
		i = j
	}
	id, err := cleanCellFor(b.col(occurrence.ColGBIFID))
	if err != nil {
		return err
	}
	for i, seqs := range f.seqsOf {
		if len(seqs) == 0 {
			continue
		}
		f.cell = id(f.cell[:0], i)
		for _, s := range seqs {
			if err := f.writeSequence(f.cell, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeSequence writes one sequence's FASTA entry and sequences.txt row
// (every value is ASCII without tabs or line breaks: nothing to clean).
func (f *fastaWriter) writeSequence(gbifID []byte, s occurrence.NucleotideSequence) error {
	f.fasta.WriteByte('>')
	f.fasta.WriteString(s.ID)
	f.fasta.WriteByte('|')
	f.fasta.Write(gbifID)
	f.fasta.WriteByte('|')
	f.fasta.WriteString(s.TargetGene)
	f.fasta.WriteByte('\n')
	f.fasta.WriteString(s.Sequence)
	if err := f.fasta.WriteByte('\n'); err != nil {
		return err
	}
	b := append(f.seqs.Rows(), gbifID...)
	b = append(append(append(b, '\t'), s.ID...), '\t')
	b = append(append(b, s.TargetGene...), '\t')
	b = append(strconv.AppendInt(b, int64(s.Length), 10), '\t')
	if s.HasGC {
		b = appendFloat(b, s.GCContent)
	}
	for _, v := range []float64{s.NonIUPACFraction, s.NonACGTNFraction, s.NFraction} {
		b = appendFloat(append(b, '\t'), v)
	}
	b = strconv.AppendInt(append(b, '\t'), int64(s.NRunsCapped), 10)
	for _, v := range []bool{s.NaturalLanguage, s.EndsTrimmed, s.GapsOrWhitespaceRemoved, s.Invalid} {
		b = strconv.AppendBool(append(b, '\t'), v)
	}
	_, err := f.seqs.SetRows(append(b, '\n'))
	return err
}

func (f *fastaWriter) finish(ctx context.Context, res ExportResult, infos []occurrence.DatasetInfo) error {
	if err := f.fasta.Flush(); err != nil {
		return err
	}
	if err := f.seqs.Flush(); err != nil {
		return err
	}
	return f.dwcaWriter.finish(ctx, res, infos)
}
