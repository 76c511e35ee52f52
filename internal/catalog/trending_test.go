package catalog

import (
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

type tokenMap map[string]market.Token

func (m tokenMap) Token(mint string) (market.Token, bool) { t, ok := m[mint]; return t, ok }

// TestTrendIdentity: who may trend (issue 12 items 2 and 7).
func TestTrendIdentity(t *testing.T) {
	c, _ := newSeedCatalog(t, "trend")
	snap := c.Snapshot()
	first := func(id string) string {
		a, ok := snap.Asset(id)
		if !ok {
			t.Fatalf("seed has no %s", id)
		}
		return a.Variants[0].Mint
	}
	var lst string
	sol, _ := snap.Asset("solana")
	for _, v := range sol.Variants {
		if isLSTKind(v.Kind) {
			lst = v.Mint
			break
		}
	}
	jup, nasdaq, usdc := first("jupiter"), first("nasdaq"), first("usd")
	blocked, compromised, caution := first("bonk"), first("raydium"), first("jito")
	single, bare := mintOf("trend singleton"), mintOf("trend bare singleton")
	advs := map[string]*asset.Advisory{
		blocked:     {Status: asset.AdvisoryBlocked, Reason: "synthetic"},
		compromised: {Status: asset.AdvisoryCompromised, Reason: "synthetic"},
		caution:     {Status: asset.AdvisoryCaution, Reason: "synthetic"},
	}
	c.SetAdvisories(func(m string) *asset.Advisory { return advs[m] })
	tokens := tokenMap{single: {Mint: single, Symbol: " SYN ", Name: "Synthetic"}, bare: {Mint: bare}}
	tests := []struct {
		name   string
		mint   string
		tokens TokenReader
		ok     bool
		symbol string
	}{
		{"registry variant", jup, nil, true, "JUP"},
		{"wrapped SOL", wrappedSOL, nil, false, ""},
		{"solana LST", lst, nil, false, ""},
		{"stablecoin", usdc, nil, false, ""},
		{"blocked", blocked, nil, false, ""},
		{"compromised", compromised, nil, false, ""},
		{"caution trends", caution, nil, true, ""},
		{"xStock index without any symbol", nasdaq, nil, false, ""},
		{"xStock index with a metadata symbol", nasdaq, tokenMap{nasdaq: {Mint: nasdaq, Symbol: "QQQx"}}, true, "QQQx"},
		{"singleton with metadata", single, tokens, true, "SYN"},
		{"singleton without a symbol", bare, tokens, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.mint == "" {
				t.Skip("seed lacks the fixture mint")
			}
			id, ok := c.TrendIdentity(tt.mint, tt.tokens)
			if ok != tt.ok {
				t.Fatalf("ok %v; want %v (%+v)", ok, tt.ok, id)
			}
			if ok && (id.Symbol == "" || (tt.symbol != "" && id.Symbol != tt.symbol) || id.AssetID == "") {
				t.Errorf("identity %+v; want symbol %q", id, tt.symbol)
			}
		})
	}
}
