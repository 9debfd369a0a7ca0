package dwca

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/biodiversity-downloads/downloader/internal/charset"
)

// memFiles serves files from memory (an opener for RowReader).
type memFiles map[string][]byte

func (m memFiles) openFile(name string) (io.ReadCloser, error) {
	b, ok := m[name]
	if !ok {
		return nil, ErrMissingFile
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

var (
	fuzzSeps   = []string{"\t", ",", ";", "|", "||"}
	fuzzQuotes = []string{"", `"`, "'"}
	fuzzLines  = []string{"\n", "\r\n", "\r", "|$|"}
)

// fuzzSpec picks a dialect from an option byte.
func fuzzSpec(opt byte) FileSpec {
	s := newFileSpec()
	s.Files = []string{"data.txt"}
	s.FieldsTerminatedBy = fuzzSeps[int(opt)%len(fuzzSeps)]
	s.FieldsEnclosedBy = fuzzQuotes[int(opt/5)%len(fuzzQuotes)]
	s.LinesTerminatedBy = fuzzLines[int(opt/15)%len(fuzzLines)]
	s.IgnoreHeaderLines = int(opt/60) % 3
	s.IDIndex = 0
	s.Fields = []Field{{Index: 0, Term: "a"}, {Index: 2, Term: "c", Default: "dflt"}, {Index: -1, Term: "k", Default: "K"}}
	return s
}

// FuzzRowReader reads random bytes as a data file with a random dialect.
// Nothing may panic, every call must make progress, broken rows must be
// located, for unquoted "\n" files the rows and broken rows must add up
// to the non-blank lines after the header, and a reader of ids only
// (RowReader.idsOnly) must give the same rows, ids and broken rows.
func FuzzRowReader(f *testing.F) {
	for _, seed := range []struct {
		data string
		opt  byte
	}{
		{"id\tname\n1\tPuma\n2\t\"a\tb\"\n", 5},
		{"a,b,c\r\n\"x,\"\"y\"\"\",2,\r\n", 6},
		{"'a';'b'\n'c''d';e\n'open\nstill'\n", 12},
		{"\ufeffh1\th2\n\xff\tx\n\n\nv\tw\textra\n", 60},
		{"a|$|b|c|$|", 46},
		{"x\ry\r\"z\rw\"\r", 40},
	} {
		f.Add([]byte(seed.data), seed.opt)
	}
	f.Fuzz(func(t *testing.T, data []byte, opt byte) {
		spec := fuzzSpec(opt)
		rr := newRowReader(context.Background(), memFiles{"data.txt": data}, &spec)
		ids := newRowReader(context.Background(), memFiles{"data.txt": data}, &spec)
		ids.idsOnly = true
		rows, broken, lastLine := 0, 0, 0
		eof := false
		for range len(data) + 10 { // more than the lines of data
			row, err := rr.Next()
			idRow, idErr := ids.Next()
			if (err == nil) != (idErr == nil) || err != nil && err.Error() != idErr.Error() ||
				err == nil && (row.ID() != idRow.ID() || row.Line() != idRow.Line()) {
				t.Fatalf("whole rows: %q line %d, %v; ids only: %q line %d, %v",
					row.ID(), row.Line(), err, idRow.ID(), idRow.Line(), idErr)
			}
			if err == io.EOF {
				eof = true
				break
			}
			var re *RowError
			if errors.As(err, &re) {
				broken++
				if re.Line < 1 || re.File != "data.txt" {
					t.Fatalf("broken row without a location: %+v", re)
				}
				continue
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			rows++
			if row.Line() < 1 || row.Line() < lastLine {
				t.Fatalf("row line %d after %d", row.Line(), lastLine)
			}
			lastLine = row.Line()
			if row.Value(2) != "K" {
				t.Fatalf("constant default lost: %q", row.Value(2))
			}
			if v := row.Value(1); v == "" {
				t.Fatal("default not applied to an empty cell")
			}
			if charset.IsUTF8(spec.Encoding) {
				for _, c := range row.Cells() {
					if !utf8.ValidString(c) {
						t.Fatalf("invalid UTF-8 cell %q", c)
					}
				}
			}
		}
		if !eof {
			t.Fatalf("no io.EOF after %d rows and %d broken rows from %d bytes", rows, broken, len(data))
		}
		if spec.FieldsEnclosedBy == "" && spec.LinesTerminatedBy == "\n" {
			checkLineCount(t, data, spec, rows, broken)
		}
	})
}

// checkLineCount is the oracle for unquoted LF files: every non-blank line
// after the header lines is a row or a broken row.
func checkLineCount(t *testing.T, data []byte, spec FileSpec, rows, broken int) {
	text := strings.TrimPrefix(string(data), "\ufeff")
	if bytes.HasPrefix(data, []byte("\xFF\xFE")) || bytes.HasPrefix(data, []byte("\xFE\xFF")) {
		return // read as UTF-16
	}
	if !strings.Contains(text, "\n") && strings.Contains(text, "\r") {
		return // read in CR mode
	}
	n, skipped := 0, 0
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSuffix(l, "\r") == "" {
			continue
		}
		if skipped < spec.IgnoreHeaderLines {
			skipped++
			continue
		}
		n++
	}
	if rows+broken != n {
		t.Fatalf("%d rows + %d broken, want %d non-blank lines after %d header lines",
			rows, broken, n, spec.IgnoreHeaderLines)
	}
}

// FuzzTextRoundTrip writes random values with TextWriter and reads them back
// through a tab-separated, unquoted meta: each value comes back as CleanValue
// made it.
func FuzzTextRoundTrip(f *testing.F) {
	f.Add("Puma concolor", "a\tb\nc", "\u2028x\u0085", "")
	f.Add("\"quoted\"", "'single'", "𝔘 non-BMP", "\xff\x00")
	f.Fuzz(func(t *testing.T, a, b, c, d string) {
		in := []string{a, b, c, d}
		var buf bytes.Buffer
		w := NewTextWriter(&buf)
		w.WriteHeader([]string{"a", "b", "c", "d"})
		w.WriteRow(in)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		spec := newFileSpec()
		spec.Files, spec.FieldsTerminatedBy, spec.FieldsEnclosedBy, spec.IgnoreHeaderLines =
			[]string{"x.txt"}, "\t", "", 1
		rr := newRowReader(context.Background(), memFiles{"x.txt": buf.Bytes()}, &spec)
		row, err := rr.Next()
		if err != nil {
			t.Fatalf("%v reading %q", err, buf.Bytes())
		}
		want := make([]string, len(in))
		for i, v := range in {
			want[i] = CleanValue(v)
		}
		got := row.Cells()
		for len(got) < len(want) {
			got = append(got, "")
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %q, want %q", got, want)
		}
		if _, err := rr.Next(); err != io.EOF {
			t.Fatalf("more than one row: %v", err)
		}
	})
}

func TestOverlongLineSkipped(t *testing.T) {
	spec := newFileSpec()
	spec.FieldsTerminatedBy, spec.FieldsEnclosedBy = "\t", ""
	data := "a\tb\n" + strings.Repeat("x", 600<<10) + "\nc\td\n"
	s := newScanner(strings.NewReader(data), &spec)
	s.maxRow = 100 << 10
	var got []string
	for {
		line, err := s.next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, ErrRowTooLong) {
			got = append(got, fmt.Sprintf("too long@%d", s.line))
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s@%d", strings.Join(s.cells(), ","), line))
	}
	if want := "a,b@1 too long@2 c,d@3"; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
}
