package web

import (
	"strconv"
	"strings"
	"testing"
)

func TestByteRanges(t *testing.T) {
	for _, c := range []struct {
		h       string
		size    int64
		want    string
		verdict rangeVerdict
	}{
		{"", 100, "", rangeIgnore},
		{"bytes=0-9", 100, "bytes=0-9", rangeServe},
		{"bytes = 0-9", 100, "bytes=0-9", rangeServe},
		{"Bytes=0-9", 100, "bytes=0-9", rangeServe},
		{"bytes=-0", 100, "", rangeUnsatisfiable},
		{"bytes=100-", 100, "", rangeUnsatisfiable},
		{"bytes=100-200, -0", 100, "", rangeUnsatisfiable},
		{"bytes=-0,0-9", 100, "bytes=0-9", rangeServe},
		{"bytes=90-1000", 100, "bytes=90-99", rangeServe},
		{"bytes=-1000", 100, "bytes=-100", rangeServe},
		{"bytes=0-", 100, "bytes=0-99", rangeServe},
		{"bytes=0-9,,20-29", 100, "bytes=0-9,20-29", rangeServe},
		{"bytes=18446744073709551616-", 100, "", rangeUnsatisfiable},
		{"bytes=0-18446744073709551616", 100, "bytes=0-99", rangeServe},
		{"items=0-5", 100, "", rangeIgnore},
		{"bytes", 100, "", rangeIgnore},
		{"bytes=", 100, "", rangeIgnore},
		{"bytes=,", 100, "", rangeIgnore},
		{"bytes=5-3", 100, "", rangeIgnore},
		{"bytes=a-3", 100, "", rangeIgnore},
		{"bytes=+1-3", 100, "", rangeIgnore},
		{"bytes=--3", 100, "", rangeIgnore},
		{"bytes=0-9,5-3", 100, "", rangeIgnore},
		{"bytes=" + strings.Repeat("0-0,", maxRanges) + "1-1", 100, "", rangeIgnore},
		{"bytes=" + strings.TrimSuffix(strings.Repeat("0-0,", maxRanges), ","), 100,
			"bytes=" + strings.TrimSuffix(strings.Repeat("0-0,", maxRanges), ","), rangeServe},
	} {
		got, v := byteRanges(c.h, c.size)
		if got != c.want || v != c.verdict {
			t.Errorf("byteRanges(%q, %d) = %q, %d; want %q, %d", c.h, c.size, got, v, c.want, c.verdict)
		}
	}
}

// FuzzByteRanges: whatever the header, the ranges to serve lie inside the
// archive and are what http.ServeContent reads without error.
func FuzzByteRanges(f *testing.F) {
	for _, s := range []string{"bytes=0-9", "bytes=-0", "items=1-2", "bytes=5-3,-7", "bytes=99999999999999999999-"} {
		f.Add(s, int64(100))
	}
	f.Fuzz(func(t *testing.T, h string, size int64) {
		if size < 0 {
			size = -size
		}
		if size < 0 {
			return
		}
		out, v := byteRanges(h, size)
		if v != rangeServe {
			if out != "" {
				t.Fatalf("verdict %d with ranges %q", v, out)
			}
			return
		}
		set, ok := strings.CutPrefix(out, "bytes=")
		if !ok || set == "" {
			t.Fatalf("ranges %q", out)
		}
		for _, spec := range strings.Split(set, ",") {
			first, last, _ := strings.Cut(spec, "-")
			if first == "" {
				k, err := strconv.ParseInt(last, 10, 64)
				if err != nil || k <= 0 || k > size {
					t.Fatalf("%q: suffix %q of an archive of %d", h, spec, size)
				}
				continue
			}
			a, err1 := strconv.ParseInt(first, 10, 64)
			b, err2 := strconv.ParseInt(last, 10, 64)
			if err1 != nil || err2 != nil || a > b || b >= size {
				t.Fatalf("%q: range %q of an archive of %d", h, spec, size)
			}
		}
	})
}
