package abcd

import (
	"strings"

	"github.com/beevik/etree"
)

// Element access by local name: the namespace prefix (abcd:, abcd21:, efg:,
// abcd3:, none, or one never declared) is ignored everywhere.

// child follows path from e, taking the first matching child at each step.
func child(e *etree.Element, path ...string) *etree.Element {
	for _, name := range path {
		if e == nil {
			return nil
		}
		e = firstChild(e, name)
	}
	return e
}

func firstChild(e *etree.Element, name string) *etree.Element {
	for _, t := range e.Child {
		if c, ok := t.(*etree.Element); ok && c.Tag == name {
			return c
		}
	}
	return nil
}

// all returns every element reached by path from e, in document order (all
// branches, like the XPath e/a/b/c).
func all(e *etree.Element, path ...string) []*etree.Element {
	if e == nil {
		return nil
	}
	cur := []*etree.Element{e}
	for _, name := range path {
		var next []*etree.Element
		for _, p := range cur {
			for _, t := range p.Child {
				if c, ok := t.(*etree.Element); ok && c.Tag == name {
					next = append(next, c)
				}
			}
		}
		if len(next) == 0 {
			return nil
		}
		cur = next
	}
	return cur
}

// text is the cleaned text of the element at path (first match), "" if absent.
func text(e *etree.Element, path ...string) string {
	c := child(e, path...)
	if c == nil {
		return ""
	}
	return clean(c.Text())
}

// texts are the non-empty cleaned texts of all elements at path.
func texts(e *etree.Element, path ...string) []string {
	var out []string
	for _, c := range all(e, path...) {
		if s := clean(c.Text()); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// firstText returns the first non-empty text among alternative paths.
func firstText(e *etree.Element, paths ...[]string) string {
	for _, p := range paths {
		if s := text(e, p...); s != "" {
			return s
		}
	}
	return ""
}

// attr is an attribute value by local name, "" if absent.
func attr(e *etree.Element, name string) string {
	if e == nil {
		return ""
	}
	for _, a := range e.Attr {
		if a.Key == name {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

// joinValues joins the non-empty values with the Darwin Core list separator
// " | ", dropping exact duplicates.
func joinValues(vals []string) string {
	var out []string
	for _, v := range vals {
		if v == "" {
			continue
		}
		dup := false
		for _, o := range out {
			if o == v {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, v)
		}
	}
	return strings.Join(out, " | ")
}
