package ranking

import (
	"math"
	"time"

	"github.com/assetd/assetd/internal/asset"
)

// Fill-quality eligibility thresholds (reference 3.2).
const (
	// EligibleMinVolumeUSD is the minimum 24h fill volume of an eligible row.
	EligibleMinVolumeUSD = 10_000
	// EligibleMinTrades is the minimum 24h fill trade count of an eligible row.
	EligibleMinTrades = 10
	// EligibleMinFlowSources is the minimum flow-source count of an eligible row.
	EligibleMinFlowSources = 1
	// EligibleMaxAge is the oldest asOf an eligible row may have.
	EligibleMaxAge = 48 * time.Hour
)

// Execution-score log scales: the value at which each log component
// saturates to 1.
const (
	scoreVolumeScaleUSD   = 50_000_000
	scoreTradesScale      = 10_000
	scoreFlowSourcesScale = 8
	scoreFeeBpsScale      = 25
)

// ExecutionScore computes the 0..100 execution score of a fill-quality
// rollup from its 24h fill volume, trade count, flow-source coverage, bot
// volume ratio and fee bps:
//
//	100 * (0.35 L(vol, 50e6) + 0.25 L(trades, 1e4) + 0.20 L(flowSources, 8)
//	     + 0.10 (1 - clamp(botVolumeRatio, 0, 1)) + 0.10 (1 - clamp(feeBps/25, 0, 1)))
//
// with L(x, s) = clamp(ln(1+x)/ln(1+s), 0, 1), clamped to 0..100 and
// rounded to 4 decimals. It is 0 for a nil q and when volume, trades and
// flow sources are all 0. Non-finite or negative counts count as 0, and a
// non-finite ratio clamps to 0 as in the reference (ingest computes both
// ratios over max(volume, 1), so they are always finite in practice).
func ExecutionScore(q *asset.ExecutionQuality) float64 {
	if q == nil {
		return 0
	}
	vol, trades, flows := finiteNonNeg(q.Volume24hUSD), finiteNonNeg(q.Trade24h), finiteNonNeg(q.FlowSourceCount)
	if vol == 0 && trades == 0 && flows == 0 {
		return 0
	}
	s := 100 * (0.35*logScore(vol, scoreVolumeScaleUSD) +
		0.25*logScore(trades, scoreTradesScale) +
		0.20*logScore(flows, scoreFlowSourcesScale) +
		0.10*(1-clamp01(q.BotVolumeRatio)) +
		0.10*(1-clamp01(q.FeeBps/scoreFeeBpsScale)))
	return math.Round(min(max(s, 0), 100)*1e4) / 1e4
}

// IsEligibleForPrimary reports whether a fill-quality rollup may take part
// in execution-quality ranking at time now: 24h fill volume >= 10,000 USD,
// trades >= 10, flow sources >= 1, and asOf (unix seconds) present, positive
// and at most 48h before now (an asOf in the future passes). The stored
// q.IsEligibleForPrimary flag is not consulted: this is the function that
// computes it, and ranking re-evaluates freshness with it.
func IsEligibleForPrimary(q *asset.ExecutionQuality, now time.Time) bool {
	if q == nil || q.AsOf == nil || *q.AsOf <= 0 {
		return false
	}
	if finiteNonNeg(q.Volume24hUSD) < EligibleMinVolumeUSD ||
		finiteNonNeg(q.Trade24h) < EligibleMinTrades ||
		finiteNonNeg(q.FlowSourceCount) < EligibleMinFlowSources {
		return false
	}
	return now.Unix()-*q.AsOf <= int64(EligibleMaxAge/time.Second)
}

// logScore is L(x, s) = clamp(ln(1+x)/ln(1+s), 0, 1) for x >= 0.
func logScore(x, scale float64) float64 {
	return clamp01(math.Log1p(x) / math.Log1p(scale))
}

// clamp01 clamps v to [0, 1]; non-finite values map to 0.
func clamp01(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return min(max(v, 0), 1)
}
