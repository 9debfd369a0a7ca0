package dwca

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzRowWriter checks the fast row paths against CleanValue: any value
// written as a cell (Value) or cleaned in place after a formatter appended
// it (CleanFrom) reads back as CleanValue of it, and the row stays one line
// of tab-separated cells.
func FuzzRowWriter(f *testing.F) {
	for _, s := range []string{"tab\there", "new\nline and\r\ncrlf", "vt\vff\fnel\u0085ls\u2028ps\u2029nul\x00end", "non-BMP 𝔊𝔅𝔌𝔉 🦉 and ørsted", ""} {
		f.Add(s, "x")
	}
	f.Add("\xff\xfe bad utf8 \u2028", "plain ascii text longer than eight")
	f.Fuzz(func(t *testing.T, a, b string) {
		var out bytes.Buffer
		rw := NewExclusiveTextWriter(&out)
		rw.Value(a)
		rw.Value(b)
		if err := rw.EndRow(); err != nil {
			t.Fatal(err)
		}
		rw.Flush()
		want := CleanValue(a) + "\t" + CleanValue(b) + "\n"
		if out.String() != want {
			t.Fatalf("row %q, want %q", out.String(), want)
		}
		prefix := CleanValue(a) + "\t"
		if got := CleanFrom(append([]byte(prefix), b...), len(prefix)); string(got) != prefix+CleanValue(b) {
			t.Fatalf("cleaned in place %q, want %q", got, prefix+CleanValue(b))
		}
		if strings.Count(out.String(), "\n") != 1 || strings.Count(out.String(), "\t") != 1 {
			t.Fatalf("row %q is not one line of two cells", out.String())
		}
	})
}

func TestPlainASCII(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 17; pos++ {
			b := bytes.Repeat([]byte("a"), 17)
			b[pos] = byte(c)
			if got, want := PlainASCII(b), c >= 0x20 && c < 0x80; got != want {
				t.Fatalf("byte %#x at %d: %v", c, pos, got)
			}
		}
	}
}
