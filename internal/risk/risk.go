// Package risk is the service's market-based risk model. Score turns one
// mint's cached market snapshot, curated-list membership, operator advisory
// and (when known) token age and top-10 holder share into a 0..100 score,
// a grade, and the caps that shaped it, together with every input,
// component and weight that went into it.
//
// The package is pure: no I/O, no clock, no global state. docs/risk.md
// documents the model for API users; keep the two in step.
package risk

import (
	"fmt"
	"math"
	"strconv"

	"github.com/assetd/assetd/internal/asset"
)

// ModelVersion identifies the rules implemented by this package. Change it
// whenever a threshold, weight, cap or label changes.
const ModelVersion = "assetd-risk-v1"

// solMint is wrapped/native SOL, which has a fixed result.
const solMint = "So11111111111111111111111111111111111111112"

// Component names, in the order Details.Components lists them.
const (
	compLiquidity    = "liquidityHealth"
	compTrading      = "tradingActivity"
	compDistribution = "holderDistribution"
	compWallets      = "walletBreadth"
	compStability    = "priceStability"
)

// Component weights; they sum to 100.
const (
	weightLiquidity    = 30
	weightTrading      = 20
	weightDistribution = 20
	weightWallets      = 15
	weightStability    = 15
)

// Cap values.
const (
	capWeak        = 69 // keeps a token in grade C
	capSpeculative = 84 // keeps a token out of grade A
	capCompromised = 20
	capBlocked     = 0
)

// Thresholds of the insufficient-data rule, the caps and the borderline
// signals. Shares are fractions of supply (0..1), ages are days, money is USD.
const (
	minMarketUSD = 1_000 // liquidity or market cap needed to score at all

	whaleShare         = 0.80
	concentrationShare = 0.50
	ghostHolders       = 20
	noLiquidityUSD     = 1_000
	deadVolume7dUSD    = 100
	brandNewDays       = 1
	microCapUSD        = 100_000
	washVolumeLiqRatio = 7
	newTokenDays       = 7
	lowHoldersMax      = 500
	moderateShareMin   = 0.40
	thinLiquidityMin   = 100_000
	thinLiquidityMax   = 200_000
	smallCapMax        = 500_000
	lowVolume7dMax     = 10_000
	youngTokenMaxDays  = 28
	signalsElevated    = 3
	signalsMultiple    = 4
	trustedLaunchDays  = 21
	trustedLaunchFloor = 70
	ratioCapLiquidity  = 100_000 // below this the liquidity/mcap ratio score is capped
	ratioCapScore      = 20
	volatility1hFactor = 3
	volumeDaysPerWeek  = 7
	gradeAMin          = 85
	gradeBMin          = 70
)

// Fixed texts of the insufficient-data result and the trusted-launch label.
const (
	insufficientGrade  = "C"
	insufficientLabel  = "Insufficient Data"
	toneInsufficient   = "info"
	reasonNoSnapshot   = "Market snapshot not available in cache"
	reasonThinMarket   = "Insufficient market data (liquidity and market cap below $1K or missing)"
	labelTrustedLaunch = "Trusted Launch"
)

// Input is everything the model looks at for one mint.
type Input struct {
	Mint string
	// Market is the cached snapshot; nil means none is cached.
	Market *asset.Market
	// Advisory is the operator flag (Status "caution", "compromised" or
	// "blocked"); nil means none. Unknown statuses are ignored.
	Advisory *asset.Advisory
	// Exempt: the mint is in a curated list whose tokens are structurally
	// concentrated (currencies, stocks, lsts): holder distribution scores
	// 100 and the concentration caps and signals skip it.
	Exempt bool
	// TrustedList: the mint is in majors, lsts, currencies, rwas or stocks
	// (trusted launch rule).
	TrustedList bool
	// TokenAgeDays is the age of the oldest known DEX pool; nil is unknown.
	TokenAgeDays *float64
	// Top10Share is the share of supply held by the top 10 holders, 0..1;
	// nil is unknown.
	Top10Share *float64
	// Chain are the on-chain fact warnings of the mint (internal/onchain);
	// they cap the score after the market caps (docs/onchain.md).
	Chain []ChainWarning
}

