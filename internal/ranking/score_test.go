package ranking

import (
	"math"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
)

func TestExecutionScore(t *testing.T) {
	tests := []struct {
		name string
		q    *asset.ExecutionQuality
		want float64
	}{
		{"nil", nil, 0},
		// All activity zero short-circuits, even with perfect bot/fee terms.
		{"no activity", &asset.ExecutionQuality{}, 0},
		// Every component at its scale: 100*(0.35+0.25+0.20+0.10+0.10).
		{"saturated", &asset.ExecutionQuality{Volume24hUSD: 50e6, Trade24h: 1e4, FlowSourceCount: 8}, 100},
		// Above the scales the log terms clamp to 1.
		{"beyond scales", &asset.ExecutionQuality{Volume24hUSD: 1e12, Trade24h: 1e9, FlowSourceCount: 100}, 100},
		// Only flow coverage, worst bot and fee: 100*0.20*1 = 20.
		{"flows only, worst ratios", &asset.ExecutionQuality{FlowSourceCount: 8, BotVolumeRatio: 1, FeeBps: 25}, 20},
		// Only trades, worst ratios: 100*0.25 = 25.
		{"trades only", &asset.ExecutionQuality{Trade24h: 1e4, BotVolumeRatio: 1, FeeBps: 25}, 25},
		// L(2,8) = ln3/ln9 = 0.5; bot 0.5 and fee 12.5/25 halve their terms:
		// 100*(0.2*0.5 + 0.1*0.5 + 0.1*0.5) = 20.
		{"half terms", &asset.ExecutionQuality{FlowSourceCount: 2, BotVolumeRatio: 0.5, FeeBps: 12.5}, 20},
		// L(1,8) = ln2/ln9 = 0.3154649; 100*(0.2*0.3154649 + 0.1 + 0.1)
		// = 26.309298 -> rounded to 4 decimals.
		{"rounding", &asset.ExecutionQuality{FlowSourceCount: 1}, 26.3093},
		// Ratios outside [0,1] clamp: bot 3 -> 1 (term 0), fee -5 -> 0 (term
		// 0.1): 100*(0.2*1 + 0 + 0.1) = 30.
		{"ratio clamps", &asset.ExecutionQuality{FlowSourceCount: 8, BotVolumeRatio: 3, FeeBps: -5}, 30},
		// L(1e5,5e7) = ln(100001)/ln(50000001) = 11.512935/17.727534 = 0.649438
		// L(100,1e4) = ln(101)/ln(10001) = 4.615121/9.210440 = 0.501075
		// L(2,8) = 0.5; bot 0.1 -> 0.9; fee 1 bps -> 1-0.04 = 0.96
		// 100*(0.35*0.649438 + 0.25*0.501075 + 0.2*0.5 + 0.1*0.9 + 0.1*0.96)
		// = 100*(0.227303 + 0.125269 + 0.1 + 0.09 + 0.096) = 63.8572
		{"typical", &asset.ExecutionQuality{Volume24hUSD: 100_000, Trade24h: 100, FlowSourceCount: 2, BotVolumeRatio: 0.1, FeeBps: 1}, 63.8572},
		// A NaN ratio clamps to 0, as in the reference: bot term 0.1, fee
		// 25 bps term 0: 100*(0.2*1 + 0.1) = 30.
		{"NaN ratio", &asset.ExecutionQuality{FlowSourceCount: 8, BotVolumeRatio: math.NaN(), FeeBps: 25}, 30},
		// Negative and non-finite counts count as 0.
		{"bad counts", &asset.ExecutionQuality{Volume24hUSD: -5, Trade24h: math.NaN(), FlowSourceCount: math.Inf(1)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExecutionScore(tt.q); got != tt.want {
				t.Errorf("ExecutionScore = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIsEligibleForPrimary(t *testing.T) {
	base := func(mod func(q *asset.ExecutionQuality)) *asset.ExecutionQuality {
		q := &asset.ExecutionQuality{Volume24hUSD: 10_000, Trade24h: 10, FlowSourceCount: 1, AsOf: i64(now.Unix())}
		if mod != nil {
			mod(q)
		}
		return q
	}
	tests := []struct {
		name string
		q    *asset.ExecutionQuality
		want bool
	}{
		{"nil", nil, false},
		{"exact minimums", base(nil), true},
		{"volume below", base(func(q *asset.ExecutionQuality) { q.Volume24hUSD = 9_999.99 }), false},
		{"trades below", base(func(q *asset.ExecutionQuality) { q.Trade24h = 9 }), false},
		{"no flow source", base(func(q *asset.ExecutionQuality) { q.FlowSourceCount = 0 }), false},
		{"missing asOf", base(func(q *asset.ExecutionQuality) { q.AsOf = nil }), false},
		{"zero asOf", base(func(q *asset.ExecutionQuality) { q.AsOf = i64(0) }), false},
		{"exactly 48h old", base(func(q *asset.ExecutionQuality) { q.AsOf = i64(now.Add(-48 * time.Hour).Unix()) }), true},
		{"48h and 1s old", base(func(q *asset.ExecutionQuality) { q.AsOf = i64(now.Add(-48*time.Hour - time.Second).Unix()) }), false},
		{"asOf in the future", base(func(q *asset.ExecutionQuality) { q.AsOf = i64(now.Add(time.Hour).Unix()) }), true},
		{"stored flag ignored", base(func(q *asset.ExecutionQuality) { q.IsEligibleForPrimary = false }), true},
		{"NaN volume", base(func(q *asset.ExecutionQuality) { q.Volume24hUSD = math.NaN() }), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsEligibleForPrimary(tt.q, now); got != tt.want {
				t.Errorf("IsEligibleForPrimary = %v, want %v", got, tt.want)
			}
		})
	}
}
