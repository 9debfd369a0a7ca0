package sqlquery

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// mode says what an expression is evaluated on.
type mode int

const (
	modeRow   mode = iota // a table row (WHERE, GROUP BY, an ungrouped select list)
	modeGroup             // a group (the select list, HAVING and ORDER BY of a grouped query)
)

type compiler struct {
	q          *Query
	qualifiers map[string]bool
	slots      map[string]int // column name -> slot
	lim        occurrence.Limits
	verbatim   map[string]string // Options.Verbatim
	groupTexts []string          // grouped: the keys' canonical text, by key
	aliases    map[string]int    // lower-case output name -> select index
	inAgg      bool
	// outputs lets a name read an output column by its alias (HAVING,
	// ORDER BY).
	outputs bool
	nodes   int // expressions compiled, against MaxNodes
	// splitting compiles a select item of a query with windows: its
	// window-free parts become pre values (window.go).
	splitting bool
	windowed  bool // the select list calls a window function
}

// MaxNodes bounds the expressions of a query (operators, names, literals,
// calls): each is evaluated for every row, so their number is the query's
// cost per row, bounded before the scan starts as a predicate's is.
const MaxNodes = 5000

// columnsByLower maps a column's lower-case name to its name: SQL names
// are case-insensitive, as GBIF's table's (Hive's) are. The nested JSON
// columns are not offered.
var columnsByLower = func() map[string]occurrence.Column {
	m := map[string]occurrence.Column{}
	for _, col := range occurrence.Columns() {
		switch col.Name {
		case occurrence.ColVerbatim, occurrence.ColMultimedia, occurrence.ColExtensions:
			continue
		}
		m[strings.ToLower(col.Name)] = col
	}
	return m
}()

// TableColumns lists the interpreted columns a query may read, in the
// table's order (for /describe/sql and docs/sql.md).
func TableColumns() []ColumnInfo {
	var out []ColumnInfo
	for _, col := range occurrence.Columns() {
		if c, ok := columnsByLower[strings.ToLower(col.Name)]; ok {
			out = append(out, ColumnInfo{Name: strings.ToLower(c.Name), Column: c.Name})
		}
	}
	return out
}

// ColumnInfo names one column of the table.
type ColumnInfo struct {
	Name   string // as a query and its header name it: lower case
	Column string // the table's column (occurrence.Columns)
}

// column resolves a column name (with its optional table qualifier) to
// its slot.
func (c *compiler) column(n *ast.ColumnName) (expr, error) {
	if n.Table.O != "" && !c.qualified(n) {
		if col, field, ok := conceptField(n, c.qualifiers); ok {
			return c.conceptRef(n, col, field, columnRef{slot: c.slot(col)})
		}
		return nil, invalid(n.OrigColName(), "unknown table %s: the only table is occurrence", n.Table.O)
	}
	col, ok := columnsByLower[n.Name.L]
	if !ok {
		if term, ok := c.verbatim[n.Name.L]; ok {
			path := gjson.Escape(occurrence.VerbatimKey(term))
			k := slices.Index(c.q.vpaths, path)
			if k < 0 {
				k = len(c.q.vpaths)
				c.q.vpaths = append(c.q.vpaths, path)
			}
			return verbatimRef{slot: c.slot(occurrence.ColVerbatim), k: k}, nil
		}
		if d, ok := derivedByLower[n.Name.L]; ok {
			var ref expr = literal{nullValue}
			if d.base != "" {
				ref = columnRef{slot: c.slot(d.base)}
			}
			return derivedRef{ref: ref, fn: d.fn}, nil
		}
		if registryColumns[n.Name.L] {
			return nil, invalid(n.Name.O, "%s is a column of GBIF's table this service cannot fill: it holds no registry or GRSciColl data (installation, hosting organization, programme, institution and collection keys)", n.Name.O)
		}
		return nil, invalid(n.Name.O, "unknown column %s (docs/sql.md lists the columns; GET /occurrence/download/describe/sql too)", n.Name.O)
	}
	return columnRef{slot: c.slot(col.Name)}, nil
}

// slot returns the slot of a table column, adding it to the columns read.
func (c *compiler) slot(col string) int {
	slot, ok := c.slots[col]
	if !ok {
		slot = len(c.q.cols)
		c.slots[col] = slot
		c.q.cols = append(c.q.cols, col)
	}
	return slot
}

