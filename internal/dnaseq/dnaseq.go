// Package dnaseq cleans a published DNA sequence and measures it as GBIF's
// sequence processor (org.gbif.dna.core.SequenceProcessor, which GBIF's
// pipelines run on every dna_sequence of the DNA-derived data extension)
// does, so that FASTA downloads hold the sequences, identifiers and
// quality figures GBIF's hold. Written by hand: the processor is a Java
// library with no Go counterpart, and its steps are a dozen string scans.
//
// The steps, in GBIF's order, on the raw value:
//
//  1. remove whitespace (space, tab, line breaks, vertical tab, form feed)
//     and upper-case;
//  2. note "UNMERGED" (natural language: the value is not a sequence);
//  3. remove gaps ("-" and ".");
//  4. U becomes T (RNA to DNA) and "?" becomes N;
//  5. cut everything before the first run of at least 8 of A, C, G, T and
//     after the last such run (no run at all: nothing is left);
//  6. shorten every run of 6 or more N to 5.
//
// What is left is the cleaned sequence. It is invalid if it holds a
// character outside IUPAC's nucleotide codes (ACGTRYSWKMBDHVN) or step 2
// found natural language; an invalid sequence has no cleaned text and no
// identifier. The identifier is the hex MD5 of the cleaned text.
package dnaseq

import (
	"crypto/md5"
	"encoding/hex"
	"strings"
)

// Result is a cleaned sequence with the figures GBIF publishes beside it
// (sequences.txt of a FASTA download).
type Result struct {
	// Sequence is the cleaned sequence; empty if it is invalid or if
	// cleaning left nothing.
	Sequence string
	// ID is the hex MD5 of the cleaned sequence (GBIF's
	// nucleotideSequenceID); empty when Sequence is.
	ID string
	// Length is the cleaned sequence's length, counted before the
	// validity check (an invalid sequence has one too).
	Length int
	// The fractions of the cleaned sequence's characters that are N, not
	// one of ACGTN, and not an IUPAC code; defined when Length > 0.
	NFraction, NonACGTNFraction, NonIUPACFraction float64
	// GCContent is G and C over A, C, G and T; defined when HasGC.
	GCContent float64
	HasGC     bool
	// NRunsCapped counts the runs of N that were shortened.
	NRunsCapped int
	// NaturalLanguage: the value says UNMERGED.
	NaturalLanguage bool
	// EndsTrimmed: text before the first or after the last anchor run was
	// cut, or the whole value was (no anchor run).
	EndsTrimmed bool
	// GapsOrWhitespaceRemoved: the raw value held whitespace, "-" or ".".
	GapsOrWhitespaceRemoved bool
	// Invalid: a character outside IUPAC's codes, or natural language.
	Invalid bool
}

// The processor's settings (GBIF's defaults).
const (
	anchorMinRun = 8 // the shortest run of anchor characters
	nRunCapFrom  = 6 // runs of N this long or longer are capped
	nRunCapTo    = 5 // to this many N
	// naturalLanguage is what marks a value as not a sequence.
	naturalLanguage = "UNMERGED"
)

// Clean cleans and measures one raw sequence. A sequence cleaning leaves
// as it is (upper-case A, C, G and T only, 8 or more) is returned as
// Sequence itself, sharing its memory.
func Clean(raw string) Result {
	if r, ok := cleanPlain(raw); ok {
		return r
	}
	return cleanSteps(raw)
}

// cleanSteps cleans raw step by step.
func cleanSteps(raw string) Result {
	var r Result
	s, ws := upperWithoutSpace(raw)
	r.NaturalLanguage = strings.Contains(s, naturalLanguage)
	s, gaps := mapBases(s)
	r.GapsOrWhitespaceRemoved = ws || gaps
	s, r.EndsTrimmed = trimToAnchors(s)
	s, r.NRunsCapped = capNRuns(s)
	r.Length = len(s)
	r.measure(s)
	r.Invalid = r.NonIUPACFraction > 0 || r.NaturalLanguage
	if !r.Invalid && s != "" {
		r.Sequence, r.ID = s, md5Hex([]byte(s))
	}
	return r
}

// cleanPlain measures raw in one pass when it is what most published reads
// are, upper-case A, C, G and T only and at least an anchor run long: then
// every step leaves it as it is. The pass has no branch on the bases
// (random bases would defeat branch prediction): plainClass gives each
// byte bit 0 when it is a base, bit 1 when it is G or C.
func cleanPlain(raw string) (Result, bool) {
	if len(raw) < anchorMinRun {
		return Result{}, false
	}
	valid, gc := uint8(1), 0
	for i := 0; i < len(raw); i++ {
		c := plainClass[raw[i]]
		valid &= c
		gc += int(c >> 1)
	}
	if valid == 0 {
		return Result{}, false
	}
	return Result{Sequence: raw, ID: md5Hex([]byte(raw)), Length: len(raw),
		GCContent: float64(gc) / float64(len(raw)), HasGC: true}, true
}

