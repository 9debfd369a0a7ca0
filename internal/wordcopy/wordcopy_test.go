package wordcopy

import (
	"bytes"
	"testing"
)

// TestAppend compares Append with append for every cell length up
// to 40 bytes, cells read from anywhere in their source (so that fewer than
// 16 bytes may be readable past a short cell's start) and buffers with
// every amount of free space up to 40 bytes: the same text, nothing
// before the buffer's end changed.
func TestAppend(t *testing.T) {
	src := make([]byte, 64)
	for i := range src {
		src[i] = byte('a' + i%26)
	}
	prefix := []byte("row\tcells\t")
	for start := 0; start <= len(src); start++ {
		for n := 0; start+n <= len(src) && n <= 40; n++ {
			v := src[start : start+n]
			for free := 0; free <= 40; free++ {
				buf := make([]byte, len(prefix), len(prefix)+free)
				copy(buf, prefix)
				got := Append(buf, v)
				want := append(append([]byte(nil), prefix...), v...)
				if !bytes.Equal(got, want) {
					t.Fatalf("cell %d+%d, %d free: %q, want %q", start, n, free, got, want)
				}
				if !bytes.Equal(src[start:start+n], v) {
					t.Fatalf("cell %d+%d: the source changed", start, n)
				}
			}
		}
	}
}

// TestAppendIsShort checks that a short cell with room to spare is
// copied in place (the fast path the test above cannot tell apart): the
// result shares buf's array.
func TestAppendIsShort(t *testing.T) {
	buf := make([]byte, 3, 64)
	v := []byte("0123456789abcdefXYZ")[:5]
	got := Append(buf, v)
	if &got[0] != &buf[0] || string(got[3:]) != "01234" {
		t.Fatalf("got %q", got)
	}
	// Past the cell, the word copy wrote the source's next bytes; they are
	// beyond the length and overwritten by what follows.
	if string(got[:cap(got)][8:19]) != "56789abcdef" {
		t.Fatalf("fast path not taken: %q", got[:cap(got)][:19])
	}
}
