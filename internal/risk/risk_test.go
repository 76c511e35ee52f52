package risk

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assetd/assetd/internal/asset"
)

func f(v float64) *float64 { return &v }

// major is a deep, liquid token. Its components:
//
//	liquidityHealth    50M ≥ 10M → 100; ratio 50M/1B = 0.05 → 100    ×30 = 3000
//	tradingActivity    7d 280M ≥ 5M → 100; ratio 40M/50M = 0.8 → 100 ×20 = 2000
//	holderDistribution top-10 share unknown → 50                      ×20 = 1000
//	walletBreadth      no holders; 30k wallets ≥ 20k → 100           ×15 = 1500
//	priceStability     |2%| ≤ 5 → 100                                 ×15 = 1500
//	raw = round(9000/100) = 90
func major() *asset.Market {
	return &asset.Market{
		Liquidity:             f(50e6),
		MarketCap:             f(1e9),
		Volume24hUSD:          f(40e6),
		UniqueWallet24h:       f(30_000),
		PriceChange24hPercent: f(2),
		LastFetchedAt:         new(int64(1_700_000_000_000)),
	}
}

// shallow is a thin token. Its components:
//
//	liquidityHealth    abs 40k → 40/100×20 = 8; ratio 40k/2M = 0.02 → 60+0.5×20 = 70,
//	                   capped at 20 (liquidity < 100k) → max(8, 20) = 20  ×30 = 600
//	tradingActivity    7d 210k → 40+(110/400)×20 = 45.5; ratio 30k/40k = 0.75 → 100
//	                   → 100                                             ×20 = 2000
//	holderDistribution unknown → 50                                      ×20 = 1000
//	walletBreadth      300 wallets → 40+(100/800)×20 = 42.5              ×15 = 637.5
//	priceStability     max(12, 3×1) = 12 → 80-(2/10)×20 = 76             ×15 = 1140
//	raw = round(5377.5/100) = round(53.775) = 54
func shallow() *asset.Market {
	return &asset.Market{
		Liquidity:             f(40_000),
		MarketCap:             f(2e6),
		Volume24hUSD:          f(30_000),
		UniqueWallet24h:       f(300),
		PriceChange24hPercent: f(-12),
		PriceChange1hPercent:  f(1),
	}
}

// borderline has thin liquidity, a small cap and low volume. Components
// (exempt, so distribution is 100):
//
//	liquidityHealth    abs 150k → 20+(50/400)×20 = 22.5; ratio 150k/400k = 0.375 → 100  ×30 = 3000
//	tradingActivity    7d 7k → 7/50×20 = 2.8; ratio 1k/150k = 0.0067 < 0.1 → 40     ×20 = 800
//	holderDistribution exempt → 100                                                  ×20 = 2000
//	walletBreadth      holders (set per case)
//	priceStability     |4%| → 100                                                     ×15 = 1500
func borderline(holders float64) *asset.Market {
	return &asset.Market{
		Liquidity:             f(150_000),
		MarketCap:             f(400_000),
		Volume24hUSD:          f(1_000),
		Holders:               f(holders),
		PriceChange24hPercent: f(4),
	}
}

func with(m *asset.Market, mod func(m *asset.Market)) *asset.Market {
	mod(m)
	return m
}

func advisory(status string) *asset.Advisory { return &asset.Advisory{Status: status, Reason: "test"} }

func cp(rule string, limit int) Cap { return Cap{Rule: rule, Max: limit} }

var (
	gradeA       = Summary{Grade: "A", Label: "Established", Tone: "success"}
	gradeB       = Summary{Grade: "B", Label: "Speculative", Tone: "warning"}
	gradeC       = Summary{Grade: "C", Label: "Weak Metrics", Tone: "danger"}
	gradeTrusted = Summary{Grade: "B", Label: "Trusted Launch", Tone: "warning", IsTrustedLaunch: true}
)

// want builds an expected summary from a grade template.
func want(g Summary, score int, caps ...Cap) Summary {
	g.Score = score
	g.Caps = append([]Cap{}, caps...)
	return g
}

