package risk

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
)

// Bits of the fuzz "present" mask: which optional inputs are non-nil.
const (
	hasMarket = 1 << iota
	hasLiq
	hasMcap
	hasVol
	hasWallets
	hasHolders
	hasCh24
	hasCh1
	hasAge
	hasTop10
	isExempt
	isTrusted
	isSOL
)

// FuzzScore checks the model's invariants on arbitrary inputs, including
// NaN, ±Inf, negative and huge numbers.
func FuzzScore(f *testing.F) {
	all := uint16(1<<13 - 1)
	nan, inf := math.NaN(), math.Inf(1)
	seeds := []struct {
		present                                                 uint16
		advisory                                                uint8
		liq, mcap, vol, wallets, holders, ch24, ch1, age, top10 float64
	}{
		{all &^ isSOL &^ isExempt, 0, 50e6, 1e9, 40e6, 30_000, 0, 2, 0.1, 400, 0.3},
		{all &^ isSOL, 1, 40_000, 2e6, 30_000, 300, 10, -12, 1, 10, 0.85},
		{all, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		{hasMarket, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{all &^ isSOL, 4, nan, nan, nan, nan, nan, nan, nan, nan, nan},
		{all &^ isSOL, 0, inf, -inf, inf, inf, -inf, inf, -inf, inf, inf},
		{all &^ isSOL, 0, math.MaxFloat64, math.SmallestNonzeroFloat64, math.MaxFloat64, math.MaxFloat64, 5, -math.MaxFloat64, math.MaxFloat64, -1, -1},
		{all &^ isSOL, 0, -1e6, -1e6, -1e6, -1e6, -1e6, -1e6, -1e6, -1e6, 2},
		{all &^ isSOL &^ hasAge &^ hasTop10, 0, 150_000, 400_000, 1_000, 0, 300, 4, 0, 0, 0},
	}
	for _, s := range seeds {
		f.Add(s.present, s.advisory, s.liq, s.mcap, s.vol, s.wallets, s.holders, s.ch24, s.ch1, s.age, s.top10)
	}
	f.Fuzz(func(t *testing.T, present uint16, adv uint8, liq, mcap, vol, wallets, holders, ch24, ch1, age, top10 float64) {
		opt := func(bit uint16, v float64) *float64 {
			if present&bit == 0 {
				return nil
			}
			return &v
		}
		in := Input{
			Mint:         "Mint1111111111111111111111111111111111111",
			Exempt:       present&isExempt != 0,
			TrustedList:  present&isTrusted != 0,
			TokenAgeDays: opt(hasAge, age),
			Top10Share:   opt(hasTop10, top10),
		}
		if present&isSOL != 0 {
			in.Mint = solMint
		}
		if present&hasMarket != 0 {
			in.Market = &asset.Market{
				Liquidity:             opt(hasLiq, liq),
				MarketCap:             opt(hasMcap, mcap),
				Volume24hUSD:          opt(hasVol, vol),
				UniqueWallet24h:       opt(hasWallets, wallets),
				Holders:               opt(hasHolders, holders),
				PriceChange24hPercent: opt(hasCh24, ch24),
				PriceChange1hPercent:  opt(hasCh1, ch1),
			}
		}
		statuses := []string{"", asset.AdvisoryCaution, asset.AdvisoryCompromised, asset.AdvisoryBlocked, "bogus"}
		if st := statuses[int(adv)%len(statuses)]; st != "" {
			in.Advisory = &asset.Advisory{Status: st}
		}

		d := Score(in)
		checkInvariants(t, in, d)
	})
}

// checkInvariants asserts what must hold for every result.
func checkInvariants(t *testing.T, in Input, d Details) {
	t.Helper()
	if d.Score < 0 || d.Score > 100 {
		t.Fatalf("score %d out of range", d.Score)
	}
	if d.Caps == nil || d.BorderlineSignals == nil || len(d.Components) != 5 {
		t.Fatalf("nil caps/signals or %d components", len(d.Components))
	}
	if _, err := json.Marshal(d); err != nil {
		t.Fatalf("marshal: %v", err)
	}
	if d.ModelVersion != ModelVersion {
		t.Fatalf("model version %q", d.ModelVersion)
	}
	weights := 0.0
	for _, c := range d.Components {
		weights += c.Weight
		if math.IsNaN(c.Score) || c.Score < 0 || c.Score > 100 {
			t.Fatalf("%s score %v", c.Name, c.Score)
		}
		if c.Value != nil && (math.IsNaN(*c.Value) || math.IsInf(*c.Value, 0)) {
			t.Fatalf("%s value %v", c.Name, *c.Value)
		}
	}
	if weights != 100 {
		t.Fatalf("weights sum to %v", weights)
	}

	if d.HasInsufficientData {
		want := insufficient(d.InsufficientDataReason)
		if d.InsufficientDataReason == "" || d.RawScore != nil || len(d.Caps) != 0 || d.Score != want.Score ||
			d.Grade != want.Grade || d.Label != want.Label || d.Tone != want.Tone || d.IsTrustedLaunch {
			t.Fatalf("insufficient-data result %+v", d.Summary)
		}
		if in.Market != nil && in.Mint == solMint {
			t.Fatal("SOL with a snapshot reported insufficient data")
		}
		return
	}
	if in.Market == nil {
		t.Fatal("scored without a snapshot")
	}
	if d.InsufficientDataReason != "" || d.RawScore == nil || *d.RawScore < 0 || *d.RawScore > 100 {
		t.Fatalf("scored result has reason %q / raw %v", d.InsufficientDataReason, d.RawScore)
	}

	grade, label, tone := "C", "Weak Metrics", "danger"
	switch {
	case d.Score >= 85:
		grade, label, tone = "A", "Established", "success"
	case d.Score >= 70:
		grade, label, tone = "B", "Speculative", "warning"
		if d.IsTrustedLaunch {
			label = "Trusted Launch"
		}
	}
	if d.Grade != grade || d.Label != label || d.Tone != tone {
		t.Fatalf("score %d graded %s/%s/%s, want %s/%s/%s", d.Score, d.Grade, d.Label, d.Tone, grade, label, tone)
	}

	// Each listed cap lowered the score it met: caps are strictly
	// decreasing from the raw score, except that the trusted-launch floor
	// may lift the score before the advisory cap, which comes last.
	prev := *d.RawScore
	for i, c := range d.Caps {
		if c.Rule == "" || c.Reason == "" {
			t.Fatalf("cap %+v lacks rule or reason", c)
		}
		if strings.HasPrefix(c.Rule, "advisory_") {
			if i != len(d.Caps)-1 {
				t.Fatalf("advisory cap %+v is not last in %+v", c, d.Caps)
			}
			if d.IsTrustedLaunch {
				prev = max(prev, 70)
			}
		}
		if c.Max >= prev {
			t.Fatalf("cap %+v did not lower %d", c, prev)
		}
		prev = c.Max
	}
	advisoryCap := 100
	if in.Advisory != nil {
		switch in.Advisory.Status {
		case asset.AdvisoryCaution:
			advisoryCap = 69
		case asset.AdvisoryCompromised:
			advisoryCap = 20
		case asset.AdvisoryBlocked:
			advisoryCap = 0
		}
	}
	if d.Score > advisoryCap {
		t.Fatalf("score %d above advisory cap %d", d.Score, advisoryCap)
	}
	if !d.IsTrustedLaunch {
		if d.Score > *d.RawScore {
			t.Fatalf("score %d above raw %d without trusted launch", d.Score, *d.RawScore)
		}
		for _, c := range d.Caps {
			if d.Score > c.Max {
				t.Fatalf("score %d above cap %+v", d.Score, c)
			}
		}
	} else if d.Score < min(70, advisoryCap) {
		t.Fatalf("trusted launch scored %d below the floor", d.Score)
	}
	if in.Mint == solMint && d.Score != min(100, advisoryCap) {
		t.Fatalf("SOL scored %d", d.Score)
	}
}
