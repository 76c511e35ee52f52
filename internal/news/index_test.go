package news

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// naivePick is the definition the index must agree with: every entry
// checked against the coin id and every term.
func naivePick(l *feedList, q Query) []int {
	var out []int
	for i := range l.entries {
		e := &l.entries[i]
		ok := q.CoinID != "" && slices.Contains(e.RelatedCoinIDs, q.CoinID)
		for _, t := range q.Terms {
			for _, id := range e.RelatedCoinIDs {
				ok = ok || t.Equals(id)
			}
			ok = ok || t.Matches(e.lower)
		}
		if ok {
			out = append(out, i)
		}
	}
	return out
}

func TestIndexAgreesWithScan(t *testing.T) {
	vocab := []string{"bitcoin", "Bitcoin's", "$SOL", "sol", "solana", "$sol_x", "pudgy penguins", "no-such-coin", "op", "$op",
		"ETF", "e", "—", "€uro", "naïve", "x1", "$$", "gm", "to the moon", "_under"}
	rng := rand.New(rand.NewPCG(1, 2))
	var items []Item
	for i := range 300 {
		var words []string
		for range 3 + rng.IntN(6) {
			words = append(words, vocab[rng.IntN(len(vocab))])
		}
		var coins []string
		if rng.IntN(3) == 0 {
			coins = []string{[]string{"bitcoin", "solana", "pudgy-penguins"}[rng.IntN(3)]}
		}
		items = append(items, item([]string{FeedNews, FeedSocial}[i%2], i, strings.Join(words, " "), coins...))
	}
	s := NewSnapshot(items, nil)
	for trial := range 2000 {
		var raw []string
		for range 1 + rng.IntN(3) {
			raw = append(raw, vocab[rng.IntN(len(vocab))])
		}
		q := Query{Limit: 1000, Terms: CompileTerms(raw)}
		if trial%5 == 0 {
			q.CoinID = []string{"bitcoin", "solana", "nope"}[rng.IntN(3)]
		}
		for _, l := range []*feedList{&s.news, &s.social} {
			got, n := l.pick(q, false, q.Limit)
			want := naivePick(l, q)
			var gotPos []int
			for _, e := range got {
				gotPos = append(gotPos, int(e.Item.PostedAt.Sub(t0).Minutes()))
			}
			var wantPos []int
			for _, i := range want {
				wantPos = append(wantPos, int(l.entries[i].PostedAt.Sub(t0).Minutes()))
			}
			if n != len(want) || !slices.Equal(gotPos, wantPos) {
				t.Fatalf("terms %q coin %q: index %v (%d), scan %v", raw, q.CoinID, gotPos, n, wantPos)
			}
		}
	}
}
