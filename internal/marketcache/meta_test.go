package marketcache

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

type fakeMeta struct{ calls atomic.Int64 }

func (f *fakeMeta) Lookup(_ context.Context, mints []string) (map[string]market.TokenMeta, error) {
	f.calls.Add(1)
	out := map[string]market.TokenMeta{}
	for _, m := range mints {
		if m == mintB {
			out[m] = market.TokenMeta{Mint: m, Symbol: "USDC", Name: "USD Coin"}
		}
	}
	return out, nil
}

func (f *fakeMeta) Search(context.Context, string, int) ([]market.TokenMeta, error) { return nil, nil }

func TestTokenIdentity(t *testing.T) {
	p := &fakeProvider{source: asset.SourceMarketDataA, prices: map[string]float64{mintA: 1}}
	meta := &fakeMeta{}
	c, _ := newTestCache(p)
	c.o.Metadata = meta
	// From the snapshot's token metadata.
	c.Token(mintA)
	c.Flush(context.Background())
	if sym, _, ok := c.TokenIdentity(mintA); !ok || sym != "SYM" {
		t.Fatalf("identity from snapshot: %q %v", sym, ok)
	}
	// From the metadata provider: cold first, then cached; unknown cached too.
	if _, _, ok := c.TokenIdentity(mintB); ok {
		t.Fatal("cold identity answered before a lookup")
	}
	c.TokenIdentity("unknownmint")
	c.Flush(context.Background())
	if sym, name, ok := c.TokenIdentity(mintB); !ok || sym != "USDC" || name != "USD Coin" {
		t.Fatalf("identity from metadata: %q %q %v", sym, name, ok)
	}
	c.TokenIdentity("unknownmint")
	c.Flush(context.Background())
	if n := meta.calls.Load(); n != 2 {
		t.Fatalf("metadata lookups %d; want 2 (one per mint, unknown answers cached)", n)
	}
}
