package httpapi

import (
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
)

// Tests of the spec drifts of issue 12, one per item where the item is an
// HTTP behaviour.

// Item 5: per-asset risk-summary and risk-details default to the primary
// variant mint, also when the path is a mint ref (spec: "Param: mint
// (default primary variant mint)").
func TestRiskDefaultsToPrimaryOnMintPath(t *testing.T) {
	h, snap := canonicalHarness(t)
	btc, _ := snap.Asset("bitcoin")
	primary := h.srv.d.Catalog.Primary(registry.Resolution{AssetID: "bitcoin"}, asset.StrategyLiquidity).Mint
	other := ""
	for _, v := range btc.Variants {
		if v.Mint != primary {
			other = v.Mint
			break
		}
	}
	if other == "" {
		t.Fatal("fixture: bitcoin needs a second variant")
	}
	for _, ep := range []string{"risk-summary", "risk-details"} {
		r := h.get(t, "/v1/assets/"+other+"/"+ep)
		wantOK(t, r, "no-store")
		if r.body["assetId"] != "bitcoin" || r.body["mint"] != primary {
			t.Errorf("%s on a mint path: assetId %v mint %v; want bitcoin and the primary %s", ep, r.body["assetId"], r.body["mint"], primary)
		}
		if r := h.get(t, "/v1/assets/"+other+"/"+ep+"?mint="+other); r.body["mint"] != other {
			t.Errorf("%s with mint=: mint %v; want %s", ep, r.body["mint"], other)
		}
	}
}
