package curator

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// The reference golden set's clock.
var now = time.Date(2026, 7, 5, 12, 0, 0, 0, time.UTC)

// Synthetic mints (base58 shapes, not real tokens), except usdcMint.
const (
	usdcMint    = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	fakeUSDC    = "FakeUSDC11111111111111111111111111111111111"
	glyphUSDC   = "GyphUSDC11111111111111111111111111111111111"
	dogMint     = "Dog111111111111111111111111111111111111111"
	youngMint   = "Young11111111111111111111111111111111111111"
	badMint     = "Bad1111111111111111111111111111111111111111"
	ondoMint    = "Tsa1111111111111111111111111111111111111111"
	tombMint    = "Tomb111111111111111111111111111111111111111"
	cautionMint = "Caution1111111111111111111111111111111111111"
)

func mkt(liq, vol float64) *asset.Market {
	asOf := now.Add(-time.Minute).UnixMilli()
	return &asset.Market{Price: ptr(1.0), Liquidity: &liq, Volume24hUSD: &vol, LastFetchedAt: &asOf}
}

func days(d float64) *float64 { return &d }

func usdc() Candidate {
	return Candidate{Mint: usdcMint, Symbol: "USDC", Name: "USD Coin", Registry: &RegistryClaim{AssetID: "usdc", Kind: asset.KindStablecoin, TrustTier: "tier1", Claimed: []string{"USDC"}},
		CuratedLists: []string{"currencies"}, Market: mkt(50_000_000, 100_000_000), AgeDays: days(1500)}
}

// protectedUSDC protects USDC as the registry does.
func protectedUSDC() *Protected {
	p := &Protected{assets: []registry.Asset{{AssetID: "usdc", Variants: []registry.Variant{{Mint: usdcMint}}}}}
	syms, names := newClaimsBuilder(1), newClaimsBuilder(minNameKey)
	p.add(syms, "USDC", source{kind: srcRegistry})
	p.add(names, "USD Coin", source{kind: srcRegistry})
	p.symbols, p.names = syms.build(), names.build()
	return p
}

func judge(t *testing.T, q, policy string, cands ...Candidate) Outcome {
	t.Helper()
	return Judge(Interpret(q), cands, Policies[policy], protectedUSDC(), DefaultLimit, now)
}

func find(o Outcome, mint string) (*Result, *Suppressed) {
	for i := range o.Results {
		if o.Results[i].Mint == mint {
			return &o.Results[i], nil
		}
	}
	for i := range o.Suppressed {
		if o.Suppressed[i].Mint == mint {
			return nil, &o.Suppressed[i]
		}
	}
	return nil, nil
}

func TestGoldenImpostors(t *testing.T) {
	fake := Candidate{Mint: fakeUSDC, Symbol: "USDC", Name: "USD Coin", Market: mkt(5_000, 1_000), AgeDays: days(3)}
	glyph := Candidate{Mint: glyphUSDC, Symbol: "USD\u0421", Name: "USD Coin", Market: mkt(20_000, 5_000), AgeDays: days(10)}
	for _, pol := range []string{PolicyStrict, PolicyDefault} {
		o := judge(t, "USDC", pol, usdc(), fake, glyph)
		if len(o.Results) != 1 || o.Results[0].Mint != usdcMint {
			t.Fatalf("%s: results %+v, want real USDC only", pol, o.Results)
		}
		for _, m := range []string{fakeUSDC, glyphUSDC} {
			_, s := find(o, m)
			if s == nil || !slices.Contains(s.SuppressedBy, GateImpersonation) {
				t.Errorf("%s: %s not suppressed by gate_impersonation: %+v", pol, m, s)
			}
		}
	}
	o := judge(t, "USDC", PolicyDegen, usdc(), fake, glyph)
	if len(o.Results) != 3 || o.Results[0].Mint != usdcMint {
		t.Fatalf("degen: %+v", o.Results)
	}
	for _, r := range o.Results[1:] {
		if o.Results[0].Score.Total-r.Score.Total <= 25 || !slices.Contains(r.Warnings, WarnImpersonation) {
			t.Errorf("degen: impostor %s scored %d vs %d, warnings %v", r.Mint, r.Score.Total, o.Results[0].Score.Total, r.Warnings)
		}
	}
	if r, _ := find(o, glyphUSDC); !slices.Contains(r.Warnings, WarnSuspiciousChars) {
		t.Errorf("homoglyph without suspicious_characters: %v", r.Warnings)
	}
}

