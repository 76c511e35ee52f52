package registry

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on identifiers and references.
const (
	// MaxAssetIDLength is the longest canonical slug.
	MaxAssetIDLength = 64
	// MaxRefLength is the longest asset reference Resolve accepts; longer
	// input is ErrInvalidRef. It also bounds aliases.
	MaxRefLength = 200
	// maxVariantSuffixLength bounds the part of a variantId after "<assetId>:".
	maxVariantSuffixLength = 128
)

// SingletonPrefix starts the asset id of a mint that no asset lists.
const SingletonPrefix = "solana-"

// singletonVariantSuffix ends the variant id of a singleton:
// "solana-<mint>:mint".
const singletonVariantSuffix = ":mint"

// ValidAssetID reports whether id is a canonical slug: 1 to 64 characters
// from [a-z0-9-], starting and ending with a letter or digit, without "--",
// and not of the reserved singleton form "solana-<mint>".
func ValidAssetID(id string) bool {
	if len(id) == 0 || len(id) > MaxAssetIDLength {
		return false
	}
	if id[0] == '-' || id[len(id)-1] == '-' || strings.Contains(id, "--") {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	_, singleton := SingletonMint(id)
	return !singleton
}

// SingletonAssetID returns the deterministic asset id "solana-<mint>" of a
// mint that no asset lists. It does not check the mint.
func SingletonAssetID(mint string) string { return SingletonPrefix + mint }

// SingletonVariantID returns the variant id "solana-<mint>:mint" of the one
// variant of a singleton asset.
func SingletonVariantID(mint string) string {
	return SingletonPrefix + mint + singletonVariantSuffix
}

// SingletonMint returns the mint of a singleton asset id "solana-<mint>" and
// whether id has that form with a valid mint.
func SingletonMint(id string) (string, bool) {
	if !strings.HasPrefix(id, SingletonPrefix) {
		return "", false
	}
	mint := id[len(SingletonPrefix):]
	return mint, ValidMint(mint)
}

// validVariantSuffix reports whether s may follow "<assetId>:" in a variant
// id: 1 to 128 printable, non-space ASCII characters.
func validVariantSuffix(s string) bool {
	if len(s) == 0 || len(s) > maxVariantSuffixLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// validText reports whether s is usable as a name, symbol or alias: valid
// UTF-8 without control characters, at most MaxRefLength bytes, and not
// blank or padded with spaces.
func validText(s string) bool {
	if len(s) == 0 || len(s) > MaxRefLength || !utf8.ValidString(s) {
		return false
	}
	if strings.TrimSpace(s) != s {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// validURL reports whether s is an absolute http(s) URL without spaces.
func validURL(s string) bool {
	rest, ok := strings.CutPrefix(s, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(s, "http://")
	}
	return ok && rest != "" && !strings.ContainsAny(s, " \t\r\n") && utf8.ValidString(s)
}
