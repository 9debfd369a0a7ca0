package hbase

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc"
)

// maxPushedValues bounds the values of one in-predicate turned into a
// server-side filter; longer lists are only evaluated client-side.
const maxPushedValues = 256

// maxPushedFilters bounds the comparisons of the whole server-side filter
// (an in of 256 taxon keys compares 9 columns each): an or of thousands of
// equals, which the client evaluates as one set, is not sent to every
// region server with each scan.
const maxPushedFilters = 4096

// filterSize counts the comparisons of a filter.
func filterSize(f hrpc.Filter) int {
	l, ok := f.(hrpc.FilterList)
	if !ok {
		return 1
	}
	n := 0
	for _, c := range l.Filters {
		n += filterSize(c)
	}
	return n
}

// pushed is a server-side filter built from a predicate. The filter never
// drops a row the predicate matches (it selects a superset); exact says it
// selects exactly the matching rows, so the client need not re-check them.
type pushed struct {
	filter hrpc.Filter
	exact  bool
}

// pushdown translates what it can of p into a server-side filter: "and"
// keeps the children it can translate (a superset), "or" needs all of them;
// leaves are equals/in/comparisons/range on keys whose columns are all in the
// header (a row matches when any of them does). ok is false when nothing can
// be pushed.
func pushdown(p *occurrence.Predicate, header int) (pushed, bool) {
	if p == nil {
		return pushed{}, false
	}
	switch p.Type {
	case occurrence.TypeAnd, occurrence.TypeOr:
		or := p.Type == occurrence.TypeOr
		var fs []pushed
		exact := true
		size := 0
		for _, c := range p.Predicates {
			f, ok := pushdown(c, header)
			if ok {
				if n := filterSize(f.filter); size+n <= maxPushedFilters {
					size += n
				} else {
					ok = false
				}
			}
			if !ok {
				if or {
					return pushed{}, false
				}
				exact = false
				continue
			}
			fs = append(fs, f)
		}
		if len(fs) == 0 {
			return pushed{}, false
		}
		return combine(or, fs, exact), true
	}
	if p.Key == "" {
		return pushed{}, false
	}
	if p.Key == "GBIF_ID" {
		return pushID(p)
	}
	var fs []pushed
	for _, col := range p.Columns() {
		hf, ok := headerFields[col]
		if !ok || hf.since > header {
			return pushed{}, false
		}
		f, ok := pushColumn(p, hf)
		if !ok {
			return pushed{}, false
		}
		fs = append(fs, f)
	}
	return combine(true, fs, true), true
}

// combine joins filters with and/or; a single one stays as it is.
func combine(or bool, fs []pushed, exact bool) pushed {
	if len(fs) == 1 {
		fs[0].exact = fs[0].exact && exact
		return fs[0]
	}
	list := hrpc.FilterList{Or: or}
	for _, f := range fs {
		list.Filters = append(list.Filters, f.filter)
		exact = exact && f.exact
	}
	return pushed{list, exact}
}

// pushColumn builds the filter of a leaf predicate on one header column.
func pushColumn(p *occurrence.Predicate, f headerField) (pushed, bool) {
	switch p.Type {
	case occurrence.TypeEquals:
		return leaf(f, p.Value)
	case occurrence.TypeIn:
		if len(p.Values) > maxPushedValues {
			return pushed{}, false
		}
		var fs []pushed
		for _, v := range p.Values {
			l, ok := leaf(f, v)
			if !ok {
				return pushed{}, false
			}
			fs = append(fs, l)
		}
		return combine(true, fs, true), true
	case occurrence.TypeLessThan:
		return bounds(f, "", "", "", p.Value)
	case occurrence.TypeLessThanOrEquals:
		return bounds(f, "", "", p.Value, "")
	case occurrence.TypeGreaterThan:
		return bounds(f, "", p.Value, "", "")
	case occurrence.TypeGreaterThanOrEquals:
		return bounds(f, p.Value, "", "", "")
	case occurrence.TypeRange:
		if p.Range == nil {
			return pushed{}, false
		}
		return bounds(f, p.Range.Gte, p.Range.Gt, p.Range.Lte, p.Range.Lt)
	}
	return pushed{}, false
}

// component compares the header bytes of f (from its start) with v.
func component(f headerField, op hrpc.CompareOp, v []byte) hrpc.Filter {
	return hrpc.SingleColumnValueFilter{Family: famHeader, Qualifier: []byte{}, Op: op,
		Comparator: hrpc.BinaryComponentComparator{Value: v, Offset: uint32(f.offset)}, FilterIfMissing: true}
}

