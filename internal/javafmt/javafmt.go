// Package javafmt owns Java's text formatting where GBIF's output depends on
// it: java.util.Formatter (String.format, which Spark's printf and
// format_string call, so GBIF's SQL downloads' PRINTF) and Double.toString.
//
// Go's fmt differs from Java's Formatter in ways a user sees: Java rounds
// %f and %e half up from the shortest decimal that reads back as the double
// ("%.2f" of 1.005 is "1.01", Go's "1.00"), pads with those digits rather
// than the binary expansion ("%.20f" of 0.1), writes %g without dropping
// zeros and in plain notation from 1e-4 to 10^precision, prints negative
// numbers in %x and %o as two's complement, has the ',' and '(' flags and
// argument indexes ("%2$s"), and rejects a conversion an argument does not
// fit. No Go library formats as Java does, so it is written here, with the
// conversions a SQL query can use (b, s, c, d, o, x, e, f, g, %, n and
// their upper-case forms); %a, %h and the date conversions are refused.
package javafmt

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// upperUS upper-cases as Java's toUpperCase(Locale.US) does (ß is SS).
var upperUS = cases.Upper(language.AmericanEnglish)

// ErrFormat is matched by every error Compile and Format return.
var ErrFormat = errors.New("invalid format")

// Error is a format string Java would reject, or an argument its
// conversion does not take.
type Error struct {
	Spec   string // the specifier, e.g. "%-d"
	Reason string
}

func (e *Error) Error() string {
	if e.Spec == "" {
		return e.Reason
	}
	return e.Spec + ": " + e.Reason
}

// Is makes errors.Is(err, ErrFormat) true.
func (e *Error) Is(target error) bool { return target == ErrFormat }

func errorf(spec, format string, args ...any) error {
	return &Error{Spec: spec, Reason: fmt.Sprintf(format, args...)}
}

// maxWidth bounds a width, a precision and an argument index (Java takes
// any int), so that one specifier cannot make megabytes of padding.
const maxWidth = 1000

// spec is one parsed format specifier.
type spec struct {
	text      string // as written, for errors
	index     int    // 1-based explicit argument, 0 ordinary, -1 the previous one (<)
	flags     string
	width     int // -1 none
	precision int // -1 none
	conv      byte
	literal   string // the text before the specifier
}

func (s *spec) has(f byte) bool { return strings.IndexByte(s.flags, f) >= 0 }

// parse splits format into specifiers and the literal text after the last.
func parse(format string) ([]spec, string, error) {
	var out []spec
	lit := strings.Builder{}
	for i := 0; i < len(format); {
		c := format[i]
		if c != '%' {
			lit.WriteByte(c)
			i++
			continue
		}
		s, n, err := parseSpec(format[i:])
		if err != nil {
			return nil, "", err
		}
		s.literal = lit.String()
		lit.Reset()
		out = append(out, s)
		i += n
	}
	return out, lit.String(), nil
}

