package demo

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// testNow is a Wednesday afternoon, mid-minute.
var testNow = time.Date(2025, 6, 11, 14, 37, 21, 0, time.UTC)

func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

func intp(i int) *int { return &i }

// Fixture mints. Real-looking where the registry has them; the rest are
// arbitrary valid base58 32-byte strings.
const (
	mintWSOL    = WSOLMint
	mintJitoSOL = "J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn"
	mintUSDC    = USDCMint
	mintUSDT    = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"
	mintEURC    = "HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr"
	mintCbBTC   = "cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij"
	mintTSLAx   = "XsDoVfqeBukxuZHWhdvWHBhgEHjGNst4MLodqsJHzoB"
	mintBonk    = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263"
)

// mintUnknown is a valid address that no registry lists.
var mintUnknown = syntheticAddress(0xC0FFEE)

// fixtureAssets is a small hand-made asset list.
func fixtureAssets() []registry.Asset {
	return []registry.Asset{
		{AssetID: "solana", Symbol: "SOL", Name: "Solana", Category: "crypto", Variants: []registry.Variant{
			{Mint: mintWSOL, Kind: asset.KindNative, Symbol: "wSOL", Decimals: intp(9), LiquidityTier: asset.Tier1},
			{Mint: mintJitoSOL, Kind: asset.KindYield, Symbol: "JitoSOL", Decimals: intp(9), LiquidityTier: asset.Tier1},
			{Mint: "mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So", Kind: asset.KindYield, Symbol: "mSOL", Decimals: intp(9)},
			{Mint: "Dso1bDeDjCQxTrWHqUUi63oBvV7Mdm6WaobLbQ7gnPQ", Kind: asset.KindYield, Symbol: "dSOL", Decimals: intp(9)},
		}},
		{AssetID: "bitcoin", Symbol: "BTC", Category: "crypto", Variants: []registry.Variant{
			{Mint: mintCbBTC, Kind: asset.KindWrapped, Symbol: "cbBTC", Decimals: intp(8)},
		}},
		{AssetID: "bonk", Symbol: "BONK", Category: "crypto", Variants: []registry.Variant{
			{Mint: mintBonk, Kind: asset.KindNative, Symbol: "Bonk", Decimals: intp(5)},
		}},
		{AssetID: "usd", Symbol: "USD", Category: "stablecoin", Variants: []registry.Variant{
			{Mint: mintUSDC, Kind: asset.KindStablecoin, Symbol: "USDC", Decimals: intp(6), LiquidityTier: asset.Tier1},
			{Mint: mintUSDT, Kind: asset.KindStablecoin, Symbol: "USDT", Decimals: intp(6), LiquidityTier: asset.Tier1},
		}},
		{AssetID: "eur", Symbol: "EUR", Category: "stablecoin", Variants: []registry.Variant{
			{Mint: mintEURC, Kind: asset.KindStablecoin, Symbol: "EURC", Decimals: intp(6)},
		}},
		{AssetID: "tesla", Symbol: "TSLA", StockTicker: "TSLA", Category: "equity", Variants: []registry.Variant{
			{Mint: mintTSLAx, Kind: asset.KindTokenizedEquity, Label: "xStock"},
		}},
	}
}

func fixtureWorld(t testing.TB, now time.Time) *World {
	t.Helper()
	return New(Config{Assets: fixtureAssets(), Now: fixedClock(now)})
}

// seedAssets returns the embedded seed registry's assets.
func seedAssets(t testing.TB) []registry.Asset {
	t.Helper()
	doc, err := registry.Seed()
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := registry.Build(doc)
	if err != nil {
		t.Fatal(err)
	}
	return snap.Assets()
}

func allMints(assets []registry.Asset) []string {
	var out []string
	for _, a := range assets {
		for _, v := range a.Variants {
			out = append(out, v.Mint)
		}
	}
	return out
}

func snapshot(t testing.TB, w *World, mint string) asset.Market {
	t.Helper()
	m, err := w.Snapshots(context.Background(), []string{mint})
	if err != nil {
		t.Fatal(err)
	}
	tok, ok := m[mint]
	if !ok {
		t.Fatalf("no snapshot for %s", mint)
	}
	return tok.Market
}

func candles(t testing.TB, w *World, mint string, iv market.Interval, from, to int64) []market.Candle {
	t.Helper()
	cs, err := w.OHLCV(context.Background(), mint, iv, from, to)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func relClose(a, b, tol float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}
