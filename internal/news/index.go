package news

import (
	"math/bits"
	"unicode/utf8"
)

// feedList is one feed source's entries, newest first, with an inverted
// index so token-mode requests touch only candidate entries: word tokens
// (runs of letters, digits and "_" of the lower-cased match text), cashtag
// tokens (runs right after a "$") and related coin ids, each mapping to
// ascending entry positions (newest first).
type feedList struct {
	entries []entry
	words   map[string][]int32
	cash    map[string][]int32
	coins   map[string][]int32
}

func newFeedList(entries []entry) feedList {
	l := feedList{entries: entries, words: map[string][]int32{}, cash: map[string][]int32{}, coins: map[string][]int32{}}
	add := func(m map[string][]int32, k string, i int32) {
		p := m[k]
		if n := len(p); n > 0 && p[n-1] == i {
			return // already listed for this entry
		}
		m[k] = append(p, i)
	}
	for i := range entries {
		pos := int32(i)
		text := entries[i].lower
		for j, k := nextWord(text, 0); j < k; j, k = nextWord(text, k) {
			add(l.words, text[j:k], pos)
			if j > 0 && text[j-1] == '$' {
				add(l.cash, text[j:k], pos)
			}
		}
		for _, id := range entries[i].RelatedCoinIDs {
			add(l.coins, id, pos)
		}
	}
	return l
}

// nextWord returns the bounds of the first run of word characters of s at
// or after from (j == k when there is none).
func nextWord(s string, from int) (j, k int) {
	j = from
	for j < len(s) {
		r, sz := utf8.DecodeRuneInString(s[j:])
		if isWordRune(r) {
			break
		}
		j += sz
	}
	k = j
	for k < len(s) {
		r, sz := utf8.DecodeRuneInString(s[k:])
		if !isWordRune(r) {
			break
		}
		k += sz
	}
	return j, k
}

// candidates returns the shortest posting list among the term's word
// runs: every match of a term holds each of its word runs as a token (the
// first one as a cashtag token for cashtag terms). single says the term
// is one run, so every listed entry matches. ok is false for a term
// without word characters.
func (l *feedList) candidates(t Term) (p []int32, single, ok bool) {
	s := t.lower
	runs := 0
	for j, k := nextWord(s, 0); j < k; j, k = nextWord(s, k) {
		idx := l.words
		if runs == 0 && t.cashtag {
			idx = l.cash
		}
		if q := idx[s[j:k]]; runs == 0 || len(q) < len(p) {
			p = q
		}
		single = runs == 0 && j == 0 && k == len(s)
		runs++
	}
	return p, single && runs == 1, runs > 0
}

// pick returns up to want matching entries (newest first) and the number
// of all matching entries. Global mode takes every entry. Token mode
// marks the entries listed under the coin id, under a term equal to a
// coin id, and under the rarest word of each term (verified with
// Term.Matches unless the term is that one word); a term without any word
// character is checked against every entry.
func (l *feedList) pick(q Query, global bool, want int) ([]*entry, int) {
	if global {
		out := make([]*entry, 0, min(want, len(l.entries)))
		for i := range min(want, len(l.entries)) {
			out = append(out, &l.entries[i])
		}
		return out, len(l.entries)
	}
	set := make([]uint64, (len(l.entries)+63)/64)
	mark := func(p []int32) {
		for _, i := range p {
			set[i/64] |= 1 << (i % 64)
		}
	}
	if q.CoinID != "" {
		mark(l.coins[q.CoinID])
	}
	for _, t := range q.Terms {
		mark(l.coins[t.lower])
		cands, single, ok := l.candidates(t)
		if !ok {
			for i := range l.entries {
				if t.Matches(l.entries[i].lower) {
					set[i/64] |= 1 << (i % 64)
				}
			}
			continue
		}
		if single { // one word: a token hit is a match
			mark(cands)
			continue
		}
		for _, i := range cands {
			if set[i/64]&(1<<(i%64)) == 0 && t.Matches(l.entries[i].lower) {
				set[i/64] |= 1 << (i % 64)
			}
		}
	}
	n := 0
	for _, w := range set {
		n += bits.OnesCount64(w)
	}
	out := make([]*entry, 0, min(want, n))
	for wi, w := range set {
		for w != 0 && len(out) < want {
			b := bits.TrailingZeros64(w)
			out = append(out, &l.entries[wi*64+b])
			w &^= 1 << b
		}
		if len(out) == want {
			break
		}
	}
	return out, n
}
