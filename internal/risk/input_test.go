package risk

import (
	"slices"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

type fakeMarkets struct {
	tokens map[string]market.Token
	pools  map[string][]market.DEXMarket
}

func (f fakeMarkets) Token(m string) (market.Token, bool) { t, ok := f.tokens[m]; return t, ok }
func (f fakeMarkets) DEXMarkets(m string) ([]market.DEXMarket, time.Time, bool) {
	p, ok := f.pools[m]
	return p, time.Time{}, ok
}

type fakeCurated map[string][]string

func (f fakeCurated) InCuratedList(m string, ids ...string) bool {
	for _, id := range ids {
		if slices.Contains(f[m], id) {
			return true
		}
	}
	return false
}

type fakeAdvisories map[string]*asset.Advisory

func (f fakeAdvisories) Get(m string) *asset.Advisory { return f[m] }

func TestGathererInput(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	day := int64(86400)
	old, young, zero := now.Unix()-10*day, now.Unix()-2*day, int64(0)
	liq := 5e6
	adv := &asset.Advisory{Status: asset.AdvisoryCaution, Reason: "synthetic"}
	g := Gatherer{
		Markets: fakeMarkets{tokens: map[string]market.Token{"A": {Mint: "A", Market: asset.Market{Liquidity: &liq}}},
			pools: map[string][]market.DEXMarket{"A": {{CreatedAt: &young}, {CreatedAt: &old}, {CreatedAt: &zero}, {}}}},
		Curated:    fakeCurated{"A": {"stocks"}, "B": {"majors"}},
		Advisories: fakeAdvisories{"B": adv},
		Now:        func() time.Time { return now },
	}
	a := g.Input("A")
	if a.Market == nil || *a.Market.Liquidity != liq || !a.Exempt || !a.TrustedList || a.Advisory != nil {
		t.Fatalf("A: %+v", a)
	}
	if a.TokenAgeDays == nil || *a.TokenAgeDays != 10 {
		t.Errorf("A age %v; want 10 (oldest pool with a positive creation time)", a.TokenAgeDays)
	}
	b := g.Input("B")
	if b.Market != nil || b.Exempt || !b.TrustedList || b.Advisory != adv || b.TokenAgeDays != nil {
		t.Errorf("B: %+v", b)
	}
	if d := g.Assess("B"); !d.HasInsufficientData {
		t.Errorf("B without a snapshot must be insufficient data: %+v", d.Summary)
	}
	if in := (Gatherer{}).Input("C"); in.Mint != "C" || in.Market != nil {
		t.Errorf("zero gatherer: %+v", in)
	}
}
