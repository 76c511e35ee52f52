package execution

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

var ladder1M = []int64{8_000, 40_000, 200_000, 1_000_000}

// mkCurve builds a curve from a base output per dollar (raw units) and the
// impact in bps at each rung of sizes (missing trailing impacts: the rung
// was not proven).
func mkCurve(mint string, rank int, rawPerUSD int64, sizes []int64, impacts ...float64) Curve {
	c := Curve{VariantID: "x:" + mint, Mint: mint, Symbol: mint, Rank: rank, Decimals: 8}
	for i, imp := range impacts {
		out := new(big.Int).Mul(big.NewInt(sizes[i]), big.NewInt(rawPerUSD))
		out.Mul(out, big.NewInt(int64(1e6-imp*100)))
		out.Quo(out, big.NewInt(1e6))
		c.Points = append(c.Points, Point{SizeUSD: sizes[i], Out: out})
	}
	return c
}

// verifyEach adapts a per-leg function to a VerifyFunc.
func verifyEach(f func(i int, s int64) (*big.Int, bool)) VerifyFunc {
	return func(legs []LegSize) []*big.Int {
		out := make([]*big.Int, len(legs))
		for k, l := range legs {
			if v, ok := f(l.Curve, l.SizeUSD); ok {
				out[k] = v
			}
		}
		return out
	}
}

// exact verifies at the curve's own expectation.
func exact(curves []Curve) VerifyFunc {
	return verifyEach(func(i int, s int64) (*big.Int, bool) { return curves[i].OutAt(s), true })
}

func sumLegs(p Plan) int64 {
	var s int64
	for _, l := range p.Legs {
		s += l.AmountUSD
	}
	return s
}

var crypto = Tuning{Profile: "crypto", ParityDivergenceMaxBps: 300, CollapseThresholdBps: -500, PegWarnBps: 50}

func TestConcaveSplitBeatsBothSingles(t *testing.T) {
	curves := []Curve{
		mkCurve("A", 1, 1000, ladder1M, 0, 10, 100, 800),
		mkCurve("B", 2, 1000, ladder1M, 0, 12, 110, 820),
	}
	ej, _, _ := ParityGate(curves, crypto, 1_000_000)
	p := BuildPlan(1_000_000, curves, ej, crypto, exact(curves))
	if len(p.Legs) != 2 || p.FellBack || p.Repaired {
		t.Fatalf("plan = %+v", p)
	}
	if sumLegs(p) != 1_000_000 || p.Unallocated != 0 {
		t.Fatalf("legs sum %d, unallocated %d", sumLegs(p), p.Unallocated)
	}
	for i := range curves {
		single, _ := curves[i].ExactAt(1_000_000)
		if p.Total.Cmp(single) <= 0 {
			t.Errorf("split total %s does not beat single %s = %s", p.Total, curves[i].Mint, single)
		}
	}
}

func TestParityEjection(t *testing.T) {
	curves := []Curve{
		mkCurve("A", 1, 1000, ladder1M, 0, 10, 100, 800),
		mkCurve("B", 2, 1000, ladder1M, 0, 10, 100, 800),
		mkCurve("C", 3, 1100, ladder1M, 0, 10, 100, 800), // 10 % richer: a broken peg
	}
	ej, div, peg := ParityGate(curves, crypto, 1_000_000)
	if !slices.Equal(ej, []bool{false, false, true}) {
		t.Fatalf("ejected = %v (divergence %v)", ej, div)
	}
	if div[2] != 1000 || peg != 0 {
		t.Errorf("divergence %v, peg %v", div, peg)
	}
	p := BuildPlan(1_000_000, curves, ej, crypto, exact(curves))
	for _, l := range p.Legs {
		if l.Curve == 2 {
			t.Fatalf("ejected variant got a leg: %+v", p.Legs)
		}
	}
	if sumLegs(p) != 1_000_000 {
		t.Errorf("sum %d", sumLegs(p))
	}
}

func TestParityTwoVariants(t *testing.T) {
	a := mkCurve("A", 1, 1000, ladder1M, 0, 10, 100) // no exact target quote
	b := mkCurve("B", 2, 1100, ladder1M, 0, 10, 100, 800)
	// 1000 bps apart > 2×300: the one without an exact target quote loses.
	ej, _, _ := ParityGate([]Curve{a, b}, crypto, 1_000_000)
	if !slices.Equal(ej, []bool{true, false}) {
		t.Errorf("ejected = %v", ej)
	}
	// Both exact: the worse rank loses.
	a = mkCurve("A", 1, 1000, ladder1M, 0, 10, 100, 800)
	ej, _, _ = ParityGate([]Curve{a, b}, crypto, 1_000_000)
	if !slices.Equal(ej, []bool{false, true}) {
		t.Errorf("ejected = %v", ej)
	}
	// 500 bps apart is inside the doubled gate.
	b = mkCurve("B", 2, 1050, ladder1M, 0, 10, 100, 800)
	ej, _, peg := ParityGate([]Curve{a, b}, crypto, 1_000_000)
	if slices.Contains(ej, true) || peg != 500 {
		t.Errorf("ejected = %v, peg %v", ej, peg)
	}
}

