package sqlquery

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// selectList compiles GROUP BY, the select list and HAVING.
func (c *compiler) selectList(s *ast.SelectStmt) error {
	fields := s.Fields.Fields
	c.aliases = map[string]int{}
	for i, f := range fields {
		if f.WildCard != nil {
			return invalid("*", "SELECT * is not supported: name the columns, as GBIF asks")
		}
		c.q.header = append(c.q.header, headerOf(f))
		if f.AsName.O != "" {
			c.aliases[f.AsName.L] = i
		}
	}
	grouped := s.GroupBy != nil || s.Having != nil || s.Distinct || hasAggregate(fields)
	c.windowed = false
	for _, f := range fields {
		c.windowed = c.windowed || hasWindow(f.Expr)
	}
	if s.OrderBy != nil {
		for _, item := range s.OrderBy.Items {
			c.windowed = c.windowed || hasWindow(item.Expr)
		}
	}
	if !grouped {
		for _, f := range fields {
			e, err := c.item(f.Expr, modeRow)
			if err != nil {
				return err
			}
			c.q.outs = append(c.q.outs, e)
		}
		return nil
	}
	c.q.grouped = true
	var keys []ast.ExprNode
	if s.GroupBy != nil {
		for _, item := range s.GroupBy.Items {
			k, err := c.groupKey(item.Expr, fields)
			if err != nil {
				return err
			}
			keys = append(keys, k)
		}
	}
	if s.Distinct {
		if s.GroupBy != nil || hasAggregate(fields) {
			return invalid("DISTINCT", "SELECT DISTINCT with GROUP BY or aggregates is not supported: use GROUP BY alone")
		}
		for _, f := range fields {
			keys = append(keys, f.Expr)
		}
	}
	for _, k := range keys {
		e, err := c.expr(k, modeRow)
		if err != nil {
			return err
		}
		c.q.keys = append(c.q.keys, e)
		c.groupTexts = append(c.groupTexts, c.canonical(k))
	}
	for _, f := range fields {
		e, err := c.item(f.Expr, modeGroup)
		if err != nil {
			return err
		}
		c.q.outs = append(c.q.outs, e)
	}
	if s.Having != nil {
		having := c.outputOrExpr
		if c.windowed {
			// HAVING runs before the windows, and the outputs after them.
			having = c.expr
		}
		h, err := having(s.Having.Expr, modeGroup)
		if err != nil {
			return err
		}
		c.q.having = h
	}
	return nil
}

// item compiles a select item: split into pre values and windows when
// the query has windows.
func (c *compiler) item(n ast.ExprNode, m mode) (expr, error) {
	if c.windowed {
		return c.post(n, m)
	}
	return c.expr(n, m)
}

// groupKey resolves a GROUP BY item: a position or a column of the
// table, else an alias of the select list, else an expression.
func (c *compiler) groupKey(n ast.ExprNode, fields []*ast.SelectField) (ast.ExprNode, error) {
	switch k := n.(type) {
	case *ast.PositionExpr:
		if k.P != nil || k.N < 1 || k.N > len(fields) {
			return nil, invalid(restore(n), "GROUP BY position %d: the select list has %s", k.N, fmtCount(len(fields), "column"))
		}
		return fields[k.N-1].Expr, nil
	case *ast.ColumnNameExpr:
		if _, isColumn := columnsByLower[k.Name.Name.L]; !isColumn && k.Name.Table.O == "" {
			if i, ok := c.aliases[k.Name.Name.L]; ok {
				return fields[i].Expr, nil
			}
		}
	}
	return n, nil
}

// orderBy compiles ORDER BY: a position or an output name reads the
// result row; anything else is an expression on rows (or on groups).
func (c *compiler) orderBy(o *ast.OrderByClause) error {
	if o == nil {
		return nil
	}
	m := modeRow
	if c.q.grouped {
		m = modeGroup
	}
	for _, item := range o.Items {
		var e expr
		if p, ok := item.Expr.(*ast.PositionExpr); ok {
			if p.P != nil || p.N < 1 || p.N > len(c.q.outs) {
				return invalid(restore(item.Expr), "ORDER BY position %d: the select list has %s", p.N, fmtCount(len(c.q.outs), "column"))
			}
			e = outRef{p.N - 1}
		} else {
			var err error
			if c.windowed {
				c.splitting = true
			}
			e, err = c.outputOrExpr(item.Expr, m)
			c.splitting = false
			if err != nil {
				return err
			}
		}
		c.q.order = append(c.q.order, orderItem{e: e, desc: item.Desc})
	}
	return nil
}

// outputOrExpr reads an output column named like n (an alias, or the
// header of an unaliased column), else compiles n, whose names may read
// output columns by their aliases.
func (c *compiler) outputOrExpr(n ast.ExprNode, m mode) (expr, error) {
	c.outputs = true
	defer func() { c.outputs = false }()
	if cn, ok := n.(*ast.ColumnNameExpr); ok && cn.Name.Table.O == "" {
		if i, ok := c.aliases[cn.Name.Name.L]; ok {
			return outRef{i}, nil
		}
		for i, h := range c.q.header {
			if strings.EqualFold(h, cn.Name.Name.O) {
				return outRef{i}, nil
			}
		}
	}
	return c.expr(n, m)
}

// hasAggregate reports whether a select list calls an aggregate function.
func hasAggregate(fields []*ast.SelectField) bool {
	v := &finder{match: func(n ast.Node) bool { _, ok := n.(*ast.AggregateFuncExpr); return ok }}
	for _, f := range fields {
		if f.Expr != nil {
			f.Expr.Accept(v)
		}
	}
	return v.found
}

// finder walks syntax trees (ast.Visitor) for a node that match accepts.
type finder struct {
	match func(ast.Node) bool
	found bool
}

func (v *finder) Enter(n ast.Node) (ast.Node, bool) {
	if v.match(n) {
		v.found = true
		return n, true
	}
	return n, false
}

func (v *finder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
