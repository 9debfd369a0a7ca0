package dwca

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanValue(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                     "plain",
		"a\tb\nc\rd":                "a b c d",
		"v\u000bf\u000c":            "v f",
		"nel\u0085ls\u2028ps\u2029": "nel ls ps",
		"nul\x00":                   "nul",
		// GBIF's CleanDelimiters trims after replacing, as Java's
		// String.trim: spaces and control characters, not U+00A0.
		"  edges  ":              "edges",
		"\r\n\x01 both \t\u2028": "both",
		"\u2029":                 "",
		"\u00a0nbsp\u00a0":       "\u00a0nbsp\u00a0",
		" \xff ":                 "\uFFFD",
		"quote \"x\" 'y'":        "quote \"x\" 'y'",
		"non-BMP 𝔘 é":            "non-BMP 𝔘 é",
		"bad \xff utf8":          "bad \uFFFD utf8",
		"":                       "",
	} {
		if got := CleanValue(in); got != want {
			t.Errorf("CleanValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTextWriter(t *testing.T) {
	var buf bytes.Buffer
	w := NewTextWriter(&buf)
	if err := w.WriteHeader([]string{"gbifID", "scientificName"}); err != nil {
		t.Fatal(err)
	}
	w.WriteRow([]string{"1", "Puma\tconcolor\n(L.)"})
	w.WriteRow([]string{"2", "\"quoted\" 𝔘\u2028"})
	w.WriteRow([]string{"", ""})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "gbifID\tscientificName\n1\tPuma concolor (L.)\n2\t\"quoted\" 𝔘\n\t\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

// TestTextWriterSharesItsWriter: TextWriter does not own w, so text written
// to w directly before the first row and after a Flush stays as written,
// even when w offers its free space (bytes.Buffer's AvailableBuffer, large
// enough for the download formats' in-place rows).
func TestTextWriterSharesItsWriter(t *testing.T) {
	var buf bytes.Buffer
	buf.Grow(1 << 20)
	w := NewTextWriter(&buf)
	buf.WriteString("# first\n")
	w.WriteRow([]string{"a", "b"})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	buf.WriteString("# between\n")
	w.WriteRow([]string{"c", "d"})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "# first\na\tb\n# between\nc\td\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func TestWriteRowNoAllocs(t *testing.T) {
	w := NewTextWriter(io.Discard)
	row := []string{"123456", "Puma concolor (Linnaeus, 1771)", "DK", "55.67", "Köbenhavn"}
	if n := testing.AllocsPerRun(1000, func() { w.WriteRow(row) }); n != 0 {
		t.Errorf("WriteRow allocates %v times per clean row", n)
	}
}

// BenchmarkWriteRow measures the export hot path; b.SetBytes makes it report MB/s.
func BenchmarkWriteRow(b *testing.B) {
	row := benchRow()
	w := NewTextWriter(io.Discard)
	b.SetBytes(rowBytes(row))
	b.ReportAllocs()
	for b.Loop() {
		w.WriteRow(row)
	}
}

// rowBytes is the size of a row as TextWriter writes it.
func rowBytes(row []string) int64 {
	n := 0
	for _, v := range row {
		n += len(v) + 1
	}
	return int64(n)
}

// benchRow is a realistic interpreted occurrence row.
func benchRow() []string {
	return []string{"1234567890", "50c9509d-22c7-4a22-a47d-8c48425ef4a7", "urn:catalog:X:123",
		"Animalia", "Chordata", "Mammalia", "Carnivora", "Felidae", "Puma", "Puma concolor",
		"Puma concolor (Linnaeus, 1771)", "US", "Somewhere near a river, 3 km N of the town of Ämål",
		"34.12345", "-118.54321", "2019-05-01T10:00:00", "PRESERVED_SPECIMEN", strings.Repeat("remark ", 20)}
}

func BenchmarkCleanValueDirty(b *testing.B) {
	v := strings.Repeat("line one\tline two\n", 10)
	b.SetBytes(int64(len(v)))
	for b.Loop() {
		CleanValue(v)
	}
}

// FuzzNeedsCleaning checks the byte-table scan, and CleanValue, against the
// rune-by-rune definition of the text rules.
func FuzzNeedsCleaning(f *testing.F) {
	for _, s := range []string{"plain", "a\tb", "nel\u0085", "\u2028", "\u2029", "\u2027", "Ã\u0085", "\xe2\x80", "\xc2", "𝔘", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := !utf8.ValidString(s)
		for _, r := range s {
			want = want || isBreaking(r)
		}
		if got := needsCleaning(s); got != want {
			t.Fatalf("needsCleaning(%q) = %v, want %v", s, got, want)
		}
		if c := CleanValue(s); needsCleaning(c) {
			t.Fatalf("CleanValue(%q) = %q still needs cleaning", s, c)
		}
		if got, want := CleanValue(s), referenceClean(s); got != want {
			t.Fatalf("CleanValue(%q) = %q, the rules rune by rune give %q", s, got, want)
		}
	})
}

// referenceClean is the text rules written rune by rune: breaking
// characters become a space, invalid bytes U+FFFD, and the result is
// trimmed of runes up to U+0020 (Java's String.trim).
func referenceClean(s string) string {
	var b strings.Builder
	for _, r := range s {
		if isBreaking(r) {
			r = ' '
		}
		b.WriteRune(r)
	}
	return strings.TrimFunc(b.String(), func(r rune) bool { return r <= ' ' })
}

// TestAppendRows: rows built elsewhere go out after the buffered ones, in
// order, whether they fit the buffer, overflow it or exceed the flush size
// on their own.
func TestAppendRows(t *testing.T) {
	for _, c := range []struct {
		size      int
		exclusive bool
	}{{10, false}, {3 << 10, false}, {rowFlushBytes + 5, false}, {10, true}, {100 << 10, true}, {200 << 10, true}, {2 << 20, true}} {
		size := c.size
		var out bytes.Buffer
		w := NewTextWriter(&out)
		var cw *chunkWriter
		if c.exclusive {
			// rows built in the writer's free space, as in a zip entry's chunk
			cw = &chunkWriter{data: make([]byte, 0, 8<<20)}
			w = NewExclusiveTextWriter(cw)
		}
		w.WriteRow([]string{"a", "b"})
		block := bytes.Repeat([]byte("x\ty\n"), size/4+1)
		if err := w.AppendRows(block); err != nil {
			t.Fatal(err)
		}
		w.WriteRow([]string{"c"})
		if err := w.AppendRows(block); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if cw != nil {
			got = string(cw.data)
		}
		want := "a\tb\n" + string(block) + "c\n" + string(block)
		if got != want {
			t.Errorf("%d bytes a block, exclusive %v: got %d bytes, want %d (or different ones)", len(block), c.exclusive, len(got), len(want))
		}
	}
}

// chunkWriter offers free space of at most 256 KiB (a zip entry's chunk)
// and never moves its data.
type chunkWriter struct{ data []byte }

func (c *chunkWriter) Write(p []byte) (int, error) {
	c.data = append(c.data, p...)
	return len(p), nil
}

func (c *chunkWriter) AvailableBuffer() []byte {
	n := len(c.data)
	return c.data[n:n:min(n+256<<10, cap(c.data))]
}

// TestAppendTabsRuns: every run length from -1 to 140 after a prefix, in
// buffers with no room, a little and plenty, is the prefix and that many
// tabs.
func TestAppendTabsRuns(t *testing.T) {
	for n := -1; n <= 140; n++ {
		want := "row" + strings.Repeat("\t", max(n, 0))
		for _, room := range []int{0, 5, 16, 17, 300} {
			dst := append(make([]byte, 0, 3+room), "row"...)
			if got := string(AppendTabs(dst, n)); got != want {
				t.Fatalf("AppendTabs(%d) with room %d = %q, want %q", n, room, got, want)
			}
		}
	}
}
