package sqlquery

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // literal values

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Table is the one table a query reads, as GBIF names it.
const Table = "occurrence"

// Options bound what Parse accepts.
type Options struct {
	// MaxBytes is the longest query text; 0 means DefaultMaxBytes.
	MaxBytes int
	// Limits bound the predicates handed to the scan and the geometries
	// of GBIF_Within; zero means occurrence.DefaultLimits().
	Limits occurrence.Limits
	// Verbatim names the verbatim columns a query may read, as GBIF's
	// table has them: "v_" and the term's simple name in lower case
	// ("v_scientificname") to the term's URI. Their values come from the
	// record's verbatim object. Nil offers none.
	Verbatim map[string]string
}

// DefaultMaxBytes is the longest query text by default (GBIF's requests
// carry the query in a JSON body; 64 KiB is far above any query seen in
// rgbif's documentation and keeps parsing cheap).
const DefaultMaxBytes = 64 << 10

// Query is a parsed, checked query, ready to run (NewRun). It is
// immutable and may run any number of times, one run per goroutine.
type Query struct {
	text    string
	cols    []string // table columns read, by slot
	header  []string
	where   expr
	push    *occurrence.Predicate
	grouped bool
	keys    []expr // grouped: the group keys, on rows
	aggs    []*aggSpec
	outs    []expr // the select list: on rows, or on groups when grouped
	having  expr   // on groups
	order   []orderItem
	limit   int64 // -1: none
	offset  int64
	// With window functions, outs and order read pres (evaluated on the
	// rows or groups) and the windows' results (window.go).
	pres    []expr
	windows []*windowSpec
	vpaths  []string // the verbatim columns' keys (verbatimRef)
}

type orderItem struct {
	e    expr
	desc bool
}

// Columns returns the table columns the query reads (ScanRequest.Columns).
func (q *Query) Columns() []string { return append([]string(nil), q.cols...) }

// Header returns the result's column names, as GBIF names them: an
// alias as written when quoted, else in lower case; a column by its name
// in lower case; an expression by its SQL text.
func (q *Query) Header() []string { return append([]string(nil), q.header...) }

// Predicate returns the conditions of the WHERE clause the scan can apply
// (nil: none): every row the query keeps matches it.
func (q *Query) Predicate() *occurrence.Predicate { return q.push }

// checkUTF8 refuses a query that is not UTF-8 text, at the line and
// column (in characters) of its first invalid byte.
func checkUTF8(sql string) error {
	if utf8.ValidString(sql) {
		return nil
	}
	line, col := 1, 1
	for i, r := range sql {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(sql[i:]); n == 1 {
				return &Error{Line: line, Column: col, Reason: fmt.Sprintf("byte %#x is not UTF-8 (send the query as UTF-8 text)", sql[i])}
			}
		}
		if col++; r == '\n' {
			line, col = line+1, 1
		}
	}
	return nil
}

var parseErrRE = regexp.MustCompile(`line (\d+) column (\d+) near "((?s).*)"`)

// Parse reads and checks one SELECT over the occurrence table.
func Parse(sql string, opts Options) (*Query, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Limits == (occurrence.Limits{}) {
		opts.Limits = occurrence.DefaultLimits()
	}
	if len(sql) > opts.MaxBytes {
		return nil, invalid("", "the query is %d bytes, more than the %d accepted", len(sql), opts.MaxBytes)
	}
	if strings.TrimSpace(sql) == "" {
		return nil, invalid("", "the query is empty (want SELECT ... FROM occurrence)")
	}
	if err := checkUTF8(sql); err != nil {
		return nil, err
	}
	stmts, err := statements(sql)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, invalid("", "%d statements: send one SELECT", len(stmts))
	}
	sel, ok := stmts[0].(*ast.SelectStmt)
	if !ok {
		return nil, invalid(strings.TrimSpace(stmts[0].Text()), "only SELECT queries are supported")
	}
	c := &compiler{q: &Query{text: sql, limit: -1}, slots: map[string]int{}, lim: opts.Limits, verbatim: opts.Verbatim}
	if err := c.statement(sel); err != nil {
		return nil, err
	}
	c.q.push = pushdown(sel.Where, c.qualifiers, opts.Limits)
	return c.q, nil
}

// statements parses sql. The parser's literal decoding panics on some
// input (a decimal literal of more digits than it holds): that is an
// invalid query, not a crash.
func statements(sql string) (stmts []ast.StmtNode, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprint(r)
			if len(msg) > 120 {
				msg = msg[:117] + "..."
			}
			stmts, err = nil, &Error{Reason: "the SQL parser cannot read this query (a number too long?): " + msg}
		}
	}()
	p := parser.New()
	p.SetSQLMode(mysql.ModeANSI | mysql.ModeANSIQuotes | mysql.ModePipesAsConcat)
	stmts, _, err = p.Parse(sql, "", "")
	if err != nil {
		return nil, parseError(err)
	}
	return stmts, nil
}

