package javafmt

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// decimal is a non-negative double as digits d1d2...dn and the exponent of
// d1: the value is d1.d2...dn × 10^exp (zero: digits "0", exp 0).
type decimal struct {
	digits string
	exp    int
}

// shortest is the decimal digits of v that Java's FloatingDecimal (Java 17,
// which GBIF's Spark runs on) gives Double.toString and Formatter: the
// shortest that read back as v, except for a whole number below 2^63,
// whose exact digits it gives, rounded to 1e1 or 1e2 above 2^54
// (4.370789053382578E16 is "4.3707890533825776E16" there). Java 19 and
// later give the shortest digits always.
func shortest(v float64) decimal {
	if v == 0 {
		return decimal{"0", 0}
	}
	if v == math.Trunc(v) && v < 1<<63 {
		return longDigits(v)
	}
	e := strconv.FormatFloat(v, 'e', -1, 64) // "1.2345e+07"
	i := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	return decimal{strings.Replace(e[:i], ".", "", 1), exp}
}

// longDigits is FloatingDecimal's digits of a whole v below 2^63: its
// integer, less the digits the double's 53 bits do not determine (one
// digit per 2^3.32 above 2^54), rounded half up, trailing zeros dropped.
func longDigits(v float64) decimal {
	n := uint64(v)
	_, binExp := math.Frexp(v) // v = f × 2^binExp, f in [0.5, 1)
	binExp--                   // Java's exponent: v = 1.f × 2^binExp
	drop := 0
	if p := binExp - 53 - 1; p > 1 {
		drop = int(float64(p) * math.Log10(2))
	}
	exp := 0
	if drop > 0 {
		pow := uint64(math.Pow10(drop))
		rest := n % pow
		n /= pow
		exp = drop
		if rest >= pow/2 {
			n++
		}
	}
	digits := strconv.FormatUint(n, 10)
	exp += len(digits) - 1
	return decimal{strings.TrimRight(digits, "0"), exp}
}

// round keeps n significant digits, rounding half up as Java does (n may
// be 0 or less: the value then rounds to 0 or to one unit of the digit
// before the first).
func (d decimal) round(n int) decimal {
	if n >= len(d.digits) {
		return d
	}
	if n < 0 {
		return decimal{"0", d.exp}
	}
	up := d.digits[n] >= '5'
	kept := []byte(d.digits[:n])
	if !up {
		if n == 0 {
			return decimal{"0", d.exp}
		}
		return decimal{string(kept), d.exp}
	}
	i := n - 1
	for ; i >= 0; i-- {
		if kept[i] < '9' {
			kept[i]++
			break
		}
		kept[i] = '0'
	}
	if i < 0 { // 999 -> 1000, or n == 0: one unit of the place before
		return decimal{"1" + string(kept), d.exp + 1}
	}
	return decimal{string(kept), d.exp}
}

// rounded is d kept to n significant digits, a zero with exponent 0.
func (d decimal) rounded(n int) decimal {
	r := d.round(n)
	if strings.Trim(r.digits, "0") == "" {
		return decimal{"0", 0}
	}
	return r
}

// fixed writes d with prec digits after the point (Java's %f), grouping
// the integer part's thousands with ','.
func (d decimal) fixed(prec int, grouping bool) string {
	r := d.rounded(d.exp + 1 + prec)
	var b strings.Builder
	if r.exp < 0 {
		b.WriteByte('0')
	}
	for k := r.exp; k >= 0; k-- { // the digit of 10^k
		b.WriteByte(r.digitAt(k))
	}
	ip := b.String()
	if grouping {
		ip = group(ip)
	}
	if prec == 0 {
		return ip
	}
	b.Reset()
	b.WriteString(ip)
	b.WriteByte('.')
	for k := -1; k >= -prec; k-- {
		b.WriteByte(r.digitAt(k))
	}
	return b.String()
}

// digitAt is d's digit of 10^k.
func (d decimal) digitAt(k int) byte {
	i := d.exp - k
	if i < 0 || i >= len(d.digits) {
		return '0'
	}
	return d.digits[i]
}

// scientific writes d as d.ddd with prec decimals and Java's exponent
// ("e+07", "e-10", "e+100").
func (d decimal) scientific(prec int) string {
	r := d.rounded(prec + 1)
	exp := r.exp
	var b strings.Builder
	b.WriteByte(r.digitAt(exp))
	if prec > 0 {
		b.WriteByte('.')
		for k := exp - 1; k >= exp-prec; k-- {
			b.WriteByte(r.digitAt(k))
		}
	}
	b.WriteByte('e')
	if exp < 0 {
		b.WriteByte('-')
		exp = -exp
	} else {
		b.WriteByte('+')
	}
	if exp < 10 {
		b.WriteByte('0')
	}
	b.WriteString(strconv.Itoa(exp))
	return b.String()
}

// AppendDouble appends v as Java's Double.toString writes it: the digits
// shortest gives, plain with at least one decimal from 1e-3 to below 1e7
// ("100.0", "0.001"), else d.ddd and "E" and the exponent ("1.0E-4",
// "1.23456789E7"); "NaN", "Infinity", "-Infinity". Downloads print every
// double through it, so the plain range, where the digits are always the
// shortest (no whole number below 1e7 reaches 2^53), is strconv's own.
func AppendDouble(dst []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(dst, "NaN"...)
	case math.IsInf(v, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(v, -1):
		return append(dst, "-Infinity"...)
	}
	if a := math.Abs(v); a == 0 || (a >= 1e-3 && a < 1e7) {
		start := len(dst)
		dst = strconv.AppendFloat(dst, v, 'f', -1, 64)
		if bytes.IndexByte(dst[start:], '.') < 0 {
			dst = append(dst, '.', '0')
		}
		return dst
	}
	d := shortest(math.Abs(v))
	if v < 0 {
		dst = append(dst, '-')
	}
	dst = append(dst, d.digits[0], '.')
	if len(d.digits) > 1 {
		dst = append(dst, d.digits[1:]...)
	} else {
		dst = append(dst, '0')
	}
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(d.exp), 10)
}
