// Package asset holds the domain vocabulary shared by the registry, the
// market-data pipeline and the HTTP layer: the spec's enumerations and the
// Market, ExecutionQuality, Stats and Advisory value types exactly as they
// appear on the wire.
package asset

// Variant kinds (spec "Enumerations").
const (
	KindNative          = "native"
	KindWrapped         = "wrapped"
	KindBridged         = "bridged"
	KindETF             = "etf"
	KindYield           = "yield"
	KindLeveraged       = "leveraged"
	KindBasket          = "basket"
	KindLST             = "lst"
	KindStablecoin      = "stablecoin"
	KindTokenizedEquity = "tokenized_equity"
)

// Kinds lists every variant kind the spec names, in spec order.
var Kinds = []string{KindNative, KindWrapped, KindBridged, KindETF, KindYield, KindLeveraged, KindBasket, KindLST, KindStablecoin, KindTokenizedEquity}

// IsSpotLike reports whether a variant kind counts as spot-like for stats
// aggregation and primary-variant candidates.
func IsSpotLike(kind string) bool {
	switch kind {
	case KindNative, KindWrapped, KindBridged, KindStablecoin, KindLST, KindTokenizedEquity, KindBasket:
		return true
	}
	return false
}

// Liquidity tiers. trustTier mirrors liquidityTier; the legacy input
// "experimental" is treated as tier3.
const (
	Tier1 = "tier1"
	Tier2 = "tier2"
	Tier3 = "tier3"

	TierExperimental = "experimental"
)

// Tier thresholds in USD liquidity: tier1 is strictly above 10M, tier2 at or
// above 2.5M, everything else (including unknown) tier3.
const (
	Tier1MinLiquidityUSD = 10_000_000
	Tier2MinLiquidityUSD = 2_500_000
)

// LiquidityTier derives the tier from a market liquidity (nil = unknown).
func LiquidityTier(liquidity *float64) string {
	if liquidity == nil || *liquidity != *liquidity { // nil or NaN
		return Tier3
	}
	switch l := *liquidity; {
	case l > Tier1MinLiquidityUSD:
		return Tier1
	case l >= Tier2MinLiquidityUSD:
		return Tier2
	}
	return Tier3
}

// Stock variant redeemability tiers.
const (
	StockShareRedeemable = "share_redeemable"
	StockCashRedeemable  = "cash_redeemable"
	StockNotRedeemable   = "not_redeemable"
)

// StockVariantTiers lists the stockVariantTier values.
var StockVariantTiers = []string{StockShareRedeemable, StockCashRedeemable, StockNotRedeemable}

// Primary variant strategies (also the variants sortBy values).
const (
	StrategyLiquidity          = "liquidity"
	StrategyExecutionQuality   = "execution_quality"
	StrategyStockRedeemability = "stock_redeemability"
)

// Strategies lists the primaryVariantStrategy values; the first is the default.
var Strategies = []string{StrategyLiquidity, StrategyExecutionQuality, StrategyStockRedeemability}

// Categories are the asset categories (the trending filter's list; the
// registry uses the same set).
var Categories = []string{"crypto", "stablecoin", "lst", "rwa", "commodity", "equity", "etf", "index"}

// CuratedLists are the curated list ids in UI order, "all" first.
var CuratedLists = []string{"all", "majors", "lsts", "currencies", "rwas", "etfs", "metals", "stocks"}

// resolvedBy values.
const (
	ResolvedByAssetID       = "assetId"
	ResolvedByAlias         = "alias"
	ResolvedByMint          = "mint"
	ResolvedBySingletonMint = "singletonMint"
	ResolvedByRegistry      = "registry"
	ResolvedByLSTIndex      = "lst_index"
	ResolvedBySingleton     = "singleton"
)

// Market sources (market.source / metricsSource).
const (
	SourceMarketDataA     = "marketdata_a"
	SourceMarketDataB     = "marketdata_b"
	SourceAnalyticsTrades = "analytics_trades"
)

// Canonical market sources (canonicalMarket.source).
const (
	SourceExtProvider    = "extprovider"
	SourceAnalyticsStock = "analytics_stock"
	SourcePreIPO         = "preipo"
)

