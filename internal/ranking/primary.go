// Package ranking chooses an asset's primary variant and orders variant
// lists, following the spec's "Primary variant selection rules" and the
// /variants ordering rules. It is pure: no I/O, no clock (callers pass now),
// no global state. docs/ranking.md summarises the rules and constants.
package ranking

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/assetd/assetd/internal/asset"
)

// Selection reasons returned by SelectPrimary (for logs and debugging).
const (
	ReasonOnlyCandidate                   = "only_candidate"
	ReasonActivityFilter                  = "activity_filter"
	ReasonExecutionQualityZeroLiquidity   = "execution_quality_zero_liquidity"
	ReasonExecutionQualityOverride        = "execution_quality_override"
	ReasonStockRedeemabilityZeroLiquidity = "stock_redeemability_zero_liquidity"
	ReasonStockRedeemabilityOverride      = "stock_redeemability_override"
	ReasonLiquidity                       = "liquidity"
	ReasonTrustTier                       = "trust_tier"
	ReasonVolume24h                       = "volume24h"
	ReasonCuratedRank                     = "curated_rank"
	ReasonMintLexical                     = "mint_lexical"
)

// Activity filter constants.
const (
	// ActivityMinVolumeUSD drops a candidate whose known 24h volume is lower.
	ActivityMinVolumeUSD = 100
	// ActivityMinTrades drops a candidate whose known 24h trade count is lower.
	ActivityMinTrades = 5
	// OutlierZThreshold marks a value whose modified z-score exceeds it.
	OutlierZThreshold = 2.5
	// OutlierMinSamples is the fewest positive samples the outlier cut needs.
	OutlierMinSamples = 3

	outlierZScale = 0.6745 // makes the MAD consistent with a normal sigma
	madEpsilon    = 1e-9   // floor of the MAD, so identical samples divide safely
)

// Strategy override constants.
const (
	// ExecutionOverrideMinDelta is the smallest executionScore difference
	// that lets fill quality override the default order.
	ExecutionOverrideMinDelta = 10
	// ExecutionOverrideMaxLiquidityRatio caps more-liquid/max(less-liquid, 1)
	// for an execution-quality override (the spec's "conservative cap").
	ExecutionOverrideMaxLiquidityRatio = 3
	// ExecutionOverrideMinFillVolumeUSD is the 24h fill volume the less
	// liquid side needs for an execution-quality override.
	ExecutionOverrideMinFillVolumeUSD = 10_000
	// StockOverrideMaxLiquidityRatio caps more-liquid/max(higher-tier, 1) for
	// a stock-redeemability override ("within 5x").
	StockOverrideMaxLiquidityRatio = 5
)

// equityCategory is the asset category for which stock redeemability is
// always compared.
const equityCategory = "equity"

// Candidate is one variant as primary selection sees it.
type Candidate struct {
	Mint string
	Kind string
	// Tier is the stored liquidity/trust tier (tier1, tier2, tier3; the
	// legacy "experimental" and unknown values rank as tier3). Empty means
	// derive it from Market.Liquidity with asset.LiquidityTier.
	Tier             string
	StockVariantTier string
	Market           *asset.Market           // nil when not cached
	Quality          *asset.ExecutionQuality // nil when not cached
	// CuratedRank is the mint's 1-based position across the curated lists;
	// 0 (or negative) means unranked. Ranked beats unranked, lower wins.
	CuratedRank int
	// Restricted marks a variant under a compromised or blocked advisory:
	// it is a candidate only when every variant of the asset is.
	Restricted bool
}

// smallN sizes the stack scratch buffers; larger sets spill to the heap.
const smallN = 32

