package javafmt

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/readers"
)

// javaCase is one call of String.format.
type javaCase struct {
	format string
	args   []any
}

func escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`).Replace(s)
}

func unescape(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n").Replace(s)
}

func (c javaCase) line() string {
	parts := []string{escape(c.format)}
	for _, a := range c.args {
		switch v := a.(type) {
		case nil:
			parts = append(parts, "n")
		case int64:
			parts = append(parts, "i:"+strconv.FormatInt(v, 10))
		case float64:
			t := strconv.FormatFloat(v, 'g', -1, 64)
			switch {
			case math.IsInf(v, 1):
				t = "Infinity"
			case math.IsInf(v, -1):
				t = "-Infinity"
			}
			parts = append(parts, "d:"+t)
		case bool:
			parts = append(parts, "b:"+strconv.FormatBool(v))
		case string:
			parts = append(parts, "s:"+escape(v))
		}
	}
	return strings.Join(parts, "\t")
}

// TestFormatAgreesWithJava runs the same calls through Java's own
// String.format (testdata/Format.java, in the JDK the full test command
// installs) and through Format: every result Java gives must be Format's,
// and every call Java rejects must be an error here. The calls are
// hand-picked cases (rounding, padding, flags, indexes, nulls, edge
// values) and 20,000 random specifiers with random arguments.
func TestFormatAgreesWithJava(t *testing.T) {
	readers.Require(t, "java")
	cases := javaCases()
	var in bytes.Buffer
	for _, c := range cases {
		in.WriteString(c.line())
		in.WriteByte('\n')
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "java", "testdata/Format.java")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java: %v: %s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("java answered %d of %d calls", len(lines), len(cases))
	}
	agreed, rejected, why := 0, 0, map[string]int{}
	for i, c := range cases {
		status, result, _ := strings.Cut(lines[i], "\t")
		got, err := Format(c.format, c.args)
		switch {
		case status == "ERR" && err == nil:
			t.Errorf("Format(%q, %v) = %q; Java throws %s", c.format, c.args, got, result)
		case status == "ERR":
			rejected++
			why[result]++
		case err != nil:
			t.Errorf("Format(%q, %v): %v; Java gives %q", c.format, c.args, err, unescape(result))
		case got != unescape(result):
			t.Errorf("Format(%q, %v) = %q; Java gives %q", c.format, c.args, got, unescape(result))
		default:
			agreed++
		}
	}
	t.Logf("%d calls: %d formatted alike, %d rejected by both (Java's exceptions: %v)", len(cases), agreed, rejected, why)
	if agreed < len(cases)/2 {
		t.Errorf("only %d of %d calls formatted: the random cases test too little", agreed, len(cases))
	}
}

func javaCases() []javaCase {
	cases := []javaCase{
		{"%04d-%02d", []any{int64(2021), int64(3)}},
		{"%.2f", []any{1.005}}, {"%.2f", []any{0.125}}, {"%.1f", []any{0.15}}, {"%.20f", []any{0.1}},
		{"%.0f", []any{0.5}}, {"%.0f", []any{1.5}}, {"%.0f", []any{2.5}}, {"%.3f", []any{0.0006}}, {"%.3f", []any{0.0004}},
		{"%f", []any{1e300}}, {"%f", []any{1e-300}}, {"%e", []any{0.0}}, {"%g", []any{0.0}}, {"%g", []any{0.000123}},
		{"%g", []any{0.0001}}, {"%g", []any{0.00009999995}}, {"%g", []any{999999.5}}, {"%g", []any{123456789.0}}, {"%.3g", []any{99.95}},
		{"%e", []any{9.9999999e10}}, {"%.0e", []any{5.5}}, {"%#.0e", []any{5.5}}, {"%#.0f", []any{5.5}}, {"%+.3e", []any{-1e-100}},
		{"%,d", []any{int64(-1234567)}}, {"%,d", []any{int64(math.MinInt64)}}, {"%x", []any{int64(-1)}}, {"%x", []any{int64(-1 << 40)}},
		{"%#o", []any{int64(8)}}, {"%#X", []any{int64(255)}}, {"%08X", []any{int64(-255)}}, {"%(,.2f", []any{-1234.5}},
		{"%s %s", []any{nil, 1e7}}, {"%s|%s|%s", []any{0.001, 0.0001, 123456.789}}, {"%S", []any{"straße"}}, {"%b %b %B", []any{nil, "x", false}},
		{"%2$s %1$s %<s", []any{"a", "b"}}, {"%<s", []any{"a"}}, {"%3$s", []any{"a"}}, {"%s %s", []any{"a"}},
		{"%10.4s|", []any{"abcdefg"}}, {"%-10s|", []any{"ab"}}, {"%c%c", []any{int64(65), int64(0x1F600)}}, {"%c", []any{"A"}},
		{"%d", []any{1.5}}, {"%d", []any{"12"}}, {"%f", []any{"1.5"}}, {"%f", []any{int64(3)}}, {"%d", []any{true}},
		{"%5%|%-5%|%n", nil}, {"%", nil}, {"%q", []any{int64(1)}}, {"%-d", []any{int64(1)}}, {"%-05d", []any{int64(1)}},
		{"%+ d", []any{int64(1)}}, {"%.2d", []any{int64(1)}}, {"%#s", []any{"a"}}, {"%,x", []any{int64(1)}}, {"%tY", []any{int64(1)}},
		{"%f %e %g", []any{math.NaN(), math.Inf(1), math.Inf(-1)}}, {"%+f %(f %08.2f", []any{math.Inf(1), math.Inf(-1), math.NaN()}},
		{"%010.3f|%-10.1e|%+,15.2f", []any{-3.14159, 12345.6789, 9876543.21}}, {"%d%%", []any{int64(50)}}, {"no specifiers", nil},
		{"%s", []any{math.Copysign(0, -1)}}, {"%3s|%-4c|", []any{"😀", int64(0x1F600)}}, {"%.1s|%.2s|%.3S", []any{"😀a", "😀a", "😀ß"}}, {"%.1f", []any{-0.04}}, {"%.0f", []any{-0.4}}, {"% d", []any{int64(42)}}, {"%(d", []any{int64(-42)}},
	}
	r := rand.New(rand.NewPCG(20261207, 1))
	// Double.toString through %s: whole doubles from 2^53 to 2^63 (Java
	// 17's exact digits), any finite double, coordinates.
	for range 1000 {
		cases = append(cases,
			javaCase{"%s", []any{math.Ldexp(1+r.Float64(), 53+r.IntN(10))}},
			javaCase{"%s", []any{math.Float64frombits(r.Uint64() & 0x7FEFFFFFFFFFFFFF)}},
			javaCase{"%s", []any{math.Round((r.Float64()*360-180)*1e5) / 1e5}})
	}
	for range 20000 {
		var b strings.Builder
		var args []any
		for k := range 1 + r.IntN(3) {
			b.WriteString([]string{"", "x", "-", " | "}[r.IntN(4)])
			b.WriteString(randomSpec(r))
			args = append(args, randomArg(r, b.String()[b.Len()-1]))
			_ = k
		}
		cases = append(cases, javaCase{b.String(), args})
	}
	return cases
}

// randomSpec is a specifier, mostly one Java accepts: flags from those its
// conversion takes, a width where '-' or '0' needs one, a precision where
// one is allowed; now and then any.
func randomSpec(r *rand.Rand) string {
	conv := "bBsScCdoxXeEfgG"[r.IntN(15)]
	flags := map[byte]string{'b': "-", 's': "-", 'c': "-", 'd': "-+ 0,(", 'o': "-#0", 'x': "-#0", 'e': "-#+ 0(", 'f': "-#+ 0,(", 'g': "-+ 0,("}[conv|0x20]
	wild := r.IntN(10) == 0
	if wild {
		flags = "-#+ 0,("
	}
	var b strings.Builder
	b.WriteByte('%')
	if r.IntN(10) == 0 {
		fmt.Fprintf(&b, "%d$", 1+r.IntN(3))
	}
	width := r.IntN(2) == 0
	for i := range len(flags) {
		if r.IntN(6) == 0 {
			b.WriteByte(flags[i])
			width = width || flags[i] == '-' || flags[i] == '0'
		}
	}
	if width {
		b.WriteString(strconv.Itoa(r.IntN(25)))
	}
	if strings.IndexByte("bsefg", conv|0x20) >= 0 && r.IntN(2) == 0 || wild && r.IntN(3) == 0 {
		fmt.Fprintf(&b, ".%d", r.IntN(18))
	}
	b.WriteByte(conv)
	return b.String()
}

// randomArg is mostly an argument of the kind conv takes, else any.
func randomArg(r *rand.Rand, conv byte) any {
	k := r.IntN(9)
	if r.IntN(4) > 0 {
		switch conv | 0x20 {
		case 'd', 'o', 'x', 'c':
			k = 1 + r.IntN(2)
		case 'e', 'f', 'g':
			k = []int{3, 4, 5, 8}[r.IntN(4)]
		}
	}
	switch k {
	case 0:
		return nil
	case 1:
		return int64(r.IntN(4000)) - 2000
	case 2:
		return int64(r.Uint64())
	case 3:
		return float64(r.IntN(2000000)-1000000) / []float64{1, 10, 100, 1000, 1e6}[r.IntN(5)]
	case 4:
		return math.Float64frombits(r.Uint64() & 0x7FEFFFFFFFFFFFFF) // any finite positive double
	case 5:
		return (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(30)-15))
	case 6:
		return []string{"", "abc", "Quercus robur L.", "é"}[r.IntN(4)]
	case 7:
		return r.IntN(2) == 0
	}
	return float64(r.IntN(10)) + 0.5
}
