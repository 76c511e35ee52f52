package chart

import (
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// Synthetic candle series; only their presence and source matter here.
type fakeTrades map[string][]analytics.CandleRow

func (f fakeTrades) Candles(mint string, _ market.Interval, _, _ int64) []analytics.CandleRow {
	return f[mint]
}

type fakeProvider map[string][]market.Candle

func (f fakeProvider) MintCandles(mint string, _ market.Interval, _, _ int64) ([]market.Candle, string, bool) {
	cs, ok := f[mint]
	return cs, asset.SourceMarketDataA, ok
}

type fakeCanonical struct{ coins, stocks map[string][]market.Candle }

func (f fakeCanonical) CoinCandles(id string, _ market.Interval, _, _ int64) ([]market.Candle, bool) {
	cs, ok := f.coins[id]
	return cs, ok
}
func (f fakeCanonical) StockCandles(t string, _ market.Interval, _, _ int64) ([]market.Candle, bool) {
	cs, ok := f.stocks[t]
	return cs, ok
}

func TestSourceOrder(t *testing.T) {
	const hour = 3600
	now := time.Unix(100*hour+10, 0)
	bar := []market.Candle{{Time: 99 * hour, Open: 1, High: 1, Low: 1, Close: 1}, {Time: 100 * hour, Open: 1, High: 1, Low: 1, Close: 1}}
	traded, quiet := "TRADEDmint", "QUIETmint"
	svc := New(fakeTrades{traded: {{Candle: bar[0], Trades: 3}}},
		fakeProvider{traded: bar, quiet: bar},
		fakeCanonical{coins: map[string][]market.Candle{"coin": bar}, stocks: map[string][]market.Candle{"TSLA": bar}},
		func() time.Time { return now })
	stock := &registry.Asset{AssetID: "tesla", StockTicker: "TSLA", CoinID: "coin"}
	coin := &registry.Asset{AssetID: "bitcoin", CoinID: "coin"}
	uncached := &registry.Asset{AssetID: "x", StockTicker: "NONE", CoinID: "none"}
	cases := []struct {
		name       string
		got        Chart
		source     string
		n          int
		mintNamed  bool
		symbol     string
		lastIsOpen bool
	}{
		{"mint: trades first", svc.Mint(traded, "1H", 0, now.Unix()), asset.SourceAnalyticsTrades, 1, true, "", false},
		{"mint: provider fallback", svc.Mint(quiet, "1H", 0, now.Unix()), asset.SourceMarketDataA, 2, true, "", true},
		{"mint: nothing", svc.Mint("NONEmint", "1H", 0, now.Unix()), asset.SourceAnalyticsTrades, 0, true, "", false},
		{"price: stock first", svc.Price(stock, traded, "1H", 0, now.Unix()), asset.SourceAnalyticsStock, 2, false, "TSLA", true},
		{"price: coin", svc.Price(coin, traded, "1H", 0, now.Unix()), asset.SourceExtProvider, 2, false, "", true},
		{"price: canonical uncached falls to mint", svc.Price(uncached, quiet, "1H", 0, now.Unix()), asset.SourceMarketDataA, 2, false, "", true},
		{"price: singleton", svc.Price(nil, traded, "1H", 0, now.Unix()), asset.SourceAnalyticsTrades, 1, false, "", false},
		{"detail: stock unless mint given", svc.Detail(stock, traded, false, "1H", 0, now.Unix()), asset.SourceAnalyticsStock, 2, false, "TSLA", true},
		{"detail: explicit mint", svc.Detail(stock, traded, true, "1H", 0, now.Unix()), asset.SourceAnalyticsTrades, 1, true, "", false},
		{"detail: coin assets use the mint", svc.Detail(coin, quiet, false, "1H", 0, now.Unix()), asset.SourceMarketDataA, 2, true, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got.Source != c.source || len(c.got.Candles) != c.n || (c.got.Mint != nil) != c.mintNamed {
				t.Fatalf("got source %q, %d candles, mint %v; want %q, %d, named %v", c.got.Source, len(c.got.Candles), c.got.Mint, c.source, c.n, c.mintNamed)
			}
			if c.got.Candles == nil {
				t.Error("candles must be [] not null")
			}
			if c.symbol != "" && (c.got.Symbol == nil || *c.got.Symbol != c.symbol) {
				t.Errorf("symbol %v; want %s", c.got.Symbol, c.symbol)
			}
			if c.n > 0 && c.got.Candles[c.n-1].IsOpen != c.lastIsOpen {
				t.Errorf("last candle isOpen %v; want %v", c.got.Candles[c.n-1].IsOpen, c.lastIsOpen)
			}
		})
	}
}

func TestZeroSources(t *testing.T) {
	c := New(nil, nil, nil, nil).Price(&registry.Asset{CoinID: "c", StockTicker: "T"}, "m", "1D", 0, 1)
	if c.Source != asset.SourceAnalyticsTrades || c.Candles == nil || len(c.Candles) != 0 {
		t.Fatalf("got %+v", c)
	}
}
