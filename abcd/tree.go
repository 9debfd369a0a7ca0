package abcd

import (
	"iter"
	"slices"
	"strings"
)

// tree holds one Unit (or the DataSet metadata) as a compact arena of nodes
// that is reused from unit to unit, so reading a unit allocates little more
// than its text, which is one string per filled subtree (see setTexts). Elements are matched by local name: the namespace prefix
// (abcd:, abcd21:, efg:, abcd3:, none, or one never declared) is ignored
// everywhere.
type tree struct {
	nodes []node
	attrs []lexAttr
	buf   []byte // text of the subtree being filled, see addText
}

// node is one element. Children are linked by index into tree.nodes; a
// *node stays valid until the tree is reset for the next unit.
type node struct {
	t      *tree
	tag    string // local name
	text   string
	a0, a1 int32 // attributes: t.attrs[a0:a1]
	t0, t1 int   // text in t.buf until setTexts
	first  int32 // first child, -1 if none
	last   int32
	next   int32 // next sibling, -1 if none
	parent int32
}

func (t *tree) reset() {
	t.nodes = t.nodes[:0]
	t.attrs = t.attrs[:0]
	t.buf = t.buf[:0]
}

// add appends an element under parent (-1 for the root) and returns its index.
func (t *tree) add(parent int32, name qname, attrs []lexAttr) int32 {
	a0 := int32(len(t.attrs))
	for _, a := range attrs {
		if a.name.prefix == "xmlns" || (a.name.prefix == "" && a.name.local == "xmlns") {
			continue
		}
		t.attrs = append(t.attrs, a)
	}
	i := int32(len(t.nodes))
	t.nodes = append(t.nodes, node{t: t, tag: name.local, a0: a0, a1: int32(len(t.attrs)), first: -1, last: -1, next: -1, parent: parent})
	if parent >= 0 {
		p := &t.nodes[parent]
		if p.last >= 0 {
			t.nodes[p.last].next = i
		} else {
			p.first = i
		}
		p.last = i
	}
	return i
}

// addText appends b to the text of element i; the text is kept in t.buf
// until setTexts. A run that does not follow the element's earlier text
// (a child element came between) moves that text to the end first.
func (t *tree) addText(i int32, b []byte) {
	n := &t.nodes[i]
	switch {
	case n.t1 == n.t0:
		n.t0 = len(t.buf)
	case n.t1 != len(t.buf):
		t0 := len(t.buf)
		t.buf = append(t.buf, t.buf[n.t0:n.t1]...)
		n.t0 = t0
	}
	t.buf = append(t.buf, b...)
	n.t1 = len(t.buf)
}

// setTexts gives the elements from index first on their text, all cut from
// one string: one allocation per filled subtree instead of one per element.
func (t *tree) setTexts(first int32) {
	if len(t.buf) == 0 {
		return
	}
	s := string(t.buf)
	for i := int(first); i < len(t.nodes); i++ {
		if n := &t.nodes[i]; n.t1 > n.t0 {
			n.text = s[n.t0:n.t1]
		}
	}
	t.buf = t.buf[:0]
}

// root is the first node, nil for an empty tree.
func (t *tree) root() *node {
	if len(t.nodes) == 0 {
		return nil
	}
	return &t.nodes[0]
}

// children yields the child elements of e in document order.
func (e *node) children() iter.Seq[*node] {
	return func(yield func(*node) bool) {
		for i := e.first; i >= 0; i = e.t.nodes[i].next {
			if !yield(&e.t.nodes[i]) {
				return
			}
		}
	}
}

// value is the cleaned text directly inside e.
func (e *node) value() string { return clean(e.text) }

// child follows path from e, taking the first matching child at each step.
func child(e *node, path ...string) *node {
	for _, name := range path {
		if e == nil {
			return nil
		}
		e = firstChild(e, name)
	}
	return e
}

func firstChild(e *node, name string) *node {
	for i := e.first; i >= 0; i = e.t.nodes[i].next {
		if c := &e.t.nodes[i]; c.tag == name {
			return c
		}
	}
	return nil
}

// all returns every element reached by path from e, in document order (all
// branches, like the XPath e/a/b/c); nil when there is none.
func all(e *node, path ...string) []*node {
	if e == nil {
		return nil
	}
	return appendAll(nil, e, path)
}

// appendAll appends the elements reached by path from e, depth first (which
// is document order).
func appendAll(out []*node, e *node, path []string) []*node {
	if len(path) == 0 {
		return append(out, e)
	}
	for i := e.first; i >= 0; i = e.t.nodes[i].next {
		if c := &e.t.nodes[i]; c.tag == path[0] {
			out = appendAll(out, c, path[1:])
		}
	}
	return out
}

// text is the cleaned text of the element at path (first match), "" if absent.
func text(e *node, path ...string) string {
	c := child(e, path...)
	if c == nil {
		return ""
	}
	return c.value()
}

// texts are the non-empty cleaned texts of all elements at path.
func texts(e *node, path ...string) []string {
	var out []string
	for _, c := range all(e, path...) {
		if s := c.value(); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// firstText returns the first non-empty text among alternative paths.
func firstText(e *node, paths ...[]string) string {
	for _, p := range paths {
		if s := text(e, p...); s != "" {
			return s
		}
	}
	return ""
}

// attr is an attribute value by local name, "" if absent.
func attr(e *node, name string) string {
	if e == nil {
		return ""
	}
	for _, a := range e.t.attrs[e.a0:e.a1] {
		if a.name.local == name {
			return strings.TrimSpace(a.value)
		}
	}
	return ""
}

// joinValues joins the non-empty values with the Darwin Core list separator
// " | ", dropping exact duplicates.
func joinValues(vals []string) string {
	return strings.Join(dedupe(vals), " | ")
}

// dedupe returns the non-empty values without exact duplicates, in order.
// The lists are short (a unit's collectors, a dataset's rights texts): a
// scan beats a map.
func dedupe(vals []string) []string {
	var out []string
	for _, v := range vals {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
