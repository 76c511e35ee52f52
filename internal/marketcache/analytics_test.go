package marketcache

import (
	"context"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

type fakeAnalytics struct {
	markets map[string]asset.Market
	eq      map[string]asset.ExecutionQuality
}

func (f *fakeAnalytics) Market(mint string, now time.Time) *asset.Market {
	m, ok := f.markets[mint]
	if !ok {
		return nil
	}
	return &m
}

func (f *fakeAnalytics) ExecutionQuality(mint string, now time.Time) *asset.ExecutionQuality {
	q, ok := f.eq[mint]
	if !ok {
		return nil
	}
	return &q
}

func fp(v float64) *float64 { return &v }
func ip(v int64) *int64     { return &v }

func TestMergeAnalyticsOverridesTradeFields(t *testing.T) {
	dec := 9
	logo := "https://x/logo.png"
	snap := &asset.Market{Source: asset.SourceMarketDataA, MetricsSource: asset.SourceMarketDataA, Price: fp(100), Liquidity: fp(5e6),
		MarketCap: fp(1e9), Volume24hUSD: fp(1), Trade24h: fp(2), Decimals: &dec, LogoURI: &logo, LastFetchedAt: ip(1000), AsOf: ip(1)}
	am := &asset.Market{Source: asset.SourceAnalyticsTrades, MetricsSource: asset.SourceAnalyticsTrades, Price: fp(101),
		Volume1hUSD: fp(10), Volume24hUSD: fp(240), Trade1h: fp(3), Trade24h: fp(70), UniqueWallet1h: fp(2), UniqueWallet24h: fp(40),
		PriceChange1hPercent: fp(1.5), PriceChange24hPercent: fp(-2), LastTradeAt: ip(1700), AsOf: ip(1750), LastFetchedAt: ip(2000)}
	snapCopy := *snap
	got := mergeAnalytics(snap, am)
	if got.Source != asset.SourceMarketDataA || got.MetricsSource != asset.SourceAnalyticsTrades {
		t.Fatalf("source %q metricsSource %q", got.Source, got.MetricsSource)
	}
	if *got.Price != 101 || *got.Volume1hUSD != 10 || *got.Volume24hUSD != 240 || *got.Trade1h != 3 || *got.Trade24h != 70 ||
		*got.UniqueWallet1h != 2 || *got.UniqueWallet24h != 40 || *got.PriceChange1hPercent != 1.5 || *got.PriceChange24hPercent != -2 ||
		*got.LastTradeAt != 1700 || *got.AsOf != 1750 {
		t.Fatalf("trade fields not from analytics: %+v", got)
	}
	if *got.Liquidity != 5e6 || *got.MarketCap != 1e9 || *got.Decimals != 9 || *got.LogoURI != logo || *got.LastFetchedAt != 1000 {
		t.Fatalf("snapshot fields lost: %+v", got)
	}
	if *snap.Price != *snapCopy.Price || snap.MetricsSource != snapCopy.MetricsSource || snap.Volume1hUSD != nil {
		t.Fatal("the cached snapshot was modified")
	}
	am2 := &asset.Market{Source: asset.SourceAnalyticsTrades, MetricsSource: asset.SourceAnalyticsTrades, Price: fp(1)}
	if only := mergeAnalytics(nil, am2); only != am2 || only.Source != asset.SourceAnalyticsTrades {
		t.Fatalf("analytics alone: %+v", only)
	}
}

func TestCacheMarketUsesAnalytics(t *testing.T) {
	p := &fakeProvider{source: asset.SourceMarketDataA, prices: map[string]float64{mintA: 150}}
	fa := &fakeAnalytics{markets: map[string]asset.Market{}, eq: map[string]asset.ExecutionQuality{}}
	clk := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	c := New(Options{Snapshots: []market.SnapshotProvider{p}, Analytics: fa, Now: clk.now, Deadline: 20 * time.Millisecond})
	if c.ExecutionQuality(mintA) != nil {
		t.Fatal("execution quality without engine data")
	}
	c.Token(mintA)
	c.Flush(context.Background())
	if m := c.Market(mintA); m == nil || m.MetricsSource != asset.SourceMarketDataA || *m.Price != 150 {
		t.Fatalf("snapshot only: %+v", m)
	}
	fa.markets[mintA] = asset.Market{Source: asset.SourceAnalyticsTrades, MetricsSource: asset.SourceAnalyticsTrades, Price: fp(151), Volume24hUSD: fp(9)}
	fa.eq[mintA] = asset.ExecutionQuality{Source: "analytics_fill_quality"}
	m := c.Market(mintA)
	if m.Source != asset.SourceMarketDataA || m.MetricsSource != asset.SourceAnalyticsTrades || *m.Price != 151 || *m.Liquidity != 150_000 {
		t.Fatalf("merged: %+v", m)
	}
	tok, ok := c.Token(mintA)
	if !ok || tok.Market.MetricsSource != asset.SourceAnalyticsTrades || *tok.Market.Volume24hUSD != 9 {
		t.Fatalf("token: %+v", tok.Market)
	}
	if q := c.ExecutionQuality(mintA); q == nil || q.Source != "analytics_fill_quality" {
		t.Fatalf("execution quality: %+v", q)
	}
	if m := c.Market("unknownmint"); m != nil {
		t.Fatalf("unknown: %+v", m)
	}
}
