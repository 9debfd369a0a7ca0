package dwca

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

func TestParseMetaDefaults(t *testing.T) {
	doc := `<archive xmlns="http://rs.tdwg.org/dwc/text/">
  <core rowType="http://rs.tdwg.org/dwc/xsd/simpledarwincore/SimpleDarwinRecord">
    <files><location> occ.csv </location></files>
    <id index="0"/>
    <field index="1" term="http://rs.tdwg.org/dwc/terms/ScientificName"/>
    <field term="http://rs.tdwg.org/dwc/terms/country" default="Belgium &amp; Co"/>
  </core>
</archive>`
	m, err := ParseMeta(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := m.Core
	if c.RowType != occurrence.RowTypeOccurrence {
		t.Errorf("rowType %q", c.RowType)
	}
	if c.FieldsTerminatedBy != "," || c.LinesTerminatedBy != "\n" || c.FieldsEnclosedBy != `"` ||
		c.Encoding != "UTF-8" || c.IgnoreHeaderLines != 0 {
		t.Errorf("defaults not applied: %+v", c)
	}
	if len(c.Files) != 1 || c.Files[0] != "occ.csv" {
		t.Errorf("files %q", c.Files)
	}
	if c.IDIndex != 0 {
		t.Errorf("id index %d", c.IDIndex)
	}
	if c.Fields[0].Term != occurrence.NSDwC+"scientificName" {
		t.Errorf("term not canonicalized: %q", c.Fields[0].Term)
	}
	if f := c.Fields[1]; f.Index != -1 || f.Default != "Belgium & Co" {
		t.Errorf("default field %+v", f)
	}
	if m.Metadata != "" {
		t.Errorf("metadata %q", m.Metadata)
	}
}

func TestParseMetaEscapes(t *testing.T) {
	for in, want := range map[string]string{
		`\t`: "\t", `\\t`: "\t", `,`: ",", `\n`: "\n", `\r\n`: "\r\n", `|`: "|",
		`\u0009`: "\t", `;`: ";", `\`: `\`, `\\`: `\`, `a\qb`: `a\qb`,
	} {
		if got := Unescape(in); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
	doc := `<archive><extension fieldsTerminatedBy="\\t" fieldsEnclosedBy='' linesTerminatedBy="\r\n"
	 ignoreHeaderLines=" 2 " rowType="http://rs.tdwg.org/dwc/terms/DarwinCore">
	<files><location>x</location></files><coreid index="3"/></extension>
	<core rowType="Event"><files><location>e</location></files></core></archive>`
	m, err := ParseMeta(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	e := m.Extensions[0]
	if e.FieldsTerminatedBy != "\t" || e.FieldsEnclosedBy != "" || e.LinesTerminatedBy != "\r\n" ||
		e.IgnoreHeaderLines != 2 || e.IDIndex != 3 || e.RowType != occurrence.RowTypeOccurrence {
		t.Errorf("extension %+v", e)
	}
	if m.Core.RowType != occurrence.RowTypeEvent || m.Core.IDIndex != -1 {
		t.Errorf("core %+v", m.Core)
	}
}

func TestParseMetaErrors(t *testing.T) {
	cases := map[string]struct {
		doc  string
		line int
		msg  string
	}{
		"syntax":     {"<archive>\n<core rowType='x'>\n<files></core>", 3, "element <files> closed by </core>"},
		"no core":    {"<archive>\n</archive>", 1, "no <core>"},
		"bad index":  {"<archive><core rowType='x'>\n<files><location>a</location></files>\n<field index='x1' term='t'/></core></archive>", 3, "not a column number"},
		"no rowType": {"<archive>\n\n<core><files/></core></archive>", 3, "no rowType"},
		"no file":    {"<archive><core rowType='x'>\n</core></archive>", 2, "no <location>"},
		"header":     {"<archive><core rowType='x' ignoreHeaderLines='one'></core></archive>", 1, "ignoreHeaderLines"},
	}
	for name, c := range cases {
		_, err := ParseMeta(strings.NewReader(c.doc))
		var me *MetaError
		if !errors.As(err, &me) || !errors.Is(err, ErrInvalidMeta) {
			t.Errorf("%s: error %v is not a MetaError", name, err)
			continue
		}
		if me.Line != c.line || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %q (line %d), want line %d and %q", name, err, me.Line, c.line, c.msg)
		}
	}
}

func TestMetaWriteXMLRoundTrip(t *testing.T) {
	m := &Meta{
		Metadata: "metadata.xml",
		Core: FileSpec{
			RowType: occurrence.RowTypeOccurrence, Files: []string{"occurrence & more.txt"},
			Encoding: "UTF-8", FieldsTerminatedBy: "\t", LinesTerminatedBy: "\n", IgnoreHeaderLines: 1,
			IDIndex: 0,
			Fields: []Field{
				{Index: 0, Term: occurrence.NSGBIF + "gbifID"},
				{Index: 1, Term: occurrence.NSDwC + "scientificName"},
				{Index: -1, Term: occurrence.NSDC + "license", Default: `CC "BY" <4.0>`},
			},
		},
		Extensions: []FileSpec{{
			RowType: occurrence.RowTypeMultimedia, Files: []string{"multimedia.txt"},
			FieldsTerminatedBy: "\t", IgnoreHeaderLines: 1, IDIndex: 0,
			Fields: []Field{{Index: 1, Term: occurrence.NSDC + "identifier", Delimiter: "|"}},
		}},
	}
	var buf bytes.Buffer
	if err := m.WriteXML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "<?xml") {
		t.Errorf("document does not start with <?xml: %q", out[:20])
	}
	for _, want := range []string{`fieldsEnclosedBy=""`, `fieldsTerminatedBy="\t"`, `linesTerminatedBy="\n"`,
		`ignoreHeaderLines="1"`, `encoding="UTF-8"`, `<id index="0"/>`, `<coreid index="0"/>`,
		`metadata="metadata.xml"`, `occurrence &amp; more.txt`, `default="CC &quot;BY&quot; &lt;4.0&gt;"`} {
		if !strings.Contains(out, want) {
			t.Errorf("meta.xml lacks %s:\n%s", want, out)
		}
	}
	back, err := ParseMeta(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if back.Core.Files[0] != "occurrence & more.txt" || back.Core.FieldsEnclosedBy != "" ||
		back.Core.FieldsTerminatedBy != "\t" || back.Core.Fields[2].Default != `CC "BY" <4.0>` ||
		back.Extensions[0].LinesTerminatedBy != "\n" || back.Extensions[0].Fields[0].Delimiter != "|" ||
		back.Metadata != "metadata.xml" {
		t.Errorf("round trip changed the meta: %+v", back)
	}
	bad := *m
	bad.Extensions = []FileSpec{{RowType: "x", Files: []string{"x"}, FieldsTerminatedBy: "\t", IDIndex: -1}}
	if err := bad.WriteXML(&bytes.Buffer{}); err == nil {
		t.Error("extension without coreid accepted")
	}
}

func TestNormalizeRowType(t *testing.T) {
	for in, want := range map[string]string{
		"http://rs.tdwg.org/dwc/terms/DarwinCore":                        occurrence.RowTypeOccurrence,
		"http://rs.tdwg.org/dwc/xsd/simpledarwincore/SimpleDarwinRecord": occurrence.RowTypeOccurrence,
		"DarwinCore": occurrence.RowTypeOccurrence,
		"http://rs.tdwg.org/dwc/terms/occurrence":     occurrence.RowTypeOccurrence,
		"http://rs.gbif.org/terms/1.0/Image":          occurrence.RowTypeMultimedia,
		"http://rs.tdwg.org/ac/terms/Multimedia":      occurrence.RowTypeAudubon,
		"http://rs.tdwg.org/dwc/terms/Taxon":          RowTypeTaxon,
		"http://example.org/MyRows":                   "http://example.org/MyRows",
		"http://rs.gbif.org/terms/1.0/vernacularname": occurrence.NSGBIF + "VernacularName",
	} {
		if got := NormalizeRowType(in); got != want {
			t.Errorf("NormalizeRowType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTermForName(t *testing.T) {
	for in, want := range map[string]string{
		"gbifid":                            occurrence.NSGBIF + "gbifID",
		"decimallatitude":                   occurrence.NSDwC + "decimalLatitude",
		"dwc:Country":                       occurrence.NSDwC + "country",
		"rights":                            occurrence.NSDC + "rights",
		"license":                           occurrence.NSDC + "license",
		"\ufeffid":                          "id",
		"myColumn":                          "myColumn",
		"http://purl.org/dc/terms/Modified": occurrence.NSDC + "modified",
	} {
		if got := TermForName(in); got != want {
			t.Errorf("TermForName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseMetaEncodings(t *testing.T) {
	doc := `<?xml version="1.0" encoding="%s"?>
<archive><core rowType="Occurrence"><files><location>K%sbenhavn.txt</location></files></core></archive>`
	latin1 := fmt.Sprintf(doc, "ISO-8859-1", "\xf8")
	utf16 := []byte{0xFF, 0xFE}
	for _, r := range fmt.Sprintf(doc, "UTF-16", "ø") {
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	bom8 := "\ufeff" + fmt.Sprintf(doc, "UTF-8", "ø")
	for name, in := range map[string]string{"latin1": latin1, "utf16": string(utf16), "utf8 BOM": bom8} {
		m, err := ParseMeta(strings.NewReader(in))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if m.Core.Files[0] != "København.txt" {
			t.Errorf("%s: location %q", name, m.Core.Files[0])
		}
	}
}
