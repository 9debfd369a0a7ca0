package abcd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/biodiversity-downloads/downloader/internal/zipsafe"
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
	// MaxDocumentBytes caps the whole document (DefaultMaxDocumentBytes).
	MaxDocumentBytes int64
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
	if o.MaxDocumentBytes <= 0 {
		o.MaxDocumentBytes = DefaultMaxDocumentBytes
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
	// Diagnostics are the first MaxDiagnostics; MoreDiagnostics counts the
	// others.
	Diagnostics     []Diagnostic
	MoreDiagnostics int
}

// Diagnostic is one response/diagnostics/diagnostic.
type Diagnostic struct {
	Severity string
	Text     string
}

// Reader streams the units of one ABCD document (ABCD 2.06, 2.1, a bare
// DataSets root or a BioCASe protocol response) as Darwin Core raw records.
// Memory is bounded by one unit: the document is cut into Unit subtrees with
// a token stream and each subtree is mapped from a reusable node arena.
type Reader struct {
	name  string
	opts  Options
	src   io.Reader
	lex   *lexer
	stack []qname
	// ns holds the namespace declarations of the elements open above and
	// at DataSets, innermost last, until DataSets is checked.
	ns     []nsDecl
	nsDone bool

	rootSeen bool
	err      error

	ds       tree  // DataSet-level elements collected before Units
	inDS     bool  // inside a DataSet whose metadata is still being collected
	dsBegin  int64 // document offset where the DataSet began
	unit     tree
	small    tree        // header and diagnostics elements
	dsMeta   DatasetMeta // metadata of the current DataSet
	meta     DatasetMeta // metadata of the first DataSet
	metaSeen bool
	proto    ProtocolInfo
	units    int
}

// NewReader returns a Reader over r; name locates errors ("file.xml",
// "archive.zip!response.00001.xml").
func NewReader(r io.Reader, name string, opts Options) *Reader {
	return &Reader{name: name, opts: opts.withDefaults(), src: r}
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
	rec, err := r.guardedNext()
	if err != nil {
		r.err = err
		if r.lex != nil {
			r.lex.release()
		}
	}
	return rec, err
}

// guardedNext turns a panic in the lexer (third-party code fed untrusted
// input) into a located error instead of crashing the process.
func (r *Reader) guardedNext() (rec occurrence.RawRecord, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = r.fail(fmt.Errorf("%w: parser failure: %v", ErrSyntax, p))
		}
	}()
	if r.lex == nil {
		lex, err := newLexer(r.src, r.opts.MaxTokenBytes, r.opts.MaxDocumentBytes)
		if err != nil {
			return rec, &ParseError{Op: "read", Path: r.name, Line: 1, Err: err}
		}
		r.lex = lex
	}
	return r.next()
}

func (r *Reader) next() (occurrence.RawRecord, error) {
	for {
		kind, err := r.token()
		if err != nil {
			return occurrence.RawRecord{}, err
		}
		switch kind {
		case tokStart:
			unit, err := r.start()
			if err != nil {
				return occurrence.RawRecord{}, err
			}
			if unit != nil {
				r.units++
				rec := mapUnit(unit, &r.dsMeta)
				rec.Source = r.name + " unit " + strconv.Itoa(r.units)
				return rec, nil
			}
		case tokEnd:
			r.end()
		}
	}
}

// token returns the next token kind, checking the document-level rules
// (one root, matching end tags, no text outside the root, nesting depth);
// io.EOF only at a proper end of document.
func (r *Reader) token() (int, error) {
	l := r.lex
	var open qname
	if len(r.stack) > 0 {
		open = r.stack[len(r.stack)-1]
	}
	if err := l.next(open); err != nil {
		if errors.Is(err, errTokenCap) {
			return 0, r.fail(fmt.Errorf("%w: a single text node or tag exceeds the limit of %s (%d bytes)", ErrTooLarge, zipsafe.Size(r.opts.MaxTokenBytes), r.opts.MaxTokenBytes))
		}
		if errors.Is(err, errDocumentCap) {
			return 0, r.fail(&TooLargeError{Name: r.name, What: "ABCD document", Limit: r.opts.MaxDocumentBytes})
		}
		return 0, r.fail(err)
	}
	switch l.kind {
	case tokEOF:
		if !r.rootSeen {
			return 0, r.fail(fmt.Errorf("%w: no root element", ErrSyntax))
		}
		if len(r.stack) > 0 {
			return 0, r.fail(fmt.Errorf("%w: unexpected end of document inside <%s>", ErrSyntax, r.stack[len(r.stack)-1]))
		}
		return 0, io.EOF
	case tokStart:
		if len(r.stack) >= r.opts.MaxDepth {
			return 0, r.fail(fmt.Errorf("%w: elements nested deeper than %d", ErrTooLarge, r.opts.MaxDepth))
		}
		if !r.rootSeen {
			r.rootSeen = true
		} else if len(r.stack) == 0 {
			return 0, r.fail(fmt.Errorf("%w: second root element <%s>", ErrSyntax, l.name))
		}
		r.stack = append(r.stack, l.name)
		if !r.nsDone {
			r.declare(len(r.stack), l.attrs)
		}
	case tokEnd:
		if l.name.local == "" && len(r.stack) > 0 { // end of a self-closing tag
			l.name = r.stack[len(r.stack)-1]
		}
		if len(r.stack) == 0 || r.stack[len(r.stack)-1] != l.name {
			return 0, r.fail(fmt.Errorf("%w: unexpected </%s>", ErrSyntax, l.name))
		}
		r.stack = r.stack[:len(r.stack)-1]
		if !r.nsDone {
			r.undeclare(len(r.stack))
		}
	case tokText:
		if len(r.stack) == 0 && !isSpace(l.text) {
			l.line += strings.Count(string(l.text[:len(l.text)-len(strings.TrimLeft(string(l.text), " \t\r\n"))]), "\n")
			return 0, r.fail(fmt.Errorf("%w: text outside the root element", ErrSyntax))
		}
	}
	return l.kind, nil
}

