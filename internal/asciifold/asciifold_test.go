package asciifold

import (
	"testing"

	"golang.org/x/text/unicode/norm"
)

func TestFold(t *testing.T) {
	for _, c := range []struct {
		in   string
		form norm.Form
		want string
	}{
		{"Isótipo", norm.NFD, "Isotipo"},
		{"Ørsted æ ß", norm.NFD, "Orsted ae ss"},
		{"ＡＢ", norm.NFD, "ＡＢ"}, // compatibility characters stay under NFD
		{"ＡＢ", norm.NFKD, "AB"},
		{"ﬁ²", norm.NFKD, "fi2"},
		{"日本", norm.NFKD, "日本"},
		{"plain", norm.NFKD, "plain"},
	} {
		if got := Fold(c.in, c.form); got != c.want {
			t.Errorf("Fold(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzFold(f *testing.F) {
	f.Add("Isótipo ＡＢ ﬁ")
	f.Fuzz(func(t *testing.T, s string) {
		got := Fold(s, norm.NFKD)
		if IsASCII(s) && got != s {
			t.Fatalf("ASCII %q changed to %q", s, got)
		}
		if Fold(got, norm.NFKD) != got {
			t.Fatalf("folding %q twice changes it: %q", s, got)
		}
	})
}
