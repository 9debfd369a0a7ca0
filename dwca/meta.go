package dwca

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// TDWG text guide defaults for a <core> or <extension> element's attributes.
const (
	DefaultEncoding           = "UTF-8"
	DefaultFieldsTerminatedBy = ","
	DefaultLinesTerminatedBy  = "\n"
	DefaultFieldsEnclosedBy   = `"`
)

// ErrInvalidMeta marks a meta.xml that cannot be used.
var ErrInvalidMeta = errors.New("invalid meta.xml")

// Meta is an archive descriptor (meta.xml): the core data file, its extensions
// and the name of the metadata (EML) document.
type Meta struct {
	Core       FileSpec
	Extensions []FileSpec
	// Metadata is the archive-relative name of the EML document ("" if none).
	Metadata string
}

// FileSpec describes one data file (a core or an extension). Every attribute is
// explicit: ParseMeta fills in the TDWG defaults for those absent in meta.xml.
type FileSpec struct {
	RowType string
	// Files are the archive-relative locations; the rows of all of them, in
	// order, make up the data of this file.
	Files              []string
	Encoding           string
	FieldsTerminatedBy string
	LinesTerminatedBy  string
	// FieldsEnclosedBy is "" when values are not quoted.
	FieldsEnclosedBy  string
	IgnoreHeaderLines int
	DateFormat        string
	// IDIndex is the column of the core <id> or the extension <coreid>, -1 if
	// the file has none.
	IDIndex int
	Fields  []Field
}

// Field maps a column (or only a default value) to a term.
type Field struct {
	// Index is the column, -1 when the field only carries a Default.
	Index int
	// Term is the term URI, canonicalized (see CanonicalTerm).
	Term       string
	Default    string
	Vocabulary string
	Delimiter  string
}

// MetaError locates a problem in a meta.xml document.
type MetaError struct {
	Line int
	Err  error
}

func (e *MetaError) Error() string {
	return fmt.Sprintf("meta.xml line %d: %v", e.Line, e.Err)
}

func (e *MetaError) Unwrap() error { return e.Err }

// Is makes every MetaError match ErrInvalidMeta.
func (e *MetaError) Is(target error) bool { return target == ErrInvalidMeta }

// FieldIndex returns the position in Fields of the field for term, or -1.
func (s *FileSpec) FieldIndex(term string) int {
	for i := range s.Fields {
		if s.Fields[i].Term == term {
			return i
		}
	}
	return -1
}

// newFileSpec returns a FileSpec with the TDWG defaults.
func newFileSpec() FileSpec {
	return FileSpec{
		Encoding:           DefaultEncoding,
		FieldsTerminatedBy: DefaultFieldsTerminatedBy,
		LinesTerminatedBy:  DefaultLinesTerminatedBy,
		FieldsEnclosedBy:   DefaultFieldsEnclosedBy,
		IDIndex:            -1,
	}
}

// metaParser walks the tokens of a meta.xml document.
type metaParser struct {
	dec      *xml.Decoder
	meta     Meta
	cur      *FileSpec // core or extension being read
	isCore   bool
	haveCore bool
	inLoc    bool
	loc      strings.Builder
}

// ParseMeta reads a meta.xml document. Element and attribute names are matched
// without regard to their namespace; absent attributes get the TDWG defaults;
// backslash escapes in separators ("\t", "\\t", "\n") are decoded; old row
// type names are normalized (NormalizeRowType) and terms canonicalized.
// Errors carry the line number (*MetaError, matching ErrInvalidMeta).
func ParseMeta(r io.Reader) (*Meta, error) {
	p := &metaParser{dec: newXMLDecoder(r)}
	for {
		line, _ := p.dec.InputPos()
		tok, err := p.dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, &MetaError{Line: se.Line, Err: errors.New(se.Msg)}
			}
			return nil, &MetaError{Line: line, Err: err}
		}
		line, _ = p.dec.InputPos()
		if err := p.token(tok); err != nil {
			return nil, &MetaError{Line: line, Err: err}
		}
	}
	if !p.haveCore {
		return nil, &MetaError{Line: 1, Err: errors.New("no <core> element")}
	}
	return &p.meta, nil
}

func (p *metaParser) token(tok xml.Token) error {
	switch t := tok.(type) {
	case xml.StartElement:
		return p.start(t)
	case xml.EndElement:
		return p.end(t)
	case xml.CharData:
		if p.inLoc {
			p.loc.Write(t)
		}
	}
	return nil
}

func (p *metaParser) start(t xml.StartElement) error {
	name := strings.ToLower(t.Name.Local)
	switch name {
	case "archive":
		p.meta.Metadata = strings.TrimSpace(attr(t, "metadata"))
	case "core", "extension":
		if p.cur != nil {
			return fmt.Errorf("<%s> inside <%s>", t.Name.Local, p.curName())
		}
		if name == "core" && p.haveCore {
			return errors.New("more than one <core> element")
		}
		spec, err := specFromAttrs(t)
		if err != nil {
			return fmt.Errorf("<%s>: %w", t.Name.Local, err)
		}
		p.cur, p.isCore = &spec, name == "core"
	case "location":
		if p.cur != nil {
			p.inLoc = true
			p.loc.Reset()
		}
	case "id", "coreid":
		return p.idElement(t)
	case "field":
		return p.fieldElement(t)
	}
	return nil
}