// ChainWarning is one on-chain fact warning: its code, severity (info,
// warning or critical) and the slot of the fact.
type ChainWarning struct {
	Code     string
	Severity string
	Slot     uint64
}

// Cap is a rule that lowered the score.
type Cap struct {
	// Rule is a stable snake_case id, e.g. "whale_dominance".
	Rule string `json:"rule"`
	// Max is the value the score was lowered to.
	Max int `json:"max"`
	// Reason is a human sentence.
	Reason string `json:"reason"`
	// Slot is the slot of the on-chain fact a chain cap rests on.
	Slot *uint64 `json:"slot,omitempty"`
}

// Summary is the spec's risk-summary body.
type Summary struct {
	Score           int    `json:"score"`
	Grade           string `json:"grade"`
	Label           string `json:"label"`
	Tone            string `json:"tone"`
	IsTrustedLaunch bool   `json:"isTrustedLaunch"`
	// Caps lists, in order, the caps that lowered the score; never nil.
	Caps                   []Cap  `json:"caps"`
	HasInsufficientData    bool   `json:"hasInsufficientData"`
	InsufficientDataReason string `json:"insufficientDataReason,omitempty"`
}

// Component is one weighted part of the raw score.
type Component struct {
	Name string `json:"name"`
	// Score is 0..100.
	Score float64 `json:"score"`
	// Weight is the component's share of the raw score; weights sum to 100.
	Weight float64 `json:"weight"`
	// HasData is false when the input was unknown and a default was used.
	HasData bool `json:"hasData"`
	// Value is the input value the score was computed from; nil if unknown.
	Value *float64 `json:"value"`
	// Basis says in a few words what was measured.
	Basis string `json:"basis"`
}

// Details is the risk-details body: the summary plus every input, component
// and weight.
type Details struct {
	Summary
	ModelVersion string `json:"modelVersion"`
	// RawScore is the weighted score before caps, floor and advisory; nil
	// when data is insufficient.
	RawScore *int `json:"rawScore"`
	// Components always lists all five components, in a fixed order.
	Components []Component `json:"components"`
	// BorderlineSignals lists the borderline metrics counted; never nil.
	BorderlineSignals []string `json:"borderlineSignals"`
	Inputs            Inputs   `json:"inputs"`
}

// Inputs are the values the model used, after normalisation: non-finite
// numbers are unknown (null), negative amounts and counts are 0, Top10Share
// is clamped to 0..1 and a negative age to 0.
type Inputs struct {
	Liquidity    *float64 `json:"liquidity"`
	MarketCap    *float64 `json:"marketCap"`
	Volume24hUSD *float64 `json:"volume24hUSD"`
	// Volume7dUSD is estimated as Volume24hUSD × 7.
	Volume7dUSD           *float64 `json:"volume7dUSD"`
	Trade24h              *float64 `json:"trade24h"`
	UniqueWallet24h       *float64 `json:"uniqueWallet24h"`
	Holders               *float64 `json:"holders"`
	PriceChange24hPercent *float64 `json:"priceChange24hPercent"`
	PriceChange1hPercent  *float64 `json:"priceChange1hPercent"`
	TokenAgeDays          *float64 `json:"tokenAgeDays"`
	Top10Share            *float64 `json:"top10Share"`
	AdvisoryStatus        *string  `json:"advisoryStatus"`
	Exempt                bool     `json:"exempt"`
	TrustedList           bool     `json:"trustedList"`
	// MarketAsOf is the snapshot's fetch time (Market.LastFetchedAt), unix ms.
	MarketAsOf *int64 `json:"marketAsOf"`
}