// parseSpec reads the specifier at the start of f ("%..."), Java's
// %[argument_index$][flags][width][.precision]conversion.
func parseSpec(f string) (spec, int, error) {
	s := spec{width: -1, precision: -1}
	i := 1
	digits := func() (int, bool) {
		j := i
		for j < len(f) && f[j] >= '0' && f[j] <= '9' {
			j++
		}
		if j == i {
			return 0, false
		}
		n, err := strconv.Atoi(f[i:j])
		if err != nil || n > maxWidth {
			n = -2
		}
		i = j
		return n, true
	}
	// An argument index is digits followed by '$'.
	if j := strings.IndexByte(f[i:], '$'); j > 0 && strings.Trim(f[i:i+j], "0123456789") == "" {
		n, _ := strconv.Atoi(f[i : i+j])
		if n < 1 || n > maxWidth {
			return s, 0, errorf(f[:i+j+1], "the argument index must be from 1 to %d", maxWidth)
		}
		s.index = n
		i += j + 1
	}
	for i < len(f) && strings.IndexByte("-#+ 0,(<", f[i]) >= 0 {
		if f[i] == '<' {
			s.index = -1
		} else if s.has(f[i]) {
			return s, 0, errorf(f[:i+1], "flag %q given twice", f[i])
		} else {
			s.flags += string(f[i])
		}
		i++
	}
	if n, ok := digits(); ok {
		if n < 0 {
			return s, 0, errorf(f[:i], "a width or precision is at most %d here", maxWidth)
		}
		s.width = n
	}
	if i < len(f) && f[i] == '.' {
		i++
		n, ok := digits()
		if !ok {
			return s, 0, errorf(f[:min(i+1, len(f))], "a precision needs digits after the '.'")
		}
		if n < 0 {
			return s, 0, errorf(f[:i], "a width or precision is at most %d here", maxWidth)
		}
		s.precision = n
	}
	if i >= len(f) {
		return s, 0, errorf(f, "the format ends inside a specifier")
	}
	s.conv = f[i]
	i++
	s.text = f[:i]
	return s, i, s.validate()
}

// validate rejects what Java's Formatter rejects before looking at an
// argument.
func (s *spec) validate() error {
	c := s.conv
	lower := c | 0x20
	switch {
	case c == 't' || c == 'T':
		return errorf(s.text, "date and time conversions are not supported here")
	case lower == 'a' || lower == 'h':
		return errorf(s.text, "conversion %%%c is not supported here", c)
	case strings.IndexByte("bBsScCdoxXeEfgG%n", c) < 0:
		return errorf(s.text, "unknown conversion %q", c)
	}
	if (s.has('-') || s.has('0')) && s.width < 0 {
		return errorf(s.text, "flag '-' or '0' needs a width")
	}
	if s.has('-') && s.has('0') || s.has('+') && s.has(' ') {
		return errorf(s.text, "flags %q cannot be combined", s.flags)
	}
	numeric := strings.IndexByte("doxXeEfgG", c) >= 0
	allowed := "-#+ 0,("
	switch {
	case c == '%':
		allowed = "-"
	case c == 'n':
		allowed = ""
	case !numeric:
		allowed = "-" // '#' only for a Formattable argument, which no value is
	case c == 'd':
		allowed = "-+ 0,("
	case lower == 'o' || lower == 'x':
		allowed = "-#0+ (" // '+', ' ' and '(' refused with a whole number (format)
	case lower == 'e':
		allowed = "-#+ 0("
	case c == 'f':
		allowed = "-#+ 0,("
	case lower == 'g':
		allowed = "-+ 0,("
	}
	for i := 0; i < len(s.flags); i++ {
		if strings.IndexByte(allowed, s.flags[i]) < 0 {
			return errorf(s.text, "flag %q does not go with %%%c", s.flags[i], c)
		}
	}
	if s.precision >= 0 && (c == 'd' || lower == 'o' || lower == 'x' || lower == 'c' || c == '%' || c == 'n') {
		return errorf(s.text, "%%%c takes no precision", c)
	}
	if c == 'n' && s.width >= 0 {
		return errorf(s.text, "%%n takes no width")
	}
	return nil
}

// Format is java.util.Formatter's format(Locale.US, format, args): args
// are nil (Java's null), int64 (an Integer when it fits one, else a
// Long), float64 (a Double), string or bool; an argument its conversion
// does not take is an error, as in Java (%f of a whole number too).
func Format(format string, args []any) (string, error) {
	f, err := Compile(format)
	if err != nil {
		return "", err
	}
	return f.Format(args)
}

// Formatter is a parsed format string, for formatting many rows alike.
type Formatter struct {
	specs []spec
	tail  string
}

// Compile parses format once: its error is a specifier Java's Formatter
// rejects before looking at an argument.
func Compile(format string) (*Formatter, error) {
	specs, tail, err := parse(format)
	if err != nil {
		return nil, err
	}
	return &Formatter{specs, tail}, nil
}