func (p *metaParser) curName() string {
	if p.isCore {
		return "core"
	}
	return "extension"
}

func (p *metaParser) end(t xml.EndElement) error {
	switch strings.ToLower(t.Name.Local) {
	case "location":
		if p.inLoc {
			p.inLoc = false
			if loc := strings.TrimSpace(p.loc.String()); loc != "" {
				p.cur.Files = append(p.cur.Files, loc)
			}
		}
	case "core", "extension":
		if p.cur == nil {
			return nil
		}
		if len(p.cur.Files) == 0 {
			return fmt.Errorf("<%s> rowType %q has no <location>", p.curName(), p.cur.RowType)
		}
		if p.isCore {
			p.meta.Core, p.haveCore = *p.cur, true
		} else {
			p.meta.Extensions = append(p.meta.Extensions, *p.cur)
		}
		p.cur = nil
	}
	return nil
}

func (p *metaParser) idElement(t xml.StartElement) error {
	if p.cur == nil {
		return nil
	}
	v := strings.TrimSpace(attr(t, "index"))
	if v == "" {
		// <coreid/> without an index (seen in the wild): no link column.
		p.cur.IDIndex = -1
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("<%s index=%q>: not a column number", t.Name.Local, v)
	}
	p.cur.IDIndex = n
	return nil
}

func (p *metaParser) fieldElement(t xml.StartElement) error {
	if p.cur == nil {
		return nil
	}
	f := Field{
		Index:      -1,
		Term:       CanonicalTerm(strings.TrimSpace(attr(t, "term"))),
		Default:    attr(t, "default"),
		Vocabulary: attr(t, "vocabulary"),
		Delimiter:  attr(t, "delimitedBy"),
	}
	if f.Term == "" {
		return errors.New("<field> without a term attribute")
	}
	if v := strings.TrimSpace(attr(t, "index")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("<field term=%q index=%q>: not a column number", f.Term, v)
		}
		f.Index = n
	} else if !hasAttr(t, "default") {
		return fmt.Errorf("<field term=%q> has neither index nor default", f.Term)
	}
	p.cur.Fields = append(p.cur.Fields, f)
	return nil
}

// specFromAttrs reads the attributes of a <core> or <extension> element.
func specFromAttrs(t xml.StartElement) (FileSpec, error) {
	s := newFileSpec()
	if v, ok := lookupAttr(t, "encoding"); ok && strings.TrimSpace(v) != "" {
		s.Encoding = strings.TrimSpace(v)
	}
	if v, ok := lookupAttr(t, "fieldsTerminatedBy"); ok {
		s.FieldsTerminatedBy = Unescape(v)
	}
	if v, ok := lookupAttr(t, "linesTerminatedBy"); ok {
		s.LinesTerminatedBy = Unescape(v)
	}
	if v, ok := lookupAttr(t, "fieldsEnclosedBy"); ok {
		s.FieldsEnclosedBy = Unescape(v)
	}
	if s.FieldsTerminatedBy == "" {
		return s, errors.New(`fieldsTerminatedBy is empty`)
	}
	if s.LinesTerminatedBy == "" {
		s.LinesTerminatedBy = DefaultLinesTerminatedBy
	}
	if v := strings.TrimSpace(attr(t, "ignoreHeaderLines")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return s, fmt.Errorf("ignoreHeaderLines=%q is not a number of lines", v)
		}
		s.IgnoreHeaderLines = n
	}
	s.DateFormat = attr(t, "dateFormat")
	s.RowType = NormalizeRowType(strings.TrimSpace(attr(t, "rowType")))
	if s.RowType == "" {
		return s, errors.New("no rowType attribute")
	}
	return s, nil
}

func lookupAttr(t xml.StartElement, name string) (string, bool) {
	for _, a := range t.Attr {
		if strings.EqualFold(a.Name.Local, name) {
			return a.Value, true
		}
	}
	return "", false
}

func attr(t xml.StartElement, name string) string {
	v, _ := lookupAttr(t, name)
	return v
}

func hasAttr(t xml.StartElement, name string) bool {
	_, ok := lookupAttr(t, name)
	return ok
}

// Unescape decodes the backslash escapes used in meta.xml separator
// attributes: \t \n \r \f \v \0, \uXXXX and \\. Any run of backslashes before
// t, n, r, f or v counts as one ("\\t" is a tab, as dwca-io reads it). Other
// characters are kept as they are.
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		if j == len(s) {
			b.WriteString(strings.Repeat(`\`, max(1, (j-i)/2)))
			break
		}
		if r, ok := escapeChar(s[j]); ok {
			b.WriteByte(r)
			i = j
			continue
		}
		if s[j] == 'u' && j+5 <= len(s) {
			if n, err := strconv.ParseUint(s[j+1:j+5], 16, 32); err == nil {
				b.WriteRune(rune(n))
				i = j + 4
				continue
			}
		}
		// "\\" is one backslash; a lone backslash before anything else stays.
		b.WriteString(strings.Repeat(`\`, max(1, (j-i)/2)))
		i = j - 1
	}
	return b.String()
}

func escapeChar(c byte) (byte, bool) {
	switch c {
	case 't':
		return '\t', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 'f':
		return '\f', true
	case 'v':
		return '\v', true
	case '0':
		return 0, true
	}
	return 0, false
}
