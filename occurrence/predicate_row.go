package occurrence

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// MatchRow reports whether one row of batch matches. It is the reference
// implementation: one value at a time, straight from the predicate's operator
// and values, sharing no matching code with Eval (only the parsed values and
// the geometry's crossing test). Conformance tests compare the two.
func (p *Predicate) MatchRow(batch arrow.RecordBatch, row int) bool {
	if p == nil {
		return true
	}
	switch p.Type {
	case TypeAnd:
		for _, c := range p.Predicates {
			if !c.MatchRow(batch, row) {
				return false
			}
		}
		return true
	case TypeOr:
		for _, c := range p.Predicates {
			if c.MatchRow(batch, row) {
				return true
			}
		}
		return false
	case TypeNot:
		return !p.Predicate.MatchRow(batch, row)
	}
	return p.comp().matchRow(batch, row)
}

// cell returns a row's value as string, int64, float64, bool or nil.
func cell(batch arrow.RecordBatch, col string, row int) any {
	return arrayCell(batchColumn(batch, col), row)
}

func arrayCell(arr arrow.Array, row int) any {
	if arr.IsNull(row) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Int32:
		return int64(a.Value(row))
	case *array.Int64:
		return a.Value(row)
	case *array.Timestamp:
		return int64(a.Value(row))
	case *array.Float64:
		return a.Value(row)
	case *array.Boolean:
		return a.Value(row)
	case *array.Dictionary:
		return arrayCell(a.Dictionary(), a.GetValueIndex(row))
	case interface{ Value(int) string }:
		return a.Value(row)
	}
	panic(fmt.Sprintf("occurrence: cannot read a %s column", arr.DataType()))
}

func (c *compiled) matchRow(batch arrow.RecordBatch, row int) bool {
	switch c.op {
	case TypeWithin, TypeGeoDistance:
		lat, ok1 := cell(batch, ColDecimalLatitude, row).(float64)
		lon, ok2 := cell(batch, ColDecimalLongitude, row).(float64)
		if !ok1 || !ok2 {
			return false
		}
		if c.geom != nil {
			return c.geom.containsSimple(lat, lon)
		}
		return c.circle.contains(lat, lon)
	case TypeFullText:
		return c.matchFullText(batch, row)
	case TypeIsNull:
		return cell(batch, c.spec.cols[0], row) == nil
	case TypeIsNotNull:
		return cell(batch, c.spec.cols[0], row) != nil
	}
	if c.spec.kind == vDate {
		s, ok := cell(batch, ColEventDateStart, row).(int64)
		if !ok {
			return false
		}
		e, ok := cell(batch, ColEventDateEnd, row).(int64)
		if !ok {
			e = s
		}
		return c.matchSpan(num{i: s}, num{i: e})
	}
	if c.isFigures() {
		s, ok := cell(batch, c.spec.cols[0], row).(string)
		return ok && c.matchFigures(s)
	}
	if c.isSpan() {
		e, ok1 := cell(batch, c.spec.cols[0], row).(float64)
		s, ok2 := cell(batch, c.spec.cols[1], row).(float64)
		return ok1 && ok2 && c.spanIn(e, s)
	}
	for _, col := range c.spec.cols {
		if c.matchValue(cell(batch, col, row)) {
			return true
		}
	}
	return false
}

func (c *compiled) matchValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		for _, b := range c.bools {
			if b == x {
				return true
			}
		}
		return false
	case string:
		return c.matchText(x)
	case int64:
		return c.matchSpan(num{i: x}, num{i: x})
	case float64:
		return c.matchSpan(num{f: x}, num{f: x})
	}
	return false
}

// matchSpan applies the operator to a value spanning [s, e] (s == e except
// for eventDate intervals).
func (c *compiled) matchSpan(s, e num) bool {
	fl := c.spec.kind == vFloat
	lt := func(a, b num) bool { return (fl && a.f < b.f) || (!fl && a.i < b.i) }
	le := func(a, b num) bool { return (fl && a.f <= b.f) || (!fl && a.i <= b.i) }
	switch c.op {
	case TypeEquals, TypeIn:
		for _, x := range c.exts {
			if le(x.lo, s) && le(e, x.hi) {
				return true
			}
		}
		return false
	case TypeLessThan:
		return lt(e, c.exts[0].lo)
	case TypeLessThanOrEquals:
		return le(e, c.exts[0].hi)
	case TypeGreaterThan:
		return lt(c.exts[0].hi, s)
	case TypeGreaterThanOrEquals:
		return le(c.exts[0].lo, s)
	case TypeRange:
		lowOK := (c.lower.inclusive && le(c.lower.v, s)) || (!c.lower.inclusive && lt(c.lower.v, s))
		highOK := (c.upper.inclusive && le(e, c.upper.v)) || (!c.upper.inclusive && lt(e, c.upper.v))
		return lowOK && highOK
	}
	return false
}

// matchText compares a stored text value: the whole value, the ";"-separated
// elements of a multi-value column, or the whole value and the "|"-separated
// parts of recordedBy/identifiedBy.
func (c *compiled) matchText(stored string) bool {
	var cands []string
	switch c.spec.kind {
	case vMulti:
		cands = trimAll(strings.Split(stored, ";"))
	case vPiped:
		cands = append([]string{stored}, trimAll(strings.FieldsFunc(stored, func(r rune) bool { return r == '|' || r == ';' }))...)
	default:
		cands = []string{stored}
	}
	for _, s := range cands {
		if c.fold {
			s = foldString(s)
		}
		for _, v := range c.strs {
			if c.op == TypeLike {
				if likeRegexp(v).MatchString(s) {
					return true
				}
			} else if s == v {
				return true
			}
		}
	}
	return false
}

func trimAll(parts []string) []string {
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// likeRegexp translates a like pattern into an anchored regular expression.
func likeRegexp(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^(?s:`)
	lit := 0
	flush := func(i int) {
		b.WriteString(regexp.QuoteMeta(pattern[lit:i]))
	}
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '*':
			flush(i)
			b.WriteString(`.*`)
			lit = i + 1
		case '?':
			flush(i)
			b.WriteString(`.`)
			lit = i + 1
		}
	}
	flush(len(pattern))
	b.WriteString(`)$`)
	return regexp.MustCompile(b.String())
}
