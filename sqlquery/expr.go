package sqlquery

import (
	"math"
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/tidwall/gjson"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// expr is a compiled expression.
type expr interface {
	eval(c *rowCtx) Value
}

// rowCtx is what an expression reads: the current row of the current
// batch, or a group's keys and aggregates, and the output row (ORDER BY
// by alias or position).
type rowCtx struct {
	read  []func(int) Value // by column slot
	batch arrow.RecordBatch
	row   int
	keys  []Value
	aggs  []Value
	out   []Value
	pre   []Value // window.go
	win   []Value
	stack []Value // the arguments of calls being evaluated
	// The verbatim values of row vrow (-1: none yet), by Query.vpaths.
	vpaths []string
	vrow   int
	vvals  []gjson.Result
}

type literal struct{ v Value }

func (l literal) eval(*rowCtx) Value { return l.v }

// columnRef reads a table column of the current row.
type columnRef struct{ slot int }

func (e columnRef) eval(c *rowCtx) Value { return c.read[e.slot](c.row) }

// derivedRef is a derived column: fn of the base column's value.
type derivedRef struct {
	ref expr
	fn  func(Value) Value
}

func (e derivedRef) eval(c *rowCtx) Value { return e.fn(e.ref.eval(c)) }

// lineageRef is a vocabulary column's lineage field: the lineages of the
// row's concepts, root first, ";"-joined as the dialect's lists are.
type lineageRef struct {
	ref expr
	cc  occurrence.ConceptColumn
}

func (e lineageRef) eval(c *rowCtx) Value {
	v := e.ref.eval(c)
	if v.Kind == Null {
		return nullValue
	}
	l := e.cc.Lineage(v.text())
	if l == nil {
		return nullValue
	}
	return strValue(strings.Join(l, ";"))
}

// verbatimRef reads verbatim term k of the current row from its record's
// verbatim object (a JSON object keyed by occurrence.VerbatimKey); NULL
// where the record has no such term. The object is read once a row for
// all of the query's verbatim columns (Query.vpaths), when one is first
// asked for.
type verbatimRef struct {
	slot int // the verbatim column
	k    int // index in Query.vpaths
}

func (e verbatimRef) eval(c *rowCtx) Value {
	if c.vrow != c.row {
		c.vrow, c.vvals = c.row, c.vvals[:0]
		if v := c.read[e.slot](c.row); v.Kind == String {
			c.vvals = gjson.GetMany(v.Str, c.vpaths...)
		}
	}
	if e.k >= len(c.vvals) {
		return nullValue
	}
	r := c.vvals[e.k]
	if !r.Exists() || r.Type == gjson.Null {
		return nullValue
	}
	return strValue(r.String())
}

// keyRef reads a group's key; aggRef a group's aggregate; outRef the
// output row's column.
type keyRef struct{ i int }
type aggRef struct{ i int }
type outRef struct{ i int }

func (e keyRef) eval(c *rowCtx) Value { return c.keys[e.i] }
func (e aggRef) eval(c *rowCtx) Value { return c.aggs[e.i] }
func (e outRef) eval(c *rowCtx) Value { return c.out[e.i] }

type notExpr struct{ x expr }

func (e notExpr) eval(c *rowCtx) Value {
	b, ok := e.x.eval(c).truth()
	if !ok {
		return nullValue
	}
	return boolValue(!b)
}

// logic is AND or OR with SQL's three-valued rules.
type logic struct {
	and  bool
	l, r expr
}

func (e logic) eval(c *rowCtx) Value {
	lb, lok := e.l.eval(c).truth()
	if lok && lb != e.and { // false AND x, true OR x
		return boolValue(lb)
	}
	rb, rok := e.r.eval(c).truth()
	if rok && rb != e.and {
		return boolValue(rb)
	}
	if !lok || !rok {
		return nullValue
	}
	return boolValue(e.and)
}

type cmpOp uint8

const (
	opEQ cmpOp = iota
	opNE
	opLT
	opLE
	opGT
	opGE
	opNullEQ // <=>
)

type comparison struct {
	op   cmpOp
	l, r expr
}

func (e comparison) eval(c *rowCtx) Value {
	a, b := e.l.eval(c), e.r.eval(c)
	if a.Kind == Null || b.Kind == Null {
		if e.op == opNullEQ {
			return boolValue(a.Kind == b.Kind)
		}
		return nullValue
	}
	r, ok := compare(a, b)
	if !ok {
		return nullValue
	}
	switch e.op {
	case opEQ, opNullEQ:
		return boolValue(r == 0)
	case opNE:
		return boolValue(r != 0)
	case opLT:
		return boolValue(r < 0)
	case opLE:
		return boolValue(r <= 0)
	case opGT:
		return boolValue(r > 0)
	}
	return boolValue(r >= 0)
}

type arithOp uint8

const (
	opAdd arithOp = iota
	opSub
	opMul
	opDiv    // always a double, as Spark's /
	opIntDiv // DIV
	opMod
)

type arith struct {
	op   arithOp
	l, r expr
}

func (e arith) eval(c *rowCtx) Value { return arithmetic(e.op, e.l.eval(c), e.r.eval(c)) }

// arithmetic applies op to two values.
func arithmetic(op arithOp, a, b Value) Value {
	if a.Kind == Null || b.Kind == Null {
		return nullValue
	}
	if op != opDiv && isIntegral(a) && isIntegral(b) {
		x, y := a.Int, b.Int
		switch op {
		case opAdd:
			return intValue(x + y)
		case opSub:
			return intValue(x - y)
		case opMul:
			return intValue(x * y)
		case opIntDiv:
			if y == 0 {
				return nullValue
			}
			return intValue(x / y)
		case opMod:
			if y == 0 {
				return nullValue
			}
			return intValue(x % y)
		}
	}
	x, okx := a.number()
	y, oky := b.number()
	if !okx || !oky {
		return nullValue
	}
	switch op {
	case opAdd:
		return floatValue(x + y)
	case opSub:
		return floatValue(x - y)
	case opMul:
		return floatValue(x * y)
	case opDiv:
		if y == 0 {
			return nullValue
		}
		return floatValue(x / y)
	case opIntDiv:
		if y == 0 {
			return nullValue
		}
		return intValue(int64(math.Trunc(x / y)))
	}
	if y == 0 {
		return nullValue
	}
	return floatValue(math.Mod(x, y))
}

func isIntegral(v Value) bool { return v.Kind == Int || v.Kind == Bool }

type negate struct{ x expr }

func (e negate) eval(c *rowCtx) Value {
	v := e.x.eval(c)
	switch v.Kind {
	case Int:
		return intValue(-v.Int)
	case Float:
		return floatValue(-v.Float)
	}
	if f, ok := v.number(); ok && v.Kind != Null {
		return floatValue(-f)
	}
	return nullValue
}

type isNull struct {
	x   expr
	not bool
}

func (e isNull) eval(c *rowCtx) Value { return boolValue(e.x.eval(c).IsNull() != e.not) }

// isTruth is "x IS [NOT] TRUE|FALSE".
type isTruth struct {
	x        expr
	want     bool
	negation bool
}

func (e isTruth) eval(c *rowCtx) Value {
	b, ok := e.x.eval(c).truth()
	return boolValue((ok && b == e.want) != e.negation)
}

type inList struct {
	x    expr
	list []expr
	not  bool
}

func (e inList) eval(c *rowCtx) Value {
	v := e.x.eval(c)
	if v.Kind == Null {
		return nullValue
	}
	sawNull := false
	for _, l := range e.list {
		w := l.eval(c)
		if w.Kind == Null {
			sawNull = true
			continue
		}
		if r, ok := compare(v, w); ok && r == 0 {
			return boolValue(!e.not)
		}
	}
	if sawNull {
		return nullValue
	}
	return boolValue(e.not)
}

// like is SQL LIKE ('%' any run, '_' one character, escape '\'); ilike
// ignores case. A constant pattern is compiled once.
type like struct {
	x, pattern expr
	re         *regexp.Regexp // constant pattern
	escape     byte
	fold, not  bool
}

func (e like) eval(c *rowCtx) Value {
	v := e.x.eval(c)
	if v.Kind == Null {
		return nullValue
	}
	re := e.re
	if re == nil {
		p := e.pattern.eval(c)
		if p.Kind == Null {
			return nullValue
		}
		re = likeRegexp(p.text(), e.escape, e.fold)
	}
	return boolValue(re.MatchString(v.text()) != e.not)
}

// likeRegexp translates a LIKE pattern. It reads the pattern by
// characters: an escaped character is taken whole, and an invalid UTF-8
// byte (a pattern computed from bytes) stands for U+FFFD, as the matcher
// reads an invalid byte of a value.
func likeRegexp(p string, escape byte, fold bool) *regexp.Regexp {
	var b strings.Builder
	if fold {
		b.WriteString("(?i)")
	}
	b.WriteString("(?s)^")
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == rune(escape) && i+1 < len(rs):
			i++
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		case r == '%':
			b.WriteString(".*")
		case r == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

type caseExpr struct {
	value expr // nil: searched CASE
	whens []expr
	thens []expr
	els   expr
}

func (e caseExpr) eval(c *rowCtx) Value {
	var v Value
	if e.value != nil {
		v = e.value.eval(c)
	}
	for i, w := range e.whens {
		wv := w.eval(c)
		if e.value != nil {
			if v.Kind != Null && wv.Kind != Null {
				if r, ok := compare(v, wv); ok && r == 0 {
					return e.thens[i].eval(c)
				}
			}
			continue
		}
		if b, ok := wv.truth(); ok && b {
			return e.thens[i].eval(c)
		}
	}
	if e.els == nil {
		return nullValue
	}
	return e.els.eval(c)
}

// call is a scalar function of its evaluated arguments. The arguments
// go on the run's own stack (rowCtx.stack), never in the compiled query,
// which runs on several goroutines at once; fn must not keep the slice.
type call struct {
	fn   func(args []Value) Value
	args []expr
}

func (e *call) eval(c *rowCtx) Value {
	if c == nil { // constant folding when compiled
		args := make([]Value, len(e.args))
		for i, a := range e.args {
			args[i] = a.eval(nil)
		}
		return e.fn(args)
	}
	base := len(c.stack)
	for _, a := range e.args {
		v := a.eval(c)
		c.stack = append(c.stack, v)
	}
	v := e.fn(c.stack[base:])
	c.stack = c.stack[:base]
	return v
}

// matchRow is a GBIF predicate tested on the current row (GBIF_Within,
// GBIF_GeoDistance on the record's coordinates).
type matchRow struct{ p *occurrence.Predicate }

func (e matchRow) eval(c *rowCtx) Value { return boolValue(e.p.MatchRow(c.batch, c.row)) }

// constant reports whether e reads nothing of a row.
func constant(e expr) (Value, bool) {
	l, ok := e.(literal)
	return l.v, ok
}