// parseError turns the parser's message into an Error with its place.
func parseError(err error) error {
	msg := err.Error()
	m := parseErrRE.FindStringSubmatch(msg)
	if m == nil {
		return &Error{Reason: "syntax error: " + msg}
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	near := strings.TrimSpace(m[3])
	reason := "syntax error"
	if near == "" {
		reason = "syntax error: the query ends too early"
	}
	return &Error{Line: line, Column: col, Near: near, Reason: reason}
}

// statement checks the shape GBIF accepts and compiles each clause.
func (c *compiler) statement(s *ast.SelectStmt) error {
	switch {
	case s.With != nil:
		return invalid("WITH", "WITH is not supported: one SELECT over occurrence")
	case s.AfterSetOperator != nil:
		return invalid("", "UNION, INTERSECT and EXCEPT are not supported")
	case len(s.WindowSpecs) > 0:
		return invalid("WINDOW", "named windows (WINDOW w AS ...) are not supported: write the window in OVER (...)")
	case s.LockInfo != nil, s.SelectIntoOpt != nil:
		return invalid("", "only plain SELECT queries are supported")
	case s.Kind != ast.SelectStmtKindSelect:
		return invalid("", "only SELECT ... FROM occurrence is supported")
	}
	if err := c.from(s.From); err != nil {
		return err
	}
	if s.Where != nil {
		w, err := c.expr(s.Where, modeRow)
		if err != nil {
			return err
		}
		c.q.where = w
	}
	if err := c.selectList(s); err != nil {
		return err
	}
	if err := c.orderBy(s.OrderBy); err != nil {
		return err
	}
	return c.limit(s.Limit)
}

// from accepts "FROM occurrence" with an optional alias.
func (c *compiler) from(f *ast.TableRefsClause) error {
	if f == nil || f.TableRefs == nil {
		return invalid("", "no FROM: the query must read FROM occurrence")
	}
	j := f.TableRefs
	if j.Right != nil {
		return invalid("JOIN", "joins are not supported: one table, occurrence")
	}
	ts, ok := j.Left.(*ast.TableSource)
	if !ok {
		return invalid("", "FROM must name the table occurrence")
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return invalid("", "sub-queries are not supported: FROM occurrence")
	}
	if !strings.EqualFold(tn.Name.O, Table) {
		return invalid(tn.Name.O, "unknown table %s: the only table is occurrence", tn.Name.O)
	}
	c.qualifiers = map[string]bool{Table: true}
	if tn.Schema.O != "" {
		c.qualifiers[tn.Schema.L+"."+Table] = true
	}
	if ts.AsName.O != "" {
		c.qualifiers = map[string]bool{ts.AsName.L: true}
	}
	return nil
}

func (c *compiler) limit(l *ast.Limit) error {
	if l == nil {
		return nil
	}
	n, err := c.constInt(l.Count, "LIMIT")
	if err != nil {
		return err
	}
	c.q.limit = n
	if l.Offset != nil {
		if c.q.offset, err = c.constInt(l.Offset, "OFFSET"); err != nil {
			return err
		}
	}
	return nil
}

func (c *compiler) constInt(n ast.ExprNode, what string) (int64, error) {
	e, err := c.expr(n, modeRow)
	if err != nil {
		return 0, err
	}
	v, ok := constant(e)
	i, isInt := v.integer()
	if !ok || !isInt || i < 0 || v.Kind == String {
		return 0, invalid(restore(n), "%s takes a whole number of rows", what)
	}
	return i, nil
}

// headerOf names a select item as GBIF's HiveSqlQuery does.
func headerOf(f *ast.SelectField) string {
	if f.AsName.O != "" {
		if quotedAlias(f.Text(), f.AsName.O) {
			return f.AsName.O
		}
		return f.AsName.L
	}
	if cn, ok := f.Expr.(*ast.ColumnNameExpr); ok {
		return cn.Name.Name.L
	}
	return restore(f.Expr)
}

// quotedAlias reports whether the field's text ends with alias in double
// quotes (GBIF keeps a quoted alias's case).
func quotedAlias(text, alias string) bool {
	return strings.HasSuffix(strings.TrimSpace(text), `"`+strings.ReplaceAll(alias, `"`, `""`)+`"`)
}

func fmtCount(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
