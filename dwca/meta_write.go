package dwca

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// NSText is the namespace of the meta.xml document (TDWG text guide).
const NSText = "http://rs.tdwg.org/dwc/text/"

// WriteXML writes m as a meta.xml document. Every attribute is explicit
// (encoding, fieldsTerminatedBy, linesTerminatedBy, fieldsEnclosedBy,
// ignoreHeaderLines, rowType) because the TDWG text guide and popular readers
// disagree on defaults; separators are written as backslash escapes ("\t",
// "\n"). The core gets <id index> and every extension <coreid index>: an
// extension without IDIndex, or a core without one when there are
// extensions, is an error. The document starts with "<?xml" at byte 0.
func (m *Meta) WriteXML(w io.Writer) error {
	if err := m.validateForWrite(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	bw.WriteString(`<archive xmlns="` + NSText + `"`)
	if m.Metadata != "" {
		bw.WriteString(` metadata="` + EscapeXML(m.Metadata) + `"`)
	}
	bw.WriteString(">\n")
	writeSpec(bw, "core", "id", &m.Core)
	for i := range m.Extensions {
		writeSpec(bw, "extension", "coreid", &m.Extensions[i])
	}
	bw.WriteString("</archive>\n")
	return bw.Flush()
}

func (m *Meta) validateForWrite() error {
	check := func(what string, s *FileSpec) error {
		if s.RowType == "" {
			return fmt.Errorf("dwca: write meta.xml: %s has no rowType", what)
		}
		if len(s.Files) == 0 {
			return fmt.Errorf("dwca: write meta.xml: %s %s has no file", what, s.RowType)
		}
		if s.FieldsTerminatedBy == "" {
			return fmt.Errorf("dwca: write meta.xml: %s %s has no fieldsTerminatedBy", what, s.RowType)
		}
		for _, f := range s.Fields {
			if f.Term == "" {
				return fmt.Errorf("dwca: write meta.xml: %s %s has a field without a term", what, s.RowType)
			}
		}
		return nil
	}
	if err := check("core", &m.Core); err != nil {
		return err
	}
	if m.Core.IDIndex < 0 && len(m.Extensions) > 0 {
		return errors.New("dwca: write meta.xml: core has no id column but there are extensions")
	}
	for i := range m.Extensions {
		e := &m.Extensions[i]
		if err := check("extension", e); err != nil {
			return err
		}
		if e.IDIndex < 0 {
			return fmt.Errorf("dwca: write meta.xml: extension %s has no coreid column", e.RowType)
		}
	}
	return nil
}

func writeSpec(bw *bufio.Writer, elem, idElem string, s *FileSpec) {
	enc := s.Encoding
	if enc == "" {
		enc = DefaultEncoding
	}
	lines := s.LinesTerminatedBy
	if lines == "" {
		lines = DefaultLinesTerminatedBy
	}
	fmt.Fprintf(bw, `  <%s encoding="%s" fieldsTerminatedBy="%s" linesTerminatedBy="%s" fieldsEnclosedBy="%s" ignoreHeaderLines="%d" rowType="%s"`,
		elem, EscapeXML(enc), escapeSeparator(s.FieldsTerminatedBy), escapeSeparator(lines),
		escapeSeparator(s.FieldsEnclosedBy), s.IgnoreHeaderLines, EscapeXML(s.RowType))
	if s.DateFormat != "" {
		bw.WriteString(` dateFormat="` + EscapeXML(s.DateFormat) + `"`)
	}
	bw.WriteString(">\n    <files>\n")
	for _, f := range s.Files {
		bw.WriteString("      <location>" + EscapeXML(f) + "</location>\n")
	}
	bw.WriteString("    </files>\n")
	if s.IDIndex >= 0 {
		bw.WriteString("    <" + idElem + ` index="` + strconv.Itoa(s.IDIndex) + "\"/>\n")
	}
	for _, f := range s.Fields {
		bw.WriteString("    <field")
		if f.Index >= 0 {
			bw.WriteString(` index="` + strconv.Itoa(f.Index) + `"`)
		}
		bw.WriteString(` term="` + EscapeXML(f.Term) + `"`)
		if f.Default != "" || f.Index < 0 {
			bw.WriteString(` default="` + EscapeXML(f.Default) + `"`)
		}
		if f.Vocabulary != "" {
			bw.WriteString(` vocabulary="` + EscapeXML(f.Vocabulary) + `"`)
		}
		if f.Delimiter != "" {
			bw.WriteString(` delimitedBy="` + EscapeXML(f.Delimiter) + `"`)
		}
		bw.WriteString("/>\n")
	}
	bw.WriteString("  </" + elem + ">\n")
}

// escapeSeparator writes control characters as the backslash escapes readers
// decode (\t, \n, \r, \uXXXX) and XML-escapes the rest, so that ParseMeta
// reads back exactly s.
func escapeSeparator(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0xFFFE || r == 0xFFFF || (r >= 0xD800 && r <= 0xDFFF):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteString(EscapeXML(string(r)))
		}
	}
	return b.String()
}

// EscapeXML escapes text for an XML attribute value or element content (EML
// documents, meta.xml).
// Characters XML 1.0 cannot carry at all are dropped.
func EscapeXML(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\'':
			b.WriteString("&apos;")
		case r == '\t' || r == '\n' || r == '\r':
			fmt.Fprintf(&b, "&#x%X;", r)
		case r < 0x20 || r == 0xFFFE || r == 0xFFFF || (r >= 0xD800 && r <= 0xDFFF):
			// not representable in XML 1.0
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
