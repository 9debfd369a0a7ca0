package pzip

import "hash/crc32"

// crc32Combine returns the CRC-32 (IEEE) of the concatenation A||B given
// crcA = CRC(A), crcB = CRC(B) and lenB = len(B). It applies the linear
// operator "append lenB zero bytes" to crcA by repeated squaring of a 32x32
// matrix over GF(2) (the method of zlib's crc32_combine), then xors in crcB.
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	var even, odd gf2Matrix

	// odd: the operator for one zero bit.
	odd[0] = crc32.IEEE
	row := uint32(1)
	for i := 1; i < 32; i++ {
		odd[i] = row
		row <<= 1
	}
	even.square(&odd) // two zero bits
	odd.square(&even) // four zero bits

	// Each pass squares the operator (1, 2, 4, ... zero bytes) and applies it
	// when the matching bit of lenB is set.
	for {
		even.square(&odd)
		if lenB&1 != 0 {
			crcA = even.times(crcA)
		}
		lenB >>= 1
		if lenB == 0 {
			break
		}
		odd.square(&even)
		if lenB&1 != 0 {
			crcA = odd.times(crcA)
		}
		lenB >>= 1
		if lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
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
func (m *gf2Matrix) square(src *gf2Matrix) {
	for i := range m {
		m[i] = src.times(src[i])
	}
}