func TestGoldenHomoglyphQuery(t *testing.T) {
	in := Interpret("USD\u0421")
	if in.Intent != IntentTicker || in.NormalizedQuery != "USDC" || !in.HadSuspiciousCharacters {
		t.Fatalf("Interpret = %+v", in)
	}
	o := judge(t, "USD\u0421", PolicyStrict, usdc())
	if len(o.Results) != 1 || o.Results[0].Mint != usdcMint || !slices.Contains(o.Results[0].Reasons, ReasonExactSymbol) {
		t.Fatalf("results %+v", o.Results)
	}
}

func TestGoldenDust(t *testing.T) {
	dust := Candidate{Mint: dogMint, Symbol: "DOG", Name: "Dog", Market: mkt(50, 10), AgeDays: days(200)}
	o := judge(t, "dog", PolicyDefault, dust)
	if _, s := find(o, dogMint); s == nil || !slices.Equal(s.SuppressedBy, []string{GateMinLiquidity}) {
		t.Fatalf("default: %+v", o)
	}
	o = judge(t, "dog", PolicyDegen, dust)
	if r, _ := find(o, dogMint); r == nil || !slices.Contains(r.Warnings, WarnLowLiquidity) {
		t.Fatalf("degen: %+v", o)
	}
}

func TestGoldenYoungSurvivesStrict(t *testing.T) {
	young := Candidate{Mint: youngMint, Symbol: "YNG", Name: "Young", Market: mkt(50_000, 20_000), AgeDays: days(4)}
	o := judge(t, "YNG", PolicyStrict, young)
	if r, _ := find(o, youngMint); r == nil || !slices.Contains(r.Warnings, WarnNewToken) {
		t.Fatalf("strict: %+v", o)
	}
	baby := young
	baby.AgeDays = days(0.5)
	o = judge(t, "YNG", PolicyStrict, baby)
	if _, s := find(o, youngMint); s == nil || !slices.Equal(s.SuppressedBy, []string{GateNewToken}) {
		t.Fatalf("half-day-old under strict: %+v", o)
	}
}

func TestGoldenAdvisories(t *testing.T) {
	for _, tc := range []struct{ status, gate string }{
		{asset.AdvisoryCompromised, GateAdvisoryCompromise},
		{asset.AdvisoryBlocked, GateAdvisoryBlocked},
	} {
		c := Candidate{Mint: badMint, Symbol: "BAD", Name: "Bad", Market: mkt(5_000_000, 1_000_000), AgeDays: days(400),
			Advisory: &asset.Advisory{Status: tc.status, Reason: "test"}}
		// Also a dust, no-data variant: still exactly the advisory gate.
		dust := c
		dust.Market, dust.AgeDays = nil, nil
		for _, pol := range PolicyNames {
			for _, cand := range []Candidate{c, dust} {
				o := judge(t, "BAD", pol, cand)
				if _, s := find(o, badMint); s == nil || !slices.Equal(s.SuppressedBy, []string{tc.gate}) {
					t.Errorf("%s under %s: %+v", tc.status, pol, o)
				}
			}
		}
	}
	caution := Candidate{Mint: cautionMint, Symbol: "CAU", Name: "Caution", Market: mkt(5_000_000, 1_000_000), AgeDays: days(400),
		Advisory: &asset.Advisory{Status: asset.AdvisoryCaution, Reason: "depeg"}}
	for _, pol := range PolicyNames {
		o := judge(t, "CAU", pol, caution)
		r, _ := find(o, cautionMint)
		if r == nil || !slices.Contains(r.Warnings, WarnAdvisoryCaution) || !slices.Contains(r.Badges, "advisory:caution") {
			t.Errorf("caution under %s: %+v", pol, o)
		}
	}
}

func TestGoldenRegistryLowLiquidity(t *testing.T) {
	ondo := Candidate{Mint: ondoMint, Symbol: "TSLAon", Name: "Tesla (Ondo)", Registry: &RegistryClaim{AssetID: "tesla", Kind: asset.KindTokenizedEquity, Claimed: []string{"TSLAon"}},
		Market: mkt(251, 100), AgeDays: days(30)}
	for _, pol := range PolicyNames {
		o := judge(t, "TSLAon", pol, ondo)
		r, _ := find(o, ondoMint)
		if r == nil || !slices.Contains(r.Warnings, WarnLowLiquidity) || !r.Verified {
			t.Errorf("%s: %+v", pol, o)
		}
	}
}

func TestTombstoned(t *testing.T) {
	c := Candidate{Mint: tombMint, Symbol: "TMB", Name: "Tomb", Market: mkt(5_000_000, 1_000_000), Tombstoned: true}
	for _, pol := range PolicyNames {
		if _, s := find(judge(t, "TMB", pol, c), tombMint); s == nil || !slices.Equal(s.SuppressedBy, []string{GateTombstoned}) {
			t.Errorf("%s: tombstone shown", pol)
		}
	}
}

