package tokenindex

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalized is a query or claim after Normalize.
type Normalized struct {
	// Key is the comparison form: NFKC, invisible characters removed,
	// confusables mapped to Latin, leading '$' stripped, upper-cased.
	Key string
	// Suspicious is set when NFKC changed the text, invisible characters
	// were removed or confusables were mapped (a leading '$' is not
	// suspicious).
	Suspicious bool
}

// Normalize is the claim normalisation of curator search and of the
// index keys: trim, NFKC, remove invisible characters (the reference's
// zero-width and bidi set plus U+00AD, U+034F, U+180E, U+2800 and the
// Hangul fillers U+115F, U+1160, U+3164, U+FFA0), map the Cyrillic and
// Greek confusables of Confusables, strip leading '$', upper-case.
func Normalize(s string) Normalized {
	s = strings.TrimSpace(s)
	if s == "" {
		return Normalized{}
	}
	if plainASCII(s) { // the common case: no allocation beyond ToUpper
		return Normalized{Key: strings.ToUpper(strings.TrimLeft(s, "$"))}
	}
	suspicious := false
	n := norm.NFKC.String(s)
	if n != s {
		suspicious = true
	}
	var b strings.Builder
	b.Grow(len(n))
	for _, r := range n {
		if Invisible(r) {
			suspicious = true
			continue
		}
		if l, ok := confusables[r]; ok {
			suspicious = true
			r = l
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	key := strings.TrimSpace(strings.TrimLeft(b.String(), "$"))
	return Normalized{Key: key, Suspicious: suspicious}
}

// Key is Normalize(s).Key.
func Key(s string) string { return Normalize(s).Key }

func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Invisible reports whether r is removed by Normalize.
func Invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x2064, r == 0xFEFF:
		return true // the reference's set
	case r == 0x00AD, r == 0x034F, r == 0x180E, r == 0x2800, r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0:
		return true // added: soft hyphen, grapheme joiner, Mongolian separator, braille blank, Hangul fillers
	case r >= 0x2066 && r <= 0x2069:
		return true // bidi isolates
	}
	return false
}

// Confusables maps Cyrillic and Greek letters that look like Latin ones
// (the reference's 50-entry table).
var confusables = map[rune]rune{
	'А': 'A', 'В': 'B', 'Е': 'E', 'Ѕ': 'S', 'І': 'I', 'Ј': 'J', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'У': 'Y', 'Х': 'X', 'Ь': 'B',
	'а': 'a', 'е': 'e', 'ѕ': 's', 'і': 'i', 'ј': 'j', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't', 'у': 'y', 'х': 'x',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
	'α': 'a', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'ν': 'v',
}

// Confusables returns a copy of the confusable table (for docs and tests).
func Confusables() map[rune]rune {
	out := make(map[rune]rune, len(confusables))
	for k, v := range confusables {
		out[k] = v
	}
	return out
}

// CollisionKey folds a normalised key further for collision checks only:
// digits that pass for letters (0→O, 1→I, 3→E, 5→S) and L→I are folded and
// everything but letters and digits is dropped, so S0L, SOL and $SOL share
// a key and U5DC collides with USDC.
func CollisionKey(key string) string {
	var b strings.Builder
	b.Grow(len(key))
	for _, r := range key {
		switch r {
		case '0':
			r = 'O'
		case '1', 'L':
			r = 'I'
		case '3':
			r = 'E'
		case '5':
			r = 'S'
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
