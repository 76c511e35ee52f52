package execution

import (
	"math"
	"math/big"
	"slices"
	"time"
)

// Allocation constants.
const (
	// MinChunkUSD is the floor of a greedy step; the step is
	// max(MinChunkUSD, ceil(T/ChunkDivisor)).
	MinChunkUSD  = 10_000
	ChunkDivisor = 50
	// AllocationVersion and RoutingVersion name the rules.
	AllocationVersion = "allocation-v1"
	RoutingVersion    = "variant-route-v1"
	// MarketClosedParityMultiplier widens the equity parity gate outside
	// NYSE regular hours.
	MarketClosedParityMultiplier = 2
	// SoftImpactBps marks a leg's share soft above this interpolated
	// impact; SoftMarginalTolerance when its next-dollar marginal is
	// within this ratio of another leg's.
	SoftImpactBps         = 60
	SoftMarginalTolerance = 0.02
)

// Tuning is the parity gate of an asset category, in basis points.
type Tuning struct {
	Profile                       string  `json:"profile"`
	ParityDivergenceMaxBps        float64 `json:"parityDivergenceMaxBps"`
	CollapseThresholdBps          float64 `json:"collapseThresholdBps"`
	PegWarnBps                    float64 `json:"pegWarnBps"`
	MarketClosedMultiplierApplied bool    `json:"marketClosedMultiplierApplied"`
}

// tunings by category; etf, rwa and the rest use "default".
var tunings = map[string]Tuning{
	"stablecoin": {Profile: "stablecoin", ParityDivergenceMaxBps: 50, CollapseThresholdBps: -300, PegWarnBps: 10},
	"crypto":     {Profile: "crypto", ParityDivergenceMaxBps: 300, CollapseThresholdBps: -500, PegWarnBps: 50},
	"commodity":  {Profile: "commodity", ParityDivergenceMaxBps: 500, CollapseThresholdBps: -500, PegWarnBps: 75},
	"equity":     {Profile: "equity", ParityDivergenceMaxBps: 500, CollapseThresholdBps: -750, PegWarnBps: 100},
}

var defaultTuning = Tuning{Profile: "default", ParityDivergenceMaxBps: 500, CollapseThresholdBps: -500, PegWarnBps: 50}

// TuningFor returns the tuning of an asset category at now: the equity
// gate doubles outside NYSE regular hours (9:30–16:00 America/New_York,
// Monday to Friday; holidays ignored).
func TuningFor(category string, now time.Time) Tuning {
	t, ok := tunings[category]
	if !ok {
		t = defaultTuning
	}
	if category == "equity" && !NYSEOpen(now) {
		t.ParityDivergenceMaxBps *= MarketClosedParityMultiplier
		t.MarketClosedMultiplierApplied = true
	}
	return t
}

// newYork is America/New_York when the tz database is available, else a
// fixed UTC−5 (holidays and DST are approximations either way).
var newYork = func() *time.Location {
	if l, err := time.LoadLocation("America/New_York"); err == nil {
		return l
	}
	return time.FixedZone("EST", -5*3600)
}()

// NYSEOpen reports whether now is within NYSE regular hours.
func NYSEOpen(now time.Time) bool {
	t := now.In(newYork)
	if t.Weekday() == time.Saturday || t.Weekday() == time.Sunday {
		return false
	}
	m := t.Hour()*60 + t.Minute()
	return m >= 9*60+30 && m < 16*60
}

// ChunkUSD is the greedy step for target T: max(10,000, ceil(T/50)).
func ChunkUSD(target int64) int64 { return max(MinChunkUSD, (target+ChunkDivisor-1)/ChunkDivisor) }

// MinLegUSD is the dust threshold: min(2·chunk, T).
func MinLegUSD(target int64) int64 { return min(2*ChunkUSD(target), target) }

