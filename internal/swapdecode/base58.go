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

// maxDataLen bounds the instruction data the decoder base58-decodes
// (quadratic work); longer data is not an instruction it reads.
const maxDataLen = 1024

// b58decode appends the bytes of base58 string s to dst[:0] and reports
// false for a character outside the alphabet or an over-long input.
func b58decode(dst []byte, s []byte) ([]byte, bool) {
	dst = dst[:0]
	if len(s) > maxDataLen {
		return dst, false
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	// Big-endian accumulation in dst (base 256), little work per digit.
	for _, c := range s[zeros:] {
		carry := uint32(b58index[c])
		if carry == 0xff {
			return dst[:0], false
		}
		for i := len(dst) - 1; i >= 0; i-- {
			carry += uint32(dst[i]) * 58
			dst[i] = byte(carry)
			carry >>= 8
		}
		for carry > 0 {
			dst = append(dst, 0)
			copy(dst[1:], dst)
			dst[0] = byte(carry)
			carry >>= 8
		}
	}
	if zeros > 0 {
		n := len(dst)
		for i := 0; i < zeros; i++ {
			dst = append(dst, 0)
		}
		copy(dst[zeros:], dst[:n])
		for i := 0; i < zeros; i++ {
			dst[i] = 0
		}
	}
	return dst, true
}