// plainClass: bit 0 for A, C, G and T, bit 1 for G and C.
var plainClass = [256]uint8{'A': 1, 'T': 1, 'G': 3, 'C': 3}

// upperWithoutSpace drops Java's \s characters and upper-cases the rest as
// Java's String.toUpperCase does: with full case mappings, so ß becomes
// SS and the ﬅ and ﬆ ligatures ST (Go's simple mappings keep them).
func upperWithoutSpace(raw string) (string, bool) {
	var b strings.Builder
	b.Grow(len(raw))
	ws := false
	for _, c := range raw {
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			ws = true
		case c >= 'a' && c <= 'z':
			b.WriteByte(byte(c) - 'a' + 'A')
		case c < 0x80:
			b.WriteByte(byte(c))
		case c == 'ß':
			b.WriteString("SS")
		case c == 'ﬅ' || c == 'ﬆ':
			b.WriteString("ST")
		default:
			b.WriteString(strings.ToUpper(string(c)))
		}
	}
	return b.String(), ws
}

// mapBases removes gaps, turns U into T and ? into N, and says whether it
// removed a gap.
func mapBases(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	gaps := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '-', '.':
			gaps = true
		case 'U':
			b = append(b, 'T')
		case '?':
			b = append(b, 'N')
		default:
			b = append(b, c)
		}
	}
	return string(b), gaps
}

// isAnchor reports whether c may start or end a cleaned sequence: A, C,
// G or T (GBIF's anchors also name U, which mapBases has turned into T).
func isAnchor(c byte) bool { return plainClass[c]&1 != 0 }

// trimToAnchors keeps s from the start of its first run of anchorMinRun or
// more anchor characters to the end of its last; with no such run it
// keeps nothing. It says whether it cut anything.
func trimToAnchors(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	first, last := -1, -1
	for i := 0; i < len(s); {
		if !isAnchor(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isAnchor(s[j]) {
			j++
		}
		if j-i >= anchorMinRun {
			if first < 0 {
				first = i
			}
			last = j
		}
		i = j
	}
	if first < 0 {
		return "", true
	}
	return s[first:last], first > 0 || last < len(s)
}

// capNRuns shortens every run of nRunCapFrom or more N to nRunCapTo, and
// counts them.
func capNRuns(s string) (string, int) {
	if !strings.Contains(s, strings.Repeat("N", nRunCapFrom)) {
		return s, 0
	}
	b := make([]byte, 0, len(s))
	n := 0
	for i := 0; i < len(s); {
		if s[i] != 'N' {
			b = append(b, s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == 'N' {
			j++
		}
		if j-i >= nRunCapFrom {
			b = append(b, strings.Repeat("N", nRunCapTo)...)
			n++
		} else {
			b = append(b, s[i:j]...)
		}
		i = j
	}
	return string(b), n
}

// iupac marks IUPAC's nucleotide codes (without U, which cleaning removed).
var iupac = func() (t [256]bool) {
	for _, c := range []byte("ACGTRYSWKMBDHVN") {
		t[c] = true
	}
	return t
}()

// measure sets the fractions and the GC content of the cleaned s. A
// character outside ASCII counts once per byte: it makes the sequence
// invalid either way.
func (r *Result) measure(s string) {
	var n, nonACGTN, nonIUPAC, gc, acgt int
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case 'N':
			n++
		case 'G', 'C':
			gc++
			acgt++
		case 'A', 'T':
			acgt++
		default:
			nonACGTN++
			if !iupac[c] {
				nonIUPAC++
			}
		}
	}
	if l := float64(len(s)); l > 0 {
		r.NFraction, r.NonACGTNFraction, r.NonIUPACFraction = float64(n)/l, float64(nonACGTN)/l, float64(nonIUPAC)/l
	}
	if acgt > 0 {
		r.GCContent, r.HasGC = float64(gc)/float64(acgt), true
	}
}

// RawID is GBIF's dnaSequenceID of a raw sequence (gbif-api's
// DnaUtils.convertDnaSequenceToID): the hex MD5 of its IUPAC letters (U
// included) once upper-cased, everything else dropped; empty for an empty
// value.
func RawID(raw string) string {
	if raw == "" {
		return ""
	}
	up, _ := upperWithoutSpace(raw)
	b := make([]byte, 0, len(up))
	for i := 0; i < len(up); i++ {
		if c := up[i]; iupac[c] || c == 'U' {
			b = append(b, c)
		}
	}
	return md5Hex(b)
}

// SequenceID is the nucleotideSequenceID of a cleaned sequence: its hex
// MD5, as Clean gives it.
func SequenceID(seq string) string { return md5Hex([]byte(seq)) }

// md5Hex is the hex MD5 of b, GBIF's sequence identifiers.
func md5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}
