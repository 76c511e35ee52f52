// Package stats computes an asset's canonical Stats (spec "Stats") from its
// variants' cached market snapshots. It is pure: no I/O, no errors. Missing
// data gives null fields, never a failure.
package stats

import (
	"math"

	"github.com/assetd/assetd/internal/asset"
)

// Input is one variant of the asset.
type Input struct {
	Kind   string
	Market *asset.Market // nil when not cached
	// Volume30dUSD is the variant's rolling 30-day USD volume summed from
	// its cached daily candles; nil when it has no daily candle.
	Volume30dUSD *float64
}

// Aggregate computes the asset's stats from its variants and the index of
// its primary variant (out of range, e.g. -1, for none):
//
//   - liquidity, volume24hUSD and volume30dUSD are sums over the spot-like
//     variants (asset.IsSpotLike), or over all variants when none is
//     spot-like. Each sum counts only variants with a known value (finite
//     and non-negative) and is null when none has one. They are never
//     copied from the primary.
//   - price, priceChange24hPercent, priceChange1hPercent and marketCap are
//     the primary variant's market values (null without a primary or its
//     market, or when non-finite). marketCap is the primary mint's own
//     market cap, not a sum.
//
// Callers then apply the canonical sources the spec prefers for price
// fields: ApplyProvider for an external canonical provider, and
// ApplyStockMarket for mapped public equities (applied last, it wins).
// The result holds fresh pointers and never aliases the inputs.
func Aggregate(variants []Input, primaryIdx int) asset.Stats {
	spotLike := false
	for i := range variants {
		if asset.IsSpotLike(variants[i].Kind) {
			spotLike = true
			break
		}
	}
	var liq, vol24, vol30 sum
	for i := range variants {
		v := &variants[i]
		if spotLike && !asset.IsSpotLike(v.Kind) {
			continue
		}
		if v.Market != nil {
			liq.add(v.Market.Liquidity)
			vol24.add(v.Market.Volume24hUSD)
		}
		vol30.add(v.Volume30dUSD)
	}
	s := asset.Stats{
		Liquidity:    liq.value(),
		Volume24hUSD: vol24.value(),
		Volume30dUSD: vol30.value(),
	}
	if primaryIdx >= 0 && primaryIdx < len(variants) {
		if m := variants[primaryIdx].Market; m != nil {
			s.Price = Finite(m.Price)
			s.MarketCap = Finite(m.MarketCap)
			s.PriceChange24hPercent = Finite(m.PriceChange24hPercent)
			s.PriceChange1hPercent = Finite(m.PriceChange1hPercent)
		}
	}
	return s
}

// StockMarket holds the canonical stock-market values of a mapped public
// equity. Nil or non-finite fields leave the on-chain value in place.
type StockMarket struct {
	Price                 *float64
	Volume24hUSD          *float64
	PriceChange24hPercent *float64
}

// ApplyStockMarket returns s with price, volume24hUSD and
// priceChange24hPercent taken from a mapped public equity's canonical
// stock-market data, as the spec requires for such assets. Other fields,
// including liquidity and volume30dUSD, stay the on-chain aggregates.
func ApplyStockMarket(s asset.Stats, m StockMarket) asset.Stats {
	override(&s.Price, m.Price)
	override(&s.Volume24hUSD, m.Volume24hUSD)
	override(&s.PriceChange24hPercent, m.PriceChange24hPercent)
	return s
}

// Provider holds an external canonical provider's (extprovider) price
// fields. Nil or non-finite fields leave the current value in place.
type Provider struct {
	Price                 *float64
	MarketCap             *float64
	PriceChange24hPercent *float64
	PriceChange1hPercent  *float64
}

// ApplyProvider returns s completed by an external canonical provider:
// marketCap becomes the provider's (the canonical asset's market cap, not
// one Solana mint's), while price and both price changes keep the
// primary variant's on-chain values and take the provider's only where
// those are null. Aggregates (liquidity and volumes) are never replaced.
func ApplyProvider(s asset.Stats, p Provider) asset.Stats {
	override(&s.MarketCap, p.MarketCap)
	fill(&s.Price, p.Price)
	fill(&s.PriceChange24hPercent, p.PriceChange24hPercent)
	fill(&s.PriceChange1hPercent, p.PriceChange1hPercent)
	return s
}

// PreIPO derives the implied company valuation and the premium of a
// tokenized pre-IPO equity over its reference mark (spec canonicalMarket
// arm "preipo"):
//
//	impliedValuation     = markValuation × basisPrice / markPrice
//	premiumToMarkPercent = (basisPrice / markPrice − 1) × 100
//
// basisPrice is the token's price. Both results are nil when basisPrice
// or markPrice is missing, non-finite or not positive; implied is also nil
// without a positive mark valuation.
func PreIPO(basisPrice, markPrice, markValuation *float64) (implied, premiumPercent *float64) {
	b, m := Finite(basisPrice), Finite(markPrice)
	if b == nil || m == nil || *b <= 0 || *m <= 0 {
		return nil, nil
	}
	prem := (*b / *m - 1) * 100
	if v := Finite(markValuation); v != nil && *v > 0 {
		iv := *v * *b / *m
		implied = &iv
	}
	return implied, &prem
}

// IsEmpty reports whether every field of s is null, in which case the spec
// renders stats as null.
func IsEmpty(s asset.Stats) bool {
	return s.Price == nil && s.Liquidity == nil && s.Volume24hUSD == nil && s.Volume30dUSD == nil &&
		s.MarketCap == nil && s.PriceChange24hPercent == nil && s.PriceChange1hPercent == nil
}

// sum accumulates known non-negative values.
type sum struct {
	total float64
	n     int
}

func (s *sum) add(p *float64) {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) || *p < 0 {
		return
	}
	s.total += *p
	s.n++
}

// value is the total, or nil when nothing was added.
func (s *sum) value() *float64 {
	if s.n == 0 {
		return nil
	}
	return &s.total
}

// Finite returns a copy of *p, or nil when p is nil or not finite.
func Finite(p *float64) *float64 {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return nil
	}
	v := *p
	return &v
}

// fill sets *dst to a copy of src when *dst is null and src is finite.
func fill(dst **float64, src *float64) {
	if *dst == nil {
		override(dst, src)
	}
}

// override replaces *dst with a copy of src when src is finite.
func override(dst **float64, src *float64) {
	if v := Finite(src); v != nil {
		*dst = v
	}
}
