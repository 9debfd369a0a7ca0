package abcd

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

func readDoc(doc string, opts Options) (int, *Reader, error) {
	r := NewReader(strings.NewReader(doc), "doc.xml", opts)
	n := 0
	for {
		_, err := r.Next(context.Background())
		if err == io.EOF {
			return n, r, nil
		}
		if err != nil {
			return n, r, err
		}
		n++
	}
}

func TestBadDocuments(t *testing.T) {
	unit := "<Unit><UnitID>1</UnitID></Unit>\n"
	cases := []struct {
		name, doc string
		kind      error
		line      int
		msg       string
	}{
		{"mismatched tag", "<DataSets>\n<DataSet>\n<Units>\n" + unit + "<Unit><UnitID>2</Unit>\n</Units></DataSet></DataSets>", ErrSyntax, 5, "unexpected </Unit>"},
		{"wrong root", "<?xml version='1.0'?>\n<dsi:inventory xmlns:dsi='x'/>", ErrWrongRoot, 2, "root element <dsi:inventory>"},
		{"entity expansion", "<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n<!ENTITY lol2 \"&lol;&lol;&lol;\">\n]>\n<DataSets><DataSet><Units><Unit><Notes>&lol2;</Notes></Unit></Units></DataSet></DataSets>", ErrEntity, 1, "declares entities"},
		{"undefined entity", "<DataSets><DataSet><Units>\n<Unit><Notes>&nbsp;</Notes></Unit></Units></DataSet></DataSets>", ErrSyntax, 2, "escape sequence"},
		{"truncated", "<DataSets><DataSet><Units>\n" + unit + "<Unit><UnitID>2</Uni", ErrSyntax, 3, "unexpected end"},
		{"truncated between tags", "<DataSets><DataSet><Units>\n" + unit, ErrSyntax, 3, "unexpected end of document inside <Units>"},
		{"empty", "", ErrSyntax, 1, "no root element"},
		{"text outside root", "<DataSets/>\nhello", ErrSyntax, 2, "text outside the root"},
		{"bad attribute", "<DataSets><DataSet x=1/></DataSets>", ErrSyntax, 1, "not quoted"},
		{"lt in attribute", "<DataSets a='<'/>", ErrSyntax, 1, ""},
		{"invalid utf-8", "<DataSets><DataSet><Units><Unit><Notes>\xff\xfe</Notes></Unit></Units></DataSet></DataSets>", ErrSyntax, 1, "UTF-8"},
		{"truncated utf-16", "\xfe\xff\x00<", ErrSyntax, 1, "end of document"},
		{"ABCD 1.2", "<?xml version='1.0'?>\n<DataSets xmlns='http://www.tdwg.org/schemas/abcd/1.2'><DataSet><Units>" + unit + "</Units></DataSet></DataSets>",
			ErrUnsupportedSchema, 2, "<DataSets> is in namespace http://www.tdwg.org/schemas/abcd/1.2 (ABCD 1.2, whose elements are named otherwise)"},
		{"ABCD 1.2 in a response", "<response xmlns='http://www.biocase.org/schemas/protocol/1.3'>\n<content>\n<DataSets xmlns='http://www.tdwg.org/schemas/abcd/1.2'><DataSet><Units>" + unit + "</Units></DataSet></DataSets></content></response>",
			ErrUnsupportedSchema, 3, "ABCD 1.2"},
		{"another namespace", "<r:response xmlns:r='http://www.biocase.org/schemas/protocol/1.3' xmlns:a='http://example.org/not-abcd'><r:content>\n<a:DataSets><a:DataSet><a:Units>" + unit + "</a:Units></a:DataSet></a:DataSets></r:content></r:response>",
			ErrUnsupportedSchema, 2, "<a:DataSets> is in namespace http://example.org/not-abcd (a namespace this package does not read)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readDoc(c.doc, Options{})
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, c.kind) {
				t.Fatalf("error %v, want a *ParseError of kind %v", err, c.kind)
			}
			if pe.Path != "doc.xml" || pe.Line != c.line {
				t.Errorf("located at %s:%d, want doc.xml:%d (%v)", pe.Path, pe.Line, c.line, err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("message %q does not say %q", err, c.msg)
			}
		})
	}
}

