package ranking

import (
	"math"
	"strings"

	"github.com/assetd/assetd/internal/asset"
)

// known returns the value behind p and whether it is usable: nil, NaN and
// ±Inf are unknown; negative values are clamped to 0 (a market snapshot
// never has negative liquidity or volume, so a negative number is noise).
func known(p *float64) (float64, bool) {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return 0, false
	}
	return max(*p, 0), true
}

// finiteNonNeg is v when finite and non-negative, else 0.
func finiteNonNeg(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0
	}
	return v
}

// liquidity returns the market liquidity (see known); nil market = unknown.
func liquidity(m *asset.Market) (float64, bool) {
	if m == nil {
		return 0, false
	}
	return known(m.Liquidity)
}

// volume24h returns the market 24h USD volume (see known).
func volume24h(m *asset.Market) (float64, bool) {
	if m == nil {
		return 0, false
	}
	return known(m.Volume24hUSD)
}

// liquidityOrZero is the liquidity the override rules use: unknown counts
// as 0.
func liquidityOrZero(m *asset.Market) float64 {
	l, _ := liquidity(m)
	return l
}

// cmpDesc orders known values descending with unknown values last. It
// returns a negative number when a sorts first.
func cmpDesc(a float64, aok bool, b float64, bok bool) int {
	switch {
	case aok && !bok:
		return -1
	case !aok && bok:
		return 1
	case !aok && !bok, a == b:
		return 0
	case a > b:
		return -1
	}
	return 1
}

// cmpLiquidity orders by market liquidity descending, unknown last.
func cmpLiquidity(a, b *asset.Market) int {
	al, aok := liquidity(a)
	bl, bok := liquidity(b)
	return cmpDesc(al, aok, bl, bok)
}

// cmpVolume orders by market 24h USD volume descending, unknown last.
func cmpVolume(a, b *asset.Market) int {
	av, aok := volume24h(a)
	bv, bok := volume24h(b)
	return cmpDesc(av, aok, bv, bok)
}

// tierPriority ranks a liquidity tier: tier1 3, tier2 2, anything else
// (tier3, the legacy "experimental", unknown) 1. An empty stored tier is
// derived from the market liquidity with asset.LiquidityTier.
func tierPriority(tier string, m *asset.Market) int {
	if tier == "" {
		var l *float64
		if m != nil {
			l = m.Liquidity
		}
		tier = asset.LiquidityTier(l)
	}
	switch tier {
	case asset.Tier1:
		return 3
	case asset.Tier2:
		return 2
	}
	return 1
}

// cmpTier orders by tier priority, best first.
func cmpTier(at string, am *asset.Market, bt string, bm *asset.Market) int {
	return tierPriority(bt, bm) - tierPriority(at, am)
}

// stockScore scores a stockVariantTier: share_redeemable 100,
// cash_redeemable 50, not_redeemable or missing 0.
func stockScore(tier string) int {
	switch tier {
	case asset.StockShareRedeemable:
		return 100
	case asset.StockCashRedeemable:
		return 50
	}
	return 0
}

// cmpMint orders mints ascending (byte order, which for base58 is the
// natural lexical order).
func cmpMint(a, b string) int { return strings.Compare(a, b) }