// Score rates one mint. Order: no cached snapshot → insufficient data;
// native SOL → fixed 100; liquidity and market cap both below $1K or
// missing → insufficient data; otherwise weighted components, metric caps,
// borderline-signal caps, the trusted-launch floor and last the advisory
// caps. It never panics and never yields NaN: non-finite inputs count as
// unknown.
func Score(in Input) Details {
	inp := normalize(in)
	d := Details{
		ModelVersion:      ModelVersion,
		Components:        components(inp),
		BorderlineSignals: []string{},
		Inputs:            inp,
	}
	if in.Market == nil {
		d.Summary = insufficient(reasonNoSnapshot)
		return d
	}
	if in.Mint == solMint {
		for i := range d.Components {
			d.Components[i].Score = 100
			d.Components[i].Basis = "fixed: native SOL"
		}
		raw := 100
		d.RawScore = &raw
		s := scorer{score: raw, caps: []Cap{}}
		s.advisory(inp.AdvisoryStatus)
		d.Summary = s.summary(false)
		return d
	}
	if below(inp.Liquidity, minMarketUSD) && below(inp.MarketCap, minMarketUSD) {
		d.Summary = insufficient(reasonThinMarket)
		return d
	}

	raw := rawScore(d.Components)
	d.RawScore = &raw
	s := scorer{score: raw, caps: []Cap{}}
	s.metricCaps(inp)
	d.BorderlineSignals = signals(inp)
	switch n := len(d.BorderlineSignals); {
	case n >= signalsMultiple:
		s.lower("multiple_risk_signals", capWeak, fmt.Sprintf("Multiple risk signals (%d borderline metrics)", n))
	case n >= signalsElevated:
		s.lower("elevated_risk", capSpeculative, fmt.Sprintf("Elevated risk (%d borderline metrics)", n))
	}
	trusted := false
	if age, ok := get(inp.TokenAgeDays); ok && inp.TrustedList && age <= trustedLaunchDays {
		trusted = true
		s.score = max(s.score, trustedLaunchFloor)
	}
	s.chain(in.Chain)
	s.advisory(inp.AdvisoryStatus)
	d.Summary = s.summary(trusted)
	return d
}

// insufficient is the spec's fixed insufficient-data summary.
func insufficient(reason string) Summary {
	return Summary{
		Score:                  0,
		Grade:                  insufficientGrade,
		Label:                  insufficientLabel,
		Tone:                   toneInsufficient,
		Caps:                   []Cap{},
		HasInsufficientData:    true,
		InsufficientDataReason: reason,
	}
}

// scorer carries the score through the caps.
type scorer struct {
	score int
	caps  []Cap
}

// lower caps the score at limit and records the cap, but only when the
// score was above it.
func (s *scorer) lower(rule string, limit int, reason string) {
	if s.score > limit {
		s.score = limit
		s.caps = append(s.caps, Cap{Rule: rule, Max: limit, Reason: reason})
	}
}

// chain applies the on-chain fact caps: a critical fact caps the score at
// capCompromised, a warning at capSpeculative (out of grade A); info facts
// (a stablecoin issuer's controls) cap nothing. Rule "chain_<code>".
func (s *scorer) chain(ws []ChainWarning) {
	for _, w := range ws {
		limit := 0
		switch w.Severity {
		case "critical":
			limit = capCompromised
		case "warning":
			limit = capSpeculative
		default:
			continue
		}
		if s.score > limit {
			slot := w.Slot
			s.score = limit
			s.caps = append(s.caps, Cap{Rule: "chain_" + w.Code, Max: limit, Reason: fmt.Sprintf("On-chain fact %s (read at slot %d)", w.Code, w.Slot), Slot: &slot})
		}
	}
}

// metricCaps applies the single-metric caps in their fixed order. Unknown
// liquidity and volume count as below their thresholds; every other cap
// needs a known value. The concentration caps skip exempt mints.
func (s *scorer) metricCaps(inp Inputs) {
	top10, hasTop10 := get(inp.Top10Share)
	hasTop10 = hasTop10 && !inp.Exempt
	holders, hasHolders := get(inp.Holders)
	age, hasAge := get(inp.TokenAgeDays)
	mcap, hasMcap := get(inp.MarketCap)

	if hasTop10 && top10 > whaleShare {
		s.lower("whale_dominance", capWeak, "Top 10 holders own more than 80% of supply")
	}
	if hasHolders && holders < ghostHolders {
		s.lower("ghost_token", capWeak, "Fewer than 20 holders")
	}
	if below(inp.Liquidity, noLiquidityUSD) {
		s.lower("no_liquidity", capWeak, "Liquidity below $1K or unknown")
	}
	if below(inp.Volume7dUSD, deadVolume7dUSD) {
		s.lower("dead_token", capWeak, "7-day volume below $100 or unknown")
	}
	if hasAge && age < brandNewDays {
		s.lower("brand_new", capWeak, "Token is less than 1 day old")
	}
	if hasMcap && mcap < microCapUSD {
		s.lower("micro_cap", capWeak, "Market cap below $100K")
	}
	if hasTop10 && top10 > concentrationShare && top10 <= whaleShare {
		s.lower("high_concentration", capSpeculative, "Top 10 holders own more than 50% of supply")
	}
	if r, ok := volumeLiquidityRatio(inp); ok && r > washVolumeLiqRatio {
		s.lower("wash_trading_suspected", capSpeculative, "Daily volume is more than 7x liquidity")
	}
	if hasAge && age < newTokenDays {
		s.lower("new_token", capSpeculative, "Token is less than 7 days old")
	}
}

