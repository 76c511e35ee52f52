package decimals

import (
	"testing"

	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

type chainMap map[string]int

func (c chainMap) Decimals(m string) (int, bool) { d, ok := c[m]; return d, ok }

type marketMap map[string]int

func (c marketMap) Token(m string) (market.Token, bool) {
	d, ok := c[m]
	if !ok {
		return market.Token{}, false
	}
	return market.Token{Mint: m, Decimals: &d}, true
}

// TestResolveOrder: the registry wins, then the chain, then the token
// index, then the market cache; implausible values are skipped.
func TestResolveOrder(t *testing.T) {
	seed, err := registry.Seed()
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := registry.Build(seed)
	if err != nil {
		t.Fatal(err)
	}
	const usdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	r := &Resolver{Registry: func() *registry.Snapshot { return snap },
		Chain:   chainMap{usdc: 9, "a": 5, "bad": 40},
		Markets: marketMap{"a": 7, "b": 8, "bad": 2}}
	for _, tc := range []struct {
		mint, src string
		d         int
		ok        bool
	}{
		{usdc, SourceRegistry, 6, true},
		{"a", SourceChain, 5, true},
		{"b", SourceMarkets, 8, true},
		{"bad", SourceMarkets, 2, true},
		{"none", "", 0, false},
	} {
		d, src, ok := r.Resolve(tc.mint)
		if d != tc.d || src != tc.src || ok != tc.ok {
			t.Errorf("%s: %d %s %v; want %d %s %v", tc.mint, d, src, ok, tc.d, tc.src, tc.ok)
		}
	}
	var nilR *Resolver
	if _, ok := nilR.Decimals(usdc); ok {
		t.Error("nil resolver answered")
	}
}
