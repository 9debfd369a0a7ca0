package abcd

import (
	"fmt"
	"strings"
)

// nsDecl is one xmlns or xmlns:prefix attribute of an open element.
type nsDecl struct {
	depth  int
	prefix string
	uri    string
}

// Namespaces this package reads: ABCD 2.06 and 2.1 (a trailing slash, or
// https, as some providers write them, is accepted).
var abcdNamespaces = []string{"www.tdwg.org/schemas/abcd/2.06", "www.tdwg.org/schemas/abcd/2.1"}

// declare records the namespace declarations of the element opened at
// depth.
func (r *Reader) declare(depth int, attrs []lexAttr) {
	for _, a := range attrs {
		switch {
		case a.name.prefix == "" && a.name.local == "xmlns":
			r.ns = append(r.ns, nsDecl{depth, "", a.value})
		case a.name.prefix == "xmlns":
			r.ns = append(r.ns, nsDecl{depth, a.name.local, a.value})
		}
	}
}

// undeclare drops the declarations of elements deeper than depth (closed).
func (r *Reader) undeclare(depth int) {
	for len(r.ns) > 0 && r.ns[len(r.ns)-1].depth > depth {
		r.ns = r.ns[:len(r.ns)-1]
	}
}

// checkNamespace refuses a DataSets element bound to a namespace other
// than ABCD 2.06's or 2.1's. An unbound prefix or no namespace at all is
// read as ABCD 2 (real documents omit the declaration).
func (r *Reader) checkNamespace() error {
	prefix := r.lex.name.prefix
	uri := ""
	for i := len(r.ns) - 1; i >= 0; i-- {
		if r.ns[i].prefix == prefix {
			uri = r.ns[i].uri
			break
		}
	}
	if uri == "" || IsABCD2Namespace(uri) {
		return nil
	}
	what := "a namespace this package does not read"
	if strings.Contains(uri, "/abcd/1.2") {
		what = "ABCD 1.2, whose elements are named otherwise"
	}
	return r.fail(fmt.Errorf("%w: <%s> is in namespace %s (%s); ABCD 2.06 (http://www.tdwg.org/schemas/abcd/2.06) and 2.1 (http://www.tdwg.org/schemas/abcd/2.1) are read",
		ErrUnsupportedSchema, r.lex.name, uri, what))
}

// IsABCD2Namespace reports whether uri is ABCD 2.06's or 2.1's namespace.
func IsABCD2Namespace(uri string) bool {
	u := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(uri, "http://"), "https://"), "/")
	for _, ns := range abcdNamespaces {
		if u == ns {
			return true
		}
	}
	return false
}
