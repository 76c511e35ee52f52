package catalog

import "github.com/assetd/assetd/internal/asset"

// Variant is the spec's Variant object (search, curated, primaryVariant,
// variants[] and variantGroups rows). Tiers are derived from the market
// liquidity when it is known, else from the registry's stored hint.
type Variant struct {
	VariantID        string                  `json:"variantId"`
	Mint             string                  `json:"mint"`
	Kind             string                  `json:"kind"`
	LiquidityTier    string                  `json:"liquidityTier"`
	TrustTier        string                  `json:"trustTier"`
	Tags             []string                `json:"tags"`
	Issuer           string                  `json:"issuer,omitempty"`
	IssuerURL        string                  `json:"issuerUrl,omitempty"`
	Label            string                  `json:"label,omitempty"`
	StockVariantTier string                  `json:"stockVariantTier,omitempty"`
	Symbol           string                  `json:"symbol,omitempty"`
	Name             string                  `json:"name,omitempty"`
	Market           *asset.Market           `json:"market"`
	ExecutionQuality *asset.ExecutionQuality `json:"executionQuality"`
	// Advisory is the operator flag of the mint, null when not flagged.
	Advisory *asset.Advisory `json:"advisory"`
	// PreIPO is present on variants of a tokenized pre-IPO equity with a
	// fresh reference mark and an on-chain price.
	PreIPO *PreIPOBlock `json:"preIpo,omitempty"`
}

// Row is an asset row of search and curated results.
type Row struct {
	AssetID        string       `json:"assetId"`
	Name           string       `json:"name,omitempty"`
	Symbol         string       `json:"symbol,omitempty"`
	Category       string       `json:"category"`
	ImageURL       *string      `json:"imageUrl"`
	Stats          *asset.Stats `json:"stats"`
	PrimaryVariant *Variant     `json:"primaryVariant"`
	Variants       []*Variant   `json:"variants,omitempty"`
}

// Groups are the asset detail's variantGroups: every variant once, by kind,
// each group in the liquidity order. The solana asset's yield and lst
// groups are capped unless variantsMode=all.
type Groups struct {
	Spot            []*Variant `json:"spot"`            // native, wrapped, bridged, stablecoin
	LST             []*Variant `json:"lst"`             // lst
	Yield           []*Variant `json:"yield"`           // yield
	ETF             []*Variant `json:"etf"`             // etf
	Leveraged       []*Variant `json:"leveraged"`       // leveraged
	Basket          []*Variant `json:"basket"`          // basket
	TokenizedEquity []*Variant `json:"tokenizedEquity"` // tokenized_equity
}

// Detail is the asset object of GET /v1/assets/:assetId.
type Detail struct {
	AssetID                string       `json:"assetId"`
	Name                   string       `json:"name,omitempty"`
	Symbol                 string       `json:"symbol,omitempty"`
	Category               string       `json:"category"`
	Aliases                []string     `json:"aliases"`
	ImageURL               *string      `json:"imageUrl"`
	Stats                  *asset.Stats `json:"stats"`
	PrimaryVariantStrategy string       `json:"primaryVariantStrategy"`
	PrimaryVariant         *Variant     `json:"primaryVariant"`
	// CanonicalMarket is one of the spec's arms (extprovider,
	// analytics_stock, preipo) or null.
	CanonicalMarket any    `json:"canonicalMarket"`
	VariantGroups   Groups `json:"variantGroups"`
}

// Resolution is the detail response's `resolution` block.
type Resolution struct {
	Ref        string  `json:"ref"`
	ResolvedBy string  `json:"resolvedBy"`
	AssetID    string  `json:"assetId"`
	Mint       *string `json:"mint"`
}

// ResolveAsset is the `asset` block of GET /v1/assets/resolve.
type ResolveAsset struct {
	AssetID  string   `json:"assetId"`
	Name     *string  `json:"name"`
	Symbol   *string  `json:"symbol"`
	Category string   `json:"category"`
	Aliases  []string `json:"aliases"`
}

// ResolveVariant is the smaller variant of GET /v1/assets/resolve.
type ResolveVariant struct {
	Mint          string   `json:"mint"`
	Chain         string   `json:"chain"`
	Kind          string   `json:"kind"`
	LiquidityTier string   `json:"liquidityTier"`
	TrustTier     string   `json:"trustTier"`
	Tags          []string `json:"tags"`
	Issuer        string   `json:"issuer,omitempty"`
	IssuerURL     string   `json:"issuerUrl,omitempty"`
	Label         string   `json:"label,omitempty"`
	// Advisory is the operator flag of the mint, null when not flagged.
	Advisory *asset.Advisory `json:"advisory"`
}

// Resolved is the body of GET /v1/assets/resolve.
type Resolved struct {
	AssetID    string          `json:"assetId"`
	ResolvedBy string          `json:"resolvedBy"`
	Mint       *string         `json:"mint"`
	Asset      ResolveAsset    `json:"asset"`
	Variant    *ResolveVariant `json:"variant"`
}
