package catalog

import (
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/tokenindex"
)

// TestSearchSingletons: v1 search finds index tokens outside the registry
// by symbol and name, after the canonical assets, with singleton ids.
func TestSearchSingletons(t *testing.T) {
	c, mr := newSeedCatalog(t, "")
	simehny, dust, usdcFake := mintOf("simehny"), mintOf("simehny dust"), mintOf("fake usdc")
	var b tokenindex.Builder
	b.Add(tokenindex.Token{Mint: simehny, Symbol: "SIMEHNY", Name: "Synthetic Simehny"})
	b.Add(tokenindex.Token{Mint: dust, Symbol: "SIMEHNYX", Name: "Synthetic dust"})
	b.Add(tokenindex.Token{Mint: usdcFake, Symbol: "USDC", Name: "Synthetic fake USD Coin"})
	x := b.Build()
	c.SetTokens(func() *tokenindex.Index { return x })
	mr.mu.Lock()
	mr.markets[dust] = &asset.Market{Liquidity: fp(5_000_000)}
	mr.mu.Unlock()

	rows := c.Search(SearchOptions{Query: "simehny", Limit: 20})
	if len(rows) != 2 || rows[0].AssetID != "solana-"+simehny || rows[0].Symbol != "SIMEHNY" || rows[1].AssetID != "solana-"+dust {
		t.Fatalf("search simehny: %+v", rows)
	}
	if rows[0].PrimaryVariant == nil || rows[0].PrimaryVariant.Mint != simehny || rows[0].Category != "crypto" {
		t.Fatalf("singleton row: %+v", rows[0])
	}
	// Canonical USDC comes first; the index's USDC impostor after it.
	rows = c.Search(SearchOptions{Query: "USDC", Limit: 50})
	if len(rows) < 2 {
		t.Fatalf("search USDC: %+v", rows)
	}
	last := rows[len(rows)-1]
	if last.AssetID != "solana-"+usdcFake {
		t.Fatalf("search USDC: last %s, want the singleton", last.AssetID)
	}
	// Category filters other than crypto leave singletons out; limits hold.
	if rows := c.Search(SearchOptions{Query: "simehny", Limit: 20, Category: "stocks"}); len(rows) != 0 {
		t.Fatalf("category stocks: %+v", rows)
	}
	if rows := c.Search(SearchOptions{Query: "simehny", Limit: 1}); len(rows) != 1 {
		t.Fatalf("limit 1: %d rows", len(rows))
	}
	// A singleton's detail takes its identity from the index.
	res, _ := c.Resolve(simehny)
	if d, _ := c.Detail(res, DetailOptions{}); d.Asset.Symbol != "SIMEHNY" || d.Asset.Name != "Synthetic Simehny" {
		t.Fatalf("detail identity: %+v", d.Asset)
	}
}
