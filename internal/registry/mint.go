package registry

// Solana addresses are 32 bytes written in base58 (Bitcoin alphabet). 32
// bytes take 32 characters (all '1', the all-zero key) to 44 characters.
const (
	mintBytes     = 32
	minMintLength = 32
	maxMintLength = 44
)

// b58Digits maps every byte to its base58 digit (alphabet
// "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"), or 0xff for
// bytes outside the alphabet. A constant string keeps the table immutable.
const b58Digits = "" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\x00\x01\x02\x03\x04\x05\x06\x07\x08\xff\xff\xff\xff\xff\xff" +
	"\xff\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\xff\x11\x12\x13\x14\x15\xff" +
	"\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20\xff\xff\xff\xff\xff" +
	"\xff\x21\x22\x23\x24\x25\x26\x27\x28\x29\x2a\x2b\xff\x2c\x2d\x2e" +
	"\x2f\x30\x31\x32\x33\x34\x35\x36\x37\x38\x39\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff" +
	"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"

// ValidMint reports whether s is a Solana address: base58 text that decodes
// to exactly 32 bytes. It does not allocate.
//
// Leading '1' characters stand for leading zero bytes, as in every base58
// codec, so "11111111111111111111111111111111" (the system program) is valid.
func ValidMint(s string) bool {
	if len(s) < minMintLength || len(s) > maxMintLength {
		return false
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	// The value of the digits after the leading '1's, as little-endian
	// 32-bit limbs. Eight limbs hold 256 bits; needing a ninth means the
	// value has more than 32 bytes.
	var limbs [8]uint32
	n := 0
	for i := zeros; i < len(s); {
		// Fold up to five digits into one multiply-add pass over the limbs;
		// 58^5 < 2^30 keeps every product inside uint64.
		chunk, mul := uint64(0), uint64(1)
		for k := 0; k < 5 && i < len(s); k, i = k+1, i+1 {
			d := b58Digits[s[i]]
			if d == 0xff {
				return false
			}
			chunk = chunk*58 + uint64(d)
			mul *= 58
		}
		carry := chunk
		for j, l := range limbs[:n] {
			carry += uint64(l) * mul
			limbs[j] = uint32(carry)
			carry >>= 32
		}
		for carry != 0 {
			if n == len(limbs) {
				return false
			}
			limbs[n] = uint32(carry)
			n++
			carry >>= 32
		}
	}
	size := 0
	if n > 0 {
		top := limbs[n-1]
		size = (n - 1) * 4
		for top != 0 {
			size++
			top >>= 8
		}
	}
	return zeros+size == mintBytes
}

// looksLikeMint reports whether s has the shape of an address (32 to 44
// base58 characters) without checking the decoded length. Resolution uses it
// to tell a malformed address (400) from an unknown slug (404).
func looksLikeMint(s string) bool {
	if len(s) < minMintLength || len(s) > maxMintLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if b58Digits[s[i]] == 0xff {
			return false
		}
	}
	return true
}