func TestScore(t *testing.T) {
	const sol = "So11111111111111111111111111111111111111112"
	tests := []struct {
		name    string
		in      Input
		want    Summary
		raw     int // -1: RawScore must be nil
		signals []string
	}{
		{"deep liquidity major", Input{Market: major()}, want(gradeA, 90), 90, nil},
		{"shallow liquidity token", Input{Market: shallow()}, want(gradeC, 54), 54, nil},

		// Age: raw 90 in each case.
		// 0.5 days: brand_new lowers 90 → 69; new_token (84) then lowers nothing.
		{"brand new", Input{Market: major(), TokenAgeDays: f(0.5)}, want(gradeC, 69, cp("brand_new", 69)), 90, nil},
		// 3 days: new_token lowers 90 → 84.
		{"new token", Input{Market: major(), TokenAgeDays: f(3)}, want(gradeB, 84, cp("new_token", 84)), 90, nil},
		// 10 days: one borderline signal, no cap.
		{"young token", Input{Market: major(), TokenAgeDays: f(10)}, want(gradeA, 90), 90, []string{"young_token"}},
		{"old token", Input{Market: major(), TokenAgeDays: f(28)}, want(gradeA, 90), 90, nil},
		// A negative age is clamped to 0, which is brand new.
		{"negative age", Input{Market: major(), TokenAgeDays: f(-3)}, want(gradeC, 69, cp("brand_new", 69)), 90, nil},

		// Trusted launch: curated list and known age ≤ 21 days floors at 70.
		// shallow raw 54 (young_token signal only) → floor 70.
		{"trusted launch floor", Input{Market: shallow(), TrustedList: true, TokenAgeDays: f(10)}, want(gradeTrusted, 70), 54, []string{"young_token"}},
		{"trusted launch at 21 days", Input{Market: shallow(), TrustedList: true, TokenAgeDays: f(21)}, want(gradeTrusted, 70), 54, []string{"young_token"}},
		{"trusted list at 22 days", Input{Market: shallow(), TrustedList: true, TokenAgeDays: f(22)}, want(gradeC, 54), 54, []string{"young_token"}},
		{"trusted list, age unknown", Input{Market: shallow(), TrustedList: true}, want(gradeC, 54), 54, nil},
		{"young but not on a trusted list", Input{Market: shallow(), TokenAgeDays: f(10)}, want(gradeC, 54), 54, []string{"young_token"}},
		// 90 → brand_new 69 → floor 70; the cap stays listed.
		{"trusted launch lifts a cap", Input{Market: major(), TrustedList: true, TokenAgeDays: f(0.5)}, want(gradeTrusted, 70, cp("brand_new", 69)), 90, nil},
		// Grade A keeps its label; the flag is still set.
		{"trusted launch in grade A", Input{Market: major(), TrustedList: true, TokenAgeDays: f(10)},
			Summary{Score: 90, Grade: "A", Label: "Established", Tone: "success", IsTrustedLaunch: true, Caps: []Cap{}}, 90, []string{"young_token"}},

		// Advisories apply last.
		{"advisory caution", Input{Market: major(), Advisory: advisory("caution")}, want(gradeC, 69, cp("advisory_caution", 69)), 90, nil},
		{"advisory compromised", Input{Market: major(), Advisory: advisory("compromised")}, want(gradeC, 20, cp("advisory_compromised", 20)), 90, nil},
		{"advisory blocked", Input{Market: major(), Advisory: advisory("blocked")}, want(gradeC, 0, cp("advisory_blocked", 0)), 90, nil},
		{"caution below its cap is not listed", Input{Market: shallow(), Advisory: advisory("caution")}, want(gradeC, 54), 54, nil},
		{"unknown advisory status ignored", Input{Market: major(), Advisory: advisory("watch")}, want(gradeA, 90), 90, nil},
		// 54 → floor 70 → caution 69.
		{"caution after the trusted floor", Input{Market: shallow(), TrustedList: true, TokenAgeDays: f(10), Advisory: advisory("caution")},
			Summary{Score: 69, Grade: "C", Label: "Weak Metrics", Tone: "danger", IsTrustedLaunch: true, Caps: []Cap{cp("advisory_caution", 69)}}, 54, []string{"young_token"}},

		// Insufficient data.
		{"no snapshot", Input{Mint: "M", Advisory: advisory("blocked")}, insufficient(reasonNoSnapshot), -1, nil},
		{"liquidity and mcap tiny", Input{Market: &asset.Market{Liquidity: f(500), MarketCap: f(900), Volume24hUSD: f(1e6)}}, insufficient(reasonThinMarket), -1, nil},
		{"liquidity and mcap missing", Input{Market: &asset.Market{Volume24hUSD: f(1e6)}}, insufficient(reasonThinMarket), -1, nil},
		{"liquidity missing, mcap tiny", Input{Market: &asset.Market{MarketCap: f(999.99)}}, insufficient(reasonThinMarket), -1, nil},
		{"non-finite liquidity and mcap", Input{Market: &asset.Market{Liquidity: f(math.NaN()), MarketCap: f(math.Inf(1))}}, insufficient(reasonThinMarket), -1, nil},
		// Liquidity exactly $1K is enough to score: liquidity 1000/100k×20 = 0.2
		// ×30 = 6; volume unknown 0; distribution 50×20 = 1000; wallets 0;
		// stability unknown 50×15 = 750 → round(17.56) = 18. dead_token
		// (volume unknown) does not lower 18.
		{"liquidity at $1K", Input{Market: &asset.Market{Liquidity: f(1_000)}}, want(gradeC, 18), 18, nil},

		// Native SOL.
		{"SOL", Input{Mint: sol, Market: &asset.Market{}}, want(gradeA, 100), 100, nil},
		{"SOL ignores age caps and trusted floor", Input{Mint: sol, Market: shallow(), TokenAgeDays: f(0.1), TrustedList: true}, want(gradeA, 100), 100, nil},
		{"SOL compromised", Input{Mint: sol, Market: major(), Advisory: advisory("compromised")}, want(gradeC, 20, cp("advisory_compromised", 20)), 100, nil},
		{"SOL without snapshot", Input{Mint: sol}, insufficient(reasonNoSnapshot), -1, nil},

		// Concentration. Distribution replaces major's 1000 points.
		// 85% > 80 → 0: raw round(8000/100) = 80 → whale_dominance 69.
		{"whale dominance", Input{Market: major(), Top10Share: f(0.85)}, want(gradeC, 69, cp("whale_dominance", 69)), 80, nil},
		// Exempt: distribution 100 → raw 100, no concentration cap.
		{"exempt whale", Input{Market: major(), Top10Share: f(0.85), Exempt: true}, want(gradeA, 100), 100, nil},
		// 60% → 40-(10/30)×40 = 26.667 ×20 = 533.3 → round(85.33) = 85 → high_concentration 84.
		{"high concentration", Input{Market: major(), Top10Share: f(0.6)}, want(gradeB, 84, cp("high_concentration", 84)), 85, nil},
		// 45% → 60-(5/10)×20 = 50 → raw 90; one signal.
		{"moderate concentration", Input{Market: major(), Top10Share: f(0.45)}, want(gradeA, 90), 90, []string{"moderate_concentration"}},
		// 50% → 40 ×20 = 800 → raw 88; 50% is borderline, not capped.
		{"concentration at 50%", Input{Market: major(), Top10Share: f(0.5)}, want(gradeA, 88), 88, []string{"moderate_concentration"}},
		{"exempt skips concentration signal", Input{Market: major(), Top10Share: f(0.45), Exempt: true}, want(gradeA, 100), 100, nil},
		// 30% → 80 ×20 = 1600 → raw 96.
		{"dispersed holders", Input{Market: major(), Top10Share: f(0.3)}, want(gradeA, 96), 96, nil},
		// A share above 1 is clamped to 1 (100% → 0): raw 80 → 69.
		{"share above 1 clamped", Input{Market: major(), Top10Share: f(45)}, want(gradeC, 69, cp("whale_dominance", 69)), 80, nil},

		// Other metric caps.
		// 10 holders → 10/200×20 = 1 ×15 = 15 replaces 1500: round(75.15) = 75 → 69.
		{"ghost token", Input{Market: with(major(), func(m *asset.Market) { m.Holders = f(10) })}, want(gradeC, 69, cp("ghost_token", 69)), 75, nil},
		// vol 10: 7d 70 → 70/50k×20 = 0.028; ratio 2e-7 < 0.1 → 40 → 800:
		// raw 78 → dead_token 69.
		{"dead token", Input{Market: with(major(), func(m *asset.Market) { m.Volume24hUSD = f(10) })}, want(gradeC, 69, cp("dead_token", 69)), 78, nil},
		// Zero volume scores 0: raw 70 → dead_token 69.
		{"zero volume", Input{Market: with(major(), func(m *asset.Market) { m.Volume24hUSD = f(0) })}, want(gradeC, 69, cp("dead_token", 69)), 70, nil},
		// liq 1M abs 60, ratio 1M/20M = 0.05 → 100; 7d 56M → 100 (ratio 8 > 7
		// → 0); wallets 100; stability 100: raw 90 → wash_trading 84.
		{"wash trading", Input{Market: with(major(), func(m *asset.Market) {
			m.Liquidity, m.MarketCap, m.Volume24hUSD = f(1e6), f(20e6), f(8e6)
		})}, want(gradeB, 84, cp("wash_trading_suspected", 84)), 90, nil},
		// liq 500: abs 0.1, ratio 500/5M = 1e-4 → 2 → 2×30 = 60; 7d 7M → 100
		// ×20 = 2000; exempt 2000; wallets 1500; stability 1500: round(70.6) =
		// 71 → no_liquidity 69 (wash trading, 84, then lowers nothing).
		{"no liquidity", Input{Exempt: true, Market: with(major(), func(m *asset.Market) {
			m.Liquidity, m.MarketCap, m.Volume24hUSD = f(500), f(5e6), f(1e6)
		})}, want(gradeC, 69, cp("no_liquidity", 69)), 71, nil},
		// Unknown liquidity counts as below $1K: 0 + 2000 + 2000 + 1500 + 1500 → 70 → 69.
		{"unknown liquidity", Input{Exempt: true, Market: with(major(), func(m *asset.Market) {
			m.Liquidity, m.MarketCap, m.Volume24hUSD = nil, f(5e6), f(1e6)
		})}, want(gradeC, 69, cp("no_liquidity", 69)), 70, nil},
		// liq 60k: abs 12, ratio 60k/90k → 100 capped 20 → 600; 7d 420k → 56,
		// ratio 1 → 100 → 2000; exempt 2000; 5000 wallets → 80 → 1200;
		// stability 1500: raw 73 → micro_cap 69.
		{"micro cap", Input{Exempt: true, Market: with(major(), func(m *asset.Market) {
			m.Liquidity, m.MarketCap, m.Volume24hUSD, m.UniqueWallet24h, m.PriceChange24hPercent = f(60_000), f(90_000), f(60_000), f(5_000), f(1)
		})}, want(gradeC, 69, cp("micro_cap", 69)), 73, nil},
		// liq 20k: abs 4, ratio 0.25 → capped 20 → 600; 7d 35k → 14, ratio
		// 0.25 → 40+(0.15/0.2)×30 = 62.5 → 1250; distribution 1000; no
		// wallets 0; stability unknown 750: raw 36. micro_cap holds but
		// lowers nothing, so caps is empty.
		{"caps that do not lower are not listed", Input{Market: &asset.Market{Liquidity: f(20_000), MarketCap: f(80_000), Volume24hUSD: f(5_000)}}, want(gradeC, 36), 36, nil},

		// Borderline signals (see borderline()).
		// 300 holders → 20+(100/300)×20 = 26.667 ×15 = 400: 3000+800+2000+400+1500
		// = 7700 → 77; four signals → multiple_risk_signals 69.
		{"four signals", Input{Exempt: true, Market: borderline(300)}, want(gradeC, 69, cp("multiple_risk_signals", 69)), 77,
			[]string{"low_holders", "thin_liquidity", "small_cap", "low_volume"}},
		// 600 holders → 40+(100/500)×20 = 44 ×15 = 660: 7960 → 80; three
		// signals → elevated_risk 84 does not lower 80.
		{"three signals below their cap", Input{Exempt: true, Market: borderline(600)}, want(gradeB, 80), 80,
			[]string{"thin_liquidity", "small_cap", "low_volume"}},
		// 5000 holders → 100; volume 150k: 7d 1.05M → 80.25, ratio 1 → 100;
		// all components 100 → raw 100; thin_liquidity, small_cap and
		// young_token → elevated_risk 84.
		{"three signals", Input{Exempt: true, TokenAgeDays: f(14), Market: with(borderline(5_000), func(m *asset.Market) { m.Volume24hUSD = f(150_000) })},
			want(gradeB, 84, cp("elevated_risk", 84)), 100, []string{"thin_liquidity", "small_cap", "young_token"}},
		// A metric cap fires first: holders 10 → ghost_token 69; the elevated_risk cap then lowers nothing.
		{"metric cap before signal cap", Input{Exempt: true, TokenAgeDays: f(14), Market: with(borderline(10), func(m *asset.Market) { m.Volume24hUSD = f(150_000) })},
			// holders 10 → 1 ×15 = 15: 3000+2000+2000+15+1500 = 8515 → 85 → 69.
			want(gradeC, 69, cp("ghost_token", 69)), 85, []string{"thin_liquidity", "small_cap", "young_token"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Score(tt.in)
			// Reasons are prose; compare rule and max only.
			got := d.Summary
			got.Caps = nil
			for _, c := range d.Caps {
				if c.Reason == "" {
					t.Errorf("cap %s has no reason", c.Rule)
				}
				got.Caps = append(got.Caps, cp(c.Rule, c.Max))
			}
			if got.Caps == nil {
				got.Caps = []Cap{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			switch {
			case tt.raw < 0 && d.RawScore != nil:
				t.Errorf("RawScore = %d, want nil", *d.RawScore)
			case tt.raw >= 0 && (d.RawScore == nil || *d.RawScore != tt.raw):
				t.Errorf("RawScore = %v, want %d", d.RawScore, tt.raw)
			}
			wantSignals := tt.signals
			if wantSignals == nil {
				wantSignals = []string{}
			}
			if diff := cmp.Diff(wantSignals, d.BorderlineSignals); diff != "" {
				t.Errorf("signals (-want +got):\n%s", diff)
			}
			if d.ModelVersion != ModelVersion {
				t.Errorf("ModelVersion = %q", d.ModelVersion)
			}
		})
	}
}

func TestComponents(t *testing.T) {
	type comp struct {
		score   float64
		hasData bool
		value   *float64
	}
	tests := []struct {
		name string
		in   Input
		want [5]comp // liquidityHealth, tradingActivity, holderDistribution, walletBreadth, priceStability
	}{
		{"major", Input{Market: major()}, [5]comp{
			{100, true, f(50e6)}, {100, true, f(40e6)}, {50, false, nil}, {100, true, f(30_000)}, {100, true, f(2)},
		}},
		{"shallow", Input{Market: shallow()}, [5]comp{
			// see shallow(); volatility max(12, 3×1) = 12.
			{20, true, f(40_000)}, {100, true, f(30_000)}, {50, false, nil}, {42.5, true, f(300)}, {76, true, f(12)},
		}},
		{"no market", Input{}, [5]comp{
			{0, false, nil}, {0, false, nil}, {50, false, nil}, {0, false, nil}, {50, false, nil},
		}},
		// Market cap unknown, so liquidity is absolute only: 300k →
		// 20+(200/400)×20 = 30. Volume 20k: 7d 140k → 40+(40/400)×20 = 42;
		// ratio 20k/300k = 0.067 < 0.1 → 40; max 42. Exempt with a known
		// share: 100, value kept. Holders win over wallets: 1500 →
		// 60+(500/1000)×20 = 70. Only the 1h change: 3×|-4| = 12 → 76.
		{"mixed", Input{Exempt: true, Top10Share: f(0.9), Market: &asset.Market{
			Liquidity: f(300_000), Volume24hUSD: f(20_000), Holders: f(1_500), UniqueWallet24h: f(9), PriceChange1hPercent: f(-4),
		}}, [5]comp{
			{30, true, f(300_000)}, {42, true, f(20_000)}, {100, true, f(0.9)}, {70, true, f(1_500)}, {76, true, f(12)},
		}},
		// Volume/liquidity ratio band edges, with liquidity 1k (abs 0.2, no
		// market cap) so the absolute volume score stays low: vol 5k → 7d
		// 35k → 14; ratio 5 → 70.
		{"ratio 5", Input{Market: &asset.Market{Liquidity: f(1_000), Volume24hUSD: f(5_000)}}, [5]comp{
			{0.2, true, f(1_000)}, {70, true, f(5_000)}, {50, false, nil}, {0, false, nil}, {50, false, nil},
		}},
		// vol 7k, liq 1k: ratio 7 → 40 (7d 49k → 19.6, lower).
		{"ratio 7", Input{Market: &asset.Market{Liquidity: f(1_000), Volume24hUSD: f(7_000)}}, [5]comp{
			{0.2, true, f(1_000)}, {40, true, f(7_000)}, {50, false, nil}, {0, false, nil}, {50, false, nil},
		}},
		// vol 7.1k: ratio 7.1 > 7 → 0; 7d 49.7k → 19.88.
		{"ratio above 7", Input{Market: &asset.Market{Liquidity: f(1_000), Volume24hUSD: f(7_100)}}, [5]comp{
			{0.2, true, f(1_000)}, {19.88, true, f(7_100)}, {50, false, nil}, {0, false, nil}, {50, false, nil},
		}},
		// Liquidity abs 200k → 25, ratio 0.2 above the last knot clamps to
		// 100. Volatility 100% → 0.
		{"extreme volatility", Input{Market: &asset.Market{Liquidity: f(200_000), MarketCap: f(1_000_000), PriceChange24hPercent: f(-100)}}, [5]comp{
			{100, true, f(200_000)}, {0, false, nil}, {50, false, nil}, {0, false, nil}, {0, true, f(100)},
		}},
	}
	names := []string{"liquidityHealth", "tradingActivity", "holderDistribution", "walletBreadth", "priceStability"}
	weights := []float64{30, 20, 20, 15, 15}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := Score(tt.in).Components
			if len(cs) != 5 {
				t.Fatalf("%d components, want 5", len(cs))
			}
			for i, c := range cs {
				w := tt.want[i]
				if c.Name != names[i] || c.Weight != weights[i] {
					t.Errorf("component %d = %s/%v, want %s/%v", i, c.Name, c.Weight, names[i], weights[i])
				}
				if math.Abs(c.Score-w.score) > 1e-9 || c.HasData != w.hasData {
					t.Errorf("%s = %v (hasData %v), want %v (%v)", c.Name, c.Score, c.HasData, w.score, w.hasData)
				}
				if (c.Value == nil) != (w.value == nil) || c.Value != nil && math.Abs(*c.Value-*w.value) > 1e-9 {
					t.Errorf("%s value = %v, want %v", c.Name, deref(c.Value), deref(w.value))
				}
				if c.Basis == "" {
					t.Errorf("%s has no basis", c.Name)
				}
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

func TestInterp(t *testing.T) {
	pts := []point{{0, 100}, {5, 100}, {10, 80}, {80, 0}}
	tests := []struct{ x, want float64 }{
		{-1, 100}, {0, 100}, {3, 100}, {5, 100}, {7.5, 90}, {10, 80}, {45, 40}, {80, 0}, {1e300, 0}, {math.Inf(1), 0},
	}
	for _, tt := range tests {
		if got := interp(tt.x, pts); got != tt.want {
			t.Errorf("interp(%v) = %v, want %v", tt.x, got, tt.want)
		}
	}
}

func TestInputs(t *testing.T) {
	m := &asset.Market{
		Liquidity:             f(-5),
		MarketCap:             f(math.Inf(1)),
		Volume24hUSD:          f(1_000),
		Trade24h:              f(math.NaN()),
		UniqueWallet24h:       f(12),
		PriceChange24hPercent: f(-7.5),
		LastFetchedAt:         new(int64(42)),
	}
	d := Score(Input{Market: m, Top10Share: f(-0.2), TokenAgeDays: f(math.NaN()), Advisory: advisory("caution"), Exempt: true})
	want := Inputs{
		Liquidity:             f(0),
		Volume24hUSD:          f(1_000),
		Volume7dUSD:           f(7_000),
		UniqueWallet24h:       f(12),
		PriceChange24hPercent: f(-7.5),
		Top10Share:            f(0),
		AdvisoryStatus:        new("caution"),
		Exempt:                true,
		MarketAsOf:            new(int64(42)),
	}
	if diff := cmp.Diff(want, d.Inputs); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	// Details never aliases the caller's memory.
	*m.Volume24hUSD, *m.LastFetchedAt = 1, 1
	if *d.Inputs.Volume24hUSD != 1_000 || *d.Inputs.MarketAsOf != 42 || *d.Components[1].Value != 1_000 {
		t.Error("Details aliases the input market")
	}
	// A 24h volume whose ×7 overflows stays finite.
	d = Score(Input{Market: &asset.Market{Liquidity: f(1e6), Volume24hUSD: f(math.MaxFloat64)}})
	if *d.Inputs.Volume7dUSD != math.MaxFloat64 {
		t.Errorf("Volume7dUSD = %v, want MaxFloat64", *d.Inputs.Volume7dUSD)
	}
	if _, err := json.Marshal(d); err != nil {
		t.Errorf("marshal: %v", err)
	}
}

func TestSummaryJSON(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want string
	}{
		{"insufficient", Input{Mint: "M"},
			`{"score":0,"grade":"C","label":"Insufficient Data","tone":"info","isTrustedLaunch":false,"caps":[],"hasInsufficientData":true,"insufficientDataReason":"Market snapshot not available in cache"}`},
		{"scored without caps", Input{Market: major()},
			`{"score":90,"grade":"A","label":"Established","tone":"success","isTrustedLaunch":false,"caps":[],"hasInsufficientData":false}`},
		{"capped", Input{Market: major(), Advisory: advisory("blocked")},
			`{"score":0,"grade":"C","label":"Weak Metrics","tone":"danger","isTrustedLaunch":false,"caps":[{"rule":"advisory_blocked","max":0,"reason":"Flagged by the operator: blocked"}],"hasInsufficientData":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(Score(tt.in).Summary)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
		})
	}
}

func TestDetailsJSON(t *testing.T) {
	b, err := json.Marshal(Score(Input{Mint: "M"}))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	wantRaw := map[string]string{
		"score": "0", "grade": `"C"`, "caps": "[]", "hasInsufficientData": "true",
		"modelVersion": `"assetd-risk-v1"`, "rawScore": "null", "borderlineSignals": "[]",
	}
	for k, v := range wantRaw {
		if string(got[k]) != v {
			t.Errorf("%s = %s, want %s", k, got[k], v)
		}
	}
	var comps []map[string]any
	if err := json.Unmarshal(got["components"], &comps); err != nil || len(comps) != 5 {
		t.Fatalf("components = %s (%v)", got["components"], err)
	}
	for _, k := range []string{"name", "score", "weight", "hasData", "value", "basis"} {
		if _, ok := comps[0][k]; !ok {
			t.Errorf("component lacks %q", k)
		}
	}
	var inputs map[string]any
	if err := json.Unmarshal(got["inputs"], &inputs); err != nil {
		t.Fatal(err)
	}
	keys := []string{"liquidity", "marketCap", "volume24hUSD", "volume7dUSD", "trade24h", "uniqueWallet24h", "holders",
		"priceChange24hPercent", "priceChange1hPercent", "tokenAgeDays", "top10Share", "advisoryStatus", "exempt", "trustedList", "marketAsOf"}
	for _, k := range keys {
		v, ok := inputs[k]
		if !ok {
			t.Errorf("inputs lack %q", k)
		} else if k != "exempt" && k != "trustedList" && v != nil {
			t.Errorf("inputs.%s = %v, want null", k, v)
		}
	}
	if len(inputs) != len(keys) {
		t.Errorf("inputs has %d keys, want %d: %v", len(inputs), len(keys), inputs)
	}
	if strings.Contains(string(b), "Summary") {
		t.Errorf("Summary is not flattened: %s", b)
	}
}
