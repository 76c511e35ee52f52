package upstream

import "strings"

// Dedupe trims the mints, drops empty ones and repeats, keeping order.
func Dedupe(mints []string) []string {
	out := make([]string, 0, len(mints))
	seen := make(map[string]bool, len(mints))
	for _, m := range mints {
		m = strings.TrimSpace(m)
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		out = append(out, m)
	}
	return out
}

// Chunk splits s into consecutive parts of at most n elements.
func Chunk[T any](s []T, n int) [][]T {
	n = max(1, n)
	var out [][]T
	for len(s) > 0 {
		k := min(n, len(s))
		out = append(out, s[:k:k])
		s = s[k:]
	}
	return out
}

// ValidMint reports whether s looks like a Solana address: 32 to 44
// base58 characters. Adapters use it to keep malformed input out of
// request paths; it does not decode the key.
func ValidMint(s string) bool {
	if len(s) < 32 || len(s) > 44 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(base58Alphabet, rune(s[i])) {
			return false
		}
	}
	return true
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