func TestDustFold(t *testing.T) {
	curves := []Curve{
		mkCurve("A", 1, 1000, ladder1M, 0, 1, 2, 5), // deep
		mkCurve("B", 2, 1005, ladder1M[:2], 0, 60),  // 50 bps richer, shallow: wins one chunk only
	}
	// Without folding B would keep a 20k leg (< minLeg 40k).
	sp := Greedy(1_000_000, curves, nil)
	if sp.Amounts[1] != 0 || sp.Amounts[0] != 1_000_000 {
		t.Fatalf("amounts = %v, want the dust leg folded into A", sp.Amounts)
	}
	// The fold is what removed it: a greedy pass with a tiny target shows
	// B does win the first chunk.
	first := Greedy(20_000, curves, nil)
	if first.Amounts[1] != 20_000 {
		t.Fatalf("B should win the first chunk: %v", first.Amounts)
	}
}

func TestCollapseRepaired(t *testing.T) {
	curves := []Curve{
		mkCurve("A", 1, 1000, ladder1M, 0, 10, 100, 800),
		mkCurve("B", 2, 1000, ladder1M, 0, 12, 110, 820),
	}
	verify := func(i int, s int64) (*big.Int, bool) {
		out := curves[i].OutAt(s)
		if i == 1 { // B's real depth collapsed: 10 % short
			out.Mul(out, big.NewInt(9)).Quo(out, big.NewInt(10))
		}
		return out, true
	}
	p := BuildPlan(1_000_000, curves, nil, crypto, verifyEach(verify))
	if !p.Repaired || len(p.Legs) != 1 || p.Legs[0].Curve != 0 || p.Legs[0].AmountUSD != 1_000_000 {
		t.Fatalf("plan = %+v", p)
	}
	if !slices.Contains(p.Warnings, "plan_repaired:B") {
		t.Errorf("warnings = %v", p.Warnings)
	}
}

func TestCollapseUnrepairable(t *testing.T) {
	curves := []Curve{mkCurve("A", 1, 1000, ladder1M, 0, 10, 100, 800)}
	verify := func(i int, s int64) (*big.Int, bool) {
		out := curves[i].OutAt(s)
		return out.Quo(out, big.NewInt(2)), true
	}
	p := BuildPlan(1_000_000, curves, nil, crypto, verifyEach(verify))
	if p.Repaired || !slices.Contains(p.Warnings, "collapse_unrepairable:A") || sumLegs(p) != 1_000_000 {
		t.Fatalf("plan = %+v", p)
	}
}

func TestLosingSplitFallsBack(t *testing.T) {
	curves := []Curve{
		mkCurve("A", 1, 1000, ladder1M, 0, 10, 100, 800),
		mkCurve("B", 2, 1000, ladder1M, 0, 12, 110, 820),
	}
	// Every verified leg is 4 % short of the curve (not a collapse at
	// −500 bps), so the split ends below A's exact full-size quote.
	verify := func(i int, s int64) (*big.Int, bool) {
		if s == 1_000_000 {
			return curves[i].OutAt(s), true
		}
		out := curves[i].OutAt(s)
		return out.Mul(out, big.NewInt(96)).Quo(out, big.NewInt(100)), true
	}
	p := BuildPlan(1_000_000, curves, nil, crypto, verifyEach(verify))
	if !p.FellBack || len(p.Legs) != 1 || p.Legs[0].Curve != 0 || p.Legs[0].AmountUSD != 1_000_000 {
		t.Fatalf("plan = %+v", p)
	}
	want, _ := curves[0].ExactAt(1_000_000)
	if p.Total.Cmp(want) != 0 || !slices.Contains(p.Warnings, "plan_fell_back_to_single_variant") {
		t.Errorf("total %s want %s, warnings %v", p.Total, want, p.Warnings)
	}
}

func TestVerificationUnavailableKeepsInterpolated(t *testing.T) {
	curves := []Curve{mkCurve("A", 1, 1000, ladder1M, 0, 10, 100, 800)}
	p := BuildPlan(1_000_000, curves, nil, crypto, verifyEach(func(int, int64) (*big.Int, bool) { return nil, false }))
	if len(p.Legs) != 1 || p.Legs[0].Verified || !slices.Contains(p.Warnings, "verification_unavailable:A") {
		t.Fatalf("plan = %+v", p)
	}
}

