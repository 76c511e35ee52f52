package analytics

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/ranking"
)

// fill builds a trade with side, token amount, fee, flow source and bot
// flag; usd = tokens * price.
func fill(sig string, bt int64, side string, price, tokens, fee float64, flow string, bot bool) Trade {
	t := trade(sig, mintA, bt, price, tokens*price, 1)
	t.Side, t.TokenAmount, t.FeeUSD, t.FlowSource, t.IsBot = side, tokens, fee, flow, bot
	return t
}

func TestExecutionQualityHandComputed(t *testing.T) {
	now := int64(monday + 2*day) // minute-aligned
	clk := newClock(now)
	e := newEngine(t, clk)
	mustIngest(t, e,
		fill("x8", now-1440*60, SideBuy, 9, 10, 5, "other", true), // minute M-1440: outside 24h
		fill("x7", now-1439*60, SideBuy, 9, 10, 0.09, "phantom", false),
		fill("x1", now-600, SideBuy, 10, 100, 1, "jupiter", false),
		fill("x2", now-597, SideSell, 10.5, 50, 0.5, "okx", true),
		fill("x3", now-595, SideBuy, 10.2, 10, 0.1, "jupiter", false),
		fill("x4", now-100, SideSell, 11, 10, 0, "", true),
		fill("x5", now-97, SideBuy, 11, 20, 0.2, "", false),
	)
	// Markouts (5 s): x1 -> x3 (last within 5 s): (10.2-10)*100 = 20;
	// x2 (sell) -> x3: (10.2-10.5)*-50 = 15; x4 (sell) -> x5: 0;
	// x7, x3, x5 have no later trade within 5 s.
	const vol = 90 + 1000 + 525 + 102 + 110 + 220.0
	want := &asset.ExecutionQuality{
		Source:           "analytics_fill_quality",
		Range:            "24h",
		Horizon:          "5s",
		QuoteMint:        "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
		Volume24hUSD:     vol,
		Trade24h:         6,
		BotVolume24hUSD:  635,
		BotTrade24h:      2,
		BotVolumeRatio:   635 / vol,
		Fee24hUSD:        1.89,
		FeeBps:           1.89 / vol * 1e4,
		FlowSourceCount:  3,
		MarkoutPnl24hUSD: ptr(35.0),
		MarkoutCount:     ptr(3.0),
		MarkoutBps:       ptr(35 / vol * 1e4),
		ExecutionScore:   46.1586,
		AsOf:             ptr(now),
		LastComputedAt:   now * 1000,
	}
	got := e.ExecutionQuality(mintA, at(now))
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("ExecutionQuality (-want +got):\n%s", diff)
	}
	if got.ExecutionScore != ranking.ExecutionScore(got) {
		t.Errorf("score %v != ranking.ExecutionScore %v", got.ExecutionScore, ranking.ExecutionScore(got))
	}
	if e.ExecutionQuality(mintB, at(now)) != nil {
		t.Error("unknown mint: want nil")
	}
}

func TestExecutionQualityEligibility(t *testing.T) {
	now := int64(monday + day)
	tests := []struct {
		name     string
		n        int
		tokens   float64
		flow     string
		eligible bool
		score    float64
	}{
		{"10 trades, 15k USD, one flow source", 10, 1500, "jupiter", true, 51.8028},
		{"9 trades", 9, 2000, "jupiter", false, -1},
		{"9,990 USD", 10, 999, "jupiter", false, -1},
		{"no flow source", 10, 1500, "", false, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine(t, newClock(now))
			var ts []Trade
			for i := range tt.n {
				ts = append(ts, fill(fmt.Sprintf("e%d", i), now-int64(60*i), SideBuy, 1, tt.tokens, 0, tt.flow, false))
			}
			mustIngest(t, e, ts...)
			q := e.ExecutionQuality(mintA, at(now))
			if q.IsEligibleForPrimary != tt.eligible {
				t.Errorf("eligible = %v, want %v (%+v)", q.IsEligibleForPrimary, tt.eligible, q)
			}
			if tt.score >= 0 && q.ExecutionScore != tt.score {
				t.Errorf("score = %v, want %v", q.ExecutionScore, tt.score)
			}
			// Trades a minute apart: no markouts.
			if q.MarkoutPnl24hUSD != nil || q.MarkoutCount != nil || q.MarkoutBps != nil {
				t.Errorf("markouts = %v %v %v, want nil", q.MarkoutPnl24hUSD, q.MarkoutCount, q.MarkoutBps)
			}
			// A day later the rollup is empty, and not eligible.
			later := e.ExecutionQuality(mintA, at(now+day))
			if later == nil || later.Trade24h != 0 || later.IsEligibleForPrimary || later.ExecutionScore != 0 {
				t.Errorf("a day later: %+v", later)
			}
		})
	}
}

// TestExecutionQualityMarkoutBounded: admitted trades can carry a price
// that moves by 1e18 within the markout horizon (priceUsd spans
// MinPriceUSD..MaxPriceUSD), so one markout can reach 1e28 USD. Like the
// volume sums, markoutPnl24hUSD saturates at ±MaxSumUSD, per minute and
// over the day, and markoutBps stays finite.
func TestExecutionQualityMarkoutBounded(t *testing.T) {
	now := int64(monday + day)
	const lo, hi = 1e-9, 1e9 // both within MinPriceUSD..MaxPriceUSD
	// A trade of 1e19 tokens at lo (10 billion USD, within MaxUSDAmount)
	// marked 2 s later at hi: |markout| = (hi - lo) * 1e19 ≈ 1e28.
	pair := func(sig string, bt int64, side string) []Trade {
		return []Trade{
			fill(sig+"a", bt, side, lo, 1e19, 0, "jupiter", false),
			fill(sig+"b", bt+2, SideBuy, hi, 1, 0, "jupiter", false),
		}
	}
	tests := []struct {
		name   string
		trades []Trade
		want   float64
	}{
		{"buy marked up", pair("u", now-600, SideBuy), MaxSumUSD},
		{"sell marked up", pair("d", now-600, SideSell), -MaxSumUSD},
		{"buys in two minutes", append(pair("u", now-600, SideBuy), pair("v", now-300, SideBuy)...), MaxSumUSD},
		{"buys in one minute", append(pair("u", now-600, SideBuy), pair("v", now-590, SideBuy)...), MaxSumUSD},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEngine(t, newClock(now))
			mustIngest(t, e, tt.trades...)
			q := e.ExecutionQuality(mintA, at(now))
			if q.MarkoutPnl24hUSD == nil || *q.MarkoutPnl24hUSD != tt.want {
				t.Fatalf("markoutPnl24hUSD = %v, want %v", deref(q.MarkoutPnl24hUSD), tt.want)
			}
			if b := *q.MarkoutBps; math.IsNaN(b) || math.IsInf(b, 0) {
				t.Errorf("markoutBps = %v", b)
			}
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
