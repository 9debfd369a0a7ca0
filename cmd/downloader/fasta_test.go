package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/dnaseq"
	"github.com/biodiversity-downloads/downloader/internal/readers"
)

// TestFastaArchiveOfAnEDNADataset ingests an eDNA archive (testdata/edna:
// six ASV records of two lake sites, their DNA-derived data with a clean
// 12S read, a read in lower case with gaps, whitespace and a run of N
// repeated as the cleaned read under another name of the same gene, an
// UNMERGED note, an RNA COI read behind primer junk, an 18S read and an
// invalid one; one record without DNA) and downloads it as FASTA_ARCHIVE.
// Biopython reads the sequences and python-dwca-reader the archive: the
// four records with a usable sequence, each once, with their six
// DNA-derived rows; four sequences, each named by its MD5, its record's
// gbifID and the gene's concept in GBIF's TargetGene vocabulary.
func TestFastaArchiveOfAnEDNADataset(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "table")
	runCmd(t, "ingest", "--table", table, "testdata/edna") // an unzipped archive, as ingest takes it
	// Ingest flags the DNA-derived data's issues as GBIF's pipelines do:
	// the UNMERGED note and the read with a J are invalid, the repeated
	// read was collapsed and has 5 N in 82; three had whitespace or gaps.
	checkCounts(t, table, map[string]string{"issue=NUCLEOTIDE_SEQUENCE_INVALID": "2",
		"issue=DUPLICATE_NUCLEOTIDE_SEQUENCES_COLLAPSED": "1", "issue=NUCLEOTIDE_SEQUENCE_HIGH_N_FRACTION": "1",
		"issue=NUCLEOTIDE_SEQUENCE_GAPS_REMOVED": "3"})
	// The target genes and sequence identifiers are columns: GBIF's
	// NUCLEOTIDE_SEQUENCE_TARGET_GENE takes a gene by any of its names and
	// its broader concepts (SSU_rRNA: the 12S and 18S reads), DNA_SEQUENCE_ID
	// the MD5 of a raw read's IUPAC letters.
	asv1 := "CACCGCGGTTATACGAGAGGCCCAAGTTGACAGACACCGGCGTAAAGAGTGGTTATGGAAAATAAAACTAAAGCCGAACACCTTCAAGGCCGTTATACG"
	cleanedRead := "caccgcggttatacgagaggcccaagttgacagacaccggcgtaaagnnnnntggttatggaaaataaaactaaagccgaac"
	checkCounts(t, table, map[string]string{"NUCLEOTIDE_SEQUENCE_TARGET_GENE=MT-RNR1": "3", "NUCLEOTIDE_SEQUENCE_TARGET_GENE=COX1": "1",
		"NUCLEOTIDE_SEQUENCE_TARGET_GENE=SSU_rRNA": "4", "DNA_SEQUENCE_ID=" + dnaseq.RawID(asv1): "1",
		// A cleaned sequence by its identifier, or by itself in any case;
		// the lower-case read with gaps and an N run is found by what
		// cleaning made of it, as is its repeat.
		"NUCLEOTIDE_SEQUENCE_NUCLEOTIDE_SEQUENCE_ID=" + dnaseq.SequenceID(asv1): "1",
		"NUCLEOTIDE_SEQUENCE_SEQUENCE=" + strings.ToLower(asv1):                 "1",
		"NUCLEOTIDE_SEQUENCE_SEQUENCE=" + asv1[:40]:                             "0",
		"NUCLEOTIDE_SEQUENCE_SEQUENCE=" + cleanedRead:                           "1",
		// A record matches a figure when one of its sequences does: the
		// 18S record has a valid and an invalid read.
		"NUCLEOTIDE_SEQUENCE_INVALID=true": "2", "NUCLEOTIDE_SEQUENCE_INVALID=false": "4",
		"nucleotideSequenceNaturalLanguageDetected=true": "1", "nucleotideSequenceSequenceLength=100,*": "1",
		"nucleotideSequenceGcContent=0.45,0.49": "3", "nucleotideSequenceNRunsCapped=1": "1"})
	coi := filepath.Join(dir, "coi.zip")
	runCmd(t, "export", "--table", table, "--format", "FASTA_ARCHIVE", "--query", "NUCLEOTIDE_SEQUENCE_TARGET_GENE=COI", "-o", coi)
	if n := zipLines(t, coi)["occurrence.txt"]; n != 1 {
		t.Errorf("FASTA_ARCHIVE of COI: %d records, want 1", n)
	}
	if c := string(zipEntry(t, coi, "citations.txt")); !strings.Contains(c, "FASTA Archive Download of COI sequences. ") {
		t.Errorf("citations.txt:\n%s", c)
	}
	// A DWCA may carry the interpreted DNA-derived data: one row per
	// sequence of every record, the repeat once, invalid ones without a
	// sequence.
	dw := filepath.Join(dir, "dwca.zip")
	runCmd(t, "export", "--table", table, "--format", "DWCA", "--interpreted-extensions", "DNA_DERIVED_DATA", "-o", dw)
	dna := string(zipEntry(t, dw, "dnaderiveddata.txt"))
	if n := strings.Count(dna, "\n"); n != 7 || !strings.HasPrefix(dna, "gbifID\ttarget_gene\tdna_sequence\n") || strings.Count(dna, "\t\n") != 2 {
		t.Errorf("dnaderiveddata.txt (%d lines, want a header, 6 rows, 2 without a sequence):\n%s", n, dna)
	}
	path := filepath.Join(dir, "fasta.zip")
	runCmd(t, "export", "--table", table, "--format", "FASTA_ARCHIVE", "-o", path)
	lines := zipLines(t, path)
	if lines["occurrence.txt"] != 4 || lines["verbatim/dnaderiveddata.txt"] != 6 || lines["sequences.txt"] != 4 {
		t.Errorf("rows: occurrence.txt %d, verbatim/dnaderiveddata.txt %d, sequences.txt %d; want 4, 6, 4",
			lines["occurrence.txt"], lines["verbatim/dnaderiveddata.txt"], lines["sequences.txt"])
	}

	readers.RequirePython(t, "dwca", "Bio")
	out := readers.Python(t, time.Minute, mustRead(t, "testdata/fidelity/fasta_read.py"), path)
	t.Logf("Biopython and python-dwca-reader:\n%s", out)
	var genes []string
	byRecord := map[string]string{} // gbifID -> occurrenceID
	var fastaIDs []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		switch f[0] {
		case "fasta":
			fastaIDs = append(fastaIDs, f[1])
			genes = append(genes, f[2])
			if f[4] != "md5" || f[5] != "True" || strings.Trim(f[6], "ACGTRYSWKMBDHVN") != "" || strings.Contains(f[6], "NNNNNN") {
				t.Errorf("FASTA record %s", line)
			}
		case "record":
			byRecord[f[1]] = f[2]
		}
	}
	slices.Sort(genes)
	if want := []string{"COI", "SSU_rRNA_12S_mitochondrial", "SSU_rRNA_12S_mitochondrial", "SSU_rRNA_18S_eukaryotic"}; !slices.Equal(genes, want) {
		t.Errorf("genes %v, want %v", genes, want)
	}
	var occIDs []string
	for _, id := range fastaIDs {
		occIDs = append(occIDs, byRecord[id])
	}
	slices.Sort(occIDs)
	if want := []string{"edna-s1-asv1", "edna-s1-asv2", "edna-s2-asv1", "edna-s2-asv4"}; !slices.Equal(occIDs, want) || len(byRecord) != 4 {
		t.Errorf("FASTA records name the records %v (archive %v), want %v", occIDs, byRecord, want)
	}
	if !strings.Contains(out, "core 4") || strings.Count(out, " dna ") != 4 || !strings.Contains(out, "edna-s1-asv2 dna 2") {
		t.Errorf("python-dwca-reader:\n%s", out)
	}
}