// ParityGate ejects variants whose base price diverges from the pool: with
// three or more, any farther than the gate from the median price; with
// exactly two, farther apart than twice the gate, the loser being the one
// without an exact target quote, else the worse rank. It returns the
// ejections, each curve's divergence from the reference in bps, and the
// peg spread (largest pairwise divergence among the survivors).
func ParityGate(curves []Curve, t Tuning, target int64) (ejected []bool, divergence []float64, pegSpread float64) {
	n := len(curves)
	ejected, divergence = make([]bool, n), make([]float64, n)
	if n == 0 {
		return
	}
	prices := make([]float64, n)
	for i := range curves {
		prices[i] = curves[i].basePrice()
	}
	switch {
	case n >= 3:
		sorted := slices.Clone(prices)
		slices.Sort(sorted)
		med := sorted[n/2]
		if n%2 == 0 {
			med = (sorted[n/2-1] + sorted[n/2]) / 2
		}
		for i, p := range prices {
			divergence[i] = math.Round((p/med-1)*1e4*100) / 100
			ejected[i] = math.Abs(divergence[i]) > t.ParityDivergenceMaxBps
		}
	case n == 2:
		d := (prices[0]/prices[1] - 1) * 1e4
		if math.Abs(d) > 2*t.ParityDivergenceMaxBps {
			loser := 1
			_, e0 := curves[0].ExactAt(target)
			_, e1 := curves[1].ExactAt(target)
			switch {
			case e0 && !e1:
				loser = 1
			case e1 && !e0:
				loser = 0
			case curves[0].Rank > curves[1].Rank:
				loser = 0
			}
			ejected[loser] = true
			divergence[loser] = math.Round(math.Abs(d)*100) / 100
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, p := range prices {
		if !ejected[i] {
			lo, hi = math.Min(lo, p), math.Max(hi, p)
		}
	}
	if lo > 0 && !math.IsInf(lo, 0) {
		pegSpread = math.Round((hi/lo-1)*1e4*100) / 100
	}
	return
}

// Split is a greedy allocation.
type Split struct {
	// Amounts are whole dollars per curve (0 = no leg).
	Amounts     []int64
	Unallocated int64
	Warnings    []string
}

// marginal is Δout per dollar in asset units: Δraw / (dollars·10^dec).
func marginal(c *Curve, from, step int64) *big.Rat {
	return marginalFrom(c, c.OutAt(from), from, step)
}

// marginalFrom is marginal with the output at from already known.
func marginalFrom(c *Curve, fromOut *big.Int, from, step int64) *big.Rat {
	d := new(big.Int).Sub(c.OutAt(from+step), fromOut)
	return new(big.Rat).SetFrac(d, new(big.Int).Mul(big.NewInt(step), pow10(c.Decimals)))
}

// Greedy allocates target dollars over the curves not excluded, a chunk
// at a time, each chunk to the variant with the highest marginal output
// per dollar (ties to the better rank), never beyond a curve's largest
// proven rung. A marginal that beats the variant's previous one is clamped
// to it (warning curve_not_concave:<mint>). Legs below MinLegUSD are then
// folded into siblings with room.
func Greedy(target int64, curves []Curve, excluded []bool) Split {
	n := len(curves)
	sp := Split{Amounts: make([]int64, n)}
	chunk := ChunkUSD(target)
	last := make([]*big.Rat, n)
	warned := make([]bool, n)
	outs := make([]*big.Int, n) // output at the current allocation
	for i := range outs {
		outs[i] = new(big.Int)
	}
	remaining := target
	for remaining > 0 {
		best, bestStep := -1, int64(0)
		var bestM *big.Rat
		for i := range curves {
			if excluded != nil && excluded[i] {
				continue
			}
			step := min(chunk, remaining, curves[i].Capacity()-sp.Amounts[i])
			if step <= 0 {
				continue
			}
			m := marginalFrom(&curves[i], outs[i], sp.Amounts[i], step)
			if last[i] != nil && m.Cmp(last[i]) > 0 {
				m = last[i]
				if !warned[i] {
					warned[i] = true
					sp.Warnings = append(sp.Warnings, "curve_not_concave:"+curves[i].Mint)
				}
			}
			if best < 0 || m.Cmp(bestM) > 0 || m.Cmp(bestM) == 0 && curves[i].Rank < curves[best].Rank {
				best, bestStep, bestM = i, step, m
			}
		}
		if best < 0 {
			break
		}
		sp.Amounts[best] += bestStep
		outs[best] = curves[best].OutAt(sp.Amounts[best])
		last[best] = bestM
		remaining -= bestStep
	}
	sp.Unallocated = remaining
	foldDust(&sp, target, curves)
	return sp
}

// foldDust moves every leg below MinLegUSD, smallest first, into the
// sibling leg with room that gains most from it; a dust leg stays when no
// sibling has room.
func foldDust(sp *Split, target int64, curves []Curve) {
	minLeg := MinLegUSD(target)
	for {
		dust := -1
		for i, a := range sp.Amounts {
			if a > 0 && a < minLeg && (dust < 0 || a < sp.Amounts[dust]) && hasRoom(sp, curves, i, a) {
				dust = i
			}
		}
		if dust < 0 {
			return
		}
		a := sp.Amounts[dust]
		to := -1
		var toM *big.Rat
		for j := range curves {
			if j == dust || sp.Amounts[j] == 0 || curves[j].Capacity()-sp.Amounts[j] < a {
				continue
			}
			m := marginal(&curves[j], sp.Amounts[j], a)
			if to < 0 || m.Cmp(toM) > 0 {
				to, toM = j, m
			}
		}
		sp.Amounts[to] += a
		sp.Amounts[dust] = 0
	}
}

func hasRoom(sp *Split, curves []Curve, dust int, a int64) bool {
	for j := range curves {
		if j != dust && sp.Amounts[j] > 0 && curves[j].Capacity()-sp.Amounts[j] >= a {
			return true
		}
	}
	return false
}

// LegSize is one leg to verify: curve index and dollars.
type LegSize struct {
	Curve   int
	SizeUSD int64
}

// VerifyFunc re-quotes every leg at exactly its size, all at once, and
// returns their outputs in order (nil where no provider answered).
type VerifyFunc func(legs []LegSize) []*big.Int

// PlanLeg is one leg of a plan.
type PlanLeg struct {
	Curve     int
	AmountUSD int64
	// Expected is the curve's interpolated output; Out the verified one
	// (Expected when verification failed).
	Expected, Out *big.Int
	Verified      bool
	DeltaBps      *float64
	Soft          bool
}

// Plan is the allocator's answer.
type Plan struct {
	Legs        []PlanLeg
	Unallocated int64
	Repaired    bool
	FellBack    bool
	Warnings    []string
	// Total is the plan's output in raw units of OutDecimals.
	Total       *big.Int
	OutDecimals int
}

// BuildPlan allocates target over curves (ejected ones stay out),
// verifies each leg once with verify (each size at most once), repairs once when a leg collapses
// (verified output below expectation by more than the collapse
// threshold): the collapsed variants are distrusted and the rest
// re-allocated, and falls back to the best single variant's exact
// full-target quote when the verified split is worse. Legs always sum to
// target minus Unallocated.
func BuildPlan(target int64, curves []Curve, ejected []bool, t Tuning, verify VerifyFunc) Plan {
	p := Plan{OutDecimals: 0}
	for i := range curves {
		p.OutDecimals = max(p.OutDecimals, curves[i].Decimals)
	}
	cache := map[LegSize]*big.Int{} // verified outputs; nil = verification failed
	check := func(legs []LegSize) {
		var ask []LegSize
		for _, l := range legs {
			if _, ok := cache[l]; !ok {
				ask = append(ask, l)
			}
		}
		if len(ask) == 0 {
			return
		}
		outs := verify(ask)
		for i, l := range ask {
			if i < len(outs) && outs[i] != nil && outs[i].Sign() > 0 {
				cache[l] = outs[i]
			} else {
				cache[l] = nil
			}
		}
	}
	excluded := slices.Clone(ejected)
	if excluded == nil {
		excluded = make([]bool, len(curves))
	}
	sp := Greedy(target, curves, excluded)
	legs, collapsed := verifyLegs(sp, curves, t, check, cache)
	if len(collapsed) > 0 {
		for _, i := range collapsed {
			excluded[i] = true
		}
		sp2 := Greedy(target, curves, excluded)
		if sp2.Unallocated < target {
			legs2, _ := verifyLegs(sp2, curves, t, check, cache)
			sp, legs, p.Repaired = sp2, legs2, true
			for _, i := range collapsed {
				p.Warnings = append(p.Warnings, "plan_repaired:"+curves[i].Mint)
			}
		} else {
			for _, i := range collapsed {
				p.Warnings = append(p.Warnings, "collapse_unrepairable:"+curves[i].Mint)
			}
		}
	}
	p.Warnings = append(p.Warnings, sp.Warnings...)
	p.Legs, p.Unallocated = legs, sp.Unallocated
	for _, l := range legs {
		if !l.Verified {
			p.Warnings = append(p.Warnings, "verification_unavailable:"+curves[l.Curve].Mint)
		} else if l.DeltaBps != nil && *l.DeltaBps > math.Abs(t.CollapseThresholdBps) {
			p.Warnings = append(p.Warnings, "verification_upside_anomaly:"+curves[l.Curve].Mint)
		}
	}
	p.Total = p.total(curves)
	// Fallback: the best single variant's exact full-target quote (among
	// the variants allowed in the pool) beats the split.
	if bi, bo := bestSingle(curves, excluded, target, p.OutDecimals); bi >= 0 && (len(p.Legs) > 1 || len(p.Legs) == 1 && p.Legs[0].Curve != bi) && p.Total.Cmp(bo) < 0 {
		out, _ := curves[bi].ExactAt(target)
		p.Legs = []PlanLeg{{Curve: bi, AmountUSD: target, Expected: out, Out: out, Verified: true, DeltaBps: ptrF(0)}}
		p.Unallocated, p.FellBack = 0, true
		p.Warnings = append(p.Warnings, "plan_fell_back_to_single_variant")
		p.Total = p.total(curves)
	}
	return p
}

func ptrF(v float64) *float64 { return &v }

func (p *Plan) total(curves []Curve) *big.Int {
	t := new(big.Int)
	for _, l := range p.Legs {
		t.Add(t, scaleTo(l.Out, curves[l.Curve].Decimals, p.OutDecimals))
	}
	return t
}

// bestSingle is the curve with the largest exact full-target output
// (scaled to decimals to), -1 when none has one.
func bestSingle(curves []Curve, excluded []bool, target int64, to int) (int, *big.Int) {
	best, bestOut := -1, (*big.Int)(nil)
	for i := range curves {
		if excluded[i] {
			continue
		}
		out, ok := curves[i].ExactAt(target)
		if !ok {
			continue
		}
		o := scaleTo(out, curves[i].Decimals, to)
		if best < 0 || o.Cmp(bestOut) > 0 {
			best, bestOut = i, o
		}
	}
	return best, bestOut
}

// verifyLegs re-quotes every leg (one batch) and reports the curves whose
// leg collapsed.
func verifyLegs(sp Split, curves []Curve, t Tuning, check func([]LegSize), cache map[LegSize]*big.Int) ([]PlanLeg, []int) {
	var want []LegSize
	for i, a := range sp.Amounts {
		if a > 0 {
			want = append(want, LegSize{i, a})
		}
	}
	check(want)
	var legs []PlanLeg
	var collapsed []int
	for _, ls := range want {
		i, a := ls.Curve, ls.SizeUSD
		exp := curves[i].OutAt(a)
		l := PlanLeg{Curve: i, AmountUSD: a, Expected: exp, Out: exp}
		if v := cache[ls]; v != nil {
			l.Out, l.Verified = v, true
			d := 0.0
			if exp.Sign() > 0 {
				r, _ := new(big.Rat).SetFrac(v, exp).Float64()
				d = math.Round((r-1)*1e4*100) / 100
			}
			l.DeltaBps = &d
			if d < t.CollapseThresholdBps {
				collapsed = append(collapsed, i)
			}
			if d > math.Abs(t.CollapseThresholdBps) {
				l.Soft = true
			}
		}
		legs = append(legs, l)
	}
	return legs, collapsed
}

// Grade names a blended impact: ≤10 excellent, ≤50 good, ≤150 fair, ≤500
// poor, else avoid.
func Grade(bps float64) string {
	switch {
	case bps <= 10:
		return "excellent"
	case bps <= 50:
		return "good"
	case bps <= 150:
		return "fair"
	case bps <= 500:
		return "poor"
	}
	return "avoid"
}

// ProbeLadder is [T/125, T/25, T/5, T], each at least $1,000, rounded,
// deduplicated, ascending.
func ProbeLadder(target int64) []int64 {
	var out []int64
	for _, d := range []int64{125, 25, 5, 1} {
		v := max(1_000, int64(math.Round(float64(target)/float64(d))))
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}
