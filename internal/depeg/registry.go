package depeg

import (
	"strings"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
)

// PegTagPrefix marks a variant's peg currency in the registry: a variant
// tagged "peg:EUR" is pegged to the euro (docs/advisories.md); without
// one the peg is USD.
const PegTagPrefix = "peg:"

// Coins lists the stablecoin variants of snap: every variant of kind
// stablecoin and every variant of a stablecoin-category asset.
func Coins(snap *registry.Snapshot) []Coin {
	var out []Coin
	for i := range snap.Assets() {
		out = append(out, CoinsOf(&snap.Assets()[i])...)
	}
	return out
}

// CoinsOf lists the stablecoin variants of one asset: kind stablecoin, or
// any variant of a stablecoin-category asset except yield-bearing and
// leveraged ones (their price drifts from the peg by design).
func CoinsOf(a *registry.Asset) []Coin {
	var out []Coin
	for j := range a.Variants {
		v := &a.Variants[j]
		if v.Kind != asset.KindStablecoin && (a.Category != "stablecoin" || v.Kind == asset.KindYield || v.Kind == asset.KindLeveraged) {
			continue
		}
		out = append(out, Coin{AssetID: a.AssetID, VariantID: v.VariantID, Mint: v.Mint, PegCurrency: PegCurrency(v.Tags)})
	}
	return out
}

// PegCurrency reads the peg currency from a variant's tags (default USD).
func PegCurrency(tags []string) string {
	for _, t := range tags {
		if c, ok := strings.CutPrefix(t, PegTagPrefix); ok && c != "" {
			return strings.ToUpper(c)
		}
	}
	return "USD"
}
