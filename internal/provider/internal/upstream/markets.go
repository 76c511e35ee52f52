package upstream

import (
	"cmp"
	"slices"

	"github.com/assetd/assetd/internal/market"
)

// SortMarkets orders markets most liquid first (unknown liquidity last),
// then by 24h volume, then by address, so the order is deterministic.
func SortMarkets(ms []market.DEXMarket) {
	val := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	slices.SortStableFunc(ms, func(a, b market.DEXMarket) int {
		if c := cmp.Compare(val(b.LiquidityUSD), val(a.LiquidityUSD)); c != 0 {
			return c
		}
		if c := cmp.Compare(val(b.Volume24hUSD), val(a.Volume24hUSD)); c != 0 {
			return c
		}
		return cmp.Compare(a.Address, b.Address)
	})
}