// advisory applies the operator advisory cap; unknown statuses are ignored.
func (s *scorer) advisory(status *string) {
	if status == nil {
		return
	}
	switch *status {
	case asset.AdvisoryCaution:
		s.lower("advisory_caution", capWeak, "Flagged by the operator: caution")
	case asset.AdvisoryCompromised:
		s.lower("advisory_compromised", capCompromised, "Flagged by the operator: compromised")
	case asset.AdvisoryBlocked:
		s.lower("advisory_blocked", capBlocked, "Flagged by the operator: blocked")
	}
}

// summary grades the final score.
func (s *scorer) summary(trusted bool) Summary {
	out := Summary{Score: s.score, IsTrustedLaunch: trusted, Caps: s.caps}
	switch {
	case s.score >= gradeAMin:
		out.Grade, out.Label, out.Tone = "A", "Established", "success"
	case s.score >= gradeBMin:
		out.Grade, out.Label, out.Tone = "B", "Speculative", "warning"
		if trusted {
			out.Label = labelTrustedLaunch
		}
	default:
		out.Grade, out.Label, out.Tone = "C", "Weak Metrics", "danger"
	}
	return out
}

// signals returns the borderline signals, in a fixed order. Each range
// starts where the cap on the same metric stops, so a metric that triggered
// its cap is already explained and never counts as a signal too.
func signals(inp Inputs) []string {
	out := []string{}
	add := func(name string, p *float64, lo, hi float64, hiInclusive bool) {
		v, ok := get(p)
		if ok && v >= lo && (v < hi || hiInclusive && v == hi) {
			out = append(out, name)
		}
	}
	add("low_holders", inp.Holders, ghostHolders, lowHoldersMax, false)
	if !inp.Exempt {
		// The high_concentration cap starts above 50%, so 50% itself is borderline.
		add("moderate_concentration", inp.Top10Share, moderateShareMin, concentrationShare, true)
	}
	add("thin_liquidity", inp.Liquidity, thinLiquidityMin, thinLiquidityMax, false)
	add("small_cap", inp.MarketCap, microCapUSD, smallCapMax, false)
	add("low_volume", inp.Volume7dUSD, deadVolume7dUSD, lowVolume7dMax, false)
	add("young_token", inp.TokenAgeDays, newTokenDays, youngTokenMaxDays, false)
	return out
}

// rawScore is round(Σ weight × score / 100), clamped to 0..100.
func rawScore(cs []Component) int {
	sum := 0.0
	for _, c := range cs {
		sum += c.Weight * c.Score
	}
	return int(min(max(math.Round(sum/100), 0), 100))
}

// components computes the five components from normalised inputs.
func components(inp Inputs) []Component {
	return []Component{
		liquidityHealth(inp),
		tradingActivity(inp),
		holderDistribution(inp),
		walletBreadth(inp),
		priceStability(inp),
	}
}

// point is one (x, y) knot of a piecewise-linear curve.
type point struct{ x, y float64 }

// interp evaluates the piecewise-linear curve through pts (x ascending) at
// x, clamping to the end values outside the knots.
func interp(x float64, pts []point) float64 {
	if x <= pts[0].x {
		return pts[0].y
	}
	for i := 1; i < len(pts); i++ {
		if x <= pts[i].x {
			a, b := pts[i-1], pts[i]
			return a.y + (x-a.x)/(b.x-a.x)*(b.y-a.y)
		}
	}
	return pts[len(pts)-1].y
}

