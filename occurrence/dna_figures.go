package occurrence

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/biodiversity-downloads/downloader/internal/dnaseq"
)

// The figures and flags GBIF's pipelines compute for each DNA-derived
// sequence (its dna table: length, GC content, the N, non-ACGTN and
// non-IUPAC fractions, N runs capped, and four flags), which GBIF's
// NUCLEOTIDE_SEQUENCE_* search parameters read. Each is a column of the
// record's values, one per sequence that has it, ";"-joined; a record
// matches a parameter when one of its sequences does. GBIF's download
// query joins the records to their sequences, so two such parameters
// ANDed must hold for one sequence there; here each may hold for another
// of the record's sequences.

// sequenceFigure is one figure: its GBIF parameter, its column, and its
// value for a sequence as the column holds it (ok false: the sequence has
// none).
type sequenceFigure struct {
	param, col string
	flag       bool // a boolean flag (true or false); else a number
	value      func(r dnaseq.Result) (v string, ok bool)
}

// numberFigure is a figure of every sequence whose has says it has one (nil:
// every sequence), written as the shortest decimal that reads back as it.
func numberFigure(f func(r dnaseq.Result) float64, has func(r dnaseq.Result) bool) func(r dnaseq.Result) (string, bool) {
	return func(r dnaseq.Result) (string, bool) {
		if has != nil && !has(r) {
			return "", false
		}
		return strconv.FormatFloat(f(r), 'g', -1, 64), true
	}
}

// flagFigure is a flag of every sequence.
func flagFigure(f func(r dnaseq.Result) bool) func(r dnaseq.Result) (string, bool) {
	return func(r dnaseq.Result) (string, bool) { return strconv.FormatBool(f(r)), true }
}

// hasLength: the fractions are defined for a sequence with a length.
func hasLength(r dnaseq.Result) bool { return r.Length > 0 }

// sequenceFigures are GBIF's per-sequence parameters, in
// OccurrenceSearchParameter's order.
var sequenceFigures = []sequenceFigure{
	{"NUCLEOTIDE_SEQUENCE_SEQUENCE_LENGTH", "nucleotideSequenceLength", false,
		numberFigure(func(r dnaseq.Result) float64 { return float64(r.Length) }, nil)},
	{"NUCLEOTIDE_SEQUENCE_GC_CONTENT", "nucleotideGCContent", false,
		numberFigure(func(r dnaseq.Result) float64 { return r.GCContent }, func(r dnaseq.Result) bool { return r.HasGC })},
	{"NUCLEOTIDE_SEQUENCE_NON_IUPAC_FRACTION", "nucleotideNonIupacFraction", false,
		numberFigure(func(r dnaseq.Result) float64 { return r.NonIUPACFraction }, hasLength)},
	{"NUCLEOTIDE_SEQUENCE_NON_ACGTN_FRACTION", "nucleotideNonACGTNFraction", false,
		numberFigure(func(r dnaseq.Result) float64 { return r.NonACGTNFraction }, hasLength)},
	{"NUCLEOTIDE_SEQUENCE_N_FRACTION", "nucleotideNFraction", false,
		numberFigure(func(r dnaseq.Result) float64 { return r.NFraction }, hasLength)},
	{"NUCLEOTIDE_SEQUENCE_N_RUNS_CAPPED", "nucleotideNRunsCapped", false,
		numberFigure(func(r dnaseq.Result) float64 { return float64(r.NRunsCapped) }, nil)},
	{"NUCLEOTIDE_SEQUENCE_NATURAL_LANGUAGE_DETECTED", "nucleotideNaturalLanguageDetected", true,
		flagFigure(func(r dnaseq.Result) bool { return r.NaturalLanguage })},
	{"NUCLEOTIDE_SEQUENCE_ENDS_TRIMMED", "nucleotideEndsTrimmed", true,
		flagFigure(func(r dnaseq.Result) bool { return r.EndsTrimmed })},
	{"NUCLEOTIDE_SEQUENCE_GAPS_OR_WHITESPACE_REMOVED", "nucleotideGapsOrWhitespaceRemoved", true,
		flagFigure(func(r dnaseq.Result) bool { return r.GapsOrWhitespaceRemoved })},
	{"NUCLEOTIDE_SEQUENCE_INVALID", "nucleotideInvalid", true,
		flagFigure(func(r dnaseq.Result) bool { return r.Invalid })},
}

// sequenceFigureColumns are the columns of the sequences' figures and
// flags, the last of the table's, in sequenceFigures' order: lists of
// text, one value per sequence that has it.
func sequenceFigureColumns() []Column {
	out := make([]Column, len(sequenceFigures))
	for i, f := range sequenceFigures {
		out[i] = Column{Name: f.col, Kind: KindMulti, Fill: Derived, Extra: true}
	}
	return out
}

var iSequenceFigures = func() []int {
	out := make([]int, len(sequenceFigures))
	for i, f := range sequenceFigures {
		out[i] = mustIndex(f.col)
	}
	return out
}()

// setSequenceFigures sets the figure columns from a record's
// interpreted sequences (those with a raw sequence): each distinct value
// once, in the order met.
func (in *interpreter) setSequenceFigures(seqs []NucleotideSequence) {
	for i, f := range sequenceFigures {
		var vals []string
		for _, s := range seqs {
			if s.Raw == "" {
				continue
			}
			if v, ok := f.value(s.Result); ok {
				vals = appendUnique(vals, v)
			}
		}
		in.setList(iSequenceFigures[i], vals)
	}
}

// normBool is a flag parameter's value: true or false, in any case.
func normBool(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return "true", nil
	case "false":
		return "false", nil
	}
	return "", fmt.Errorf("not true or false")
}

// evalFigures evaluates a numeric figure leaf: a row matches when one of
// the numbers its column lists does. An and passes its result so far as
// the mask (out and mask are one slice), so mask[i] is read before out[i]
// is written.
func evalFigures(arr arrow.Array, c *compiled, out, mask []bool) {
	for i := range out {
		if (mask != nil && !mask[i]) || arr.IsNull(i) {
			out[i] = false
			continue
		}
		s, ok := stringAt(arr, i)
		out[i] = ok && c.matchFigures(s)
	}
}

// matchFigures applies a numeric figure leaf to a column's list.
func (c *compiled) matchFigures(list string) bool {
	for len(list) > 0 {
		var v string
		v, list, _ = strings.Cut(list, ";")
		if f, err := strconv.ParseFloat(v, 64); err == nil && c.spanIn(f, f) {
			return true
		}
	}
	return false
}

// isFigures reports a numeric figure leaf (its column holds lists of
// numbers as text).
func (c *compiled) isFigures() bool { return c.spec != nil && c.spec.figures }
