package jobs

import (
	"fmt"
	"text/template/parse"
)

// Catalogue strings may use other strings (t "key", plural "key" n). Keys
// named there must be quoted constants, so that the uses form a graph that
// is checked once, at load, to name only strings that exist and never to
// come back to a string it started from: rendering then always ends.

// checkReferences checks the strings that every string of l uses.
func (l *mailLocale) checkReferences() error {
	uses := map[string][]string{}
	for k, t := range l.parsed {
		refs, err := stringRefs(t.Tree.Root)
		if err != nil {
			return fmt.Errorf("mail catalogue %s: key %q: %v", l.src[k], k, err)
		}
		for _, r := range refs {
			if r.plural {
				if _, ok := l.parsed[r.key+".other"]; !ok {
					return fmt.Errorf("mail catalogue %s: key %q: plural %q needs a string %q", l.src[k], k, r.key, r.key+".other")
				}
				for _, form := range []string{"zero", "one", "two", "few", "many", "other"} {
					if _, ok := l.parsed[r.key+"."+form]; ok {
						uses[k] = append(uses[k], r.key+"."+form)
					}
				}
				continue
			}
			if _, ok := l.parsed[r.key]; !ok {
				return fmt.Errorf("mail catalogue %s: key %q: no string %q", l.src[k], k, r.key)
			}
			uses[k] = append(uses[k], r.key)
		}
	}
	// Depth-first search for a cycle: 1 = on the path, 2 = done.
	state := map[string]int{}
	var visit func(k string, path []string) error
	visit = func(k string, path []string) error {
		switch state[k] {
		case 1:
			return fmt.Errorf("mail catalogue %s: strings use each other in a circle: %v", l.src[k], append(path, k))
		case 2:
			return nil
		}
		state[k] = 1
		for _, u := range uses[k] {
			if err := visit(u, append(path, k)); err != nil {
				return err
			}
		}
		state[k] = 2
		return nil
	}
	for k := range uses {
		if err := visit(k, nil); err != nil {
			return err
		}
	}
	return nil
}

type stringRef struct {
	key    string
	plural bool
}

// stringRefs lists the strings a parsed catalogue string names.
func stringRefs(n parse.Node) ([]stringRef, error) {
	var out []stringRef
	var walk func(n parse.Node) error
	walkList := func(l *parse.ListNode) error {
		if l == nil {
			return nil
		}
		for _, c := range l.Nodes {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	walkBranch := func(b *parse.BranchNode) error {
		if err := walk(b.Pipe); err != nil {
			return err
		}
		if err := walkList(b.List); err != nil {
			return err
		}
		return walkList(b.ElseList)
	}
	walk = func(n parse.Node) error {
		switch n := n.(type) {
		case nil:
			return nil
		case *parse.ListNode:
			return walkList(n)
		case *parse.ActionNode:
			return walk(n.Pipe)
		case *parse.IfNode:
			return walkBranch(&n.BranchNode)
		case *parse.RangeNode:
			return walkBranch(&n.BranchNode)
		case *parse.WithNode:
			return walkBranch(&n.BranchNode)
		case *parse.TemplateNode:
			return fmt.Errorf("a catalogue string cannot call template %q", n.Name)
		case *parse.PipeNode:
			if n == nil {
				return nil
			}
			for _, c := range n.Cmds {
				if err := walk(c); err != nil {
					return err
				}
			}
		case *parse.CommandNode:
			if id, ok := n.Args[0].(*parse.IdentifierNode); ok && (id.Ident == "t" || id.Ident == "plural") {
				if len(n.Args) < 2 {
					return fmt.Errorf("%s needs a key", id.Ident)
				}
				s, ok := n.Args[1].(*parse.StringNode)
				if !ok {
					return fmt.Errorf("%s: the key must be a quoted string in a catalogue string, not %s", id.Ident, n.Args[1])
				}
				out = append(out, stringRef{key: s.Text, plural: id.Ident == "plural"})
			}
			for _, a := range n.Args {
				if err := walk(a); err != nil {
					return err
				}
			}
		case *parse.IdentifierNode:
			if n.Ident == "t" || n.Ident == "plural" {
				// Used as a value, not called with a key: its key would be
				// unknown here.
				return nil
			}
		}
		return nil
	}
	return out, walk(n)
}
