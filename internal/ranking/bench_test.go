package ranking

import (
	"fmt"
	"testing"

	"github.com/assetd/assetd/internal/asset"
)

// benchCandidates is a 15-variant asset: mixed kinds, activity spread wide
// enough to exercise the gate and the outlier cut, and fill quality on half.
func benchCandidates() []Candidate {
	kinds := []string{asset.KindNative, asset.KindWrapped, asset.KindBridged, asset.KindTokenizedEquity, asset.KindETF}
	tiers := []string{asset.StockShareRedeemable, asset.StockCashRedeemable, "", asset.StockNotRedeemable}
	cands := make([]Candidate, 15)
	for i := range cands {
		liq := float64((i*7919)%15+1) * 250_000
		vol := float64((i*104729)%15+1) * 40_000
		if i == 4 {
			vol = 50 // fails the gate
		}
		if i == 9 {
			vol = 5e9 // volume outlier
		}
		cands[i] = Candidate{
			Mint:             fmt.Sprintf("Mint%02dxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", (i*11)%15),
			Kind:             kinds[i%len(kinds)],
			StockVariantTier: tiers[i%len(tiers)],
			Market:           mkt(liq, vol, float64(50+i*10)),
			CuratedRank:      i % 4,
		}
		if i%2 == 0 {
			cands[i].Quality = eq(float64(30 + i*4))
		}
	}
	return cands
}

func BenchmarkSelectPrimary(b *testing.B) {
	cands := benchCandidates()
	for _, strategy := range asset.Strategies {
		b.Run(strategy, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				SelectPrimary(cands, strategy, "equity", now)
			}
		})
	}
}

func BenchmarkSortVariants(b *testing.B) {
	src := make([]Row, 250)
	for i := range src {
		src[i] = Row{
			Index:            i,
			Mint:             fmt.Sprintf("Mint%03dxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", (i*97)%250),
			StockVariantTier: asset.StockVariantTiers[i%3],
			Market:           mkt(float64((i*7919)%50)*100_000, float64(i%13)*1_000, 100),
		}
		if i%3 == 0 {
			src[i].Quality = eq(float64(i % 100))
		}
	}
	rows := make([]Row, len(src))
	for _, sortBy := range asset.Strategies {
		b.Run(sortBy, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				copy(rows, src)
				SortVariants(rows, sortBy)
			}
		})
	}
}
