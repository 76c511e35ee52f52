package catalog

import (
	"testing"
	"time"

	"github.com/assetd/assetd/internal/realdata"
	"github.com/assetd/assetd/internal/tokenindex"
)

// realCatalog is the catalog of the seed plus the reference registry
// (what `assetd registry import reference-registry.json` serves) with the
// shared 150k token index and no market data; it skips without the files.
func realCatalog(t *testing.T) (*Catalog, *tokenindex.Index) {
	t.Helper()
	snap, x := realdata.Reference(t), realdata.Tokens(t)
	c := New(snap, &mapMarkets{}, func() time.Time { return testNow }, nil)
	c.SetTokens(func() *tokenindex.Index { return x })
	return c, x
}

// TestSearchCanonicalFirstForExactSymbol: v1 search answers an exact
// symbol with its canonical asset first: the registry's asset, else the
// index token with an external listing id (TRUMP and MEW, which the
// registry does not list), even without market data.
func TestSearchCanonicalFirstForExactSymbol(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the 150k token index")
	}
	c, x := realCatalog(t)
	for _, tc := range []struct{ q, mint, coingecko string }{
		// The index's coingecko-listed tokens (checked below).
		{"TRUMP", "6p6xgHyF7AeE6TZkSmFsko444wqoP15icUSqi2jfGiPN", "official-trump"},
		{"MEW", "MEW1gQWJ3nEXg2qgERiKu7FAFj79PHvQVREQUzScPP5", "cat-in-a-dogs-world"},
		// Registry variants of the seed (the seed and jup-validated-tokens.csv agree).
		{"WIF", "EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm", ""},
		{"BONK", "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263", ""},
		{"JUP", "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN", ""},
		// The reference registry's USDC.
		{"USDC", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", ""},
	} {
		if tc.coingecko != "" {
			if tk, ok := x.Get(tc.mint); !ok || tk.CoingeckoID != tc.coingecko || tokenindex.Key(tk.Symbol) != tc.q {
				t.Fatalf("%s: index token %+v", tc.q, tk)
			}
		}
		rows := c.Search(SearchOptions{Query: tc.q, Limit: 50})
		pos := -1
		for i, r := range rows {
			for _, v := range r.Variants {
				if v.Mint == tc.mint && pos < 0 {
					pos = i
				}
			}
			if r.PrimaryVariant != nil && r.PrimaryVariant.Mint == tc.mint && pos < 0 {
				pos = i
			}
		}
		if pos != 0 {
			first := ""
			if len(rows) > 0 {
				first = rows[0].AssetID + " " + rows[0].Symbol
			}
			t.Errorf("%s: canonical %s at position %d of %d (first: %s)", tc.q, tc.mint, pos+1, len(rows), first)
		}
	}
}
