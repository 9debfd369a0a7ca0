package dnaseq

import (
	"crypto/md5"
	"encoding/hex"
	"math"
	"strings"
	"testing"
)

// The examples of GBIF's sequence processor's documentation and tests,
// step by step and whole.
func TestCleanExamples(t *testing.T) {
	for _, c := range []struct {
		raw, want, id                 string
		length, capped                int
		ws, natural, trimmed, invalid bool
	}{
		// whitespace and case
		{raw: "acgtac gta  cgt", want: "ACGTACGTACGT", id: "31e91beccf6059ff57c696827c0c6a4b", length: 12, ws: true},
		// gaps
		{raw: "ACGT-ACGT..ACGT", want: "ACGTACGTACGT", id: "31e91beccf6059ff57c696827c0c6a4b", length: 12, ws: true},
		// natural language
		{raw: "ACGTACGTUNMERGEDACGTACGT", length: 24, natural: true, invalid: true},
		// trimmed to the anchors
		{raw: "THISISMYGBIFSEQUENCEACGTACGTACGTNNNNNENDOFSEQUENCE", want: "ACGTACGTACGT", id: "31e91beccf6059ff57c696827c0c6a4b", length: 12, trimmed: true},
		// runs of N capped
		{raw: "ACGTACGTNNNNNNNNNNNNNNACGTACGTNNNNNNNNNACGTACGT", want: "ACGTACGTNNNNNACGTACGTNNNNNACGTACGT", length: 34, capped: 2},
		// GBIF's pipelines' test: an underscore is not a nucleotide
		{raw: "ccacacctaaa __  aaactttccacgtgaacc", length: 31, ws: true, invalid: true},
		{raw: "ccacacct", want: "CCACACCT", id: "a6bf0d942fd67916f50079e5c44a41b0", length: 8},
		// no run of 8 anchors: nothing is left, and nothing is invalid
		{raw: "aaaa", trimmed: true},
		{raw: "ACGT?ACGT", trimmed: true},
		{raw: ""},
		// RNA
		{raw: "ACGUACGUACGU", want: "ACGTACGTACGT", id: "31e91beccf6059ff57c696827c0c6a4b", length: 12},
		// Java upper-cases ß to SS, an IUPAC code
		{raw: "ACGTACGTßACGTACGT", want: "ACGTACGTSSACGTACGT", length: 18},
	} {
		r := Clean(c.raw)
		if c.want != "" && c.id == "" {
			c.id = hex.EncodeToString(md5Of(c.want))
		}
		if r.Sequence != c.want || r.ID != c.id || r.Length != c.length || r.NRunsCapped != c.capped ||
			r.GapsOrWhitespaceRemoved != c.ws || r.NaturalLanguage != c.natural || r.EndsTrimmed != c.trimmed || r.Invalid != c.invalid {
			t.Errorf("Clean(%q) = %+v, want %+v", c.raw, r, c)
		}
	}
}

func md5Of(s string) []byte { h := md5.Sum([]byte(s)); return h[:] }

