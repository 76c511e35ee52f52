package registry

import (
	"fmt"

	"github.com/assetd/assetd/internal/asset"
)

// singletonCategory is the category of every singleton asset.
const singletonCategory = "crypto"

// NewSingleton returns the deterministic singleton asset of a mint that no
// asset lists:
//
//	assetId   "solana-<mint>"
//	category  "crypto"
//	aliases   [<mint>]
//	variants  [{variantId "solana-<mint>:mint", mint, kind "native",
//	            liquidityTier "tier3", trustTier "tier3", tags []}]
//
// Name and symbol are empty: the registry does not know them (the HTTP
// layer may fill them from a token index). A malformed mint is
// ErrInvalidMint. The asset is freshly allocated and owned by the caller.
func NewSingleton(mint string) (*Asset, error) {
	if !ValidMint(mint) {
		return nil, fmt.Errorf("%w: %q is not a base58 32-byte address", ErrInvalidMint, mint)
	}
	return newSingleton("", mint), nil
}

// singletonBox allocates a singleton asset with its variant and alias in
// one block.
type singletonBox struct {
	asset   Asset
	variant [1]Variant
	alias   [1]string
}

// newSingleton builds the singleton of a valid mint. id is "solana-<mint>"
// when the caller already has that string, else empty; either way the ids
// cost one string allocation.
func newSingleton(id, mint string) *Asset {
	var variantID string
	if id != "" {
		variantID = id + singletonVariantSuffix
	} else {
		variantID = SingletonPrefix + mint + singletonVariantSuffix
		id = variantID[:len(variantID)-len(singletonVariantSuffix)]
	}
	b := &singletonBox{}
	b.alias[0] = mint
	b.variant[0] = Variant{
		VariantID:     variantID,
		Mint:          mint,
		Kind:          asset.KindNative,
		LiquidityTier: asset.Tier3,
		TrustTier:     asset.Tier3,
		Tags:          []string{},
	}
	b.asset = Asset{
		AssetID:  id,
		Category: singletonCategory,
		Aliases:  b.alias[:],
		Variants: b.variant[:],
	}
	return &b.asset
}
