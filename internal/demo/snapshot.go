package demo

import (
	"context"
	"fmt"
	"math"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// metrics are a mint's snapshot figures at one instant.
type metrics struct {
	price, price1h, price24h float64
	liquidity                float64
	vol1h, vol24             float64
	trade1h, trade24         int64
	uw1h, uw24               float64
	mcap                     float64
	lastTrade                int64 // unix seconds, 0 = none
}

// priceAt is the mint's USD price at unix second t.
func (w *World) priceAt(p *profile, t int64) float64 {
	if p.mint == SyntheticStablecoinMint {
		return syntheticPrice(t)
	}
	return math.Exp(p.path.lnLevel + p.lnFactor + p.path.warp(w.xAt(p.path, t)))
}

// liquidityAt is the mint's USD liquidity at unix second t given its price
// then: pool value moves with the square root of the price, times a slow
// daily factor (±~6%, interpolated), capped for the thin LSTs.
func (w *World) liquidityAt(p *profile, t int64, price float64) float64 {
	ref := math.Exp(p.path.lnLevel + p.lnFactor)
	day := floorDiv(t, secPerDay)
	f := float64(t-day*secPerDay) / secPerDay
	n0 := lognormal1(p.s.liquidity.normal(day), 0.06)
	n1 := lognormal1(p.s.liquidity.normal(day+1), 0.06)
	liq := p.liq0 * math.Sqrt(price/ref) * (n0 + (n1-n0)*f)
	if p.liqCap > 0 {
		liq = math.Min(liq, p.liqCap)
	}
	return liq
}

// metrics computes the snapshot figures at second sec; flows cover the
// complete minutes before minute (sec rounded down to a minute).
func (w *World) metrics(p *profile, sec, minute int64) metrics {
	var m metrics
	m.price = w.priceAt(p, sec)
	m.price1h = w.priceAt(p, sec-secPerHour)
	m.price24h = w.priceAt(p, sec-secPerDay)
	m.liquidity = w.liquidityAt(p, sec, m.price)
	m.trade1h, m.vol1h = w.flow(p, minute-secPerHour, minute)
	m.trade24, m.vol24 = w.flow(p, minute-secPerDay, minute)
	m.uw1h = p.uniqueWallets(m.trade1h)
	m.uw24 = math.Max(p.uniqueWallets(m.trade24), m.uw1h)
	m.mcap = p.supply * m.price
	m.lastTrade = w.lastTrade(p, minute)
	return m
}

// Snapshots returns simulated market snapshots. Every valid Solana address
// gets one: registry mints per their category, other mints a thin long-tail
// market. Strings that are not base58 32-byte addresses are absent. More
// than MaxBatch distinct mints is an error.
func (w *World) Snapshots(ctx context.Context, mints []string) (map[string]market.Token, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	now, sec, minute := w.clock()
	seen := make(map[string]struct{}, len(mints))
	for _, mint := range mints {
		seen[mint] = struct{}{}
	}
	if len(seen) > MaxBatch {
		return nil, fmt.Errorf("demo: %d distinct mints in one Snapshots call, at most %d", len(seen), MaxBatch)
	}
	out := make(map[string]market.Token, len(seen))
	for _, mint := range mints {
		if _, dup := out[mint]; dup {
			continue
		}
		p := w.profile(mint)
		if p == nil {
			continue
		}
		out[mint] = w.token(p, now.UnixMilli(), sec, minute)
	}
	return out, nil
}

func (w *World) token(p *profile, nowMs, sec, minute int64) market.Token {
	m := w.metrics(p, sec, minute)
	dec := p.decimals
	mk := asset.Market{
		Source:                asset.SourceMarketDataA,
		MetricsSource:         asset.SourceMarketDataA,
		Price:                 ptr(m.price),
		Liquidity:             ptr(m.liquidity),
		Volume1hUSD:           ptr(m.vol1h),
		Volume24hUSD:          ptr(m.vol24),
		Trade1h:               ptr(float64(m.trade1h)),
		Trade24h:              ptr(float64(m.trade24)),
		UniqueWallet1h:        ptr(m.uw1h),
		UniqueWallet24h:       ptr(m.uw24),
		MarketCap:             ptr(m.mcap),
		PriceChange24hPercent: ptr((m.price/m.price24h - 1) * 100),
		PriceChange1hPercent:  ptr((m.price/m.price1h - 1) * 100),
		Decimals:              ptr(dec),
		AsOf:                  ptr(minute),
		LastFetchedAt:         ptr(nowMs),
	}
	if p.logo != "" {
		mk.LogoURI = ptr(p.logo)
	}
	if m.lastTrade > 0 {
		mk.LastTradeAt = ptr(m.lastTrade)
	}
	return market.Token{
		Mint: p.mint, Symbol: p.symbol, Name: p.name, Decimals: ptr(dec), LogoURI: p.logo, Market: mk,
	}
}