// The unit number is part of the error when the problem is inside a unit,
// and the units before it were delivered.
func TestErrorNamesUnit(t *testing.T) {
	doc := "<DataSets><DataSet><Units>\n<Unit><UnitID>1</UnitID></Unit>\n<Unit><UnitID>2</UnitID></Unit>\n<Unit><UnitID>3<UnitID></Unit>\n</Units></DataSet></DataSets>"
	n, _, err := readDoc(doc, Options{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Unit != 3 || n != 2 {
		t.Fatalf("err %v after %d units; want unit 3 named after 2 good units", err, n)
	}
}

// endless is a 2 GB element that is never materialized: the reader must
// give up after the token cap, not buffer it.
type endless struct {
	head string
	read int64
}

func (e *endless) Read(p []byte) (int, error) {
	if e.head != "" {
		n := copy(p, e.head)
		e.head = e.head[n:]
		e.read += int64(n)
		return n, nil
	}
	if e.read > 2<<30 {
		return 0, io.EOF
	}
	for i := range p {
		p[i] = 'a'
	}
	e.read += int64(len(p))
	return len(p), nil
}

func TestHugeElementIsCapped(t *testing.T) {
	src := &endless{head: "<DataSets><DataSet><Units><Unit><Notes>"}
	r := NewReader(src, "huge.xml", Options{MaxTokenBytes: 4 << 20})
	_, err := r.Next(context.Background())
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "huge.xml:1 (unit 1)") {
		t.Fatalf("err %v, want ErrTooLarge naming huge.xml:1 (unit 1)", err)
	}
	if src.read > 16<<20 {
		t.Errorf("read %d bytes before refusing; the cap is 4 MiB", src.read)
	}
	// Also with the default cap (16 MiB), a huge tag name.
	src = &endless{head: "<DataSets><"}
	if _, err := NewReader(src, "huge.xml", Options{}).Next(context.Background()); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("huge tag: %v", err)
	}
}

func TestUnitAndDepthCaps(t *testing.T) {
	var b strings.Builder
	b.WriteString("<DataSets><DataSet><Units><Unit>")
	for range 20000 {
		b.WriteString("<Notes>some text</Notes>\n")
	}
	b.WriteString("</Unit></Units></DataSet></DataSets>")
	if _, _, err := readDoc(b.String(), Options{MaxUnitBytes: 64 << 10}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "<Unit> exceeds") {
		t.Fatalf("big unit: %v", err)
	}
	deep := "<DataSets>" + strings.Repeat("<a>", 300) + strings.Repeat("</a>", 300) + "</DataSets>"
	if _, _, err := readDoc(deep, Options{}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("deep: %v", err)
	}
}