// leaf builds the filter of one equals value (a range "a,b" for numbers).
func leaf(f headerField, v string) (pushed, bool) {
	switch f.kind {
	case hString:
		h := appendHeaderValue(nil, hString, occurrence.Value{S: v, Valid: true})
		return pushed{component(f, hrpc.Equal, h), false}, true
	case hBool:
		if v != "true" && v != "false" {
			return pushed{}, false
		}
		h := appendHeaderValue(nil, hBool, occurrence.Value{B: v == "true", Valid: true})
		return pushed{component(f, hrpc.Equal, h), true}, true
	}
	lo, hi, isRange := strings.Cut(v, ",")
	if !isRange {
		enc, ok := number(f, lo)
		if !ok {
			return pushed{}, false
		}
		return pushed{component(f, hrpc.Equal, enc), f.kind != hFloat}, true
	}
	if strings.TrimSpace(lo) == "*" {
		lo = ""
	}
	if strings.TrimSpace(hi) == "*" {
		hi = ""
	}
	return bounds(f, lo, "", hi, "")
}

// bounds builds lower (gte or gt) and upper (lte or lt) bounds on a number
// column; absent bounds are "". A null never satisfies a bound.
func bounds(f headerField, gte, gt, lte, lt string) (pushed, bool) {
	if f.kind == hString || f.kind == hBool {
		return pushed{}, false
	}
	// The presence byte leads the component: [1] sorts above null [0], so
	// lower bounds exclude nulls by themselves; an upper bound alone needs
	// "present" too.
	var fs []pushed
	if strings.TrimSpace(gte) == "" && strings.TrimSpace(gt) == "" {
		fs = append(fs, pushed{component(f, hrpc.GreaterOrEqual, []byte{1}), true})
	}
	for _, b := range []struct {
		v  string
		op hrpc.CompareOp
	}{{gte, hrpc.GreaterOrEqual}, {gt, hrpc.Greater}, {lte, hrpc.LessOrEqual}, {lt, hrpc.Less}} {
		if strings.TrimSpace(b.v) == "" {
			continue
		}
		enc, ok := number(f, b.v)
		if !ok {
			return pushed{}, false
		}
		fs = append(fs, pushed{component(f, b.op, enc), true})
	}
	if len(fs) == 0 {
		return pushed{}, false
	}
	return combine(false, fs, f.kind != hFloat), true
}

// number encodes a numeric value like the header does (presence included).
func number(f headerField, v string) ([]byte, bool) {
	v = strings.TrimSpace(v)
	switch f.kind {
	case hInt32, hInt64:
		bits := 64
		if f.kind == hInt32 {
			bits = 32
		}
		n, err := strconv.ParseInt(v, 10, bits)
		if err != nil {
			return nil, false
		}
		return appendHeaderValue(nil, f.kind, occurrence.Value{I: n, Valid: true}), true
	case hFloat:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		return appendHeaderValue(nil, hFloat, occurrence.Value{F: x, Valid: true}), true
	}
	return nil, false
}

// countrySet returns, sorted, the country codes a matching row must have,
// when the predicate restricts them (COUNTRY equals/in, under and/or); rows
// are keyed by country, so only those key ranges need reading.
func countrySet(p *occurrence.Predicate) ([]string, bool) {
	set, ok := countries(p)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(set))
	for cc := range set {
		out = append(out, cc)
	}
	sort.Strings(out)
	return out, true
}

func countries(p *occurrence.Predicate) (map[string]bool, bool) {
	if p == nil {
		return nil, false
	}
	switch p.Type {
	case occurrence.TypeAnd:
		var acc map[string]bool
		for _, c := range p.Predicates {
			set, ok := countries(c)
			if !ok {
				continue
			}
			if acc == nil {
				acc = set
				continue
			}
			for cc := range acc {
				if !set[cc] {
					delete(acc, cc)
				}
			}
		}
		return acc, acc != nil
	case occurrence.TypeOr:
		acc := map[string]bool{}
		for _, c := range p.Predicates {
			set, ok := countries(c)
			if !ok {
				return nil, false
			}
			for cc := range set {
				acc[cc] = true
			}
		}
		return acc, len(p.Predicates) > 0
	case occurrence.TypeEquals, occurrence.TypeIn:
		if p.Key != "COUNTRY" {
			return nil, false
		}
		vals := p.Values
		if p.Type == occurrence.TypeEquals {
			vals = []string{p.Value}
		}
		set := map[string]bool{}
		for _, v := range vals {
			if len(v) != 2 {
				return nil, false
			}
			set[v] = true
		}
		return set, true
	}
	return nil, false
}

// pushID filters rows by the gbifID that ends their key (equals and in: a
// record looked up by id is found next to the data, without shipping the
// bucket's other records).
func pushID(p *occurrence.Predicate) (pushed, bool) {
	values := p.Values
	switch p.Type {
	case occurrence.TypeEquals:
		values = []string{p.Value}
	case occurrence.TypeIn:
		if len(values) > maxPushedValues {
			return pushed{}, false
		}
	default:
		return pushed{}, false
	}
	var fs []pushed
	for _, v := range values {
		id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return pushed{}, false // a range "a,b": evaluated client-side
		}
		cmp := hrpc.BinaryComponentComparator{Value: binary.BigEndian.AppendUint64(nil, uint64(id)), Offset: keyLen - 8}
		fs = append(fs, pushed{hrpc.RowFilter{Op: hrpc.Equal, Comparator: cmp}, true})
	}
	return combine(true, fs, true), true
}
