package risk

import (
	"testing"

	"github.com/assetd/assetd/internal/asset"
)

func BenchmarkScore(b *testing.B) {
	f := func(v float64) *float64 { return &v }
	age := 3.0
	in := Input{Mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", TokenAgeDays: &age,
		Market: &asset.Market{Liquidity: f(150_000), MarketCap: f(400_000), Volume24hUSD: f(60_000), Trade24h: f(900),
			UniqueWallet24h: f(300), PriceChange24hPercent: f(12), PriceChange1hPercent: f(-2)}}
	b.ReportAllocs()
	for b.Loop() {
		_ = Score(in)
	}
}