// Format is the package's Format with f's format string.
func (f *Formatter) Format(args []any) (string, error) {
	var b strings.Builder
	next, last := 0, -1
	for i := range f.specs {
		s := &f.specs[i]
		b.WriteString(s.literal)
		if s.conv == '%' {
			pad(&b, "%", s)
			continue
		}
		if s.conv == 'n' {
			b.WriteByte('\n')
			continue
		}
		k := next
		switch {
		case s.index > 0:
			k = s.index - 1
		case s.index < 0:
			if last < 0 {
				return "", errorf(s.text, "'<' with no previous argument")
			}
			k = last
		default:
			next++
		}
		if k >= len(args) {
			return "", errorf(s.text, "no argument %d", k+1)
		}
		last = k
		text, err := s.format(args[k])
		if err != nil {
			return "", err
		}
		pad(&b, text, s)
	}
	b.WriteString(f.tail)
	return b.String(), nil
}

// pad writes text within the specifier's width: on the right with '-',
// else on the left (numbers with '0' are padded when formatted).
func pad(b *strings.Builder, text string, s *spec) {
	n := s.width - utf16Len(text)
	if n <= 0 {
		b.WriteString(text)
		return
	}
	if s.has('-') {
		b.WriteString(text)
		b.WriteString(strings.Repeat(" ", n))
		return
	}
	b.WriteString(strings.Repeat(" ", n))
	b.WriteString(text)
}

// format converts one argument. A null argument is "null" for every
// conversion but %b, cut to the precision as text is.
func (s *spec) format(arg any) (string, error) {
	upper := s.conv >= 'A' && s.conv <= 'Z'
	var out string
	switch lower := s.conv | 0x20; {
	case lower == 'b':
		v := arg != nil
		if b, ok := arg.(bool); ok {
			v = b
		}
		out = s.truncate(strconv.FormatBool(v))
	case arg == nil:
		out = s.truncate("null")
	case lower == 's':
		out = s.truncate(String(arg))
	case lower == 'c':
		v, ok := arg.(int64)
		if !ok || v != int64(int32(v)) {
			return "", errorf(s.text, "%%c takes a code point (an int), not %s", kind(arg))
		}
		if v < 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) {
			return "", errorf(s.text, "%d is not a Unicode code point", v)
		}
		out = string(rune(v))
	case lower == 'd' || lower == 'o' || lower == 'x':
		v, ok := arg.(int64)
		if !ok {
			return "", errorf(s.text, "%%%c takes a whole number, not %s", s.conv, kind(arg))
		}
		if lower != 'd' && strings.ContainsAny(s.flags, "+ (") {
			return "", errorf(s.text, "flags '+', ' ' and '(' do not go with %%%c of a whole number", s.conv)
		}
		out = s.integer(v)
	default: // e, f, g
		v, ok := arg.(float64)
		if !ok {
			return "", errorf(s.text, "%%%c takes a decimal number, not %s", s.conv, kind(arg))
		}
		out = s.float(v)
	}
	if upper {
		out = upperUS.String(out)
	}
	return out, nil
}

// truncate cuts text to the precision, counted as Java counts a String's
// length, in UTF-16 units: a cut through a surrogate pair leaves half of
// it, which Java writes as UTF-8 as '?'.
func (s *spec) truncate(t string) string {
	if s.precision < 0 || utf16Len(t) <= s.precision {
		return t
	}
	units := 0
	for i, r := range t {
		n := utf16.RuneLen(r)
		if units+n > s.precision {
			if units < s.precision { // half a pair
				return t[:i] + "?"
			}
			return t[:i]
		}
		units += n
	}
	return t
}

// utf16Len is a text's length as Java's String.length() counts it.
func utf16Len(t string) int {
	n := 0
	for _, r := range t {
		n += utf16.RuneLen(r)
	}
	return n
}

