package simrouter

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/demo"
	"github.com/assetd/assetd/internal/execution"
	"github.com/assetd/assetd/internal/registry"
)

const cbBTC = "cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij"

func routers(t *testing.T) []execution.Provider {
	t.Helper()
	snap, err := registry.SeedSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	return routersOver(t, snap)
}

func routersOver(_ testing.TB, snap *registry.Snapshot) []execution.Provider {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	w := demo.New(demo.Config{Assets: snap.Assets(), Now: func() time.Time { return now }})
	return New(w, func(m string) (int, bool) {
		if _, v, ok := snap.VariantByMint(m); ok && v.Decimals != nil {
			return *v.Decimals, true
		}
		return 0, false
	})
}

func usd(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000)) }

// TestQuotes: both routers quote the demo pools with concave output (the
// average price worsens with size), visibly synthetic ids, and the cheap
// shallow router wins small sizes while the deep one wins large sizes.
func TestQuotes(t *testing.T) {
	rs := routers(t)
	if rs[0].ID() != "simulated_a" || rs[1].ID() != "simulated_b" {
		t.Fatalf("ids %s %s", rs[0].ID(), rs[1].ID())
	}
	ctx := context.Background()
	outs := map[string][]*big.Int{}
	for _, r := range rs {
		var prevPerDollar *big.Rat
		for _, size := range []int64{1_000, 10_000, 1_000_000, 20_000_000} {
			q, err := r.Quote(ctx, execution.QuoteRequest{InputMint: execution.USDCMint, OutputMint: cbBTC, Amount: usd(size)})
			if err != nil {
				t.Fatalf("%s $%d: %v", r.ID(), size, err)
			}
			if q.OutAmount.Sign() <= 0 || q.Router != "simulated" || q.Mode != "simulated" || len(q.Route) == 0 {
				t.Fatalf("%s $%d: %+v", r.ID(), size, q)
			}
			for _, h := range q.Route {
				if !strings.HasPrefix(h.AmmKey, "sim-") || !strings.HasPrefix(h.Label, "Simulated ") {
					t.Errorf("hop %+v is not visibly synthetic", h)
				}
			}
			per := new(big.Rat).SetFrac(q.OutAmount, big.NewInt(size))
			if prevPerDollar != nil && per.Cmp(prevPerDollar) >= 0 {
				t.Errorf("%s: output per dollar does not fall with size at $%d", r.ID(), size)
			}
			prevPerDollar = per
			outs[r.ID()] = append(outs[r.ID()], q.OutAmount)
		}
	}
	a, b := outs["simulated_a"], outs["simulated_b"]
	if b[0].Cmp(a[0]) <= 0 || a[3].Cmp(b[3]) <= 0 {
		t.Errorf("want b to win $1k (%s vs %s) and a to win $20M (%s vs %s)", b[0], a[0], a[3], b[3])
	}
	// Selling back gives USDC; other pairs and unknown mints have no route.
	q, err := rs[0].Quote(ctx, execution.QuoteRequest{InputMint: cbBTC, OutputMint: execution.USDCMint, Amount: big.NewInt(100_000_000)})
	if err != nil || q.OutAmount.Sign() <= 0 {
		t.Fatalf("sell: %v %+v", err, q)
	}
	for _, req := range []execution.QuoteRequest{
		{InputMint: cbBTC, OutputMint: execution.SOLMint, Amount: big.NewInt(1)},
		{InputMint: execution.USDCMint, OutputMint: "11111111111111111111111111111111", Amount: usd(1)},
		{InputMint: execution.USDCMint, OutputMint: execution.USDCMint, Amount: usd(1)},
	} {
		if _, err := rs[0].Quote(ctx, req); execution.ReasonOf(err) != execution.ReasonNoRoute {
			t.Errorf("%+v: %v", req, err)
		}
	}
}
