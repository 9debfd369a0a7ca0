package abcd

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/beevik/etree"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Options tune a Reader. The zero value uses the defaults.
type Options struct {
	// MaxTokenBytes caps one text node, tag or comment.
	MaxTokenBytes int64
	// MaxUnitBytes caps one Unit subtree and the DataSet metadata.
	MaxUnitBytes int64
	// MaxDepth caps element nesting.
	MaxDepth int
}

func (o Options) withDefaults() Options {
	if o.MaxTokenBytes <= 0 {
		o.MaxTokenBytes = DefaultMaxTokenBytes
	}
	if o.MaxUnitBytes <= 0 {
		o.MaxUnitBytes = DefaultMaxUnitBytes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	return o
}

// ProtocolInfo is what a BioCASe protocol response says about itself: the
// paging attributes of <content> and the diagnostics. All zero for a bare
// DataSets document.
type ProtocolInfo struct {
	IsResponse      bool
	Type            string // header/type: search, scan, capabilities
	Source          string // header/source
	RecordStart     int
	RecordCount     int
	RecordDropped   int
	TotalSearchHits int
	HasContent      bool
	Diagnostics     []Diagnostic
}

// Diagnostic is one response/diagnostics/diagnostic.
type Diagnostic struct {
	Severity string
	Text     string
}

// Reader streams the units of one ABCD document (ABCD 2.06, 2.1, a bare
// DataSets root or a BioCASe protocol response) as Darwin Core raw records.
// Memory is bounded by one unit: the document is cut into Unit subtrees with
// encoding/xml tokens and each subtree is mapped with etree.
type Reader struct {
	name  string
	opts  Options
	g     *guardReader
	dec   *xml.Decoder
	stack []xml.Name

	rootSeen bool
	done     bool
	err      error

	ds       *etree.Element // DataSet-level elements collected before Units
	dsMeta   DatasetMeta    // metadata of the current DataSet
	meta     DatasetMeta    // metadata of the first DataSet
	metaSeen bool
	proto    ProtocolInfo
	units    int
}

// NewReader returns a Reader over r; name locates errors ("file.xml",
// "archive.zip!response.00001.xml").
func NewReader(r io.Reader, name string, opts Options) *Reader {
	opts = opts.withDefaults()
	g := newGuardReader(r, opts.MaxTokenBytes)
	return &Reader{name: name, opts: opts, g: g, dec: newDecoder(g)}
}

// Dataset is the metadata of the document's (first) DataSet. It is complete
// once Next has returned the first record or io.EOF.
func (r *Reader) Dataset() DatasetMeta { return r.meta }

// Protocol is the BioCASe response information read so far (diagnostics
// follow the content, so they are complete after io.EOF).
func (r *Reader) Protocol() ProtocolInfo { return r.proto }

// Units is the number of units read so far.
func (r *Reader) Units() int { return r.units }

// Next returns the next unit as a raw record, io.EOF after the last one, or a
// *ParseError. After an error every call returns the same error.
func (r *Reader) Next(ctx context.Context) (occurrence.RawRecord, error) {
	if r.err != nil {
		return occurrence.RawRecord{}, r.err
	}
	if err := ctx.Err(); err != nil {
		return occurrence.RawRecord{}, err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
	}
	return rec, err
}

func (r *Reader) next() (occurrence.RawRecord, error) {
	for {
		tok, err := r.token()
		if err != nil {
			return occurrence.RawRecord{}, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			unit, err := r.start(t)
			if err != nil {
				return occurrence.RawRecord{}, err
			}
			if unit != nil {
				r.units++
				rec := mapUnit(unit, &r.dsMeta)
				rec.Source = fmt.Sprintf("%s unit %d", r.name, r.units)
				return rec, nil
			}
		case xml.EndElement:
			if err := r.end(t); err != nil {
				return occurrence.RawRecord{}, err
			}
		}
	}
}

// token returns the next token, checking the document-level rules; io.EOF
// only at a proper end of document.
func (r *Reader) token() (xml.Token, error) {
	r.g.mark()
	tok, err := r.dec.RawToken()
	if err == io.EOF {
		if !r.rootSeen {
			return nil, r.fail(fmt.Errorf("%w: no root element", ErrSyntax))
		}
		if len(r.stack) > 0 {
			return nil, r.fail(fmt.Errorf("%w: unexpected end of document inside <%s>", ErrSyntax, r.stack[len(r.stack)-1].Local))
		}
		return nil, io.EOF
	}
	if err != nil {
		return nil, r.decodeError(err)
	}
	switch t := tok.(type) {
	case xml.Directive:
		if declaresEntities(t) {
			return nil, r.fail(fmt.Errorf("%w: the DOCTYPE declares entities", ErrEntity))
		}
	case xml.StartElement:
		if len(r.stack) >= r.opts.MaxDepth {
			return nil, r.fail(fmt.Errorf("%w: elements nested deeper than %d", ErrTooLarge, r.opts.MaxDepth))
		}
		if !r.rootSeen {
			r.rootSeen = true
		} else if len(r.stack) == 0 {
			return nil, r.fail(fmt.Errorf("%w: second root element <%s>", ErrSyntax, t.Name.Local))
		}
		r.stack = append(r.stack, t.Name)
	case xml.EndElement:
		if len(r.stack) == 0 || r.stack[len(r.stack)-1] != t.Name {
			return nil, r.fail(fmt.Errorf("%w: unexpected </%s>", ErrSyntax, fullName(t.Name)))
		}
		r.stack = r.stack[:len(r.stack)-1]
	case xml.CharData:
		if len(r.stack) == 0 && !isSpace(t) {
			return nil, r.fail(fmt.Errorf("%w: text outside the root element", ErrSyntax))
		}
	}
	return tok, nil
}

func (r *Reader) decodeError(err error) error {
	if errors.Is(err, errTokenCap) {
		return r.fail(fmt.Errorf("%w: a single text node or tag exceeds %d bytes", ErrTooLarge, r.opts.MaxTokenBytes))
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return &ParseError{Op: "read", Path: r.name, Line: se.Line, Unit: r.unitContext(), Err: fmt.Errorf("%w: %s", ErrSyntax, se.Msg)}
	}
	return r.fail(err)
}

func (r *Reader) fail(err error) error {
	line, _ := r.dec.InputPos()
	return &ParseError{Op: "read", Path: r.name, Line: line, Unit: r.unitContext(), Err: err}
}

// unitContext is the number of the unit being read when an error occurs.
func (r *Reader) unitContext() int {
	for _, n := range r.stack {
		if n.Local == "Unit" {
			return r.units + 1
		}
	}
	return 0
}

func (r *Reader) parent() string {
	if len(r.stack) < 2 {
		return ""
	}
	return r.stack[len(r.stack)-2].Local
}

// start handles an element start; it returns a Unit subtree when one was read.
func (r *Reader) start(t xml.StartElement) (*etree.Element, error) {
	if len(r.stack) == 1 {
		switch t.Name.Local {
		case "response":
			r.proto.IsResponse = true
		case "DataSets":
		default:
			return nil, r.fail(fmt.Errorf("%w: root element <%s>, want <DataSets> or a BioCASe <response>", ErrWrongRoot, fullName(t.Name)))
		}
		return nil, nil
	}
	parent := r.parent()
	switch {
	case t.Name.Local == "DataSet" && parent == "DataSets":
		r.ds = etree.NewElement("DataSet")
		r.dsMeta = DatasetMeta{}
	case parent == "DataSet" && r.ds != nil:
		if t.Name.Local == "Units" {
			r.finishMetadata()
			return nil, nil
		}
		return nil, r.subtree(t, r.ds)
	case t.Name.Local == "Unit" && parent == "Units":
		if r.ds == nil {
			return nil, r.fail(fmt.Errorf("%w: <Unit> outside a DataSet", ErrWrongRoot))
		}
		u := etree.NewElement("Unit")
		return u, r.fill(u, t)
	case t.Name.Local == "content" && parent == "response":
		r.readContentAttrs(t)
	case (t.Name.Local == "type" || t.Name.Local == "source") && parent == "header":
		e := etree.NewElement(t.Name.Local)
		if err := r.fill(e, t); err != nil {
			return nil, err
		}
		if t.Name.Local == "type" {
			r.proto.Type = clean(e.Text())
		} else {
			r.proto.Source = clean(e.Text())
		}
	case t.Name.Local == "diagnostic" && parent == "diagnostics":
		e := etree.NewElement("diagnostic")
		if err := r.fill(e, t); err != nil {
			return nil, err
		}
		r.proto.Diagnostics = append(r.proto.Diagnostics, Diagnostic{Severity: attr(e, "severity"), Text: clean(e.Text())})
	}
	return nil, nil
}

func (r *Reader) end(t xml.EndElement) error {
	if t.Name.Local == "DataSet" && r.ds != nil && len(r.stack) >= 1 && r.stack[len(r.stack)-1].Local == "DataSets" {
		r.finishMetadata()
		r.ds = nil
	}
	return nil
}

func (r *Reader) finishMetadata() {
	if r.ds == nil || r.ds.Tag == "" {
		return
	}
	r.dsMeta = parseMetadata(r.ds)
	if !r.metaSeen {
		r.meta = r.dsMeta
		r.metaSeen = true
	}
	r.ds.Tag = "" // mark done; later DataSet children are ignored
}

func (r *Reader) readContentAttrs(t xml.StartElement) {
	r.proto.HasContent = true
	for _, a := range t.Attr {
		n, _ := strconv.Atoi(a.Value)
		switch a.Name.Local {
		case "recordStart":
			r.proto.RecordStart = n
		case "recordCount":
			r.proto.RecordCount = n
		case "recordDropped":
			r.proto.RecordDropped = n
		case "totalSearchHits":
			r.proto.TotalSearchHits = n
		}
	}
}

// subtree reads the element started by t into a new child of parent.
func (r *Reader) subtree(t xml.StartElement, parent *etree.Element) error {
	if parent.Tag == "" { // metadata already finished: skip
		return r.skip()
	}
	e := parent.CreateElement(t.Name.Local)
	return r.fill(e, t)
}

// skip consumes tokens up to the end of the element just started.
func (r *Reader) skip() error {
	depth := len(r.stack)
	for len(r.stack) >= depth {
		if _, err := r.token(); err != nil {
			return r.eofInside(err)
		}
	}
	return nil
}

func (r *Reader) eofInside(err error) error {
	if err == io.EOF {
		return r.fail(fmt.Errorf("%w: unexpected end of document", ErrSyntax))
	}
	return err
}

// fill copies the attributes of t into e and reads the element content up to
// its end tag into e, enforcing the unit size cap.
func (r *Reader) fill(e *etree.Element, t xml.StartElement) error {
	e.Space = t.Name.Space
	addAttrs(e, t.Attr)
	depth := len(r.stack)
	begin := r.g.n
	cur := e
	for len(r.stack) >= depth {
		tok, err := r.token()
		if err != nil {
			return r.eofInside(err)
		}
		if r.g.n-begin > r.opts.MaxUnitBytes {
			return r.fail(fmt.Errorf("%w: <%s> exceeds %d bytes", ErrTooLarge, t.Name.Local, r.opts.MaxUnitBytes))
		}
		switch x := tok.(type) {
		case xml.StartElement:
			c := cur.CreateElement(x.Name.Local)
			c.Space = x.Name.Space
			addAttrs(c, x.Attr)
			cur = c
		case xml.EndElement:
			if p := cur.Parent(); p != nil && cur != e {
				cur = p
			}
		case xml.CharData:
			if !isSpace(x) {
				cur.CreateText(string(x))
			}
		}
	}
	return nil
}

func addAttrs(e *etree.Element, attrs []xml.Attr) {
	for _, a := range attrs {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			continue
		}
		e.Attr = append(e.Attr, etree.Attr{Space: a.Name.Space, Key: a.Name.Local, Value: a.Value})
	}
}

func isSpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

func fullName(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}
