package catalog

import (
	"strings"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// wrappedSOL is the native/wrapped SOL mint, never trending.
const wrappedSOL = "So11111111111111111111111111111111111111112"

// TokenReader reads the token metadata the market cache holds for a mint.
type TokenReader interface {
	Token(mint string) (market.Token, bool)
}

// TrendIdentity is the identity part of a trending row.
type TrendIdentity struct {
	AssetID  string
	Symbol   string
	Name     string
	Decimals *int
	Category string
	ImageURL *string
}

// HiddenFromTrending reports whether an advisory keeps a mint out of
// trending: blocked mints are hidden (as from curated, search and list
// hydration) and compromised mints never trend. Caution does not.
func HiddenFromTrending(a *asset.Advisory) bool {
	return a != nil && (a.Status == asset.AdvisoryBlocked || a.Status == asset.AdvisoryCompromised)
}

// TrendIdentity decides whether mint may trend and, when it may, returns
// its row identity. Excluded: SOL / wrapped SOL and every variant of the
// solana asset (its LSTs and yield tokens), stablecoin assets and
// stablecoin-kind variants, mints whose advisory hides them, and mints
// without a symbol. The symbol, name and logo come from the registry
// variant, else its asset, else the token metadata tokens holds (which
// also supplies decimals and, for singletons, the logo).
func (c *Catalog) TrendIdentity(mint string, tokens TokenReader) (TrendIdentity, bool) {
	if mint == wrappedSOL || HiddenFromTrending(c.advisory(mint)) {
		return TrendIdentity{}, false
	}
	id := TrendIdentity{Category: "crypto"}
	var logo string
	if a, v, ok := c.Snapshot().VariantByMint(mint); ok {
		if a.AssetID == solanaAssetID || a.Category == "stablecoin" || v.Kind == asset.KindStablecoin {
			return TrendIdentity{}, false
		}
		id.AssetID, id.Symbol, id.Name, id.Decimals, id.Category = a.AssetID, v.Symbol, v.Name, v.Decimals, a.Category
		if id.Symbol == "" {
			id.Symbol = a.Symbol
		}
		if id.Name == "" {
			id.Name = a.Name
		}
		logo = v.LogoURI
		if logo == "" {
			logo = a.ImageURL
		}
	} else {
		id.AssetID = registry.SingletonAssetID(mint)
	}
	if tokens != nil {
		if tok, ok := tokens.Token(mint); ok {
			if id.Symbol == "" {
				id.Symbol = strings.TrimSpace(tok.Symbol)
			}
			if id.Name == "" {
				id.Name = tok.Name
			}
			if id.Decimals == nil {
				id.Decimals = tok.Decimals
			}
			if tok.LogoURI != "" && (logo == "" || id.AssetID == registry.SingletonAssetID(mint)) {
				logo = tok.LogoURI
			}
		}
	}
	if logo != "" {
		id.ImageURL = &logo
	}
	return id, id.Symbol != ""
}
