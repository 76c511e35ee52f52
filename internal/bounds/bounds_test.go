package bounds

import (
	"math"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

func f(v float64) *float64 { return &v }

func TestMarket(t *testing.T) {
	tests := []struct {
		name  string
		m     asset.Market
		field string // nulled, "" for none
	}{
		{"plausible", asset.Market{Price: f(185.8), Liquidity: f(2e10), MarketCap: f(1e11), Trade24h: f(3e7), PriceChange24hPercent: f(-99.9)}, ""},
		{"zero liquidity is a value", asset.Market{Liquidity: f(0)}, ""},
		{"price 1e308", asset.Market{Price: f(1e308)}, "price"},
		{"price 0", asset.Market{Price: f(0)}, "price"},
		{"price NaN", asset.Market{Price: f(math.NaN())}, "price"},
		{"negative liquidity", asset.Market{Liquidity: f(-1)}, "liquidity"},
		{"infinite market cap", asset.Market{MarketCap: f(math.Inf(1))}, "marketCap"},
		{"negative trades", asset.Market{Trade24h: f(-3)}, "trade24h"},
		{"volume above the ceiling", asset.Market{Volume24hUSD: f(MaxUSD * 2)}, "volume24hUSD"},
		{"price change below -100%", asset.Market{PriceChange1hPercent: f(-101)}, "priceChange1hPercent"},
		{"negative holders", asset.Market{Holders: f(-1)}, "holders"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			m := tt.m
			Market(&m, func(field string) { got = append(got, field) })
			if tt.field == "" && len(got) != 0 || tt.field != "" && (len(got) != 1 || got[0] != tt.field) {
				t.Fatalf("nulled %v, want %q", got, tt.field)
			}
		})
	}
}

func TestCandles(t *testing.T) {
	cs := []market.Candle{
		{Time: 1, Open: 1, High: 2, Low: 0.5, Close: 1.5, Volume: 10},
		{Time: 2, Open: 1, High: 1e308, Low: 0.5, Close: 1.5, Volume: 10},
		{Time: 3, Open: 1, High: 2, Low: 0.5, Close: 1.5, Volume: -1},
		{Time: 4, Open: 1, High: 2, Low: 0.5, Close: 1.5, Volume: 0},
	}
	n := 0
	got := Candles(cs, func(string) { n++ })
	if len(got) != 2 || got[0].Time != 1 || got[1].Time != 4 || n != 2 {
		t.Fatalf("kept %v, reported %d", got, n)
	}
}
