package httpapi

import (
	"hash/crc32"
	"hash/crc64"
)

// crcShifter combines CRCs of a reflected polynomial, as zlib's
// crc32_combine does (generalised to 64 bits): the CRC of A followed by B
// is combine(crc(A), crc(B), shift(len(B))), with no pass over A or B.
// The conditioning Go's crc32 and crc64 apply (initial and final
// complement) cancels out in the formula.
type crcShifter struct {
	poly, one uint64     // the reflected polynomial; x^0 (the top bit of the width)
	x2n       [64]uint64 // x^(2^k) mod P
}

// CRC combiners of the ETag's CRC-64 (ECMA) and gzip's CRC-32 (IEEE).
var (
	crc64Shift = newCRCShifter(crc64.ECMA, 64)
	crc32Shift = newCRCShifter(crc32.IEEE, 32)
)

func newCRCShifter(poly uint64, width uint) *crcShifter {
	s := &crcShifter{poly: poly, one: 1 << (width - 1)}
	p := s.one >> 1 // x^1
	for k := range s.x2n {
		s.x2n[k] = p
		p = s.mult(p, p)
	}
	return s
}

// mult returns a·b mod P.
func (s *crcShifter) mult(a, b uint64) uint64 {
	var p uint64
	for m := s.one; a != 0 && m != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
			a &^= m
		}
		if b&1 != 0 {
			b = b>>1 ^ s.poly
		} else {
			b >>= 1
		}
	}
	return p
}

// shift returns the operator that moves a CRC over n bytes: x^(8n) mod P.
func (s *crcShifter) shift(n int) uint64 {
	p := s.one
	for k := 3; n != 0; n, k = n>>1, k+1 {
		if n&1 != 0 {
			p = s.mult(s.x2n[k&63], p)
		}
	}
	return p
}

// combine returns the CRC of A followed by B from crc(A), crc(B) and
// shift(len(B)).
func (s *crcShifter) combine(crcA, crcB, shiftB uint64) uint64 { return s.mult(shiftB, crcA) ^ crcB }