// expr compiles one expression for mode m.
func (c *compiler) expr(n ast.ExprNode, m mode) (expr, error) {
	if c.nodes++; c.nodes > MaxNodes {
		return nil, invalid("", "the query has more than %d expressions (operators, names, values and calls)", MaxNodes)
	}
	if c.splitting && !hasWindow(n) {
		return c.preValue(n, m)
	}
	if m == modeGroup && !c.inAgg {
		text := c.canonical(n)
		for i, g := range c.groupTexts {
			if g == text {
				return keyRef{i}, nil
			}
		}
	}
	switch n := n.(type) {
	case *driver.ValueExpr:
		return c.literal(n)
	case *ast.ParenthesesExpr:
		return c.expr(n.Expr, m)
	case *ast.ColumnNameExpr:
		if c.outputs && !c.inAgg && n.Name.Table.O == "" {
			if i, ok := c.aliases[n.Name.Name.L]; ok {
				return outRef{i}, nil
			}
		}
		if m == modeGroup && !c.inAgg {
			// A field of a grouped vocabulary struct (GROUP BY sex,
			// SELECT sex.concept or sex.lineage) is the group's.
			if col, field, ok := conceptField(n.Name, c.qualifiers); ok && !c.qualified(n.Name) {
				if i := slices.Index(c.groupTexts, "column "+col); i >= 0 {
					return c.conceptRef(n.Name, col, field, keyRef{i})
				}
			}
			return nil, invalid(n.Name.OrigColName(), "column %s is neither grouped nor in an aggregate function: add it to GROUP BY", n.Name.Name.O)
		}
		return c.column(n.Name)
	case *ast.UnaryOperationExpr:
		return c.unary(n, m)
	case *ast.BinaryOperationExpr:
		return c.binary(n, m)
	case *ast.IsNullExpr:
		x, err := c.expr(n.Expr, m)
		return isNull{x: x, not: n.Not}, err
	case *ast.IsTruthExpr:
		x, err := c.expr(n.Expr, m)
		return isTruth{x: x, want: n.True != 0, negation: n.Not}, err
	case *ast.PatternInExpr:
		return c.in(n, m)
	case *ast.BetweenExpr:
		return c.between(n, m)
	case *ast.PatternLikeOrIlikeExpr:
		return c.like(n, m)
	case *ast.CaseExpr:
		return c.caseExpr(n, m)
	case *ast.FuncCallExpr:
		return c.call(n, m)
	case *ast.FuncCastExpr:
		return c.cast(n, m)
	case *ast.AggregateFuncExpr:
		return c.aggregate(n, m)
	case *ast.WindowFuncExpr:
		return c.window(n, m)
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.CompareSubqueryExpr:
		return nil, invalid(restore(n), "sub-queries are not supported")
	case *ast.PositionExpr:
		return nil, invalid(restore(n), "a position is only taken in GROUP BY and ORDER BY")
	}
	return nil, invalid(restore(n), "this expression is not supported here")
}

func (c *compiler) literal(v *driver.ValueExpr) (expr, error) {
	switch x := v.GetValue().(type) {
	case nil:
		return literal{nullValue}, nil
	case int64:
		if mysql.HasIsBooleanFlag(v.Type.GetFlag()) { // TRUE, FALSE
			return literal{boolValue(x != 0)}, nil
		}
		return literal{intValue(x)}, nil
	case uint64:
		if x > 1<<63-1 {
			return literal{floatValue(float64(x))}, nil
		}
		return literal{intValue(int64(x))}, nil
	case float64:
		return literal{floatValue(x)}, nil
	case float32:
		return literal{floatValue(float64(x))}, nil
	case string:
		return literal{strValue(x)}, nil
	case []byte:
		return literal{strValue(string(x))}, nil
	case *driver.MyDecimal:
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil {
			return nil, invalid(x.String(), "number out of range")
		}
		return literal{floatValue(f)}, nil
	}
	return nil, invalid(restore(v), "this literal is not supported")
}

func (c *compiler) unary(n *ast.UnaryOperationExpr, m mode) (expr, error) {
	x, err := c.expr(n.V, m)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case opcode.Not, opcode.Not2:
		return notExpr{x}, nil
	case opcode.Minus:
		if v, ok := constant(x); ok {
			return literal{negate{literal{v}}.eval(nil)}, nil
		}
		return negate{x}, nil
	case opcode.Plus:
		return x, nil
	}
	return nil, invalid(restore(n), "operator %s is not supported", n.Op)
}