func TestDeterministicOrderAndBounds(t *testing.T) {
	var cands []Candidate
	for _, m := range []string{"Ccc1111111111111111111111111111111111111111", "Aaa1111111111111111111111111111111111111111", "Bbb1111111111111111111111111111111111111111"} {
		cands = append(cands, Candidate{Mint: m, Symbol: "TIE", Name: "Tie", Market: mkt(50_000, 20_000), AgeDays: days(100)})
	}
	o := judge(t, "TIE", PolicyDegen, cands...)
	got := []string{o.Results[0].Mint, o.Results[1].Mint, o.Results[2].Mint}
	if !slices.IsSorted(got) {
		t.Errorf("ties not ordered by mint: %v", got)
	}
	var many []Candidate
	for i := range MaxSuppressed + 20 {
		many = append(many, Candidate{Mint: string(rune('A'+i%26)) + string(rune('a'+i/26)) + "11111111111111111111111111111111111111111", Symbol: "D", Name: "d"})
	}
	o = judge(t, "D", PolicyStrict, many...)
	if len(o.Suppressed) != MaxSuppressed || o.SuppressedTotal != MaxSuppressed+20 {
		t.Errorf("suppressed %d of %d", len(o.Suppressed), o.SuppressedTotal)
	}
}

func TestDominance(t *testing.T) {
	leader := Candidate{Mint: "Lead111111111111111111111111111111111111111", Symbol: "WOOF", Name: "Woof", Market: mkt(3_000_000, 500_000), AgeDays: days(300)}
	copycat := Candidate{Mint: "Copy111111111111111111111111111111111111111", Symbol: "WOOF", Name: "Woof 2", Market: mkt(20_000, 1_000), AgeDays: days(20)}
	o := judge(t, "WOOF", PolicyDegen, leader, copycat)
	if r, _ := find(o, leader.Mint); r == nil || !slices.Contains(r.Reasons, ReasonMarketLeader) {
		t.Fatalf("leader: %+v", o.Results)
	}
	if r, _ := find(o, copycat.Mint); r == nil || r.Claims.Verdict != VerdictImpersonation {
		t.Fatalf("copycat: %+v", o.Results)
	}
	// Contested (ratio < 10): nobody is protected.
	copycat.Market = mkt(1_000_000, 1_000)
	o = judge(t, "WOOF", PolicyDegen, leader, copycat)
	for _, r := range o.Results {
		if r.Claims.Verdict != VerdictNone {
			t.Errorf("contested symbol judged %s for %s", r.Claims.Verdict, r.Mint)
		}
	}
}

func TestIntent(t *testing.T) {
	for q, want := range map[string]string{
		usdcMint: IntentMint, "dog": IntentTicker, "$bonk": IntentTicker, "USD Coin": IntentName, "averyveryverylongword": IntentName, "S0L": IntentTicker,
	} {
		if got := Interpret(q).Intent; got != want {
			t.Errorf("Interpret(%q).Intent = %s, want %s", q, got, want)
		}
	}
}

func TestProtectedHolders(t *testing.T) {
	mints := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("mint-%02d", i)
		}
		return out
	}
	tests := []struct {
		name    string
		add     []string // holders added, in order (repeats included)
		holds   []string
		notHeld []string
	}{
		{"one", []string{"a"}, []string{"a"}, []string{"b", ""}},
		{"repeat", []string{"a", "a", "b", "a", "b"}, []string{"a", "b"}, []string{"c"}},
		{"at the set threshold", mints(manyHolders + 1), mints(manyHolders + 1), []string{"mint-99"}},
		{"past it", append(mints(manyHolders+5), mints(3)...), mints(manyHolders + 5), []string{"mint-99"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Protected{}
			for i, m := range tt.add {
				p.assets = append(p.assets, registry.Asset{AssetID: fmt.Sprint("first-", i), Variants: []registry.Variant{{Mint: m}}})
			}
			b := newClaimsBuilder(1)
			for i := range tt.add {
				p.add(b, "SYN", source{kind: srcRegistry, i: uint32(i)})
			}
			p.symbols = b.build()
			e, ok := p.symbol(tokenindex.CollisionKey(tokenindex.Key("SYN")))
			if !ok || p.protector(e.first) != "registry:first-0" {
				t.Fatalf("entry %+v %v, want protected by the first protector", e, ok)
			}
			for _, m := range tt.holds {
				if !p.holds(e, m) {
					t.Errorf("holds(%q) false", m)
				}
			}
			for _, m := range tt.notHeld {
				if p.holds(e, m) {
					t.Errorf("holds(%q) true", m)
				}
			}
			if n := p.holderCount(e); n != len(tt.holds) {
				t.Errorf("%d holders, want %d distinct", n, len(tt.holds))
			}
		})
	}
}