// SelectPrimary picks the primary variant among cands and returns its index
// in cands together with the reason that decided it, or (-1, "") when cands
// is empty. strategy is one of the asset.Strategy* values (anything else
// behaves as liquidity); assetCategory enables the stock rule for
// "equity"; now is the clock fill-quality freshness is judged against.
//
// Steps:
//  0. Restricted candidates (a compromised or blocked advisory) are left
//     out while any other exists, so such a variant is never primary while
//     another could be (the execution endpoints refuse it).
//  1. Candidates are the spot-like variants, or all when none is spot-like.
//     A single candidate is returned with only_candidate.
//  2. Activity filter (see filterByActivity); if it leaves one candidate
//     that one is returned with activity_filter.
//  3. A pairwise tournament over the survivors fed in mint-ascending order
//     (so the result does not depend on input order): the incumbent meets
//     each next candidate; the strategy override (stock_redeemability or
//     execution_quality) decides when it applies, otherwise the default
//     chain: liquidity desc (unknown last), tier, 24h volume desc (unknown
//     last), curated rank, mint ascending.
//
// The returned reason is the rule that decided the tournament's final
// match, which the winner played in.
//
// The execution-quality override uses the stored Quality.ExecutionScore
// and re-evaluates eligibility with IsEligibleForPrimary(q, now). Mints are
// assumed unique; with duplicates the input index breaks the final tie.
func SelectPrimary(cands []Candidate, strategy, assetCategory string, now time.Time) (index int, reason string) {
	if len(cands) == 0 {
		return -1, ""
	}
	var baseBuf, keptBuf [smallN]int
	base := candidateBase(cands, baseBuf[:0])
	if len(base) == 1 {
		return base[0], ReasonOnlyCandidate
	}

	kept := filterByActivity(cands, base, keptBuf[:0])
	if len(kept) == 1 {
		return kept[0], ReasonActivityFilter
	}

	slices.SortFunc(kept, func(a, b int) int {
		if c := cmpMint(cands[a].Mint, cands[b].Mint); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	t := tournament{strategy: strategy, equity: assetCategory == equityCategory, now: now}
	best := kept[0]
	for _, next := range kept[1:] {
		var wins bool
		wins, reason = t.compare(&cands[best], &cands[next])
		if wins {
			best = next
		}
	}
	return best, reason
}

// filterByActivity applies the activity filter to the candidate indices in
// base, appending the survivors to dst:
//
//   - Minimum gate: drop a candidate whose known 24h volume is below
//     ActivityMinVolumeUSD or whose known 24h trade count is below
//     ActivityMinTrades (unknown values pass). If every candidate would be
//     dropped, keep them all.
//   - Robust outlier cut, separately on volume and on trades over the gate's
//     survivors: the positive values are transformed with ln(1+x); with at
//     least OutlierMinSamples of them, a value whose modified z-score
//     0.6745*|x-median|/max(MAD, 1e-9) exceeds OutlierZThreshold is an
//     outlier. The union of both metrics' outliers is removed; if that
//     empties the set, all of base is kept.
//
// Activity values come from the market snapshot, each falling back to the
// fill-quality rollup's value when the market's is unknown.
func filterByActivity(cands []Candidate, base, dst []int) []int {
	for _, i := range base {
		if passesActivityGate(&cands[i]) {
			dst = append(dst, i)
		}
	}
	if len(dst) == 0 {
		dst = append(dst, base...)
	}

	var flagBuf [smallN]bool
	var flags []bool
	if len(dst) <= smallN {
		flags = flagBuf[:len(dst)]
	} else {
		flags = make([]bool, len(dst))
	}
	var scratchBuf [smallN]float64
	found := markOutliers(cands, dst, activityVolume, flags, scratchBuf[:0])
	found = markOutliers(cands, dst, activityTrades, flags, scratchBuf[:0]) || found
	if !found {
		return dst
	}
	n := 0
	for j, i := range dst {
		if !flags[j] {
			dst[n] = i
			n++
		}
	}
	if n == 0 {
		// Defensive: with the z threshold above 0.6745 each metric flags
		// fewer than half of its samples, so the union cannot cover every
		// candidate; the rule still says to fall back to base.
		return append(dst[:0], base...)
	}
	return dst[:n]
}

// passesActivityGate reports whether c clears the minimum activity gate.
func passesActivityGate(c *Candidate) bool {
	if v, ok := activityVolume(c); ok && v < ActivityMinVolumeUSD {
		return false
	}
	if t, ok := activityTrades(c); ok && t < ActivityMinTrades {
		return false
	}
	return true
}

// activityVolume is the candidate's 24h USD volume: the market's, else the
// fill-quality rollup's.
func activityVolume(c *Candidate) (float64, bool) {
	if v, ok := volume24h(c.Market); ok {
		return v, true
	}
	if c.Quality != nil {
		return known(&c.Quality.Volume24hUSD)
	}
	return 0, false
}

// activityTrades is the candidate's 24h trade count: the market's, else the
// fill-quality rollup's.
func activityTrades(c *Candidate) (float64, bool) {
	if c.Market != nil {
		if t, ok := known(c.Market.Trade24h); ok {
			return t, true
		}
	}
	if c.Quality != nil {
		return known(&c.Quality.Trade24h)
	}
	return 0, false
}

// markOutliers sets flags[j] for each idx[j] whose metric is a robust
// outlier (see filterByActivity) and reports whether it found any. scratch
// is reused working space.
func markOutliers(cands []Candidate, idx []int, metric func(*Candidate) (float64, bool), flags []bool, scratch []float64) bool {
	for _, i := range idx {
		if v, ok := metric(&cands[i]); ok && v > 0 {
			scratch = append(scratch, math.Log1p(v))
		}
	}
	if len(scratch) < OutlierMinSamples {
		return false
	}
	center := median(scratch)
	for k, y := range scratch {
		scratch[k] = math.Abs(y - center)
	}
	denom := max(median(scratch), madEpsilon)
	found := false
	for j, i := range idx {
		v, ok := metric(&cands[i])
		if !ok || v <= 0 {
			continue
		}
		if outlierZScale*math.Abs(math.Log1p(v)-center)/denom > OutlierZThreshold {
			flags[j] = true
			found = true
		}
	}
	return found
}

// median sorts xs in place and returns its median; xs must not be empty.
func median(xs []float64) float64 {
	slices.Sort(xs)
	m := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[m]
	}
	return (xs[m-1] + xs[m]) / 2
}

// tournament holds the per-call settings of the pairwise comparison.
type tournament struct {
	strategy string
	equity   bool
	now      time.Time
}

// compare plays one match: it reports whether next beats the incumbent best
// and the rule that decided.
func (t *tournament) compare(best, next *Candidate) (nextWins bool, reason string) {
	switch t.strategy {
	case asset.StrategyStockRedeemability:
		if t.equity || best.Kind == asset.KindTokenizedEquity || next.Kind == asset.KindTokenizedEquity {
			if wins, why, ok := stockOverride(best, next); ok {
				return wins, why
			}
		}
	case asset.StrategyExecutionQuality:
		if wins, why, ok := executionOverride(best, next, t.now); ok {
			return wins, why
		}
	}
	return defaultOrder(best, next)
}

// stockOverride applies the stock_redeemability rule. ok is false when it
// does not decide (same tier, or the higher tier is more than 5x less
// liquid than the more liquid side).
func stockOverride(best, next *Candidate) (nextWins bool, reason string, ok bool) {
	ns, bs := stockScore(next.StockVariantTier), stockScore(best.StockVariantTier)
	if ns == bs {
		return false, "", false
	}
	nl, bl := liquidityOrZero(next.Market), liquidityOrZero(best.Market)
	if nl <= 0 && bl <= 0 {
		return ns > bs, ReasonStockRedeemabilityZeroLiquidity, true
	}
	higherTierLiq := bl
	if ns > bs {
		higherTierLiq = nl
	}
	if max(nl, bl)/max(higherTierLiq, 1) <= StockOverrideMaxLiquidityRatio {
		return ns > bs, ReasonStockRedeemabilityOverride, true
	}
	return false, "", false
}

// executionOverride applies the execution_quality rule. ok is false when it
// does not decide: neither side eligible, score delta below
// ExecutionOverrideMinDelta, liquidity ratio above
// ExecutionOverrideMaxLiquidityRatio, or the less liquid side's fill volume
// below ExecutionOverrideMinFillVolumeUSD.
func executionOverride(best, next *Candidate, now time.Time) (nextWins bool, reason string, ok bool) {
	ne, be := IsEligibleForPrimary(next.Quality, now), IsEligibleForPrimary(best.Quality, now)
	if !ne && !be {
		return false, "", false
	}
	var ns, bs float64
	if ne {
		ns = finiteNonNeg(next.Quality.ExecutionScore)
	}
	if be {
		bs = finiteNonNeg(best.Quality.ExecutionScore)
	}
	delta := ns - bs
	if math.Abs(delta) < ExecutionOverrideMinDelta {
		return false, "", false
	}
	nl, bl := liquidityOrZero(next.Market), liquidityOrZero(best.Market)
	if nl <= 0 && bl <= 0 {
		return delta > 0, ReasonExecutionQualityZeroLiquidity, true
	}
	lower := next
	if nl > bl {
		lower = best
	}
	if max(nl, bl)/max(min(nl, bl), 1) > ExecutionOverrideMaxLiquidityRatio {
		return false, "", false
	}
	if lower.Quality == nil || finiteNonNeg(lower.Quality.Volume24hUSD) < ExecutionOverrideMinFillVolumeUSD {
		return false, "", false
	}
	return delta > 0, ReasonExecutionQualityOverride, true
}

// defaultOrder is the default chain; the final mint comparison always
// decides for distinct mints.
func defaultOrder(best, next *Candidate) (nextWins bool, reason string) {
	if c := cmpLiquidity(next.Market, best.Market); c != 0 {
		return c < 0, ReasonLiquidity
	}
	if c := cmpTier(next.Tier, next.Market, best.Tier, best.Market); c != 0 {
		return c < 0, ReasonTrustTier
	}
	if c := cmpVolume(next.Market, best.Market); c != 0 {
		return c < 0, ReasonVolume24h
	}
	if c := cmpRank(next.CuratedRank, best.CuratedRank); c != 0 {
		return c < 0, ReasonCuratedRank
	}
	return cmpMint(next.Mint, best.Mint) < 0, ReasonMintLexical
}

// cmpRank orders curated ranks ascending with unranked (<= 0) last.
func cmpRank(a, b int) int {
	switch {
	case a > 0 && b > 0:
		return cmp.Compare(a, b)
	case a > 0:
		return -1
	case b > 0:
		return 1
	}
	return 0
}

// candidateBase appends to dst the indexes of the spot-like candidates,
// or of all candidates when none is spot-like (step 1 of SelectPrimary).
func candidateBase(cands []Candidate, dst []int) []int {
	// Restricted ones only when nothing else is left (step 0).
	restricted := !slices.ContainsFunc(cands, func(c Candidate) bool { return !c.Restricted })
	for i := range cands {
		if cands[i].Restricted == restricted && asset.IsSpotLike(cands[i].Kind) {
			dst = append(dst, i)
		}
	}
	if len(dst) == 0 {
		for i := range cands {
			if cands[i].Restricted == restricted {
				dst = append(dst, i)
			}
		}
	}
	return dst
}

// Candidacy is why a variant is or is not a primary candidate.
type Candidacy int

// Candidacy values (see PrimaryCandidacy).
const (
	IsCandidate       Candidacy = iota // a primary candidate
	NotSpotLike                        // dropped: not spot-like while others are
	DroppedByActivity                  // dropped by the activity filter
	RestrictedVariant                  // dropped: restricted while others are not
)

// PrimaryCandidacy reports, per candidate, whether it survives the first
// steps of SelectPrimary (restriction, the spot-like set, then the activity filter)
// and, when not, which step dropped it. The route endpoint excludes the
// dropped variants with these reasons.
func PrimaryCandidacy(cands []Candidate) []Candidacy {
	out := make([]Candidacy, len(cands))
	base := candidateBase(cands, nil)
	in := make([]bool, len(cands))
	for _, i := range base {
		in[i] = true
	}
	anyOpen := slices.ContainsFunc(cands, func(c Candidate) bool { return !c.Restricted })
	for i := range out {
		switch {
		case in[i]:
		case cands[i].Restricted && anyOpen:
			out[i] = RestrictedVariant
		default:
			out[i] = NotSpotLike
		}
	}
	if len(base) <= 1 {
		return out
	}
	kept := filterByActivity(cands, base, nil)
	keep := make([]bool, len(cands))
	for _, i := range kept {
		keep[i] = true
	}
	for _, i := range base {
		if !keep[i] {
			out[i] = DroppedByActivity
		}
	}
	return out
}
