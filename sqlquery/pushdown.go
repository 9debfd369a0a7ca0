package sqlquery

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// pushdown returns the predicate of the WHERE clause's conjuncts that a
// GBIF predicate can say exactly or more loosely (nil: none). A conjunct
// it cannot say is left to the row evaluation alone; so is every
// conjunct, when the predicate as a whole is over the limits.
func pushdown(where ast.ExprNode, qualifiers map[string]bool, lim occurrence.Limits) *occurrence.Predicate {
	var parts []*occurrence.Predicate
	for _, n := range conjuncts(where) {
		p := conjunctPredicate(n, qualifiers, lim)
		if p == nil || p.Validate(lim) != nil {
			continue
		}
		parts = append(parts, p)
	}
	switch len(parts) {
	case 0:
		return nil
	case 1:
		return parts[0]
	}
	p := &occurrence.Predicate{Type: occurrence.TypeAnd, Predicates: parts}
	if p.Validate(lim) != nil {
		return nil
	}
	return p
}

// conjuncts splits an expression at its top-level ANDs.
func conjuncts(n ast.ExprNode) []ast.ExprNode {
	switch x := n.(type) {
	case nil:
		return nil
	case *ast.ParenthesesExpr:
		return conjuncts(x.Expr)
	case *ast.BinaryOperationExpr:
		if x.Op == opcode.LogicAnd {
			return append(conjuncts(x.L), conjuncts(x.R)...)
		}
	}
	return []ast.ExprNode{n}
}

var flipped = map[opcode.Op]opcode.Op{opcode.LT: opcode.GT, opcode.LE: opcode.GE, opcode.GT: opcode.LT,
	opcode.GE: opcode.LE, opcode.EQ: opcode.EQ}

var cmpTypes = map[opcode.Op]string{opcode.EQ: occurrence.TypeEquals, opcode.LT: occurrence.TypeLessThan,
	opcode.LE: occurrence.TypeLessThanOrEquals, opcode.GT: occurrence.TypeGreaterThan,
	opcode.GE: occurrence.TypeGreaterThanOrEquals}

// conjunctPredicate says one conjunct as a predicate, or returns nil.
func conjunctPredicate(n ast.ExprNode, qualifiers map[string]bool, lim occurrence.Limits) *occurrence.Predicate {
	switch x := n.(type) {
	case *ast.ParenthesesExpr:
		return conjunctPredicate(x.Expr, qualifiers, lim)
	case *ast.BinaryOperationExpr:
		col, v, op := columnOf(x.L, qualifiers), literalText(x.R), x.Op
		if col == "" {
			col, v, op = columnOf(x.R, qualifiers), literalText(x.L), flipped[x.Op]
		}
		key, ok := occurrence.ComparableKey(col)
		t := cmpTypes[op]
		if !ok || v == nil || t == "" || (op != opcode.EQ && !numeric(col)) {
			return nil
		}
		return &occurrence.Predicate{Type: t, Key: key, Value: *v}
	case *ast.PatternInExpr:
		key, ok := occurrence.ComparableKey(columnOf(x.Expr, qualifiers))
		if !ok || x.Not || x.Sel != nil {
			return nil
		}
		p := &occurrence.Predicate{Type: occurrence.TypeIn, Key: key}
		for _, l := range x.List {
			v := literalText(l)
			if v == nil {
				return nil
			}
			p.Values = append(p.Values, *v)
		}
		return p
	case *ast.BetweenExpr:
		key, ok := occurrence.ComparableKey(columnOf(x.Expr, qualifiers))
		lo, hi := literalText(x.Left), literalText(x.Right)
		if !ok || x.Not || lo == nil || hi == nil || !numeric(columnOf(x.Expr, qualifiers)) {
			return nil
		}
		return &occurrence.Predicate{Type: occurrence.TypeAnd, Predicates: []*occurrence.Predicate{
			{Type: occurrence.TypeGreaterThanOrEquals, Key: key, Value: *lo},
			{Type: occurrence.TypeLessThanOrEquals, Key: key, Value: *hi}}}
	case *ast.IsNullExpr:
		key, ok := occurrence.ComparableKey(columnOf(x.Expr, qualifiers))
		if !ok {
			return nil
		}
		if x.Not {
			return &occurrence.Predicate{Type: occurrence.TypeIsNotNull, Parameter: key}
		}
		return &occurrence.Predicate{Type: occurrence.TypeIsNull, Parameter: key}
	case *ast.ColumnNameExpr:
		col := columnOf(x, qualifiers)
		key, ok := occurrence.ComparableKey(col)
		if !ok || columnsByLower[strings.ToLower(col)].Kind != occurrence.KindBool {
			return nil
		}
		return &occurrence.Predicate{Type: occurrence.TypeEquals, Key: key, Value: "true"}
	case *ast.FuncCallExpr:
		if x.FnName.L != "gbif_within" && x.FnName.L != "gbif_geodistance" {
			return nil
		}
		c := &compiler{q: &Query{}, slots: map[string]int{}, qualifiers: qualifiers, lim: lim}
		p, err := c.geoPredicate(x)
		if err != nil {
			return nil
		}
		return p
	}
	return nil
}

// columnOf returns the table column n names, or "".
func columnOf(n ast.ExprNode, qualifiers map[string]bool) string {
	cn, ok := n.(*ast.ColumnNameExpr)
	if !ok || (cn.Name.Table.O != "" && !qualifiers[cn.Name.Table.L]) {
		return ""
	}
	col, ok := columnsByLower[cn.Name.Name.L]
	if !ok {
		return ""
	}
	return col.Name
}

// literalText returns a number's or a string's literal text, or nil.
func literalText(n ast.ExprNode) *string {
	v, ok := n.(*driver.ValueExpr)
	if !ok {
		return nil
	}
	var s string
	switch x := v.GetValue().(type) {
	case int64:
		s = strconv.FormatInt(x, 10)
	case uint64:
		s = strconv.FormatUint(x, 10)
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		s = x
	case *driver.MyDecimal:
		s = x.String()
	default:
		return nil
	}
	return &s
}

// numeric reports whether a column holds numbers: only those are ordered
// the same by SQL and by predicates (text predicates ignore case).
func numeric(col string) bool {
	switch columnsByLower[strings.ToLower(col)].Kind {
	case occurrence.KindInt32, occurrence.KindInt64, occurrence.KindFloat64:
		return true
	}
	return false
}
