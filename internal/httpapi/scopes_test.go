package httpapi

import (
	"testing"
)

// TestRouteScopesFollowSpec checks, for each per-asset route, which keys
// the spec admits. The spec (Endpoints, Authentication): "scope
// `assets:read` unless stated"; "Fine-grained scopes for asset detail
// include blocks"; "The mint-scoped risk-summary accepts `assets:read` or
// `assets:risk:read`". No per-asset route states another scope, so each
// needs assets:read; a fine-grained scope alone is 403.
func TestRouteScopesFollowSpec(t *testing.T) {
	h, snap := canonicalHarness(t)
	btc, _ := snap.Asset("bitcoin")
	mint := btc.Variants[0].Mint
	tests := []struct {
		path   string
		spec   string   // the spec text the row follows
		admits []string // harness keys answered 200; every other key is 403
	}{
		{"/v1/assets/bitcoin/profile", "assets:read unless stated", []string{"read"}},
		{"/v1/assets/bitcoin/tickers", "assets:read unless stated", []string{"read"}},
		{"/v1/assets/bitcoin/description", "assets:read unless stated", []string{"read"}},
		{"/v1/assets/bitcoin/ohlcv", "assets:read unless stated", []string{"read"}},
		{"/v1/assets/bitcoin/markets", "assets:read unless stated", []string{"read"}},
		{"/v1/assets/bitcoin/risk-summary", "assets:read unless stated", []string{"read"}},
		{"/v1/assets/bitcoin/risk-details", "assets:read unless stated", []string{"read"}},
		{"/v1/assets/bitcoin/price-chart", "assets:read unless stated", []string{"read"}},
		{"/v1/assets/risk-summary?mint=" + mint, "the mint-scoped risk-summary accepts assets:read or assets:risk:read", []string{"read", "risk", "risk+markets"}},
		{"/v1/assets/bitcoin", "fine-grained scopes for asset detail include blocks (docs/canonical.md)",
			[]string{"read", "risk", "none", "profile", "markets", "risk+markets"}},
	}
	keys := []string{"read", "risk", "none", "profile", "markets", "risk+markets", "trades"}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			for _, k := range keys {
				want := 403
				for _, a := range tt.admits {
					if a == k {
						want = 200
					}
				}
				r := h.getAs(t, k, tt.path)
				if r.status != want {
					t.Errorf("key %q: status %d; want %d (spec: %s)", k, r.status, want, tt.spec)
				}
				if want == 403 {
					wantErr(t, r, 403, "ForbiddenError", "insufficient_scope")
				}
			}
		})
	}
}
