package charset

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// The encoded bytes are written out by hand from the code page tables, not
// produced by the library under test.
var decodeCases = []struct {
	labels []string
	in     string
	want   string
}{
	// UTF-8 and ASCII pass through untouched, invalid bytes included
	{[]string{"", "utf-8", "UTF-8", "utf8", "us-ascii", "ascii", " Utf-8 "}, "K\xc3\xb6ln \xff", "K\xc3\xb6ln \xff"},
	// ISO-8859-1 under all its names; 0x80 is read as windows-1252's euro sign
	{[]string{"iso-8859-1", "ISO-8859-1", "iso8859-1", "latin1", "latin-1", "Latin-1", "l1"}, "K\xf6ln \xd8resund \x80", "Köln Øresund €"},
	{[]string{"windows-1252", "cp1252"}, "\x93K\xf6ln\x94 \x96 \x9a", "“Köln” – š"},
	// ISO-8859-15 differs from ISO-8859-1 at 0xA4 (€ not ¤) and 0xBD (œ not ½)
	{[]string{"iso-8859-15", "latin9", "latin-9", "l9"}, "\xa4 \xbd \xe9", "€ œ é"},
	{[]string{"utf-16", "utf16", "UTF-16"}, "\xff\xfeK\x00\xf6\x00l\x00n\x00", "Köln"}, // little-endian BOM
	{[]string{"utf-16", "utf16"}, "\xfe\xff\x00K\x00\xf6\x00l\x00n", "Köln"},           // big-endian BOM
	{[]string{"utf-16", "utf16"}, "K\x00\xf6\x00l\x00n\x00", "Köln"},                   // no BOM: little endian
	{[]string{"utf-16be"}, "\x00K\x00\xf6\x00l\x00n", "Köln"},                          //
	{[]string{"utf-16le"}, "K\x00\xf6\x00l\x00n\x00", "Köln"},                          //
	{[]string{"windows-1250", "cp1250"}, "\x8a\xb9", "Šą"},                             // Central European
	{[]string{"koi8-r"}, "\xcd\xcf\xd3\xcb\xd7\xc1", "москва"},                         // Cyrillic
	{[]string{"shift_jis", "sjis"}, "\x82\xa0", "あ"},                                   // Japanese, two bytes
}

func TestNewReaderDecodes(t *testing.T) {
	for _, c := range decodeCases {
		for _, label := range c.labels {
			r, err := NewReader(strings.NewReader(c.in), label)
			if err != nil {
				t.Errorf("%q: %v", label, err)
				continue
			}
			got, err := io.ReadAll(r)
			if err != nil {
				t.Errorf("%q: read: %v", label, err)
			}
			if string(got) != c.want {
				t.Errorf("%q: got %q, want %q", label, got, c.want)
			}
		}
	}
}

func TestIsUTF8(t *testing.T) {
	for label, want := range map[string]bool{
		"": true, "UTF-8": true, " utf8 ": true, "US-ASCII": true, "ascii": true,
		"utf-16": false, "ISO-8859-1": false, "unicode-1-1-utf-8": false, "utf-8 bis": false,
	} {
		if got := IsUTF8(label); got != want {
			t.Errorf("IsUTF8(%q) = %v, want %v", label, got, want)
		}
	}
}

func TestUnknownLabel(t *testing.T) {
	for _, label := range []string{"klingon", "utf-9", "iso-8859-99", "latin 1"} {
		_, err := NewReader(strings.NewReader("x"), label)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `"`+label+`"`) {
			t.Errorf("%q: %v, want ErrUnsupported naming the label", label, err)
		}
		if _, err := XMLReader(label, strings.NewReader("x")); !errors.Is(err, ErrUnsupported) {
			t.Errorf("XMLReader %q: %v, want ErrUnsupported", label, err)
		}
	}
}

func TestXMLReader(t *testing.T) {
	r, err := XMLReader("ISO-8859-15", strings.NewReader("<a>\xa4</a>"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(r); string(got) != "<a>€</a>" {
		t.Errorf("got %q", got)
	}
	// a declaration read as single bytes cannot belong to a UTF-16 document
	for _, label := range []string{"UTF-16", "utf16", "UTF-16LE", "utf-16be"} {
		_, err := XMLReader(label, strings.NewReader("<a/>"))
		if !errors.Is(err, ErrNotUTF16) || !strings.Contains(err.Error(), `"`+label+`"`) {
			t.Errorf("%q: %v, want ErrNotUTF16 naming the label", label, err)
		}
	}
}

// FuzzNewReader: any label and bytes give ErrUnsupported or a reader that
// reads to the end without error; decoded text (anything but UTF-8, which
// passes through) is valid UTF-8.
func FuzzNewReader(f *testing.F) {
	for _, c := range decodeCases {
		for _, label := range c.labels {
			f.Add(label, []byte(c.in))
		}
	}
	f.Add("klingon", []byte("x"))
	// stateful and multi-byte decoders, cut mid-sequence
	f.Add("iso-2022-jp", []byte("\x1b$B$\""))
	f.Add("gb18030", []byte("\x81\x30\x81"))
	f.Add("euc-kr", []byte("\xb0"))
	f.Add("replacement", []byte("abc"))
	f.Fuzz(func(t *testing.T, label string, data []byte) {
		r, err := NewReader(strings.NewReader(string(data)), label)
		if err != nil {
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("%q: %v is not ErrUnsupported", label, err)
			}
			return
		}
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%q: read: %v", label, err)
		}
		if !IsUTF8(label) && !utf8.Valid(got) {
			t.Errorf("%q: decoded %q is not UTF-8", label, got)
		}
	})
}

func TestPeekBOM(t *testing.T) {
	for in, want := range map[string]string{
		"\xEF\xBB\xBFmeta": BOMUTF8, "\xFE\xFF\x00<": BOMUTF16, "\xFF\xFE<\x00": BOMUTF16,
		"<?xml": BOMNone, "": BOMNone, "\xEF\xBB": BOMNone, "\xFE": BOMNone,
	} {
		br := bufio.NewReader(strings.NewReader(in))
		if got := PeekBOM(br); got != want {
			t.Errorf("PeekBOM(%q) = %q, want %q", in, got, want)
		}
		if rest, _ := io.ReadAll(br); string(rest) != in {
			t.Errorf("PeekBOM(%q) consumed input: %q left", in, rest)
		}
	}
}