// TestLegsSumToTarget: whatever the curves, legs plus the unallocated
// remainder are the target, every leg is within its curve's proven depth
// and, when some curve reaches the target, nothing is unallocated.
func TestLegsSumToTarget(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		target := int64(1 + r.IntN(50_000_000))
		lad := ProbeLadder(target)
		k := 1 + r.IntN(6)
		var curves []Curve
		reaches := false
		for i := 0; i < k; i++ {
			proven := 1 + r.IntN(len(lad))
			imps := make([]float64, proven)
			acc := 0.0
			for j := range imps {
				if j > 0 {
					acc += r.Float64() * 400
				}
				imps[j] = acc
			}
			curves = append(curves, mkCurve(string(rune('A'+i)), i+1, int64(900+r.IntN(200)), lad, imps...))
			reaches = reaches || lad[proven-1] == target
		}
		p := BuildPlan(target, curves, nil, defaultTuning, exact(curves))
		if sumLegs(p)+p.Unallocated != target {
			t.Fatalf("case %d: legs %d + unallocated %d != target %d", n, sumLegs(p), p.Unallocated, target)
		}
		if reaches && p.Unallocated != 0 {
			t.Fatalf("case %d: unallocated %d although a curve reaches the target", n, p.Unallocated)
		}
		for _, l := range p.Legs {
			if l.AmountUSD <= 0 || l.AmountUSD > curves[l.Curve].Capacity() {
				t.Fatalf("case %d: leg %+v beyond capacity %d", n, l, curves[l.Curve].Capacity())
			}
		}
	}
}

func TestConstants(t *testing.T) {
	if got := ProbeLadder(1_000_000); !slices.Equal(got, []int64{8_000, 40_000, 200_000, 1_000_000}) {
		t.Errorf("ladder 1M = %v", got)
	}
	if got := ProbeLadder(10_000); !slices.Equal(got, []int64{1_000, 2_000, 10_000}) {
		t.Errorf("ladder 10k = %v", got)
	}
	if got := ProbeLadder(1); !slices.Equal(got, []int64{1_000}) {
		t.Errorf("ladder 1 = %v", got)
	}
	if ChunkUSD(1_000_000) != 20_000 || ChunkUSD(100_000) != 10_000 || ChunkUSD(1_000_001) != 20_001 {
		t.Error("chunk")
	}
	if MinLegUSD(1_000_000) != 40_000 || MinLegUSD(5_000) != 5_000 {
		t.Error("min leg")
	}
	for bps, g := range map[float64]string{0: "excellent", 10: "excellent", 10.01: "good", 50: "good", 150: "fair", 500: "poor", 500.5: "avoid"} {
		if Grade(bps) != g {
			t.Errorf("Grade(%v) = %s, want %s", bps, Grade(bps), g)
		}
	}
}

func TestTuningFor(t *testing.T) {
	open := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)    // Monday 10:00 New York
	closed := time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC)  // Sunday
	evening := time.Date(2026, 11, 23, 22, 0, 0, 0, time.UTC) // Monday 17:00 New York
	cases := []struct {
		cat     string
		at      time.Time
		div     float64
		col     float64
		peg     float64
		doubled bool
	}{
		{"stablecoin", open, 50, -300, 10, false},
		{"crypto", closed, 300, -500, 50, false},
		{"commodity", open, 500, -500, 75, false},
		{"equity", open, 500, -750, 100, false},
		{"equity", closed, 1000, -750, 100, true},
		{"equity", evening, 1000, -750, 100, true},
		{"etf", open, 500, -500, 50, false},
		{"rwa", closed, 500, -500, 50, false},
	}
	for _, c := range cases {
		tu := TuningFor(c.cat, c.at)
		if tu.ParityDivergenceMaxBps != c.div || tu.CollapseThresholdBps != c.col || tu.PegWarnBps != c.peg || tu.MarketClosedMultiplierApplied != c.doubled {
			t.Errorf("%s at %v: %+v", c.cat, c.at, tu)
		}
	}
}

func TestCurveInterpolation(t *testing.T) {
	c := mkCurve("A", 1, 1000, ladder1M, 0, 10, 100, 800)
	if c.ImpactAt(8_000) != 0 || c.ImpactAt(1_000) != 0 {
		t.Error("impact at or below the base rung must be 0")
	}
	if got := c.ImpactAt(40_000); got < 9.99 || got > 10.01 {
		t.Errorf("impact at rung = %v", got)
	}
	mid := c.ImpactAt(89_443) // geometric mean of 40k and 200k
	if mid < 54.9 || mid > 55.1 {
		t.Errorf("log-linear midpoint = %v, want 55", mid)
	}
	if out, _ := c.ExactAt(200_000); c.OutAt(200_000).Cmp(out) != 0 {
		t.Errorf("OutAt(rung) = %s, want %s", c.OutAt(200_000), out)
	}
	if c.Capacity() != 1_000_000 {
		t.Error("capacity")
	}
}
