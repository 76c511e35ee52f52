package news

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ShortTermMax is the longest term (in characters) that matches only as a
// cashtag ($TERM): "ada", "sol" match as words, "op" only as "$op".
const ShortTermMax = 2

// Term is one compiled request term.
type Term struct {
	// Text is the term as given (first spelling of a case-insensitive
	// duplicate), without a leading "$".
	Text  string
	lower string
	// cashtag: the term matches only as "$term" (it is short, or was
	// given with a leading "$").
	cashtag bool
}

// CompileTerms trims, drops empties, removes case-insensitive duplicates
// (keeping the first spelling) and compiles the terms in order.
func CompileTerms(raw []string) []Term {
	var out []Term
	seen := make(map[string]bool, len(raw))
	for _, r := range raw {
		r = strings.TrimSpace(r)
		cash := strings.HasPrefix(r, "$")
		if cash {
			r = strings.TrimSpace(r[1:])
		}
		if r == "" {
			continue
		}
		l := strings.ToLower(r)
		if seen[l] {
			continue
		}
		seen[l] = true
		out = append(out, Term{Text: r, lower: l, cashtag: cash || utf8.RuneCountInString(r) <= ShortTermMax})
	}
	return out
}

// Matches reports whether lowerText (already lower-cased) holds the term:
// as "$term" for cashtag terms, as a whole word (or "$term") otherwise.
// Whole means the characters around it are not letters, digits or "_".
func (t Term) Matches(lowerText string) bool {
	if t.cashtag {
		return containsCashtag(lowerText, t.lower)
	}
	return containsWord(lowerText, t.lower)
}

// Equals reports whether s equals the term, ignoring case (a coin id
// given as a term matches related_coin_ids).
func (t Term) Equals(s string) bool { return strings.EqualFold(t.Text, s) }

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// boundedAt reports whether text[i:j] has no word character on either
// side.
func boundedAt(text string, i, j int) bool {
	if i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(text[:i]); isWordRune(r) {
			return false
		}
	}
	if j < len(text) {
		if r, _ := utf8.DecodeRuneInString(text[j:]); isWordRune(r) {
			return false
		}
	}
	return true
}

// containsWord reports whether word occurs in text with word boundaries.
func containsWord(text, word string) bool {
	for off := 0; off+len(word) <= len(text); {
		i := strings.Index(text[off:], word)
		if i < 0 {
			return false
		}
		i += off
		if boundedAt(text, i, i+len(word)) {
			return true
		}
		_, sz := utf8.DecodeRuneInString(text[i:])
		off = i + sz
	}
	return false
}

// containsCashtag reports whether "$"+word occurs in text, not followed by
// a word character ("$sol" is not in "$solana").
func containsCashtag(text, word string) bool {
	for off := 0; off < len(text); {
		i := strings.IndexByte(text[off:], '$')
		if i < 0 {
			return false
		}
		i += off + 1
		if strings.HasPrefix(text[i:], word) {
			j := i + len(word)
			if j == len(text) {
				return true
			}
			if r, _ := utf8.DecodeRuneInString(text[j:]); !isWordRune(r) {
				return true
			}
		}
		off = i
	}
	return false
}
