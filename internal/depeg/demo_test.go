package depeg_test

import (
	"context"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/demo"
	"github.com/assetd/assetd/internal/depeg"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/storage/sqlite"
)

// worldFeed prices a mint from the demo world's snapshot (the market
// source serve's feed reads through the market cache).
type worldFeed struct{ w *demo.World }

func (f worldFeed) Quotes(ctx context.Context, mint string) []depeg.Quote {
	toks, err := f.w.Snapshots(ctx, []string{mint})
	if err != nil {
		return nil
	}
	t, ok := toks[mint]
	if !ok || t.Market.Price == nil {
		return nil
	}
	q := depeg.Quote{Source: "market", PriceUSD: *t.Market.Price}
	if t.Market.Liquidity != nil {
		q.LiquidityUSD = *t.Market.Liquidity
	}
	return []depeg.Quote{q}
}

// TestDemoSyntheticDepeg: the demo world's synthetic stablecoin leaves its
// peg 60 minutes into a cycle and returns at 100; on an injected clock the
// guard confirms it at 70 (health warning, a caution advisory in the feed
// and in the advisory index every surface annotates from), and clears it
// after the 30-minute cooldown, at 130. No other stablecoin of the seed
// flags.
func TestDemoSyntheticDepeg(t *testing.T) {
	ctx := context.Background()
	seed, err := registry.Seed()
	if err != nil {
		t.Fatal(err)
	}
	snap, _, err := registry.Build(seed, demo.SyntheticStablecoin())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000/demo.DepegCycle*demo.DepegCycle+100*demo.DepegCycle, 0).UTC() // a cycle start
	clock := func() time.Time { return now }
	world := demo.New(demo.Config{Assets: snap.Assets(), Now: clock})
	st, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	adv := lists.NewAdvisories(st, clock)
	idx := lists.NewAdvisoryIndex(st)
	g := depeg.New(depeg.Options{Coins: func() []depeg.Coin { return depeg.Coins(snap) }, Feed: worldFeed{world}, Adv: adv, Now: clock})
	mint := demo.SyntheticStablecoinMint
	var flaggedAt, clearedAt time.Duration = -1, -1
	var sawWarning bool
	for m := range 140 {
		if err := g.Cycle(ctx); err != nil {
			t.Fatalf("minute %d: %v", m, err)
		}
		if err := idx.Reload(ctx); err != nil {
			t.Fatal(err)
		}
		a := idx.Get(mint)
		at := time.Duration(m) * time.Minute
		if a != nil && flaggedAt < 0 {
			flaggedAt = at
			if a.Status != asset.AdvisoryCaution {
				t.Fatalf("advisory %+v", a)
			}
			h, ok := g.Health(mint)
			if !ok || h.Tier != depeg.TierWarning || h.DeviationPct == nil || *h.DeviationPct > -3.7 || h.Stale || h.PegCurrency != "USD" {
				t.Fatalf("health at %s: %+v", at, h)
			}
			sawWarning = true
		}
		if a == nil && flaggedAt >= 0 && clearedAt < 0 {
			clearedAt = at
		}
		now = now.Add(time.Minute)
	}
	if !sawWarning || flaggedAt != 70*time.Minute || clearedAt != 130*time.Minute {
		t.Fatalf("flagged at %s, cleared at %s; want 1h10m0s and 2h10m0s", flaggedAt, clearedAt)
	}
	evs, _, err := adv.Events(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[0].Mint != mint || evs[0].Action != lists.ActionSet || evs[0].Source() != lists.SourceDepegGuard ||
		evs[1].Action != lists.ActionLifted || evs[1].Mint != mint {
		t.Fatalf("feed: %+v", evs)
	}
	if h, _ := g.Health(mint); h.Tier != depeg.TierOK {
		t.Fatalf("after recovery: %+v", h)
	}
}
