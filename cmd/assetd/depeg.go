package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/depeg"
	"github.com/assetd/assetd/internal/marketcache"
)

// depegInterval is the depeg guard's cycle (docs/advisories.md).
const depegInterval = time.Minute

// depegFeed is the guard's price feed: the trade engine's price (source
// "trades") and the market providers' cached snapshot (source "market",
// with liquidity), read from memory.
type depegFeed struct {
	eng   *analytics.Engine
	cache *marketcache.Cache
	now   func() time.Time
}

func (f depegFeed) Quotes(_ context.Context, mint string) []depeg.Quote {
	var out []depeg.Quote
	if f.eng != nil {
		if m := f.eng.Market(mint, f.now()); m != nil && m.Price != nil {
			out = append(out, depeg.Quote{Source: "trades", PriceUSD: *m.Price})
		}
	}
	if f.cache != nil {
		if m := f.cache.ProviderMarket(mint); m != nil && m.Price != nil {
			q := depeg.Quote{Source: "market", PriceUSD: *m.Price}
			if m.Source != "" && m.Source != asset.SourceAnalyticsTrades {
				q.Source = "market:" + m.Source
			}
			if m.Liquidity != nil {
				q.LiquidityUSD = *m.Liquidity
			}
			out = append(out, q)
		}
	}
	return out
}

// parsePegRates parses --depeg-peg-usd: "EUR=1.08,CHF=1.13".
func parsePegRates(s string) (map[string]float64, error) {
	out := map[string]float64{}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		cur, val, ok := strings.Cut(part, "=")
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		cur = strings.ToUpper(strings.TrimSpace(cur))
		if !ok || err != nil || cur == "" || !(v > 0) || math.IsInf(v, 0) {
			return nil, usageError{fmt.Sprintf("--depeg-peg-usd: %q: want CURRENCY=USD value, e.g. EUR=1.08", part)}
		}
		out[cur] = v
	}
	return out, nil
}
