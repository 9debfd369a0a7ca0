package javafmt

import (
	"errors"
	"math"
	"testing"
)

// Java's answers to these calls (String.format(Locale.US, ...), Java 17;
// TestFormatAgreesWithJava asks Java itself when it is installed).
func TestFormat(t *testing.T) {
	for _, c := range []struct {
		format string
		args   []any
		want   string
	}{
		{"%04d-%02d", []any{int64(2021), int64(3)}, "2021-03"},
		{"%.2f", []any{1.005}, "1.01"},
		{"%.2f", []any{0.125}, "0.13"},
		{"%.20f", []any{0.1}, "0.10000000000000000000"},
		{"%g", []any{0.000123}, "0.000123000"},
		{"%g", []any{123456789.0}, "1.23457e+08"},
		{"%e", []any{12345.678}, "1.234568e+04"},
		{"%,d", []any{int64(-1234567)}, "-1,234,567"},
		{"%x %x", []any{int64(-1), int64(-1 << 40)}, "ffffffff ffffff0000000000"},
		{"%(,.2f", []any{-1234.5}, "(1,234.50)"},
		{"%s %s %s", []any{nil, 1e7, 4.370789053382578e16}, "null 1.0E7 4.3707890533825776E16"},
		{"%2$s %1$s %<s", []any{"a", "b"}, "b a a"},
		{"%g", []any{0.0}, "0.00000"},
		{"%.0f %.3f", []any{0.5, 0.0006}, "1 0.001"},
		{"%10.4s|%-6S|", []any{"abcdefg", "straße"}, "      abcd|STRASSE|"},
		{"%.1f %20.3f|", []any{nil, nil}, "n                  nul|"},
		{"%5%|%b|%n", []any{nil}, "    %|false|\n"},
	} {
		got, err := Format(c.format, c.args)
		if err != nil || got != c.want {
			t.Errorf("Format(%q, %v) = %q, %v; Java gives %q", c.format, c.args, got, err, c.want)
		}
	}
}

// Calls Java rejects, each with the reason a user reads.
func TestFormatErrors(t *testing.T) {
	for _, c := range []struct {
		format string
		args   []any
	}{
		{"%d", []any{1.5}}, {"%f", []any{int64(3)}}, {"%.2d", []any{int64(1)}}, {"%-d", []any{int64(1)}},
		{"%+ d", []any{int64(1)}}, {"%q", nil}, {"%", nil}, {"%s %s", []any{"a"}}, {"%<s", []any{"a"}},
		{"%tY", []any{int64(1)}}, {"%a", []any{1.0}}, {"%+x", []any{int64(1)}}, {"%c", []any{"A"}}, {"%#s", []any{"a"}},
	} {
		got, err := Format(c.format, c.args)
		var fe *Error
		if err == nil || !errors.Is(err, ErrFormat) || !errors.As(err, &fe) || fe.Reason == "" {
			t.Errorf("Format(%q, %v) = %q, %v; Java throws", c.format, c.args, got, err)
		}
	}
	if _, err := Compile("%04d-%02d %s"); err != nil {
		t.Errorf("Compile: %v", err)
	}
	if _, err := Compile("%04q"); err == nil {
		t.Error("Compile(%04q) accepted")
	}
}

func TestAppendDouble(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0.0", 100: "100.0", 52.1234: "52.1234", -33.8688: "-33.8688", 0.001: "0.001", 0.0001: "1.0E-4",
		1e7: "1.0E7", 9999999: "9999999.0", 12345678.9: "1.23456789E7", -2.5e-5: "-2.5E-5", 4.370789053382578e16: "4.3707890533825776E16", math.Copysign(0, -1): "-0.0",
	} {
		if got := string(AppendDouble(nil, v)); got != want {
			t.Errorf("AppendDouble(%v) = %q, Java prints %q", v, got, want)
		}
	}
}

// FuzzFormat: no panic, and a format formats the same twice.
func FuzzFormat(f *testing.F) {
	for _, s := range []string{"%04d-%02d", "%.2f", "%2$s %<s", "%(,.2f", "%-10S|", "%%%n", "%", "%1$", "%.f", "%999999999999d"} {
		f.Add(s, int64(2021), 1.005, "text")
	}
	f.Fuzz(func(t *testing.T, format string, i int64, d float64, s string) {
		args := []any{i, d, s, nil, true}
		a, err := Format(format, args)
		b, err2 := Format(format, args)
		if a != b || (err == nil) != (err2 == nil) {
			t.Fatalf("Format(%q) gave %q then %q", format, a, b)
		}
	})
}