// liquidityHealth is max(absolute liquidity score, liquidity/market cap
// ratio score); the ratio score is capped at 20 below $100K liquidity.
func liquidityHealth(inp Inputs) Component {
	c := Component{Name: compLiquidity, Weight: weightLiquidity, Basis: "liquidity unknown"}
	liq, ok := get(inp.Liquidity)
	if !ok {
		return c
	}
	c.HasData, c.Value = true, ptr(liq)
	abs := interp(liq, []point{{0, 0}, {100_000, 20}, {500_000, 40}, {1_000_000, 60}, {5_000_000, 80}, {10_000_000, 100}})
	mcap, ok := get(inp.MarketCap)
	if !ok || mcap <= 0 {
		c.Score, c.Basis = abs, "liquidity USD (market cap unknown, ratio not scored)"
		return c
	}
	r := liq / mcap
	rs := interp(r, []point{{0, 0}, {0.001, 20}, {0.005, 40}, {0.01, 60}, {0.03, 80}, {0.05, 100}})
	if liq < ratioCapLiquidity {
		rs = min(rs, ratioCapScore)
	}
	c.Score = max(abs, rs)
	c.Basis = "liquidity USD; higher of absolute and liquidity/market cap ratio (" + num(r) + ")"
	return c
}

// tradingActivity is max(absolute 7-day volume score, daily volume /
// liquidity ratio score). A known volume of 0 scores 0.
func tradingActivity(inp Inputs) Component {
	c := Component{Name: compTrading, Weight: weightTrading, Basis: "24h volume unknown"}
	vol, ok := get(inp.Volume24hUSD)
	if !ok {
		return c
	}
	c.HasData, c.Value = true, ptr(vol)
	if vol == 0 {
		c.Basis = "24h volume is zero"
		return c
	}
	v7, _ := get(inp.Volume7dUSD)
	abs := interp(v7, []point{{0, 0}, {50_000, 20}, {100_000, 40}, {500_000, 60}, {1_000_000, 80}, {5_000_000, 100}})
	r, ok := volumeLiquidityRatio(inp)
	if !ok {
		c.Score, c.Basis = abs, "24h volume USD; 7d estimate (24h × 7), liquidity unknown so no ratio"
		return c
	}
	rs := 0.0
	if r <= washVolumeLiqRatio {
		rs = interp(r, []point{{0.1, 40}, {0.3, 70}, {0.5, 100}, {4, 100}, {5, 70}, {7, 40}})
	}
	c.Score = max(abs, rs)
	c.Basis = "24h volume USD; higher of 7d estimate (24h × 7) and volume/liquidity ratio (" + num(r) + ")"
	return c
}

// volumeLiquidityRatio is 24h volume / liquidity when both are known and
// liquidity is positive.
func volumeLiquidityRatio(inp Inputs) (float64, bool) {
	vol, okV := get(inp.Volume24hUSD)
	liq, okL := get(inp.Liquidity)
	if !okV || !okL || liq <= 0 {
		return 0, false
	}
	return vol / liq, true
}

// holderDistribution scores the top-10 holder share: 100 for exempt mints,
// 50 without data.
func holderDistribution(inp Inputs) Component {
	c := Component{Name: compDistribution, Weight: weightDistribution}
	share, ok := get(inp.Top10Share)
	if ok {
		c.Value = ptr(share)
	}
	switch {
	case inp.Exempt:
		c.Score, c.HasData, c.Basis = 100, true, "exempt: curated list of structurally concentrated tokens"
	case !ok:
		c.Score, c.Basis = 50, "top-10 holder share unknown"
	default:
		c.HasData, c.Basis = true, "top-10 holder share of supply"
		c.Score = interp(share*100, []point{{20, 100}, {30, 80}, {40, 60}, {50, 40}, {80, 0}})
	}
	return c
}

