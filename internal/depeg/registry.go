package depeg

import (
	"strings"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
)

// PegTagPrefix marks a variant's peg currency in the registry: a variant
// tagged "peg:EUR" is pegged to the euro (docs/advisories.md). Without
// the tag, a stablecoin asset whose symbol is a three-letter currency code
// (the seed's "eur", "gbp", ... groups) pegs its variants to that
// currency; otherwise the peg is USD.
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
		out = append(out, Coin{AssetID: a.AssetID, VariantID: v.VariantID, Mint: v.Mint, PegCurrency: pegOf(a, v)})
	}
	return out
}

// pegOf is the peg currency of variant v of a: its peg: tag, else the
// symbol of a stablecoin asset when it is a currency code, else USD.
func pegOf(a *registry.Asset, v *registry.Variant) string {
	for _, t := range v.Tags {
		if c, ok := strings.CutPrefix(t, PegTagPrefix); ok && c != "" {
			return strings.ToUpper(c)
		}
	}
	if a.Category == "stablecoin" && isCurrencyCode(a.Symbol) {
		return a.Symbol
	}
	return "USD"
}

func isCurrencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := range 3 {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