func kind(arg any) string {
	switch arg.(type) {
	case int64:
		return "a whole number"
	case string:
		return "text"
	case bool:
		return "a boolean"
	case float64:
		return "a decimal number"
	}
	return fmt.Sprintf("%T", arg)
}

// String is Java's String.valueOf of an argument: "null", the text, a
// Long's digits, a Double as Double.toString writes it, true or false.
func String(arg any) string {
	switch v := arg.(type) {
	case nil:
		return "null"
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return string(AppendDouble(nil, v))
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(arg)
}

// integer formats %d, %o and %x of a whole number, an Integer when it
// fits one (Spark's INT columns and literals; a negative one is 32 bits of
// two's complement in %o and %x), else a Long.
func (s *spec) integer(v int64) string {
	bits := uint64(v)
	if v == int64(int32(v)) {
		bits = uint64(uint32(int32(v)))
	}
	var digits string
	neg := false
	switch s.conv | 0x20 {
	case 'd':
		neg = v < 0
		u := uint64(v)
		if neg {
			u = -u
		}
		digits = strconv.FormatUint(u, 10)
		if s.has(',') {
			digits = group(digits)
		}
	case 'o':
		digits = strconv.FormatUint(bits, 8)
		if s.has('#') {
			digits = "0" + digits
		}
	default:
		digits = strconv.FormatUint(bits, 16)
		if s.has('#') {
			digits = "0x" + digits
		}
	}
	return s.signed(digits, neg)
}

// signed adds the sign Java's flags ask for and pads with zeros.
func (s *spec) signed(digits string, neg bool) string {
	var pre, post string
	switch {
	case neg && s.has('('):
		pre, post = "(", ")"
	case neg:
		pre = "-"
	case s.has('+'):
		pre = "+"
	case s.has(' '):
		pre = " "
	}
	if s.has('0') {
		if n := s.width - len(pre) - len(digits) - len(post); n > 0 {
			digits = zeroPad(digits, n)
		}
	}
	return pre + digits + post
}

// zeroPad puts n zeros before the digits, after a "0x" prefix.
func zeroPad(digits string, n int) string {
	if strings.HasPrefix(digits, "0x") {
		return "0x" + strings.Repeat("0", n) + digits[2:]
	}
	return strings.Repeat("0", n) + digits
}

// group puts Locale.US's ',' between thousands of an integer's digits.
func group(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	first := len(digits) % 3
	if first > 0 {
		b.WriteString(digits[:first])
	}
	for i := first; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// float formats %e, %f and %g of a Double.
func (s *spec) float(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		t := "NaN"
		if math.IsInf(v, 1) {
			t = "Infinity"
			if s.has('+') {
				t = "+Infinity"
			}
		} else if math.IsInf(v, -1) {
			t = "-Infinity"
			if s.has('(') {
				t = "(Infinity)"
			}
		}
		return t
	}
	neg := math.Signbit(v)
	d := shortest(math.Abs(v))
	prec := s.precision
	if prec < 0 {
		prec = 6
	}
	var body string
	switch s.conv | 0x20 {
	case 'f':
		body = d.fixed(prec, s.has(','))
	case 'e':
		body = d.scientific(prec)
	default: // g
		if prec == 0 {
			prec = 1
		}
		// Rounded to prec significant digits, plain from 1e-4 to below
		// 10^prec, with the zeros that make prec digits.
		r := d.round(prec)
		if v != 0 && (r.exp < -4 || r.exp >= prec) {
			body = d.scientific(prec - 1)
		} else {
			body = d.fixed(prec-1-r.exp, s.has(','))
		}
	}
	if s.has('#') && !strings.Contains(body, ".") {
		if i := strings.IndexByte(body, 'e'); i >= 0 {
			body = body[:i] + "." + body[i:]
		} else {
			body += "."
		}
	}
	return s.signed(body, neg)
}