// walletBreadth scores the holder count, or the 24h unique wallets when
// the holder count is unknown.
func walletBreadth(inp Inputs) Component {
	c := Component{Name: compWallets, Weight: weightWallets, Basis: "holder count and 24h unique wallets unknown"}
	if h, ok := get(inp.Holders); ok {
		c.HasData, c.Value, c.Basis = true, ptr(h), "holder count"
		c.Score = interp(h, []point{{0, 0}, {200, 20}, {500, 40}, {1_000, 60}, {2_000, 80}, {5_000, 100}})
		return c
	}
	if w, ok := get(inp.UniqueWallet24h); ok {
		c.HasData, c.Value, c.Basis = true, ptr(w), "24h unique wallets (holder count unknown)"
		c.Score = interp(w, []point{{0, 0}, {50, 20}, {200, 40}, {1_000, 60}, {5_000, 80}, {20_000, 100}})
	}
	return c
}

// priceStability scores volatility max(|24h change|, 3 × |1h change|) in
// percent, using whichever is known; 50 when neither is.
func priceStability(inp Inputs) Component {
	c := Component{Name: compStability, Weight: weightStability, Score: 50, Basis: "price change unknown"}
	ch24, ok24 := get(inp.PriceChange24hPercent)
	ch1, ok1 := get(inp.PriceChange1hPercent)
	var v float64
	switch {
	case ok24 && ok1:
		v, c.Basis = max(math.Abs(ch24), finiteMax(math.Abs(ch1)*volatility1hFactor)), "volatility %: max(|24h change|, 3 × |1h change|)"
	case ok24:
		v, c.Basis = math.Abs(ch24), "volatility %: |24h change| (1h change unknown)"
	case ok1:
		v, c.Basis = finiteMax(math.Abs(ch1)*volatility1hFactor), "volatility %: 3 × |1h change| (24h change unknown)"
	default:
		return c
	}
	c.HasData, c.Value = true, ptr(v)
	c.Score = interp(v, []point{{0, 100}, {5, 100}, {10, 80}, {20, 60}, {35, 40}, {50, 20}, {80, 0}})
	return c
}

// normalize copies the inputs the model uses out of in (Inputs never
// aliases the caller's memory) and applies the rules documented on Inputs.
func normalize(in Input) Inputs {
	out := Inputs{
		Exempt:       in.Exempt,
		TrustedList:  in.TrustedList,
		TokenAgeDays: nonNeg(in.TokenAgeDays),
	}
	if s, ok := get(in.Top10Share); ok {
		out.Top10Share = ptr(min(max(s, 0), 1))
	}
	if in.Advisory != nil && in.Advisory.Status != "" {
		status := in.Advisory.Status
		out.AdvisoryStatus = &status
	}
	m := in.Market
	if m == nil {
		return out
	}
	out.Liquidity = nonNeg(m.Liquidity)
	out.MarketCap = nonNeg(m.MarketCap)
	out.Volume24hUSD = nonNeg(m.Volume24hUSD)
	if v, ok := get(out.Volume24hUSD); ok {
		out.Volume7dUSD = ptr(finiteMax(v * volumeDaysPerWeek))
	}
	out.Trade24h = nonNeg(m.Trade24h)
	out.UniqueWallet24h = nonNeg(m.UniqueWallet24h)
	out.Holders = nonNeg(m.Holders)
	out.PriceChange24hPercent = finite(m.PriceChange24hPercent)
	out.PriceChange1hPercent = finite(m.PriceChange1hPercent)
	if m.LastFetchedAt != nil {
		at := *m.LastFetchedAt
		out.MarketAsOf = &at
	}
	return out
}

// get returns *p and whether it is known (non-nil and finite).
func get(p *float64) (float64, bool) {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return 0, false
	}
	return *p, true
}

// below reports whether p is unknown or below limit.
func below(p *float64, limit float64) bool {
	v, ok := get(p)
	return !ok || v < limit
}

// finite is a copy of p, or nil when p is unknown.
func finite(p *float64) *float64 {
	if v, ok := get(p); ok {
		return ptr(v)
	}
	return nil
}

// nonNeg is like finite but clamps negative values to 0.
func nonNeg(p *float64) *float64 {
	if v, ok := get(p); ok {
		return ptr(max(v, 0))
	}
	return nil
}

// finiteMax clamps an overflowed +Inf (from multiplying a huge finite
// value) to the largest float64, so outputs stay JSON-encodable.
func finiteMax(v float64) float64 {
	return min(v, math.MaxFloat64)
}

// ptr returns a pointer to a copy of v.
func ptr(v float64) *float64 { return &v }

// num formats a ratio for a basis string.
func num(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
