package occurrence

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// globBacktrack is the matcher like used before compileLike (kept as the
// benchmark's baseline and the fuzzer's second reference): the two-pointer
// backtracking glob, whose cost grows with the pattern's stars.
func globBacktrack(p, s string) bool {
	px, sx := 0, 0
	starP, starS := -1, 0
	for sx < len(s) {
		if px < len(p) {
			switch p[px] {
			case '*':
				starP, starS = px, sx
				px++
				continue
			case '?':
				_, n := utf8.DecodeRuneInString(s[sx:])
				px++
				sx += n
				continue
			default:
				if p[px] == s[sx] {
					px++
					sx++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starS:])
		starS += n
		px, sx = starP+1, starS
	}
	for px < len(p) && p[px] == '*' {
		px++
	}
	return px == len(p)
}

func TestLikeMatcher(t *testing.T) {
	cases := []struct {
		p, s string
		want bool
	}{
		{"puma", "puma", true},
		{"puma", "pumas", false},
		{"puma*", "puma concolor", true},
		{"puma*", "pum", false},
		{"*smith*", "j. smith & a. smith", true},
		{"*smith", "smith, j.", false},
		{"?rø*", "røm", false},
		{"?rø*", "ørøm", true},
		{"?rø*", "árøm", true},
		{"a?c", "a€c", true},
		{"a?c", "a€€c", false},
		{"a*b*c", "abc", true},
		{"a*b*c", "acb", false},
		{"a*b*c", "aXbYbZc", true},
		{"a*bc*bc", "abcbc", true},
		{"a*bc*bc", "abc", false},
		{"*?*?*", "x", false},
		{"*?*?*", "xy", true},
		{"*", "", true},
		{"?", "", false},
		{"", "", true},
		{"**a**", "bab", true},
		{"ab*ba", "aba", false},
		{"ab*?a", "abxa", true},
		{"ab*?a", "aba", false},
		{"*a?b*", "xxa€bxx", true},
		{"*a?b", "a€ba€b", true},
		{strings.Repeat("*", 100000) + "a", "banana", true},
		{strings.Repeat("*", 100000) + "z", "banana", false},
	}
	for _, c := range cases {
		if got := compileLike(c.p).match(c.s); got != c.want {
			t.Errorf("like %.40q on %q = %v, want %v", c.p, c.s, got, c.want)
		}
		if got := globBacktrack(c.p, c.s); got != c.want {
			t.Errorf("reference glob %.40q on %q = %v, want %v (the table is wrong)", c.p, c.s, got, c.want)
		}
	}
}

// The matcher's work does not grow with repeated stars: a pattern of
// 100,000 stars compiles to the segments of a single one.
func TestLikeCollapsesStars(t *testing.T) {
	m := compileLike(strings.Repeat("*", 100000) + "a" + strings.Repeat("*", 1000) + "b")
	if n := m.segments(); n != 3 {
		t.Fatalf("%d segments, want 3 (\"\", a, b)", n)
	}
}

// FuzzLikeMatch: the compiled matcher agrees with the regular expression
// MatchRow uses and with the backtracking glob it replaced. Patterns are
// valid UTF-8 (the parser rejects others); values may be anything.
func FuzzLikeMatch(f *testing.F) {
	for _, c := range [][2]string{{"puma*", "Puma concolor"}, {"*smith*", "a|smith"}, {"?rø*", "árøm"},
		{"a*b?c*", "aXbYcZ"}, {"*?*", ""}, {"**", "€"}, {"a?", "a\xff"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		if len(p) > 64 || len(s) > 256 || !utf8.ValidString(p) {
			return
		}
		got := compileLike(p).match(s)
		if want := globBacktrack(p, s); got != want {
			t.Fatalf("like %q on %q = %v, backtracking glob says %v", p, s, got, want)
		}
		if utf8.ValidString(s) {
			if want := likeRegexp(p).MatchString(s); got != want {
				t.Fatalf("like %q on %q = %v, regexp says %v", p, s, got, want)
			}
		}
	})
}

// likeBenchValues are scientific names, catalogue numbers and collectors
// the way the table holds them (folded, as case-insensitive like sees them).
var likeBenchValues = func() []string {
	var vs []string
	for i := range 256 {
		vs = append(vs,
			strings.ToLower(fmt.Sprintf("Genus%d species%d (Author, %d)", i*7, i*13, 1750+i)),
			fmt.Sprintf("paps5-%d-%04d", 500+i%100, i*37),
			strings.ToLower(fmt.Sprintf("Smith, J.|Jensen, K. %d", i)))
	}
	return vs
}()

// BenchmarkLike compares the compiled matcher with the backtracking glob
// it replaced on realistic patterns and adversarial ones; ns/value is per
// value matched.
func BenchmarkLike(b *testing.B) {
	stars := strings.Repeat("*", 100000)
	for _, bc := range []struct{ name, p string }{
		{"prefix", "genus12*"},
		{"contains", "*smith*"},
		{"catalog", "paps5-56?-*"},
		{"segments", "*genus*species*(author*)"},
		{"stars_100000", stars + "z"},
		{"stars_100000_between", "g" + stars + "s" + stars + ")"},
		{"many_segments", strings.Repeat("*a", 200) + "*"},
	} {
		m := compileLike(bc.p)
		b.Run(bc.name+"/compiled", func(b *testing.B) {
			n := 0
			for b.Loop() {
				for _, v := range likeBenchValues {
					if m.match(v) {
						n++
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(likeBenchValues)), "ns/value")
		})
		b.Run(bc.name+"/backtracking", func(b *testing.B) {
			n := 0
			for b.Loop() {
				for _, v := range likeBenchValues {
					if globBacktrack(bc.p, v) {
						n++
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(likeBenchValues)), "ns/value")
		})
	}
}