// Market is a cached market snapshot of one mint (spec "Market").
// Nullable numbers are pointers; optional fields use omitempty.
type Market struct {
	Source          string   `json:"source,omitempty"`
	MetricsSource   string   `json:"metricsSource,omitempty"`
	Price           *float64 `json:"price"`
	Liquidity       *float64 `json:"liquidity"`
	Volume1hUSD     *float64 `json:"volume1hUSD,omitempty"`
	Volume24hUSD    *float64 `json:"volume24hUSD"`
	Trade1h         *float64 `json:"trade1h,omitempty"`
	Trade24h        *float64 `json:"trade24h,omitempty"`
	UniqueWallet1h  *float64 `json:"uniqueWallet1h,omitempty"`
	UniqueWallet24h *float64 `json:"uniqueWallet24h,omitempty"`
	MarketCap       *float64 `json:"marketCap"`
	// Holders is the token's holder count when a provider reports it.
	Holders               *float64 `json:"holders,omitempty"`
	PriceChange24hPercent *float64 `json:"priceChange24hPercent"`
	PriceChange1hPercent  *float64 `json:"priceChange1hPercent"`
	Decimals              *int     `json:"decimals"`
	LogoURI               *string  `json:"logoURI"`
	LastTradeAt           *int64   `json:"lastTradeAt,omitempty"`
	AsOf                  *int64   `json:"asOf,omitempty"`
	LastFetchedAt         *int64   `json:"lastFetchedAt"` // unix ms
	// PriceTrades and Rejected are the provenance of a trade-derived
	// price (docs/prices.md): the accepted trades of the last 24 h and
	// the trades rejected from the price over 24 h (nil when none).
	PriceTrades *int64    `json:"priceTrades,omitempty"`
	Rejected    *Rejected `json:"rejected,omitempty"`
}

// Rejected counts trades rejected from a price by reason (docs/prices.md).
type Rejected struct {
	Dust         int64 `json:"dust"`
	PriceOutlier int64 `json:"price_outlier"`
}

// ExecutionQuality is a cached fill-quality rollup of one variant.
type ExecutionQuality struct {
	Source               string   `json:"source"`
	Range                string   `json:"range"`
	Horizon              string   `json:"horizon"`
	QuoteMint            string   `json:"quoteMint"`
	Volume24hUSD         float64  `json:"volume24hUSD"`
	Trade24h             float64  `json:"trade24h"`
	BotVolume24hUSD      float64  `json:"botVolume24hUSD"`
	BotTrade24h          float64  `json:"botTrade24h"`
	BotVolumeRatio       float64  `json:"botVolumeRatio"`
	Fee24hUSD            float64  `json:"fee24hUSD"`
	FeeBps               float64  `json:"feeBps"`
	FlowSourceCount      float64  `json:"flowSourceCount"`
	MarkoutPnl24hUSD     *float64 `json:"markoutPnl24hUSD"`
	MarkoutCount         *float64 `json:"markoutCount"`
	MarkoutBps           *float64 `json:"markoutBps"`
	ExecutionScore       float64  `json:"executionScore"`
	IsEligibleForPrimary bool     `json:"isEligibleForPrimary"`
	AsOf                 *int64   `json:"asOf"`           // unix seconds
	LastComputedAt       int64    `json:"lastComputedAt"` // unix ms
}

// Stats are an asset's canonical aggregates (spec "Stats").
type Stats struct {
	Price                 *float64 `json:"price"`
	Liquidity             *float64 `json:"liquidity"`
	Volume24hUSD          *float64 `json:"volume24hUSD"`
	Volume30dUSD          *float64 `json:"volume30dUSD"`
	MarketCap             *float64 `json:"marketCap"`
	PriceChange24hPercent *float64 `json:"priceChange24hPercent"`
	PriceChange1hPercent  *float64 `json:"priceChange1hPercent"`
}

// Advisory statuses.
const (
	AdvisoryCaution     = "caution"
	AdvisoryCompromised = "compromised"
	AdvisoryBlocked     = "blocked"
)

// HiddenFromLists reports whether an advisory hides its mint from the list
// surfaces (curated, v2 lists and compose, list counts, the dashboard's
// list editor): blocked does. Direct reads of the asset or mint still
// serve it.
func HiddenFromLists(a *Advisory) bool { return a != nil && a.Status == AdvisoryBlocked }

// Advisory is an operator flag on a mint (spec "Advisory").
type Advisory struct {
	Status string  `json:"status"`
	Reason string  `json:"reason"`
	URL    *string `json:"url"`
	Since  int64   `json:"since"` // unix ms
}
