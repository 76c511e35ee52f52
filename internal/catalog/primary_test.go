package catalog

import (
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
)

// TestPrimarySkipsRestrictedVariants: a variant under a compromised or
// blocked advisory is never an asset's primary variant, under any
// strategy, while another variant exists (the execution endpoints refuse
// it); a caution advisory changes nothing, and an asset whose variants are
// all restricted still has a primary. The advisory reaches the primary
// through AdvisoriesChanged, as the server's poller delivers it.
func TestPrimarySkipsRestrictedVariants(t *testing.T) {
	snap, err := seedSnap()
	if err != nil {
		t.Fatal(err)
	}
	const id = "bitcoin"
	tests := []struct {
		name   string
		status string
		all    bool // flag every variant of the asset, not only the primary
		moves  bool // the primary must move off the flagged variant
	}{
		{"caution", asset.AdvisoryCaution, false, false},
		{"compromised", asset.AdvisoryCompromised, false, true},
		{"blocked", asset.AdvisoryBlocked, false, true},
		{"every variant compromised", asset.AdvisoryCompromised, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(snap, syntheticMarkets(snap, "primary"), func() time.Time { return testNow }, nil)
			res, err := c.Resolve(id)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := snap.Asset(id)
			if len(a.Variants) < 2 {
				t.Fatalf("%s has %d variants; the test needs several", id, len(a.Variants))
			}
			flagged := map[string]bool{}
			for _, s := range asset.Strategies {
				flagged[c.Primary(res, s).Mint] = true
			}
			if tt.all {
				for _, v := range a.Variants {
					flagged[v.Mint] = true
				}
			}
			adv := &asset.Advisory{Status: tt.status, Reason: "test"}
			c.advice.Store(ptrTo(AdvisoryFunc(func(m string) *asset.Advisory {
				if flagged[m] {
					return adv
				}
				return nil
			})))
			c.AdvisoriesChanged()
			for _, s := range asset.Strategies {
				p := c.Primary(res, s)
				if p == nil {
					t.Fatalf("%s: no primary", s)
				}
				if tt.moves && flagged[p.Mint] {
					t.Errorf("%s: primary %s is %s while other variants exist", s, p.Mint, tt.status)
				}
				if !tt.moves && !flagged[p.Mint] {
					t.Errorf("%s: primary moved to %s under %q", s, p.Mint, tt.name)
				}
			}
		})
	}
}
