package pzip

import "hash/crc32"

// zeroBytes returns the operator that appends n zero bytes to a CRC-32: the
// product of the operators for 1, 2, 4, ... zero bytes (repeated squaring)
// whose bits n has.
func zeroBytes(n int64) gf2Matrix {
	var op, sq, tmp gf2Matrix
	for i := range op {
		op[i] = 1 << i // identity
	}
	// sq: the operator for one zero bit, squared three times: one byte.
	sq[0] = crc32.IEEE
	for i := 1; i < 32; i++ {
		sq[i] = 1 << (i - 1)
	}
	for range 3 {
		tmp.square(&sq)
		sq = tmp
	}
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			tmp.mul(&sq, &op)
			op = tmp
		}
		if n > 1 {
			tmp.square(&sq)
			sq = tmp
		}
	}
	return op
}

// crcCombiner combines CRC-32s (IEEE): combine returns the CRC of the
// concatenation A||B given crcA = CRC(A), crcB = CRC(B) and lenB = len(B),
// applying the operator "append lenB zero bytes" (zeroBytes, the method of
// zlib's crc32_combine) to crcA and xoring in crcB. It keeps the operator
// of the last length: an entry's chunks are all one size but its last.
type crcCombiner struct {
	n  int64
	op gf2Matrix
}

func (c *crcCombiner) combine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	if lenB != c.n {
		c.n, c.op = lenB, zeroBytes(lenB)
	}
	return c.op.times(crcA) ^ crcB
}

// gf2Matrix is a 32x32 bit matrix over GF(2); column i is element i.
type gf2Matrix [32]uint32

// times multiplies the matrix by the column vector vec.
func (m *gf2Matrix) times(vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= m[i]
		}
	}
	return sum
}

// square sets m to src*src.
func (m *gf2Matrix) square(src *gf2Matrix) { m.mul(src, src) }

// mul sets m to a*b (b applied first); m must be neither.
func (m *gf2Matrix) mul(a, b *gf2Matrix) {
	for i := range m {
		m[i] = a.times(b[i])
	}
}
