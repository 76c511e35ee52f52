package depeg

import (
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
)

func TestCoinsOfAndPeg(t *testing.T) {
	v := func(id, kind string, tags ...string) registry.Variant {
		return registry.Variant{VariantID: id, Mint: "M" + id, Kind: kind, Tags: tags}
	}
	cases := []struct {
		a    registry.Asset
		want map[string]string // variant id → peg
	}{
		{registry.Asset{AssetID: "usd", Symbol: "USD", Category: "stablecoin", Variants: []registry.Variant{
			v("usd:usdc", asset.KindStablecoin), v("usd:usdy", asset.KindYield), v("usd:bridged", asset.KindBridged)}},
			map[string]string{"usd:usdc": "USD", "usd:bridged": "USD"}},
		{registry.Asset{AssetID: "eur", Symbol: "EUR", Category: "stablecoin", Variants: []registry.Variant{v("eur:eurc", asset.KindStablecoin)}},
			map[string]string{"eur:eurc": "EUR"}},
		{registry.Asset{AssetID: "x", Symbol: "SYNUSD", Category: "stablecoin", Variants: []registry.Variant{v("x:a", asset.KindStablecoin), v("x:b", asset.KindStablecoin, "peg:chf")}},
			map[string]string{"x:a": "USD", "x:b": "CHF"}},
		{registry.Asset{AssetID: "sol", Symbol: "SOL", Category: "crypto", Variants: []registry.Variant{v("sol:w", asset.KindWrapped), v("sol:usdx", asset.KindStablecoin)}},
			map[string]string{"sol:usdx": "USD"}},
	}
	for _, tc := range cases {
		got := map[string]string{}
		for _, c := range CoinsOf(&tc.a) {
			got[c.VariantID] = c.PegCurrency
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.a.AssetID, got, tc.want)
		}
		for k, w := range tc.want {
			if got[k] != w {
				t.Errorf("%s: %v, want %v", tc.a.AssetID, got, tc.want)
			}
		}
	}
}
