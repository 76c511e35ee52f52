package registry

// Document is the JSON layout of a registry data file: our own seed
// (seed/registry.json), files written by operators, and the output of the
// import parsers. Field names are camelCase on the wire. See
// docs/registry.md for the full format.
type Document struct {
	// Assets are the canonical asset groups, each with its variants.
	Assets []Asset `json:"assets"`
	// CuratedLists are the curated list memberships, keyed by list id
	// (majors, lsts, currencies, rwas, etfs, metals, stocks). The "all"
	// list is derived by Build and must not appear here.
	CuratedLists []CuratedList `json:"curatedLists,omitempty"`
	// MintHomes names the home asset of a mint that more than one asset
	// lists (mint -> assetId). Build keeps the mint in the home asset only.
	MintHomes map[string]string `json:"mintHomes,omitempty"`
	// LSTIndex lists liquid staking tokens known from an LST index. Build
	// attaches those whose mint no asset lists to the "solana" asset, and
	// they resolve with resolvedBy "lst_index".
	LSTIndex []Variant `json:"lstIndex,omitempty"`
	// Supplemental marks a lower-trust document (for example a community
	// token list): its assets never replace existing assets, never take a
	// mint or an id that the registry already resolves, and only fill gaps.
	Supplemental bool `json:"supplemental,omitempty"`
}

// Asset is one canonical asset group.
type Asset struct {
	// AssetID is the canonical slug (see ValidAssetID).
	AssetID string `json:"assetId"`
	Name    string `json:"name,omitempty"`
	Symbol  string `json:"symbol,omitempty"`
	// Category is one of asset.Categories.
	Category string `json:"category"`
	// Aliases are extra case-insensitive references to the asset.
	Aliases []string `json:"aliases,omitempty"`
	// ImageURL is curated canonical imagery (absolute http(s) URL).
	ImageURL string `json:"imageUrl,omitempty"`
	// CoinID is the external market-data provider's coin id.
	CoinID string `json:"coinId,omitempty"`
	// StockTicker is the listing ticker of a mapped public equity or ETF.
	StockTicker string `json:"stockTicker,omitempty"`
	// PreIPO links a tokenized pre-IPO equity to its reference feed.
	PreIPO *PreIPO `json:"preIpo,omitempty"`
	// Variants are the Solana tokens of the group; at least one.
	Variants []Variant `json:"variants"`
}

// PreIPO is the reference of a tokenized pre-IPO equity in the pre-IPO
// mark-price feed.
type PreIPO struct {
	// Symbol is the company's symbol in the reference feed (e.g. "SPACEX").
	Symbol string `json:"symbol"`
	// Mint is the variant whose on-chain price is compared with the
	// reference mark; empty means every tokenized_equity variant.
	Mint string `json:"mint,omitempty"`
}

// Variant is one Solana token of an asset group.
type Variant struct {
	// VariantID is "<assetId>:<suffix>", unique across the registry.
	VariantID string `json:"variantId"`
	// Mint is the token address: base58, 32 bytes, case-sensitive.
	Mint string `json:"mint"`
	// Kind is one of asset.Kinds.
	Kind string `json:"kind"`
	// LiquidityTier and TrustTier are stored hints (tier1..tier3) used only
	// when market data cannot decide; responses derive tiers from market
	// liquidity. In a Snapshot both are set and equal (default tier3).
	LiquidityTier string `json:"liquidityTier,omitempty"`
	TrustTier     string `json:"trustTier,omitempty"`
	// Tags are free-form labels; never nil in a Snapshot.
	Tags      []string `json:"tags,omitempty"`
	Issuer    string   `json:"issuer,omitempty"`
	IssuerURL string   `json:"issuerUrl,omitempty"`
	Label     string   `json:"label,omitempty"`
	// StockVariantTier is one of asset.StockVariantTiers, for stock tokens.
	StockVariantTier string `json:"stockVariantTier,omitempty"`
	Symbol           string `json:"symbol,omitempty"`
	Name             string `json:"name,omitempty"`
	Decimals         *int   `json:"decimals,omitempty"`
	// LogoURI is a per-token icon (absolute http(s) URL).
	LogoURI string `json:"logoUri,omitempty"`
}

// CuratedList is one curated list: an ordered set of mints.
type CuratedList struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Members     []CuratedMember `json:"members"`
}

// CuratedMember is one mint of a curated list.
type CuratedMember struct {
	Mint string `json:"mint"`
	// Rank orders the list (ascending). A Snapshot renumbers ranks 0..n-1.
	Rank int `json:"rank"`
	// AssetID is a hint in documents; a Snapshot sets it to the asset the
	// mint resolves to (a singleton id for mints no asset lists).
	AssetID string `json:"assetId,omitempty"`
	// AddedAt is when the mint joined the list, unix milliseconds.
	AddedAt int64 `json:"addedAt,omitempty"`
}
