package curator

import (
	"context"
	"slices"
	"testing"

	"github.com/assetd/assetd/internal/registry"
)

// TestFactWarningsAdded: the on-chain fact warnings of a candidate are
// appended to its warnings once (the hook's codes are test values).
func TestFactWarningsAdded(t *testing.T) {
	snap := seedSnapshot(t)
	const usdc = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	svc := New(Config{Registry: func() *registry.Snapshot { return snap }, FactWarnings: func(m string) []string {
		if m == usdc {
			return []string{"has_freeze_authority", "has_freeze_authority", "transfer_fee"}
		}
		return nil
	}})
	res := svc.Search(context.Background(), Request{Query: "USDC", Limit: 10})
	i := slices.IndexFunc(res.Results, func(r Result) bool { return r.Mint == usdc })
	if i < 0 {
		t.Fatalf("USDC not found: %+v", res.Results)
	}
	ws := res.Results[i].Warnings
	n := 0
	for _, w := range ws {
		if w == "has_freeze_authority" {
			n++
		}
	}
	if n != 1 || !slices.Contains(ws, "transfer_fee") {
		t.Errorf("warnings %v", ws)
	}
	for _, r := range res.Results {
		if r.Mint != usdc && slices.Contains(r.Warnings, "transfer_fee") {
			t.Errorf("%s got USDC's warnings", r.Mint)
		}
	}
}
