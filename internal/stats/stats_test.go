package stats

import (
	"math"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func f(v float64) *float64 { return &v }

func TestAggregate(t *testing.T) {
	priced := &asset.Market{
		Price: f(2), Liquidity: f(100), Volume24hUSD: f(10), MarketCap: f(1e9),
		PriceChange24hPercent: f(-3), PriceChange1hPercent: f(0.5),
	}
	tests := []struct {
		name     string
		variants []Input
		primary  int
		want     asset.Stats
	}{
		{name: "no variants", primary: -1, want: asset.Stats{}},
		{
			name:     "variants without data",
			variants: []Input{{Kind: asset.KindNative}, {Kind: asset.KindWrapped, Market: &asset.Market{}}},
			primary:  0,
			want:     asset.Stats{},
		},
		{
			// native 100 + wrapped 50 + bridged (no liquidity); the etf's
			// 1000 is not spot-like and is left out.
			name: "sums over spot-like variants",
			variants: []Input{
				{Kind: asset.KindNative, Market: priced, Volume30dUSD: f(300)},
				{Kind: asset.KindWrapped, Market: &asset.Market{Price: f(99), Liquidity: f(50), Volume24hUSD: f(5), MarketCap: f(7)}, Volume30dUSD: f(150)},
				{Kind: asset.KindBridged, Market: &asset.Market{Volume24hUSD: f(1)}},
				{Kind: asset.KindETF, Market: &asset.Market{Liquidity: f(1000), Volume24hUSD: f(1000)}, Volume30dUSD: f(1000)},
			},
			primary: 0,
			want: asset.Stats{
				Price: f(2), Liquidity: f(150), Volume24hUSD: f(16), Volume30dUSD: f(450),
				MarketCap: f(1e9), PriceChange24hPercent: f(-3), PriceChange1hPercent: f(0.5),
			},
		},
		{
			name: "all variants when none is spot-like",
			variants: []Input{
				{Kind: asset.KindETF, Market: &asset.Market{Liquidity: f(10), Volume24hUSD: f(1)}},
				{Kind: asset.KindYield, Market: &asset.Market{Liquidity: f(20)}, Volume30dUSD: f(9)},
			},
			primary: -1,
			want:    asset.Stats{Liquidity: f(30), Volume24hUSD: f(1), Volume30dUSD: f(9)},
		},
		{
			// A non-spot-like primary still supplies the price fields, but
			// its liquidity is not part of the spot-like aggregate.
			name: "price fields follow the primary even when not spot-like",
			variants: []Input{
				{Kind: asset.KindNative, Market: &asset.Market{Liquidity: f(5)}},
				{Kind: asset.KindETF, Market: priced},
			},
			primary: 1,
			want: asset.Stats{
				Price: f(2), Liquidity: f(5), MarketCap: f(1e9),
				PriceChange24hPercent: f(-3), PriceChange1hPercent: f(0.5),
			},
		},
		{
			name: "non-finite and negative values are unknown",
			variants: []Input{
				{Kind: asset.KindNative, Market: &asset.Market{Price: f(math.NaN()), Liquidity: f(math.Inf(1)), Volume24hUSD: f(-4), MarketCap: f(math.Inf(-1))}, Volume30dUSD: f(math.NaN())},
				{Kind: asset.KindLST, Market: &asset.Market{Liquidity: f(7), Volume24hUSD: f(0)}},
			},
			primary: 0,
			want:    asset.Stats{Liquidity: f(7), Volume24hUSD: f(0)},
		},
		{
			name:     "primary out of range",
			variants: []Input{{Kind: asset.KindNative, Market: priced}},
			primary:  3,
			want:     asset.Stats{Liquidity: f(100), Volume24hUSD: f(10)},
		},
		{
			name:     "primary without market",
			variants: []Input{{Kind: asset.KindNative}, {Kind: asset.KindNative, Market: priced}},
			primary:  0,
			want:     asset.Stats{Liquidity: f(100), Volume24hUSD: f(10)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Aggregate(tt.variants, tt.primary)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Aggregate (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAggregateNoAlias checks the stats never point into the cached market.
func TestAggregateNoAlias(t *testing.T) {
	m := &asset.Market{Price: f(1), Liquidity: f(2), Volume24hUSD: f(3), MarketCap: f(4), PriceChange24hPercent: f(5), PriceChange1hPercent: f(6)}
	s := Aggregate([]Input{{Kind: asset.KindNative, Market: m}}, 0)
	*m.Price, *m.Liquidity, *m.Volume24hUSD, *m.MarketCap, *m.PriceChange24hPercent, *m.PriceChange1hPercent = 0, 0, 0, 0, 0, 0
	want := asset.Stats{Price: f(1), Liquidity: f(2), Volume24hUSD: f(3), MarketCap: f(4), PriceChange24hPercent: f(5), PriceChange1hPercent: f(6)}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("stats changed with the market (-want +got):\n%s", diff)
	}
}

func TestOverrides(t *testing.T) {
	onChain := asset.Stats{
		Price: f(10), Liquidity: f(500), Volume24hUSD: f(50), Volume30dUSD: f(900),
		MarketCap: f(1e6), PriceChange24hPercent: f(1), PriceChange1hPercent: f(0.1),
	}
	tests := []struct {
		name  string
		apply func(asset.Stats) asset.Stats
		want  asset.Stats
	}{
		{
			name: "stock market replaces price, 24h volume and 24h change",
			apply: func(s asset.Stats) asset.Stats {
				return ApplyStockMarket(s, StockMarket{Price: f(11), Volume24hUSD: f(8e9), PriceChange24hPercent: f(-2)})
			},
			want: asset.Stats{
				Price: f(11), Liquidity: f(500), Volume24hUSD: f(8e9), Volume30dUSD: f(900),
				MarketCap: f(1e6), PriceChange24hPercent: f(-2), PriceChange1hPercent: f(0.1),
			},
		},
		{
			name: "missing stock values keep the on-chain ones",
			apply: func(s asset.Stats) asset.Stats {
				return ApplyStockMarket(s, StockMarket{Price: f(11), Volume24hUSD: f(math.NaN())})
			},
			want: asset.Stats{
				Price: f(11), Liquidity: f(500), Volume24hUSD: f(50), Volume30dUSD: f(900),
				MarketCap: f(1e6), PriceChange24hPercent: f(1), PriceChange1hPercent: f(0.1),
			},
		},
		{
			name: "provider replaces market cap and keeps on-chain prices",
			apply: func(s asset.Stats) asset.Stats {
				return ApplyProvider(s, Provider{Price: f(12), MarketCap: f(2e6), PriceChange24hPercent: f(3), PriceChange1hPercent: f(0.3)})
			},
			want: asset.Stats{
				Price: f(10), Liquidity: f(500), Volume24hUSD: f(50), Volume30dUSD: f(900),
				MarketCap: f(2e6), PriceChange24hPercent: f(1), PriceChange1hPercent: f(0.1),
			},
		},
		{
			name: "provider fills null price fields",
			apply: func(asset.Stats) asset.Stats {
				return ApplyProvider(asset.Stats{Liquidity: f(500)}, Provider{Price: f(12), PriceChange24hPercent: f(3), PriceChange1hPercent: f(math.Inf(1))})
			},
			want: asset.Stats{Price: f(12), Liquidity: f(500), PriceChange24hPercent: f(3)},
		},
		{
			name: "stock applied after provider wins",
			apply: func(s asset.Stats) asset.Stats {
				s = ApplyProvider(s, Provider{Price: f(12), PriceChange1hPercent: f(0.3)})
				return ApplyStockMarket(s, StockMarket{Price: f(11)})
			},
			want: asset.Stats{
				Price: f(11), Liquidity: f(500), Volume24hUSD: f(50), Volume30dUSD: f(900),
				MarketCap: f(1e6), PriceChange24hPercent: f(1), PriceChange1hPercent: f(0.1),
			},
		},
		{
			name: "overrides fill null stats",
			apply: func(asset.Stats) asset.Stats {
				return ApplyStockMarket(asset.Stats{}, StockMarket{Price: f(11)})
			},
			want: asset.Stats{Price: f(11)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := onChain
			got := tt.apply(onChain)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, onChain); diff != "" {
				t.Errorf("input stats changed:\n%s", diff)
			}
		})
	}
}

func TestIsEmpty(t *testing.T) {
	if !IsEmpty(asset.Stats{}) {
		t.Error("IsEmpty(zero) = false")
	}
	if IsEmpty(asset.Stats{Volume30dUSD: f(0)}) {
		t.Error("IsEmpty with a 0 volume30dUSD = true")
	}
	if !IsEmpty(Aggregate(nil, -1)) {
		t.Error("Aggregate(nil) is not empty")
	}
}

// TestPreIPO works the pre-IPO math by hand: a mark of $200 per share at a
// $400B valuation (2e9 shares).
func TestPreIPO(t *testing.T) {
	tests := []struct {
		name                     string
		basis, mark, valuation   *float64
		wantImplied, wantPremium *float64
	}{
		// 250 / 200 = 1.25: implied 400e9 × 1.25 = 500e9, premium +25 %.
		{"premium", f(250), f(200), f(400e9), f(500e9), f(25)},
		// 150 / 200 = 0.75: implied 300e9, discount −25 %.
		{"discount", f(150), f(200), f(400e9), f(300e9), f(-25)},
		// at the mark: implied = valuation, premium 0.
		{"at mark", f(200), f(200), f(400e9), f(400e9), f(0)},
		{"no valuation keeps the premium", f(250), f(200), nil, nil, f(25)},
		{"no token price", nil, f(200), f(400e9), nil, nil},
		{"no mark", f(250), nil, f(400e9), nil, nil},
		{"zero mark", f(250), f(0), f(400e9), nil, nil},
		{"negative price", f(-1), f(200), f(400e9), nil, nil},
		{"NaN price", f(math.NaN()), f(200), f(400e9), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			implied, premium := PreIPO(tt.basis, tt.mark, tt.valuation)
			if diff := cmp.Diff(tt.wantImplied, implied, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("implied valuation (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantPremium, premium, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("premium (-want +got):\n%s", diff)
			}
		})
	}
}