func TestCleanFigures(t *testing.T) {
	// 23 characters: 5 G or C of 20 A, C, G or T; 2 N; one R.
	r := Clean("AAACCCGGTTTTNNRAAAAAAAA")
	if r.Sequence != "AAACCCGGTTTTNNRAAAAAAAA" || r.Invalid {
		t.Fatalf("Clean = %+v", r)
	}
	l := float64(len(r.Sequence))
	for name, c := range map[string][2]float64{
		"nFraction":        {r.NFraction, 2 / l},
		"nonACGTNFraction": {r.NonACGTNFraction, 1 / l},
		"nonIupacFraction": {r.NonIUPACFraction, 0},
		"gcContent":        {r.GCContent, 5.0 / 20},
	} {
		if math.Abs(c[0]-c[1]) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	if !r.HasGC {
		t.Error("HasGC = false")
	}
	bad := Clean("ACGTACGTXACGTACGT")
	if !bad.Invalid || bad.Sequence != "" || bad.ID != "" || math.Abs(bad.NonIUPACFraction-1.0/17) > 1e-12 {
		t.Errorf("Clean with X = %+v", bad)
	}
}

// FuzzClean checks what every cleaned sequence is: IUPAC codes only,
// anchored at both ends, no run of 6 N, identified by its MD5, and left as
// it is by cleaning it again.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"acgtac gta  cgt", "THISISMYGBIFSEQUENCEACGTACGTACGTNNNNNENDOFSEQUENCE", "ACGTACGTNNNNNNNNACGTACGT", "ß", "ACGTACGT\x00", "uuuuuuuu?????????uuuuuuuu", "ﬆACGTACGT"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := Clean(raw)
		if steps := cleanSteps(raw); r != steps {
			t.Fatalf("Clean(%q) = %+v, the steps give %+v", raw, r, steps)
		}
		if r.Sequence == "" {
			if r.ID != "" {
				t.Fatalf("Clean(%q): an ID without a sequence", raw)
			}
			return
		}
		s := r.Sequence
		if r.Invalid || r.Length != len(s) || r.ID != hex.EncodeToString(md5Of(s)) {
			t.Fatalf("Clean(%q) = %+v", raw, r)
		}
		if strings.Trim(s, "ACGTRYSWKMBDHVN") != "" || strings.Contains(s, "NNNNNN") {
			t.Fatalf("Clean(%q) = %q", raw, s)
		}
		if strings.Trim(s[:anchorMinRun], "ACGT") != "" || strings.Trim(s[len(s)-anchorMinRun:], "ACGT") != "" {
			t.Fatalf("Clean(%q) = %q: not anchored", raw, s)
		}
		again := Clean(s)
		if again.Sequence != s || again.EndsTrimmed || again.GapsOrWhitespaceRemoved || again.NRunsCapped != 0 {
			t.Fatalf("Clean(Clean(%q)) = %+v", raw, again)
		}
	})
}

// RawID is GBIF's DnaUtils.convertDnaSequenceToID: the MD5 of the
// upper-cased IUPAC letters (U kept), whatever else the value holds.
func TestRawID(t *testing.T) {
	want := hex.EncodeToString(md5Of("ACGUNACGT"))
	for _, raw := range []string{"ACGUNACGT", "acgu nacgt", "ACGU-N.ACGT\n", "ACGU_NACGT!"} {
		if got := RawID(raw); got != want {
			t.Errorf("RawID(%q) = %s, want %s", raw, got, want)
		}
	}
	if RawID("") != "" || RawID("___") != "d41d8cd98f00b204e9800998ecf8427e" {
		t.Errorf("RawID of nothing: %q, of no letter: %q", RawID(""), RawID("___"))
	}
}

// The one-pass path and the steps agree on every plain read.
func TestCleanPlainAgrees(t *testing.T) {
	for _, raw := range []string{"ACGTACGT", "GGGGCCCCAAAATTTT", "AACATTATATTTTATTTTTGG", "ACGTACG"} {
		fast, ok := cleanPlain(raw)
		slow := cleanSteps(raw)
		if ok != (len(raw) >= anchorMinRun) || (ok && fast != slow) {
			t.Errorf("%q: one pass %+v (%v), steps %+v", raw, fast, ok, slow)
		}
	}
}

// BenchmarkClean: a plain 313-base COI read, the same read in lower case
// with a gap (the steps), per read.
func BenchmarkClean(b *testing.B) {
	plain := strings.Repeat("ACGTTGCAAGGCTTAACCGGATCA", 13) + "ACGTT"
	for _, c := range []struct{ name, raw string }{{"plain", plain}, {"steps", strings.ToLower(plain[:150]) + "--" + plain[150:]}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.raw)))
			for b.Loop() {
				Clean(c.raw)
			}
		})
	}
}