var cmpOps = map[opcode.Op]cmpOp{opcode.EQ: opEQ, opcode.NE: opNE, opcode.LT: opLT, opcode.LE: opLE,
	opcode.GT: opGT, opcode.GE: opGE, opcode.NullEQ: opNullEQ}
var arithOps = map[opcode.Op]arithOp{opcode.Plus: opAdd, opcode.Minus: opSub, opcode.Mul: opMul,
	opcode.Div: opDiv, opcode.IntDiv: opIntDiv, opcode.Mod: opMod}

func (c *compiler) binary(n *ast.BinaryOperationExpr, m mode) (expr, error) {
	l, err := c.expr(n.L, m)
	if err != nil {
		return nil, err
	}
	r, err := c.expr(n.R, m)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case opcode.LogicAnd:
		return logic{and: true, l: l, r: r}, nil
	case opcode.LogicOr:
		return logic{l: l, r: r}, nil
	}
	if op, ok := cmpOps[n.Op]; ok {
		return comparison{op: op, l: l, r: r}, nil
	}
	if op, ok := arithOps[n.Op]; ok {
		return arith{op: op, l: l, r: r}, nil
	}
	return nil, invalid(restore(n), "operator %s is not supported", n.Op)
}

func (c *compiler) exprs(ns []ast.ExprNode, m mode) ([]expr, error) {
	out := make([]expr, len(ns))
	for i, n := range ns {
		e, err := c.expr(n, m)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func (c *compiler) in(n *ast.PatternInExpr, m mode) (expr, error) {
	if n.Sel != nil {
		return nil, invalid(restore(n), "sub-queries are not supported")
	}
	x, err := c.expr(n.Expr, m)
	if err != nil {
		return nil, err
	}
	list, err := c.exprs(n.List, m)
	return inList{x: x, list: list, not: n.Not}, err
}

func (c *compiler) between(n *ast.BetweenExpr, m mode) (expr, error) {
	es, err := c.exprs([]ast.ExprNode{n.Expr, n.Left, n.Right}, m)
	if err != nil {
		return nil, err
	}
	var e expr = logic{and: true, l: comparison{op: opGE, l: es[0], r: es[1]}, r: comparison{op: opLE, l: es[0], r: es[2]}}
	if n.Not {
		e = notExpr{e}
	}
	return e, nil
}

func (c *compiler) like(n *ast.PatternLikeOrIlikeExpr, m mode) (expr, error) {
	x, err := c.expr(n.Expr, m)
	if err != nil {
		return nil, err
	}
	p, err := c.expr(n.Pattern, m)
	if err != nil {
		return nil, err
	}
	e := like{x: x, pattern: p, escape: n.Escape, fold: !n.IsLike, not: n.Not}
	if e.escape == 0 {
		e.escape = '\\'
	}
	if v, ok := constant(p); ok && v.Kind != Null {
		e.re = likeRegexp(v.text(), e.escape, e.fold)
	}
	return e, nil
}

func (c *compiler) caseExpr(n *ast.CaseExpr, m mode) (expr, error) {
	e := caseExpr{}
	var err error
	if n.Value != nil {
		if e.value, err = c.expr(n.Value, m); err != nil {
			return nil, err
		}
	}
	for _, w := range n.WhenClauses {
		we, err := c.expr(w.Expr, m)
		if err != nil {
			return nil, err
		}
		te, err := c.expr(w.Result, m)
		if err != nil {
			return nil, err
		}
		e.whens, e.thens = append(e.whens, we), append(e.thens, te)
	}
	if n.ElseClause != nil {
		if e.els, err = c.expr(n.ElseClause, m); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (c *compiler) call(n *ast.FuncCallExpr, m mode) (expr, error) {
	name := n.FnName.L
	f, ok := functions[name]
	if !ok {
		return nil, invalid(n.FnName.O, "unknown function %s (docs/sql.md lists the functions)", n.FnName.O)
	}
	args := n.Args
	if name == "trim" && len(args) > 1 {
		return nil, invalid(restore(n), "TRIM takes one argument here")
	}
	if len(args) < f.min || (f.max >= 0 && len(args) > f.max) {
		want := fmt.Sprintf("%d", f.min)
		switch {
		case f.max < 0:
			want = fmt.Sprintf("at least %d", f.min)
		case f.max != f.min:
			want = fmt.Sprintf("%d to %d", f.min, f.max)
		}
		return nil, invalid(restore(n), "%s takes %s arguments, not %d", f.name, want, len(args))
	}
	if f.row {
		return c.rowPredicate(n, f, m)
	}
	es, err := c.exprs(args, m)
	if err != nil {
		return nil, err
	}
	if f.check != nil {
		if err := f.check(es); err != nil {
			return nil, invalid(restore(n), "%v", err)
		}
	}
	e := &call{fn: f.fn, args: es}
	if f.bind != nil {
		fn, err := f.bind(c, es)
		if err != nil {
			return nil, invalid(restore(n), "%v", err)
		}
		if fn != nil {
			e.fn = fn
		}
	}
	for _, a := range es {
		if _, ok := constant(a); !ok {
			return e, nil
		}
	}
	return literal{e.eval(nil)}, nil // constant folding
}

func (c *compiler) cast(n *ast.FuncCastExpr, m mode) (expr, error) {
	x, err := c.expr(n.Expr, m)
	if err != nil {
		return nil, err
	}
	var to func(Value) Value
	switch n.Tp.GetType() {
	case mysql.TypeVarString, mysql.TypeString, mysql.TypeVarchar, mysql.TypeBlob:
		to = func(v Value) Value {
			if v.Kind == Null {
				return v
			}
			return strValue(v.text())
		}
	case mysql.TypeTiny, mysql.TypeShort, mysql.TypeLong, mysql.TypeLonglong, mysql.TypeInt24:
		to = func(v Value) Value {
			if f, ok := v.number(); ok && v.Kind != Null {
				return intValue(int64(f))
			}
			return nullValue
		}
	case mysql.TypeFloat, mysql.TypeDouble, mysql.TypeNewDecimal:
		to = func(v Value) Value {
			if f, ok := v.number(); ok && v.Kind != Null {
				return floatValue(f)
			}
			return nullValue
		}
	default:
		return nil, invalid(restore(n), "CAST to this type is not supported (STRING, INT, BIGINT, DOUBLE, DECIMAL are)")
	}
	return &call{fn: func(a []Value) Value { return to(a[0]) }, args: []expr{x}}, nil
}

func (c *compiler) aggregate(n *ast.AggregateFuncExpr, m mode) (expr, error) {
	fn := strings.ToLower(n.F)
	if _, ok := aggregates[fn]; !ok {
		return nil, invalid(restore(n), "aggregate function %s is not supported (COUNT, SUM, AVG, MIN, MAX are)", n.F)
	}
	if m != modeGroup {
		return nil, invalid(restore(n), "aggregate functions are not allowed in WHERE or GROUP BY")
	}
	if c.inAgg {
		return nil, invalid(restore(n), "aggregate functions cannot be nested")
	}
	if n.Order != nil {
		return nil, invalid(restore(n), "ORDER BY inside an aggregate is not supported")
	}
	spec := &aggSpec{fn: fn, distinct: n.Distinct}
	star := fn == "count" && !n.Distinct && len(n.Args) == 1 && isStar(n.Text(), n.Args)
	if !star {
		if len(n.Args) != 1 && !(fn == "count" && n.Distinct) {
			return nil, invalid(restore(n), "%s takes one argument", strings.ToUpper(fn))
		}
		c.inAgg = true
		args, err := c.exprs(n.Args, modeRow)
		c.inAgg = false
		if err != nil {
			return nil, err
		}
		spec.args = args
	}
	c.q.aggs = append(c.q.aggs, spec)
	return aggRef{len(c.q.aggs) - 1}, nil
}

// isStar reports whether COUNT's argument was written "*" (the parser
// reads COUNT(*) as COUNT(1), the same count), from the call's text and
// arguments.
func isStar(text string, args []ast.ExprNode) bool {
	if strings.Contains(text, "*") {
		return true
	}
	if len(args) != 1 {
		return false
	}
	v, ok := args[0].(*driver.ValueExpr)
	return ok && v.GetValue() == int64(1)
}

// rowPredicate compiles GBIF_Within and GBIF_GeoDistance, whose point
// must be the record's own coordinates, into GBIF predicates: they are
// exact (the geometry code downloads use) and the scan can apply them.
func (c *compiler) rowPredicate(n *ast.FuncCallExpr, f *function, m mode) (expr, error) {
	p, err := c.geoPredicate(n)
	if err != nil {
		return nil, err
	}
	if m == modeGroup {
		return nil, invalid(restore(n), "%s is only taken on rows (WHERE, or a query without GROUP BY)", f.name)
	}
	for _, col := range p.Columns() {
		if _, err := c.column(&ast.ColumnName{Name: ast.NewCIStr(col)}); err != nil {
			return nil, err
		}
	}
	return matchRow{p}, nil
}

// geoPredicate builds the predicate of a GBIF_Within or GBIF_GeoDistance
// call.
func (c *compiler) geoPredicate(n *ast.FuncCallExpr) (*occurrence.Predicate, error) {
	name := n.FnName.L
	args := n.Args
	lat, lon := args[1], args[2]
	if name == "gbif_geodistance" {
		lat, lon = args[3], args[4]
	}
	if !isColumn(lat, occurrence.ColDecimalLatitude) || !isColumn(lon, occurrence.ColDecimalLongitude) {
		return nil, invalid(restore(n), "%s takes the record's decimalLatitude and decimalLongitude as its point", n.FnName.O)
	}
	var p *occurrence.Predicate
	if name == "gbif_within" {
		wkt, ok := c.constText(args[0])
		if !ok {
			return nil, invalid(restore(n), "GBIF_Within takes a WKT text as its geometry")
		}
		p = &occurrence.Predicate{Type: occurrence.TypeWithin, Geometry: wkt}
	} else {
		la, ok1 := c.constNumber(args[0])
		lo, ok2 := c.constNumber(args[1])
		d, ok3 := c.constText(args[2])
		if !ok1 || !ok2 || !ok3 {
			return nil, invalid(restore(n), "GBIF_GeoDistance takes a latitude, a longitude and a distance (\"10km\") as constants")
		}
		p = &occurrence.Predicate{Type: occurrence.TypeGeoDistance, Latitude: la, Longitude: lo, Distance: d}
	}
	if err := p.Validate(c.lim); err != nil {
		return nil, invalid(restore(n), "%v", err)
	}
	return p, nil
}

func (c *compiler) constText(n ast.ExprNode) (string, bool) {
	e, err := c.expr(n, modeRow)
	if err != nil {
		return "", false
	}
	v, ok := constant(e)
	return v.Str, ok && v.Kind == String
}

func (c *compiler) constNumber(n ast.ExprNode) (float64, bool) {
	e, err := c.expr(n, modeRow)
	if err != nil {
		return 0, false
	}
	v, ok := constant(e)
	f, isNum := v.number()
	return f, ok && isNum && v.Kind != Null
}

func isColumn(n ast.ExprNode, name string) bool {
	cn, ok := n.(*ast.ColumnNameExpr)
	return ok && cn.Name.Name.L == strings.ToLower(name)
}

// canonical is n's text for matching select items with GROUP BY keys: a
// column by its resolved name (qualified or not), else its SQL text.
func (c *compiler) canonical(n ast.ExprNode) string {
	if cn, ok := n.(*ast.ColumnNameExpr); ok {
		if !c.qualified(cn.Name) {
			if col, field, ok := conceptField(cn.Name, c.qualifiers); ok && field != "lineage" {
				return "column " + col
			}
		}
		if col, ok := columnsByLower[cn.Name.Name.L]; ok && (cn.Name.Table.O == "" || c.qualified(cn.Name)) {
			return "column " + col.Name
		}
	}
	return restore(n)
}

// restore prints an expression as SQL text: keywords and function names
// in upper case, names in lower case, strings in single quotes. It names
// unaliased result columns and matches select items with GROUP BY keys.
func restore(n ast.Node) string {
	var b strings.Builder
	flags := format.RestoreStringSingleQuotes | format.RestoreKeyWordUppercase | format.RestoreNameLowercase |
		format.RestoreSpacesAroundBinaryOperation | format.RestoreStringWithoutCharset
	if err := n.Restore(format.NewRestoreCtx(flags, &b)); err != nil {
		return strings.TrimSpace(n.Text())
	}
	s := b.String()
	if a, ok := n.(*ast.AggregateFuncExpr); ok && strings.EqualFold(a.F, "count") && !a.Distinct && len(a.Args) == 1 && isStar(a.Text(), a.Args) {
		return "COUNT(*)"
	}
	return s
}