// TestVouchedBypassMarketGates: registry variants and tokens with an
// external listing id (a coingecko id) pass gate_no_market_data and
// gate_min_liquidity with the no_market_data / low_liquidity warning;
// other tokens are gated.
func TestVouchedBypassMarketGates(t *testing.T) {
	reg := &RegistryClaim{AssetID: "syn", Kind: asset.KindNative, Claimed: []string{"SYNV"}}
	tests := []struct {
		name     string
		reg      *RegistryClaim
		cg       string
		market   *asset.Market
		policy   string
		shown    bool
		wantWarn string
		gates    []string
	}{
		{"registry, no data, strict", reg, "", nil, PolicyStrict, true, WarnNoMarketData, nil},
		{"listed, no data, strict", nil, "syn-coin", nil, PolicyStrict, true, WarnNoMarketData, nil},
		{"listed, no data, default", nil, "syn-coin", nil, PolicyDefault, true, WarnNoMarketData, nil},
		{"unlisted, no data, strict", nil, "", nil, PolicyStrict, false, WarnNoMarketData, []string{GateNoMarketData, GateMinLiquidity}},
		{"unlisted, no data, default", nil, "", nil, PolicyDefault, false, WarnNoMarketData, []string{GateMinLiquidity}},
		{"registry, dust, strict", reg, "", mkt(500, 100), PolicyStrict, true, WarnLowLiquidity, nil},
		{"listed, dust, strict", nil, "syn-coin", mkt(500, 100), PolicyStrict, true, WarnLowLiquidity, nil},
		{"unlisted, dust, strict", nil, "", mkt(500, 100), PolicyStrict, false, WarnLowLiquidity, []string{GateMinLiquidity}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Candidate{Mint: youngMint, Symbol: "SYNV", Name: "Synthetic vouched", Registry: tt.reg, CoingeckoID: tt.cg, Market: tt.market, AgeDays: days(400)}
			o := judge(t, "SYNV", tt.policy, c)
			r, s := find(o, youngMint)
			switch {
			case tt.shown && (r == nil || !slices.Contains(r.Warnings, tt.wantWarn)):
				t.Fatalf("want shown with %s: %+v", tt.wantWarn, o)
			case !tt.shown && (s == nil || !slices.Equal(s.SuppressedBy, tt.gates) || !slices.Contains(s.Warnings, tt.wantWarn)):
				t.Fatalf("want suppressed by %v with %s: %+v", tt.gates, tt.wantWarn, o)
			}
		})
	}
}

// TestSuppressedByRelevance: suppressed[] is ordered like results (score
// desc, liquidity desc, mint asc), holds every gated candidate up to
// MaxSuppressed (above the 181 copies of WIF) and reports the total.
func TestSuppressedByRelevance(t *testing.T) {
	if MaxSuppressed < 2*181 {
		t.Fatalf("MaxSuppressed %d is not well above the 181 copies of WIF", MaxSuppressed)
	}
	exact := func(mint string, liq float64) Candidate {
		return Candidate{Mint: mint, Symbol: "RELV", Name: "Relevant", Market: mkt(liq, 100)}
	}
	weak := Candidate{Mint: "Aaa1111111111111111111111111111111111111111", Symbol: "ZZZ", Name: "Other", Market: mkt(900, 100)}
	cands := []Candidate{weak, exact("Ccc1111111111111111111111111111111111111111", 500), exact("Bbb1111111111111111111111111111111111111111", 500),
		exact("Ddd1111111111111111111111111111111111111111", 700)}
	for i := range 200 {
		cands = append(cands, Candidate{Mint: fmt.Sprintf("Copy%039d", i), Symbol: "RELV", Name: "Copy", Market: mkt(10, 1)})
	}
	o := judge(t, "RELV", PolicyDefault, cands...)
	if len(o.Suppressed) != len(cands) || o.SuppressedTotal != len(cands) {
		t.Fatalf("suppressed %d of %d, want all %d", len(o.Suppressed), o.SuppressedTotal, len(cands))
	}
	got := []string{o.Suppressed[0].Mint, o.Suppressed[1].Mint, o.Suppressed[2].Mint}
	want := []string{cands[3].Mint, cands[2].Mint, cands[1].Mint}
	if !slices.Equal(got, want) {
		t.Errorf("first suppressed %v, want %v (score, then liquidity, then mint)", got, want)
	}
	if !slices.IsSortedFunc(o.Suppressed, func(a, b Suppressed) int { return b.Score - a.Score }) {
		t.Error("suppressed not ordered by score")
	}
}
