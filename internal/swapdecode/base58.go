package swapdecode

// b58index maps an ASCII byte to its base58 digit, or 0xff.
var b58index = func() [256]byte {
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	var t [256]byte
	for i := range t {
		t[i] = 0xff
	}
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// maxDataLen bounds the instruction data the decoder base58-decodes;
// longer data is not an instruction it reads.
const maxDataLen = 1024

// b58limbs holds the decoded value of maxDataLen digits in 32-bit limbs
// (1024 × log2(58) ≈ 5,999 bits).
const b58limbs = 192

// b58decode appends the bytes of base58 string s to dst[:0] and reports
// false for a character outside the alphabet or an over-long input. It
// takes five digits at a time (58^5 < 2^32) into 32-bit limbs, so a
// 250-character Anchor event decodes in a few thousand multiplications.
func b58decode(dst []byte, s []byte) ([]byte, bool) {
	dst = dst[:0]
	if len(s) > maxDataLen {
		return dst, false
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	var limbs [b58limbs]uint32 // little-endian
	n := 0
	for i := zeros; i < len(s); {
		mul, add := uint64(1), uint64(0)
		for k := 0; k < 5 && i < len(s); k, i = k+1, i+1 {
			v := b58index[s[i]]
			if v == 0xff {
				return dst, false
			}
			mul *= 58
			add = add*58 + uint64(v)
		}
		carry := add
		for j := 0; j < n; j++ {
			x := uint64(limbs[j])*mul + carry
			limbs[j] = uint32(x)
			carry = x >> 32
		}
		for carry > 0 {
			if n == b58limbs {
				return dst, false
			}
			limbs[n] = uint32(carry)
			n++
			carry >>= 32
		}
	}
	for i := 0; i < zeros; i++ {
		dst = append(dst, 0)
	}
	started := false
	for j := n - 1; j >= 0; j-- {
		for sh := 24; sh >= 0; sh -= 8 {
			b := byte(limbs[j] >> sh)
			if !started && b == 0 {
				continue
			}
			started = true
			dst = append(dst, b)
		}
	}
	return dst, true
}