func (r *Reader) fail(err error) error {
	if _, ok := err.(*TooLargeError); ok {
		return err // it names the document (or entry, response) and the cap
	}
	line := 0
	if r.lex != nil {
		line = r.lex.line
	}
	return &ParseError{Op: "read", Path: r.name, Line: line, Unit: r.unitContext(), Err: err}
}

// unitContext is the number of the unit being read when an error occurs.
func (r *Reader) unitContext() int {
	for _, n := range r.stack {
		if n.local == "Unit" {
			return r.units + 1
		}
	}
	return 0
}

func (r *Reader) parent() string {
	if len(r.stack) < 2 {
		return ""
	}
	return r.stack[len(r.stack)-2].local
}

// start handles an element start; it returns a Unit subtree when one was read.
func (r *Reader) start() (*node, error) {
	name := r.lex.name.local
	if name == "DataSets" && !r.nsDone {
		err := r.checkNamespace()
		r.nsDone, r.ns = true, nil
		if err != nil {
			return nil, err
		}
	}
	if len(r.stack) == 1 {
		switch name {
		case "response":
			r.proto.IsResponse = true
		case "DataSets":
		default:
			return nil, r.fail(fmt.Errorf("%w: root element <%s>, want <DataSets> or a BioCASe <response>", ErrWrongRoot, r.lex.name))
		}
		return nil, nil
	}
	parent := r.parent()
	switch {
	case name == "DataSet" && parent == "DataSets":
		r.ds.reset()
		r.ds.add(-1, qname{local: "DataSet"}, nil)
		r.inDS = true
		r.dsBegin = r.lex.cr.n
		r.dsMeta = DatasetMeta{}
	case parent == "DataSet":
		if name == "Units" {
			r.finishMetadata()
			return nil, nil
		}
		if !r.inDS { // metadata already finished: skip
			return nil, r.skip()
		}
		return nil, r.fill(&r.ds, 0)
	case name == "Unit" && parent == "Units":
		r.unit.reset()
		if err := r.fill(&r.unit, -1); err != nil {
			return nil, err
		}
		return r.unit.root(), nil
	case name == "content" && parent == "response":
		r.readContentAttrs()
	case (name == "type" || name == "source") && parent == "header":
		r.small.reset()
		if err := r.fill(&r.small, -1); err != nil {
			return nil, err
		}
		if name == "type" {
			r.proto.Type = r.small.root().value()
		} else {
			r.proto.Source = r.small.root().value()
		}
	case name == "diagnostic" && parent == "diagnostics":
		r.small.reset()
		if err := r.fill(&r.small, -1); err != nil {
			return nil, err
		}
		e := r.small.root()
		if len(r.proto.Diagnostics) == MaxDiagnostics {
			r.proto.MoreDiagnostics++
			return nil, nil
		}
		r.proto.Diagnostics = append(r.proto.Diagnostics, Diagnostic{Severity: attr(e, "severity"), Text: e.value()})
	}
	return nil, nil
}

// end handles an element end (the stack is already popped).
func (r *Reader) end() {
	if r.lex.name.local == "DataSet" && len(r.stack) >= 1 && r.stack[len(r.stack)-1].local == "DataSets" {
		r.finishMetadata()
	}
}

func (r *Reader) finishMetadata() {
	if !r.inDS {
		return
	}
	r.dsMeta = parseMetadata(r.ds.root())
	if !r.metaSeen {
		r.meta = r.dsMeta
		r.metaSeen = true
	}
	r.inDS = false // later DataSet children are ignored
}

func (r *Reader) readContentAttrs() {
	r.proto.HasContent = true
	for _, a := range r.lex.attrs {
		n, _ := strconv.Atoi(strings.TrimSpace(a.value))
		switch a.name.local {
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

// fill reads the element just started, with its content up to the end
// tag, into t under parent (-1: as the root), enforcing the unit size cap:
// on the element, and on the whole DataSet metadata when t is r.ds (its
// elements are filled one by one into one tree).
func (r *Reader) fill(t *tree, parent int32) error {
	l := r.lex
	top := l.name.local
	cur := t.add(parent, l.name, l.attrs)
	first := cur
	depth := len(r.stack)
	begin := l.cr.n
	if t == &r.ds {
		begin, top = r.dsBegin, "DataSet> metadata <"+top
	}
	for len(r.stack) >= depth {
		kind, err := r.token()
		if err != nil {
			return r.eofInside(err)
		}
		if l.cr.n-begin > r.opts.MaxUnitBytes {
			return r.fail(fmt.Errorf("%w: <%s> exceeds the limit of %s (%d bytes)", ErrTooLarge, top, zipsafe.Size(r.opts.MaxUnitBytes), r.opts.MaxUnitBytes))
		}
		switch kind {
		case tokStart:
			cur = t.add(cur, l.name, l.attrs)
		case tokEnd:
			if len(r.stack) >= depth {
				cur = t.nodes[cur].parent
			}
		case tokText:
			if !isSpace(l.text) {
				t.addText(cur, l.text)
			}
		}
	}
	t.setTexts(first)
	return nil
}

func isSpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}