// Prefixes: declared, default, undeclared and mixed all read the same unit.
func TestPrefixesAndEncodings(t *testing.T) {
	docs := map[string]string{
		"declared":               `<a:DataSets xmlns:a="http://www.tdwg.org/schemas/abcd/2.06"><a:DataSet><a:Units><a:Unit><a:UnitID>X</a:UnitID></a:Unit></a:Units></a:DataSet></a:DataSets>`,
		"default":                `<DataSets xmlns="http://www.tdwg.org/schemas/abcd/2.1"><DataSet><Units><Unit><UnitID>X</UnitID></Unit></Units></DataSet></DataSets>`,
		"undeclared":             `<abcd:DataSets><abcd:DataSet><abcd:Units><abcd:Unit><abcd:UnitID>X</abcd:UnitID></abcd:Unit></abcd:Units></abcd:DataSet></abcd:DataSets>`,
		"self-closing and CDATA": `<DataSets><DataSet><Units><Unit><Notes/><UnitID><![CDATA[X]]></UnitID><Sex/></Unit></Units></DataSet></DataSets>`,
		"bom":                    "\xef\xbb\xbf<DataSets><DataSet><Units><Unit><UnitID>X</UnitID></Unit></Units></DataSet></DataSets>",
		"latin1":                 "<?xml version='1.0' encoding='ISO-8859-1'?><DataSets><DataSet><Units><Unit><UnitID>X</UnitID><Notes>K\xf6ln</Notes></Unit></Units></DataSet></DataSets>",
		"whitespace before decl": "  <?xml version='1.0' encoding='UTF-8'?>\n<DataSets><DataSet><Units><Unit><UnitID>X</UnitID></Unit></Units></DataSet></DataSets>",
		"utf-16le with bom":      utf16Doc(false, "<?xml version='1.0' encoding='UTF-16'?><DataSets><DataSet><Units><Unit><UnitID>X</UnitID><Notes>Köln 𝔊</Notes></Unit></Units></DataSet></DataSets>"),
		"utf-16be with bom":      utf16Doc(true, "<?xml version='1.0' encoding='UTF-16'?><DataSets><DataSet><Units><Unit><UnitID>X</UnitID><Notes>Köln 𝔊</Notes></Unit></Units></DataSet></DataSets>"),
	}
	for name, doc := range docs {
		r := NewReader(strings.NewReader(doc), name, Options{})
		rec, err := r.Next(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rec.Core[dwc+"catalogNumber"] != "X" || rec.Core[dwc+"occurrenceID"] != "urn:catalog:::X" {
			t.Errorf("%s: %v", name, rec.Core)
		}
		if name == "latin1" && rec.Core[dwc+"occurrenceRemarks"] != "Köln" {
			t.Errorf("latin1 notes %q", rec.Core[dwc+"occurrenceRemarks"])
		}
		if strings.HasPrefix(name, "utf-16") && rec.Core[dwc+"occurrenceRemarks"] != "Köln 𝔊" {
			t.Errorf("%s notes %q", name, rec.Core[dwc+"occurrenceRemarks"])
		}
	}
}

// utf16Doc encodes doc as UTF-16 with a byte-order mark.
func utf16Doc(bigEndian bool, doc string) string {
	var b []byte
	put := func(u uint16) {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	put(0xFEFF)
	for _, u := range utf16.Encode([]rune(doc)) {
		put(u)
	}
	return string(b)
}

func writeZip(t *testing.T, files map[string]string, order []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.zip")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range order {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, files[name])
	}
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func docWith(ids ...string) string {
	var b strings.Builder
	b.WriteString("<DataSets><DataSet><Metadata><Description><Representation><Title>T</Title></Representation></Description></Metadata><Units>\n")
	for _, id := range ids {
		b.WriteString("<Unit><UnitID>" + id + "</UnitID></Unit>\n")
	}
	b.WriteString("</Units></DataSet></DataSets>")
	return b.String()
}

// A broken document in an archive is listed with its line and counted; the
// others are still read, in entry-name order.
func TestArchiveBrokenDocument(t *testing.T) {
	files := map[string]string{
		"response.00003.xml": docWith("5", "6"),
		"response.00001.xml": docWith("1", "2"),
		"response.00002.xml": "<DataSets><DataSet><Units>\n<Unit><UnitID>3</UnitID></Unit>\n<Unit><UnitID>4</Unit>",
		"__MACOSX/._r.xml":   "junk",
		"notes.txt":          "not a document",
		"data/page.response": docWith("0"),
	}
	path := writeZip(t, files, []string{"response.00003.xml", "response.00001.xml", "response.00002.xml", "__MACOSX/._r.xml", "notes.txt", "data/page.response"})
	a, err := OpenArchive(path, ArchiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.Documents(), ","); got != "data/page.response,response.00001.xml,response.00002.xml,response.00003.xml" {
		t.Errorf("documents %s", got)
	}
	a.Close()
	ctx := context.Background()
	src, err := OpenSource(ctx, path, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var ids []string
	for {
		rec, err := src.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.Core[dwc+"catalogNumber"])
	}
	if strings.Join(ids, ",") != "0,1,2,5,6" {
		t.Errorf("records %v: the broken document must contribute nothing and order must hold", ids)
	}
	st, probs := src.Stats(), src.Problems()
	if st.Documents != 4 || st.FailedDocuments != 1 || len(probs) != 1 {
		t.Fatalf("stats %+v problems %v", st, probs)
	}
	if !strings.Contains(probs[0].Err.Error(), "a.zip!response.00002.xml:3 (unit 2)") || !errors.Is(probs[0].Err, ErrSyntax) {
		t.Errorf("problem %v does not name the entry, line and unit", probs[0].Err)
	}
	if src.Dataset().Title != "T" {
		t.Errorf("dataset %+v", src.Dataset())
	}
}

func TestArchiveUnsafe(t *testing.T) {
	path := writeZip(t, map[string]string{"ok.xml": docWith("1"), "../evil.xml": docWith("2")}, []string{"ok.xml", "../evil.xml"})
	if _, err := OpenArchive(path, ArchiveOptions{}); !errors.Is(err, ErrUnsafeArchive) || !strings.Contains(err.Error(), `"../evil.xml"`) {
		t.Errorf("../ entry: %v", err)
	}
	path = writeZip(t, map[string]string{"/abs.xml": docWith("2")}, []string{"/abs.xml"})
	if _, err := OpenArchive(path, ArchiveOptions{}); !errors.Is(err, ErrUnsafeArchive) {
		t.Errorf("absolute entry: %v", err)
	}
	// A deflate bomb: 64 MiB of spaces inflate ~1000x.
	bomb := docWith("1")[:20] + strings.Repeat(" ", 64<<20) + "</DataSets>"
	path = writeZip(t, map[string]string{"bomb.xml": bomb}, []string{"bomb.xml"})
	if _, err := OpenArchive(path, ArchiveOptions{}); !errors.Is(err, ErrUnsafeArchive) || !strings.Contains(err.Error(), "ratio cap") {
		t.Errorf("bomb: %v", err)
	}
	path = writeZip(t, map[string]string{"readme.txt": "x"}, []string{"readme.txt"})
	if _, err := OpenArchive(path, ArchiveOptions{}); !errors.Is(err, ErrNoDocuments) {
		t.Errorf("no documents: %v", err)
	}
	path = filepath.Join(t.TempDir(), "bad.zip")
	os.WriteFile(path, []byte("PK\x03\x04 not really a zip"), 0o644)
	if _, err := OpenArchive(path, ArchiveOptions{}); !errors.Is(err, ErrSyntax) {
		t.Errorf("corrupt zip: %v", err)
	}
}

// bombGuard counts real inflated bytes, whatever the headers declare.
func TestBombGuard(t *testing.T) {
	g := &bombGuard{rc: io.NopCloser(strings.NewReader(strings.Repeat("x", 5000))), left: 4096, budget: newBudget(1 << 20), name: "e.xml", ratio: 10}
	_, err := io.Copy(io.Discard, g)
	if !errors.Is(err, ErrUnsafeArchive) {
		t.Errorf("entry cap: %v", err)
	}
	shared := newBudget(6000)
	for i := range 2 {
		g := &bombGuard{rc: io.NopCloser(strings.NewReader(strings.Repeat("x", 4000))), left: 1 << 20, budget: shared, name: "e.xml", ratio: 10}
		_, err := io.Copy(io.Discard, g)
		if (i == 1) != errors.Is(err, ErrUnsafeArchive) {
			t.Errorf("shared budget, entry %d: %v", i, err)
		}
	}
}

// Text split by child elements, comments and CDATA is joined per element;
// each element keeps only its own text; metadata elements filled one by one
// keep theirs.
func TestSplitText(t *testing.T) {
	doc := `<DataSets><DataSet><Metadata><Description><Representation><Title>Ti<!-- c -->tle</Title></Representation></Description></Metadata>
<Units><Unit><UnitID>u<![CDATA[1]]>x</UnitID>
<Notes>first <Sub>inner</Sub>second<Sub2>more</Sub2> third</Notes><RecordBasis>PreservedSpecimen</RecordBasis>
<Sex>female</Sex></Unit>
<Unit><UnitID>u2</UnitID><Notes>only</Notes></Unit></Units></DataSet></DataSets>`
	r := NewReader(strings.NewReader(doc), "doc.xml", Options{})
	var got []map[string]string
	for {
		rec, err := r.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec.Core)
	}
	if len(got) != 2 {
		t.Fatalf("%d records", len(got))
	}
	expect(t, "unit 1", got[0], map[string]string{
		dwc + "catalogNumber": "u1x", dwc + "occurrenceRemarks": "first second third",
		dwc + "basisOfRecord": "PreservedSpecimen", dwc + "sex": "female", dwc + "datasetName": "Title",
	})
	expect(t, "unit 2", got[1], map[string]string{
		dwc + "catalogNumber": "u2", dwc + "occurrenceRemarks": "only", dwc + "sex": "", dwc + "datasetName": "Title",
	})
	if r.Dataset().Title != "Title" {
		t.Errorf("title %q", r.Dataset().Title)
	}
}

// TestABCD2Namespaces: DataSets in ABCD 2.06's or 2.1's namespace, however
// declared (a prefix, a default one redeclared inside a response, https or
// a trailing slash), or in none at all (undeclared prefixes, a declaration
// on a closed sibling), is read.
func TestABCD2Namespaces(t *testing.T) {
	body := "<DataSet><Units><Unit><UnitID>1</UnitID></Unit></Units></DataSet>"
	prefixed := strings.NewReplacer("</", "</abcd21:", "<", "<abcd21:").Replace(body)
	for _, doc := range []string{
		"<DataSets xmlns='http://www.tdwg.org/schemas/abcd/2.06'>" + body + "</DataSets>",
		"<DataSets xmlns='https://www.tdwg.org/schemas/abcd/2.1/'>" + body + "</DataSets>",
		"<abcd21:DataSets xmlns:abcd21='http://www.tdwg.org/schemas/abcd/2.1'>" + prefixed + "</abcd21:DataSets>",
		"<response xmlns='http://www.tdwg.org/schemas/abcd/1.2'><content><DataSets xmlns='http://www.tdwg.org/schemas/abcd/2.06'>" + body + "</DataSets></content></response>",
		"<response><x xmlns:a='http://example.org/not-abcd'/><content><a:DataSets>" + body + "</a:DataSets></content></response>",
		"<abcd:DataSets>" + body + "</abcd:DataSets>",
		"<DataSets>" + body + "</DataSets>",
	} {
		n, _, err := readDoc(doc, Options{})
		if err != nil || n != 1 {
			t.Errorf("%s: %d units, %v", doc, n, err)
		}
	}
}
