package download

import (
	"math/bits"
	"slices"
)

// Decimal digits written in place. strconv formats a number into a buffer of
// its own and then appends that buffer (a memmove call per number); an
// export of a million wide records writes several million numbers
// (gbifID, taxon keys, dates' parts, coordinates), and that copy was a
// third of their formatting time. appendInt writes the digits where they
// go, two at a time.

// decimalPairs holds the two digits of 0 to 99, in order.
const decimalPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// pow10u are the powers of ten a uint64 holds.
var pow10u = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// decimalLen is the number of decimal digits of u (1 for 0).
func decimalLen(u uint64) int {
	t := bits.Len64(u) * 1233 >> 12 // about log10(2^len); one too small at most
	if t < len(pow10u) && u >= pow10u[t] {
		t++
	}
	return max(t, 1)
}

// appendInt appends v in decimal, the text of strconv.AppendInt(dst, v, 10).
func appendInt(dst []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		u = -u
	}
	return appendUint(dst, u)
}

// appendUint appends u in decimal.
func appendUint(dst []byte, u uint64) []byte {
	n := decimalLen(u)
	l := len(dst)
	dst = slices.Grow(dst, n)[:l+n]
	putDigits(dst[l:], u)
	return dst
}

// putDigits writes u's decimal digits into b, whose length is exactly
// their number (decimalLen), or the low len(b) digits of u, zero-padded.
func putDigits(b []byte, u uint64) {
	i := len(b)
	for i >= 2 {
		q := u / 100
		r := (u - q*100) * 2
		b[i-1], b[i-2] = decimalPairs[r+1], decimalPairs[r]
		i -= 2
		u = q
	}
	if i == 1 {
		b[0] = byte('0' + u%10)
	}
}
