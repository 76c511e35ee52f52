// One typed method per operation of api/openapi.yaml (drafted from the
// contract by a one-off script, then kept by hand). The response types are
// aliases of the types generated from the contract's component schemas
// (package assetdapi, go generate), typed all the way down.

package client

import (
	"context"
	"net/url"

	"github.com/assetd/assetd/client/assetdapi"
)

// The spec's resources, generated from the contract's component schemas.
type (
	Asset             = assetdapi.Asset
	Variant           = assetdapi.Variant
	Market            = assetdapi.Market
	Stats             = assetdapi.Stats
	ExecutionQuality  = assetdapi.ExecutionQuality
	Advisory          = assetdapi.Advisory
	CanonicalMarket   = assetdapi.CanonicalMarket
	TrendingRow       = assetdapi.TrendingRow
	ListSummary       = assetdapi.ListSummary
	ListMember        = assetdapi.ListMember
	V2ListToken       = assetdapi.V2ListToken
	SearchTokenResult = assetdapi.SearchTokenResult
	NewsItem          = assetdapi.NewsItem
	Candle            = assetdapi.Candle
	Pool              = assetdapi.Pool
	Verdict           = assetdapi.Verdict
)

// OpenapiResponse is the body of GET /openapi.json (the contract itself;
// its sections are left as generic JSON).
type OpenapiResponse struct {
	Openapi    string         `json:"openapi"`
	Info       map[string]any `json:"info"`
	Paths      map[string]any `json:"paths"`
	Components map[string]any `json:"components"`
}

// ReadinessResponse is the body of GET /readyz.
type ReadinessResponse = assetdapi.Readiness

// CuratedAssetsResponse is the body of GET /v1/assets/curated.
type CuratedAssetsResponse = assetdapi.CuratedAssetsPage

// CuratedAssetsParams are the query parameters of GET /v1/assets/curated (zero values are left out).
type CuratedAssetsParams struct {
	List                   string // default "all"; one of all, majors, lsts, currencies, rwas, etfs, metals, stocks
	GroupBy                string // default "asset"; one of asset, mint
	Variants               string // one of all
	VariantsMode           string // one of all
	PrimaryVariantStrategy string // default "liquidity"; one of liquidity, executionQuality, stockRedeemability
	Limit                  *int64 // page size; an integer outside the range is clamped to it; default 250; range 1..500
	Offset                 *int64 // zero-based offset; past the end gives an empty page; default 0; range 0..
}

func (p *CuratedAssetsParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "list", p.List)
	setString(q, "groupBy", p.GroupBy)
	setString(q, "variants", p.Variants)
	setString(q, "variantsMode", p.VariantsMode)
	setString(q, "primaryVariantStrategy", p.PrimaryVariantStrategy)
	setInt(q, "limit", p.Limit)
	setInt(q, "offset", p.Offset)
	return q
}

// MarketSnapshotsResponse is the body of POST /v1/assets/market-snapshots.
type MarketSnapshotsResponse = []assetdapi.MarketSnapshot

// MarketSnapshotsRequest is the body of POST /v1/assets/market-snapshots.
type MarketSnapshotsRequest struct {
	Addresses []string `json:"addresses,omitempty"`
	Mints     []string `json:"mints,omitempty"`
}

// ResolveAssetResponse is the body of GET /v1/assets/resolve.
type ResolveAssetResponse = assetdapi.ResolveResult

// ResolveAssetParams are the query parameters of GET /v1/assets/resolve (zero values are left out).
type ResolveAssetParams struct {
	Mint string // base58 mint; takes precedence over ref
	Ref  string // asset id, alias, symbol or mint
}

func (p *ResolveAssetParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "mint", p.Mint)
	setString(q, "ref", p.Ref)
	return q
}

// MintRiskSummaryResponse is the body of GET /v1/assets/risk-summary.
type MintRiskSummaryResponse = assetdapi.RiskSummary

// MintRiskSummaryParams are the query parameters of GET /v1/assets/risk-summary (zero values are left out).
type MintRiskSummaryParams struct {
	Mint    string // base58 mint (or address)
	Address string // alias of mint
}

func (p *MintRiskSummaryParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "mint", p.Mint)
	setString(q, "address", p.Address)
	return q
}

// SearchAssetsResponse is the body of GET /v1/assets/search.
type SearchAssetsResponse = assetdapi.SearchAssetsResult

// SearchAssetsParams are the query parameters of GET /v1/assets/search (zero values are left out).
type SearchAssetsParams struct {
	Q                      string // query text
	Limit                  *int64 // page size; an integer outside the range is clamped to it; default 20; range 1..50
	Category               string // asset category
	Variants               string // include every variant; one of all
	PrimaryVariantStrategy string // default "liquidity"; one of liquidity, executionQuality, stockRedeemability
}

func (p *SearchAssetsParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "q", p.Q)
	setInt(q, "limit", p.Limit)
	setString(q, "category", p.Category)
	setString(q, "variants", p.Variants)
	setString(q, "primaryVariantStrategy", p.PrimaryVariantStrategy)
	return q
}

// TrendingAssetsResponse is the body of GET /v1/assets/trending.
type TrendingAssetsResponse = assetdapi.TrendingResult

// TrendingAssetsParams are the query parameters of GET /v1/assets/trending (zero values are left out).
type TrendingAssetsParams struct {
	Category string // one of crypto, stablecoin, lst, rwa, commodity, equity, etf, index
	Limit    *int64 // page size; an integer outside the range is clamped to it; default 100; range 1..100
	Offset   *int64 // zero-based offset; past the end gives an empty page; default 0; range 0..
}

func (p *TrendingAssetsParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "category", p.Category)
	setInt(q, "limit", p.Limit)
	setInt(q, "offset", p.Offset)
	return q
}

// VariantMarketsResponse is the body of GET /v1/assets/variant-markets.
type VariantMarketsResponse = assetdapi.VariantMarketsResult

// VariantMarketsParams are the query parameters of GET /v1/assets/variant-markets (zero values are left out).
type VariantMarketsParams struct {
	Mints     string // comma-separated mints
	Addresses string // alias of mints
}

func (p *VariantMarketsParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "mints", p.Mints)
	setString(q, "addresses", p.Addresses)
	return q
}

// GetAssetResponse is the body of GET /v1/assets/{assetId}.
type GetAssetResponse = assetdapi.AssetDetail

// GetAssetParams are the query parameters of GET /v1/assets/{assetId} (zero values are left out).
type GetAssetParams struct {
	Include                string // comma-separated include blocks
	PrimaryVariantStrategy string // default "liquidity"; one of liquidity, executionQuality, stockRedeemability
	VariantsMode           string // one of all
	Mint                   string // a variant mint of the asset
	OhlcvInterval          string // default "1H"; one of 1m, 5m, 15m, 1H, 4H, 1D, 1W
	OhlcvFrom              *int64 // unix seconds; default ohlcvTo minus 7 days
	OhlcvTo                *int64 // unix seconds; default now
	MarketsOffset          *int64 // default 0; range 0..
	MarketsLimit           *int64 // clamped into range; default 10; range 1..50
}

func (p *GetAssetParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "include", p.Include)
	setString(q, "primaryVariantStrategy", p.PrimaryVariantStrategy)
	setString(q, "variantsMode", p.VariantsMode)
	setString(q, "mint", p.Mint)
	setString(q, "ohlcvInterval", p.OhlcvInterval)
	setInt(q, "ohlcvFrom", p.OhlcvFrom)
	setInt(q, "ohlcvTo", p.OhlcvTo)
	setInt(q, "marketsOffset", p.MarketsOffset)
	setInt(q, "marketsLimit", p.MarketsLimit)
	return q
}

// AssetDescriptionResponse is the body of GET /v1/assets/{assetId}/description.
type AssetDescriptionResponse = assetdapi.AssetDescriptionResult

// AssetMarketsResponse is the body of GET /v1/assets/{assetId}/markets.
type AssetMarketsResponse = assetdapi.MarketsPage

// AssetMarketsParams are the query parameters of GET /v1/assets/{assetId}/markets (zero values are left out).
type AssetMarketsParams struct {
	Mint   string
	Offset *int64 // zero-based offset; past the end gives an empty page; default 0; range 0..
	Limit  *int64 // page size; an integer outside the range is clamped to it; default 10; range 1..50
}

func (p *AssetMarketsParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "mint", p.Mint)
	setInt(q, "offset", p.Offset)
	setInt(q, "limit", p.Limit)
	return q
}

// AssetOHLCVResponse is the body of GET /v1/assets/{assetId}/ohlcv.
type AssetOHLCVResponse = assetdapi.OHLCVSeries

// AssetOHLCVParams are the query parameters of GET /v1/assets/{assetId}/ohlcv (zero values are left out).
type AssetOHLCVParams struct {
	Mint     string
	Interval string // default "1H"; one of 1m, 5m, 15m, 1H, 4H, 1D, 1W
	From     *int64 // unix seconds
	To       *int64 // unix seconds; default now
	Fill     string // default "none"; one of none, previous
}

func (p *AssetOHLCVParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "mint", p.Mint)
	setString(q, "interval", p.Interval)
	setInt(q, "from", p.From)
	setInt(q, "to", p.To)
	setString(q, "fill", p.Fill)
	return q
}

// AssetPriceChartResponse is the body of GET /v1/assets/{assetId}/price-chart.
type AssetPriceChartResponse = assetdapi.PriceChart

// AssetPriceChartParams are the query parameters of GET /v1/assets/{assetId}/price-chart (zero values are left out).
type AssetPriceChartParams struct {
	Mint     string
	Interval string // default "1H"; one of 1m, 5m, 15m, 1H, 4H, 1D, 1W
	From     *int64 // unix seconds
	To       *int64 // unix seconds; default now
	Fill     string // default "none"; one of none, previous
}

func (p *AssetPriceChartParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "mint", p.Mint)
	setString(q, "interval", p.Interval)
	setInt(q, "from", p.From)
	setInt(q, "to", p.To)
	setString(q, "fill", p.Fill)
	return q
}

// AssetProfileResponse is the body of GET /v1/assets/{assetId}/profile.
type AssetProfileResponse = assetdapi.AssetProfileResult

// AssetRiskDetailsResponse is the body of GET /v1/assets/{assetId}/risk-details.
type AssetRiskDetailsResponse = assetdapi.AssetRiskDetailsResult

// AssetRiskDetailsParams are the query parameters of GET /v1/assets/{assetId}/risk-details (zero values are left out).
type AssetRiskDetailsParams struct {
	Mint string
}

func (p *AssetRiskDetailsParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "mint", p.Mint)
	return q
}

// AssetRiskSummaryResponse is the body of GET /v1/assets/{assetId}/risk-summary.
type AssetRiskSummaryResponse = assetdapi.AssetRiskSummaryResult

// AssetRiskSummaryParams are the query parameters of GET /v1/assets/{assetId}/risk-summary (zero values are left out).
type AssetRiskSummaryParams struct {
	Mint string
}

func (p *AssetRiskSummaryParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "mint", p.Mint)
	return q
}

// AssetTickersResponse is the body of GET /v1/assets/{assetId}/tickers.
type AssetTickersResponse = assetdapi.AssetTickersResult

// AssetTickersParams are the query parameters of GET /v1/assets/{assetId}/tickers (zero values are left out).
type AssetTickersParams struct {
	Offset *int64 // zero-based offset; past the end gives an empty page; default 0; range 0..
	Limit  *int64 // page size; an integer outside the range is clamped to it; default 10; range 1..50
	Order  string // default "volume_desc"; one of volume_desc, volume_asc, trust_score_desc, trust_score_asc
}

func (p *AssetTickersParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setInt(q, "offset", p.Offset)
	setInt(q, "limit", p.Limit)
	setString(q, "order", p.Order)
	return q
}

// VariantMarketResponse is the body of GET /v1/assets/{assetId}/variant-market.
type VariantMarketResponse = assetdapi.VariantMarketResult

// VariantMarketParams are the query parameters of GET /v1/assets/{assetId}/variant-market (zero values are left out).
type VariantMarketParams struct {
	Mint string
}

func (p *VariantMarketParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "mint", p.Mint)
	return q
}

// VariantTopMarketsResponse is the body of GET /v1/assets/{assetId}/variant-top-markets.
type VariantTopMarketsResponse = assetdapi.VariantTopMarketsPage

// VariantTopMarketsParams are the query parameters of GET /v1/assets/{assetId}/variant-top-markets (zero values are left out).
type VariantTopMarketsParams struct {
	Offset       *int64 // zero-based offset; past the end gives an empty page; default 0; range 0..
	Limit        *int64 // page size; an integer outside the range is clamped to it; default 10; range 1..100
	VariantsMode string // one of all
}

func (p *VariantTopMarketsParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setInt(q, "offset", p.Offset)
	setInt(q, "limit", p.Limit)
	setString(q, "variantsMode", p.VariantsMode)
	return q
}

// AssetVariantsResponse is the body of GET /v1/assets/{assetId}/variants.
type AssetVariantsResponse = assetdapi.AssetVariantsResult

// AssetVariantsParams are the query parameters of GET /v1/assets/{assetId}/variants (zero values are left out).
type AssetVariantsParams struct {
	Kind             string
	LiquidityTier    string // one of tier1, tier2, tier3, experimental
	TrustTier        string // one of tier1, tier2, tier3, experimental
	StockVariantTier string
	VariantsMode     string // one of all
	SortBy           string // default "liquidity"; one of liquidity, executionQuality, stockRedeemability
	Mint             string
}

func (p *AssetVariantsParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "kind", p.Kind)
	setString(q, "liquidityTier", p.LiquidityTier)
	setString(q, "trustTier", p.TrustTier)
	setString(q, "stockVariantTier", p.StockVariantTier)
	setString(q, "variantsMode", p.VariantsMode)
	setString(q, "sortBy", p.SortBy)
	setString(q, "mint", p.Mint)
	return q
}

// HealthResponse is the body of GET /v1/health.
type HealthResponse = assetdapi.Health

// RootResponse is the JSON body of GET /: where to start.
type RootResponse = assetdapi.ServiceIndex

// TradeSourceResponse is the body of GET /v1/internal/trades/source.
type TradeSourceResponse = assetdapi.TradeSourceStatus

// IngestTradesResponse is the body of POST /v1/internal/trades.
type IngestTradesResponse = assetdapi.IngestTradesResult

// NewsFeedResponse is the body of GET /v1/news/feed.
type NewsFeedResponse = assetdapi.NewsFeed

// NewsFeedParams are the query parameters of GET /v1/news/feed (zero values are left out).
type NewsFeedParams struct {
	Limit         *int64 // items; an integer outside the range is clamped; default 10; range 1..50
	Source        string // default "all"; one of all, news, tweets
	Tweet_reserve *int64 // slots kept for social posts; clamped into 0..limit; default 3; range 0..50
	Coin_id       string
	Name          string
	Symbol        string
	Asset_id      string
	Term          string // repeatable match term
	Terms         string // comma-separated match terms
}

func (p *NewsFeedParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setInt(q, "limit", p.Limit)
	setString(q, "source", p.Source)
	setInt(q, "tweet_reserve", p.Tweet_reserve)
	setString(q, "coin_id", p.Coin_id)
	setString(q, "name", p.Name)
	setString(q, "symbol", p.Symbol)
	setString(q, "asset_id", p.Asset_id)
	setString(q, "term", p.Term)
	setString(q, "terms", p.Terms)
	return q
}

// WhoamiResponse is the body of GET /v1/whoami.
type WhoamiResponse = assetdapi.Whoami

// ExecutionEvaluateResponse is the body of GET /v2/execution/evaluate.
type ExecutionEvaluateResponse = assetdapi.ExecutionEvaluation

// ExecutionEvaluateParams are the query parameters of GET /v2/execution/evaluate (zero values are left out).
type ExecutionEvaluateParams struct {
	Mint        string // base58 mint
	Side        string // default "buy"; one of buy, sell
	AmountUSD   string // USD size to quote (repeatable)
	TokenAmount string // token amount to quote, for side=sell (repeatable)
	Providers   string // comma-separated provider ids
}

func (p *ExecutionEvaluateParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "mint", p.Mint)
	setString(q, "side", p.Side)
	setString(q, "amountUsd", p.AmountUSD)
	setString(q, "tokenAmount", p.TokenAmount)
	setString(q, "providers", p.Providers)
	return q
}

// ExecutionLinksResponse is the body of GET /v2/execution/links.
type ExecutionLinksResponse = assetdapi.ExecutionLinks

// ExecutionLinksParams are the query parameters of GET /v2/execution/links (zero values are left out).
type ExecutionLinksParams struct {
	Mint     string // base58 mint (either mint or assetId)
	AssetID  string // asset id (either mint or assetId)
	SellMint string // base58 mint to sell
	Venues   string // comma-separated venue ids
	Kinds    string // comma-separated link kinds; default "swap"
	Amount   string // positive decimal amount
}

func (p *ExecutionLinksParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "mint", p.Mint)
	setString(q, "assetId", p.AssetID)
	setString(q, "sellMint", p.SellMint)
	setString(q, "venues", p.Venues)
	setString(q, "kinds", p.Kinds)
	setString(q, "amount", p.Amount)
	return q
}

// ExecutionRouteResponse is the body of GET /v2/execution/route.
type ExecutionRouteResponse = assetdapi.ExecutionRoutePlan

// ExecutionRouteParams are the query parameters of GET /v2/execution/route (zero values are left out).
type ExecutionRouteParams struct {
	AssetID     string
	Side        string // default "buy"; one of buy
	AmountUSD   *int64 // whole US dollars; default 1000000; range 1..50000000
	MaxVariants *int64 // default 4; range 1..6
	Allocate    *bool  // default true
	Providers   string // comma-separated provider ids
}

func (p *ExecutionRouteParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "assetId", p.AssetID)
	setString(q, "side", p.Side)
	setInt(q, "amountUsd", p.AmountUSD)
	setInt(q, "maxVariants", p.MaxVariants)
	setBool(q, "allocate", p.Allocate)
	setString(q, "providers", p.Providers)
	return q
}

// ListListsResponse is the body of GET /v2/lists.
type ListListsResponse = assetdapi.ListsPage

// ListListsParams are the query parameters of GET /v2/lists (zero values are left out).
type ListListsParams struct {
	Limit  *int64 // page size; an integer outside the range is clamped to it; default 100; range 1..500
	Offset *int64 // zero-based offset; past the end gives an empty page; default 0; range 0..
}

func (p *ListListsParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setInt(q, "limit", p.Limit)
	setInt(q, "offset", p.Offset)
	return q
}

// CreateListResponse is the body of POST /v2/lists.
type CreateListResponse = assetdapi.ListSummary

// CreateListRequest is the body of POST /v2/lists.
type CreateListRequest struct {
	Name   string  `json:"name,omitempty"`
	Slug   string  `json:"slug,omitempty"`
	Status *string `json:"status,omitempty"`
}

// SearchTokensResponse is the body of GET /v2/lists/search-tokens.
type SearchTokensResponse = assetdapi.SearchTokensResult

// SearchTokensParams are the query parameters of GET /v2/lists/search-tokens (zero values are left out).
type SearchTokensParams struct {
	Q      string // a symbol, name or mint (at most 100 characters)
	Policy string // default "strict"; one of strict, default, degen
	Limit  *int64 // an integer outside the range is clamped; default 10; range 1..50
}

func (p *SearchTokensParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "q", p.Q)
	setString(q, "policy", p.Policy)
	setInt(q, "limit", p.Limit)
	return q
}

// ComposeListsResponse is the body of GET /v2/lists/tokens.
type ComposeListsResponse = assetdapi.ComposedLists

// ComposeListsParams are the query parameters of GET /v2/lists/tokens (zero values are left out).
type ComposeListsParams struct {
	Lists  string // comma-separated slugs
	Limit  *int64 // page size; an integer outside the range is clamped to it; default 500; range 1..2000
	Offset *int64 // zero-based offset; past the end gives an empty page; default 0; range 0..
}

func (p *ComposeListsParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "lists", p.Lists)
	setInt(q, "limit", p.Limit)
	setInt(q, "offset", p.Offset)
	return q
}

// DeleteListResponse is the body of DELETE /v2/lists/{slug}.
type DeleteListResponse = assetdapi.DeletedList

// GetListResponse is the body of GET /v2/lists/{slug}.
type GetListResponse = assetdapi.ListDetail

// GetListParams are the query parameters of GET /v2/lists/{slug} (zero values are left out).
type GetListParams struct {
	Limit  *int64 // page size; an integer outside the range is clamped to it; default 500; range 1..2000
	Offset *int64 // zero-based offset; past the end gives an empty page; default 0; range 0..
}

func (p *GetListParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setInt(q, "limit", p.Limit)
	setInt(q, "offset", p.Offset)
	return q
}

// UpdateListResponse is the body of PATCH /v2/lists/{slug}.
type UpdateListResponse = assetdapi.ListSummary

// UpdateListRequest is the body of PATCH /v2/lists/{slug}.
type UpdateListRequest struct {
	Name   *string `json:"name,omitempty"`
	Slug   *string `json:"slug,omitempty"`
	Status *string `json:"status,omitempty"`
}

// AddMembersResponse is the body of POST /v2/lists/{slug}/members.
type AddMembersResponse = assetdapi.AddMembersResult

// AddMembersRequest is the body of POST /v2/lists/{slug}/members.
type AddMembersRequest struct {
	Mints []string `json:"mints,omitempty"`
}

// DeleteMemberResponse is the body of DELETE /v2/lists/{slug}/members/{mint}.
type DeleteMemberResponse = assetdapi.DeletedMember

// PutMemberResponse is the body of PUT /v2/lists/{slug}/members/{mint}.
type PutMemberResponse = assetdapi.ListMember

// PutMemberRequest is the body of PUT /v2/lists/{slug}/members/{mint}.
type PutMemberRequest struct {
	Note *string `json:"note,omitempty"`
	Rank *int64  `json:"rank,omitempty"`
}

// OpenAPI calls GET /openapi.json: this contract, as JSON.
func (c *Client) OpenAPI(ctx context.Context) (*OpenapiResponse, error) {
	return call[OpenapiResponse](ctx, c, "GET", "/openapi.json", nil, nil)
}

// Readiness calls GET /readyz: readiness of the store, the registry and the market data (200 ready, 503 not ready).
func (c *Client) Readiness(ctx context.Context) (*ReadinessResponse, error) {
	return call[ReadinessResponse](ctx, c, "GET", "/readyz", nil, nil)
}

// CuratedAssets calls GET /v1/assets/curated: a curated list of assets.
func (c *Client) CuratedAssets(ctx context.Context, p *CuratedAssetsParams) (*CuratedAssetsResponse, error) {
	return call[CuratedAssetsResponse](ctx, c, "GET", "/v1/assets/curated", p.values(), nil)
}

// MarketSnapshots calls POST /v1/assets/market-snapshots: market snapshots of up to N mints.
func (c *Client) MarketSnapshots(ctx context.Context, body MarketSnapshotsRequest) (*MarketSnapshotsResponse, error) {
	return call[MarketSnapshotsResponse](ctx, c, "POST", "/v1/assets/market-snapshots", nil, body)
}

// ResolveAsset calls GET /v1/assets/resolve: resolve a ref or mint to an asset.
func (c *Client) ResolveAsset(ctx context.Context, p *ResolveAssetParams) (*ResolveAssetResponse, error) {
	return call[ResolveAssetResponse](ctx, c, "GET", "/v1/assets/resolve", p.values(), nil)
}

// MintRiskSummary calls GET /v1/assets/risk-summary: risk summary of a mint.
func (c *Client) MintRiskSummary(ctx context.Context, p *MintRiskSummaryParams) (*MintRiskSummaryResponse, error) {
	return call[MintRiskSummaryResponse](ctx, c, "GET", "/v1/assets/risk-summary", p.values(), nil)
}

// SearchAssets calls GET /v1/assets/search: search assets.
func (c *Client) SearchAssets(ctx context.Context, p *SearchAssetsParams) (*SearchAssetsResponse, error) {
	return call[SearchAssetsResponse](ctx, c, "GET", "/v1/assets/search", p.values(), nil)
}

// TrendingAssets calls GET /v1/assets/trending: trending assets.
func (c *Client) TrendingAssets(ctx context.Context, p *TrendingAssetsParams) (*TrendingAssetsResponse, error) {
	return call[TrendingAssetsResponse](ctx, c, "GET", "/v1/assets/trending", p.values(), nil)
}

// VariantMarkets calls GET /v1/assets/variant-markets: variant markets of mints.
func (c *Client) VariantMarkets(ctx context.Context, p *VariantMarketsParams) (*VariantMarketsResponse, error) {
	return call[VariantMarketsResponse](ctx, c, "GET", "/v1/assets/variant-markets", p.values(), nil)
}

// GetAsset calls GET /v1/assets/{assetId}: asset detail with optional include blocks.
func (c *Client) GetAsset(ctx context.Context, assetId string, p *GetAssetParams) (*GetAssetResponse, error) {
	return call[GetAssetResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId), p.values(), nil)
}

// AssetDescription calls GET /v1/assets/{assetId}/description: asset description.
func (c *Client) AssetDescription(ctx context.Context, assetId string) (*AssetDescriptionResponse, error) {
	return call[AssetDescriptionResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/description", nil, nil)
}

// AssetMarkets calls GET /v1/assets/{assetId}/markets: markets (pools) of an asset.
func (c *Client) AssetMarkets(ctx context.Context, assetId string, p *AssetMarketsParams) (*AssetMarketsResponse, error) {
	return call[AssetMarketsResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/markets", p.values(), nil)
}

// AssetOHLCV calls GET /v1/assets/{assetId}/ohlcv: oHLCV candles.
func (c *Client) AssetOHLCV(ctx context.Context, assetId string, p *AssetOHLCVParams) (*AssetOHLCVResponse, error) {
	return call[AssetOHLCVResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/ohlcv", p.values(), nil)
}

// AssetPriceChart calls GET /v1/assets/{assetId}/price-chart: price chart.
func (c *Client) AssetPriceChart(ctx context.Context, assetId string, p *AssetPriceChartParams) (*AssetPriceChartResponse, error) {
	return call[AssetPriceChartResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/price-chart", p.values(), nil)
}

// AssetProfile calls GET /v1/assets/{assetId}/profile: asset profile.
func (c *Client) AssetProfile(ctx context.Context, assetId string) (*AssetProfileResponse, error) {
	return call[AssetProfileResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/profile", nil, nil)
}

// AssetRiskDetails calls GET /v1/assets/{assetId}/risk-details: risk details of an asset.
func (c *Client) AssetRiskDetails(ctx context.Context, assetId string, p *AssetRiskDetailsParams) (*AssetRiskDetailsResponse, error) {
	return call[AssetRiskDetailsResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/risk-details", p.values(), nil)
}

// AssetRiskSummary calls GET /v1/assets/{assetId}/risk-summary: risk summary of an asset.
func (c *Client) AssetRiskSummary(ctx context.Context, assetId string, p *AssetRiskSummaryParams) (*AssetRiskSummaryResponse, error) {
	return call[AssetRiskSummaryResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/risk-summary", p.values(), nil)
}

// AssetTickers calls GET /v1/assets/{assetId}/tickers: exchange tickers.
func (c *Client) AssetTickers(ctx context.Context, assetId string, p *AssetTickersParams) (*AssetTickersResponse, error) {
	return call[AssetTickersResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/tickers", p.values(), nil)
}

// VariantMarket calls GET /v1/assets/{assetId}/variant-market: market of one variant.
func (c *Client) VariantMarket(ctx context.Context, assetId string, p *VariantMarketParams) (*VariantMarketResponse, error) {
	return call[VariantMarketResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/variant-market", p.values(), nil)
}

// VariantTopMarkets calls GET /v1/assets/{assetId}/variant-top-markets: top markets per variant.
func (c *Client) VariantTopMarkets(ctx context.Context, assetId string, p *VariantTopMarketsParams) (*VariantTopMarketsResponse, error) {
	return call[VariantTopMarketsResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/variant-top-markets", p.values(), nil)
}

// AssetVariants calls GET /v1/assets/{assetId}/variants: variants of an asset.
func (c *Client) AssetVariants(ctx context.Context, assetId string, p *AssetVariantsParams) (*AssetVariantsResponse, error) {
	return call[AssetVariantsResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/variants", p.values(), nil)
}

// Root calls GET /: links to the contract, the dashboard and the docs.
func (c *Client) Root(ctx context.Context) (*RootResponse, error) {
	return call[RootResponse](ctx, c, "GET", "/", nil, nil)
}

// Health calls GET /v1/health: liveness.
func (c *Client) Health(ctx context.Context) (*HealthResponse, error) {
	return call[HealthResponse](ctx, c, "GET", "/v1/health", nil, nil)
}

// GetTradeSource calls GET /v1/internal/trades/source: the chain trade
// source's state, cursor, gaps and counts.
func (c *Client) GetTradeSource(ctx context.Context) (*TradeSourceResponse, error) {
	return call[TradeSourceResponse](ctx, c, "GET", "/v1/internal/trades/source", nil, nil)
}

// IngestTrades calls POST /v1/internal/trades: ingest trades (NDJSON or a JSON array).
func (c *Client) IngestTrades(ctx context.Context, body []TradeEvent) (*IngestTradesResponse, error) {
	return call[IngestTradesResponse](ctx, c, "POST", "/v1/internal/trades", nil, body)
}

// NewsFeed calls GET /v1/news/feed: news articles and social posts, globally or about one token (docs/news.md).
func (c *Client) NewsFeed(ctx context.Context, p *NewsFeedParams) (*NewsFeedResponse, error) {
	return call[NewsFeedResponse](ctx, c, "GET", "/v1/news/feed", p.values(), nil)
}

// Whoami calls GET /v1/whoami: the identity of the caller's session.
func (c *Client) Whoami(ctx context.Context) (*WhoamiResponse, error) {
	return call[WhoamiResponse](ctx, c, "GET", "/v1/whoami", nil, nil)
}

// ExecutionEvaluate calls GET /v2/execution/evaluate: quote a mint across providers for several sizes.
func (c *Client) ExecutionEvaluate(ctx context.Context, p *ExecutionEvaluateParams) (*ExecutionEvaluateResponse, error) {
	return call[ExecutionEvaluateResponse](ctx, c, "GET", "/v2/execution/evaluate", p.values(), nil)
}

// ExecutionLinks calls GET /v2/execution/links: deep links to swap a mint or an asset on supported venues.
func (c *Client) ExecutionLinks(ctx context.Context, p *ExecutionLinksParams) (*ExecutionLinksResponse, error) {
	return call[ExecutionLinksResponse](ctx, c, "GET", "/v2/execution/links", p.values(), nil)
}

// ExecutionRoute calls GET /v2/execution/route: best route for an asset across its variants.
func (c *Client) ExecutionRoute(ctx context.Context, p *ExecutionRouteParams) (*ExecutionRouteResponse, error) {
	return call[ExecutionRouteResponse](ctx, c, "GET", "/v2/execution/route", p.values(), nil)
}

// ListLists calls GET /v2/lists: catalog of visible lists.
func (c *Client) ListLists(ctx context.Context, p *ListListsParams) (*ListListsResponse, error) {
	return call[ListListsResponse](ctx, c, "GET", "/v2/lists", p.values(), nil)
}

// CreateList calls POST /v2/lists: create a community list.
func (c *Client) CreateList(ctx context.Context, body CreateListRequest) (*CreateListResponse, error) {
	return call[CreateListResponse](ctx, c, "POST", "/v2/lists", nil, body)
}

// SearchTokens calls GET /v2/lists/search-tokens: curator search over the token index, with warnings and the suppressed set (docs/lists.md).
func (c *Client) SearchTokens(ctx context.Context, p *SearchTokensParams) (*SearchTokensResponse, error) {
	return call[SearchTokensResponse](ctx, c, "GET", "/v2/lists/search-tokens", p.values(), nil)
}

// ComposeLists calls GET /v2/lists/tokens: compose the members of several lists.
func (c *Client) ComposeLists(ctx context.Context, p *ComposeListsParams) (*ComposeListsResponse, error) {
	return call[ComposeListsResponse](ctx, c, "GET", "/v2/lists/tokens", p.values(), nil)
}

// DeleteList calls DELETE /v2/lists/{slug}: delete a list.
func (c *Client) DeleteList(ctx context.Context, slug string) (*DeleteListResponse, error) {
	return call[DeleteListResponse](ctx, c, "DELETE", "/v2/lists/"+url.PathEscape(slug), nil, nil)
}

// GetList calls GET /v2/lists/{slug}: a list with its members.
func (c *Client) GetList(ctx context.Context, slug string, p *GetListParams) (*GetListResponse, error) {
	return call[GetListResponse](ctx, c, "GET", "/v2/lists/"+url.PathEscape(slug), p.values(), nil)
}

// UpdateList calls PATCH /v2/lists/{slug}: rename, re-slug or change the status of a list.
func (c *Client) UpdateList(ctx context.Context, slug string, body UpdateListRequest) (*UpdateListResponse, error) {
	return call[UpdateListResponse](ctx, c, "PATCH", "/v2/lists/"+url.PathEscape(slug), nil, body)
}

// AddMembers calls POST /v2/lists/{slug}/members: add members in bulk.
func (c *Client) AddMembers(ctx context.Context, slug string, body AddMembersRequest) (*AddMembersResponse, error) {
	return call[AddMembersResponse](ctx, c, "POST", "/v2/lists/"+url.PathEscape(slug)+"/members", nil, body)
}

// DeleteMember calls DELETE /v2/lists/{slug}/members/{mint}: remove a member.
func (c *Client) DeleteMember(ctx context.Context, slug string, mint string) (*DeleteMemberResponse, error) {
	return call[DeleteMemberResponse](ctx, c, "DELETE", "/v2/lists/"+url.PathEscape(slug)+"/members/"+url.PathEscape(mint), nil, nil)
}

// PutMember calls PUT /v2/lists/{slug}/members/{mint}: add or update a member.
func (c *Client) PutMember(ctx context.Context, slug string, mint string, body PutMemberRequest) (*PutMemberResponse, error) {
	return call[PutMemberResponse](ctx, c, "PUT", "/v2/lists/"+url.PathEscape(slug)+"/members/"+url.PathEscape(mint), nil, body)
}

// TokenListToken is one token of a token list (chainId 101 is Solana).
type TokenListToken = assetdapi.TokenListToken

// TokenListResponse is the body of GET /v2/lists/{slug}/tokenlist.json:
// the list in the tokenlists.org schema.
type TokenListResponse = assetdapi.TokenList

// GetTokenList calls GET /v2/lists/{slug}/tokenlist.json: a list in the
// tokenlists.org schema (same visibility as GetList).
func (c *Client) GetTokenList(ctx context.Context, slug string) (*TokenListResponse, error) {
	return call[TokenListResponse](ctx, c, "GET", "/v2/lists/"+url.PathEscape(slug)+"/tokenlist.json", nil, nil)
}

// PriceAt is one answer of price-at and price-history (docs/prices.md):
// Price, At, Interval and Source are nil unless Status is "ok".
type PriceAt = assetdapi.PriceAt

// AssetPriceAtParams are the query parameters of GET /v1/assets/{assetId}/price-at (zero values are left out).
type AssetPriceAtParams struct {
	TS          int64 // unix seconds (required)
	Mint        string
	SearchWidth *int64 // seconds; default one bar of each interval
}

func (p *AssetPriceAtParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	ts := p.TS
	setInt(q, "ts", &ts)
	setString(q, "mint", p.Mint)
	setInt(q, "searchWidth", p.SearchWidth)
	return q
}

// AssetPriceAt calls GET /v1/assets/{assetId}/price-at: price at a time.
func (c *Client) AssetPriceAt(ctx context.Context, assetId string, p *AssetPriceAtParams) (*PriceAt, error) {
	return call[PriceAt](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/price-at", p.values(), nil)
}

// PriceHistoryQuery is one mint's timestamps in a PriceHistoryRequest.
type PriceHistoryQuery struct {
	Mint       string  `json:"mint"`
	Timestamps []int64 `json:"timestamps"`
}

// PriceHistoryRequest is the body of POST /v1/assets/price-history (at
// most 100 queries of at most 100 timestamps).
type PriceHistoryRequest struct {
	Queries     []PriceHistoryQuery `json:"queries"`
	SearchWidth *int64              `json:"searchWidth,omitempty"`
}

// PriceHistoryResponse is the body of POST /v1/assets/price-history: one
// row per (mint, ts), in request order.
type PriceHistoryResponse = assetdapi.PriceHistoryResult

// PriceHistory calls POST /v1/assets/price-history: prices of up to 100 mints at up to 100 times each.
func (c *Client) PriceHistory(ctx context.Context, body PriceHistoryRequest) (*PriceHistoryResponse, error) {
	return call[PriceHistoryResponse](ctx, c, "POST", "/v1/assets/price-history", nil, body)
}

// AssetVerdictsRequest is the body of POST /v1/assets/verdicts.
type AssetVerdictsRequest struct {
	Mints []string `json:"mints"`
}

// AssetVerdictsResponse is the body of POST /v1/assets/verdicts.
type AssetVerdictsResponse = assetdapi.VerdictsResult

// AssetVerdicts calls POST /v1/assets/verdicts: pre-trade verdicts of up to 100 mints.
func (c *Client) AssetVerdicts(ctx context.Context, body AssetVerdictsRequest) (*AssetVerdictsResponse, error) {
	return call[AssetVerdictsResponse](ctx, c, "POST", "/v1/assets/verdicts", nil, body)
}

// AssetChangesResponse is the body of GET /v1/assets/{assetId}/changes.
type AssetChangesResponse = assetdapi.AssetChangesPage

// AssetChangesParams are the query parameters of GET /v1/assets/{assetId}/changes (zero values are left out).
type AssetChangesParams struct {
	Mint   string // only this variant's changes
	Since  *int64 // unix ms
	Before *int64 // the nextBefore cursor
	Limit  *int64 // 1..200
}

func (p *AssetChangesParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "mint", p.Mint)
	setInt(q, "since", p.Since)
	setInt(q, "before", p.Before)
	setInt(q, "limit", p.Limit)
	return q
}

// AssetChanges calls GET /v1/assets/{assetId}/changes: the change log of an asset's mints, newest first.
func (c *Client) AssetChanges(ctx context.Context, assetId string, p *AssetChangesParams) (*AssetChangesResponse, error) {
	return call[AssetChangesResponse](ctx, c, "GET", "/v1/assets/"+url.PathEscape(assetId)+"/changes", p.values(), nil)
}

// AdvisoryFeedResponse is the body of GET /v1/advisories.
type AdvisoryFeedResponse = assetdapi.AdvisoryFeedPage

// AdvisoryFeedParams are the query parameters of GET /v1/advisories (zero values are left out).
type AdvisoryFeedParams struct {
	Since string // a nextCursor from an earlier page; absent: from the start
	Limit *int64 // events; an integer outside the range is clamped; default 100; range 1..1000
}

func (p *AdvisoryFeedParams) values() url.Values {
	q := url.Values{}
	if p == nil {
		return q
	}
	setString(q, "since", p.Since)
	setInt(q, "limit", p.Limit)
	return q
}

// AdvisoryFeed calls GET /v1/advisories: advisory changes after a cursor, oldest first (docs/advisories.md).
func (c *Client) AdvisoryFeed(ctx context.Context, p *AdvisoryFeedParams) (*AdvisoryFeedResponse, error) {
	return call[AdvisoryFeedResponse](ctx, c, "GET", "/v1/advisories", p.values(), nil)
}

// CurrentAdvisoriesResponse is the body of GET /v1/advisories/current.
type CurrentAdvisoriesResponse = assetdapi.CurrentAdvisories

// CurrentAdvisories calls GET /v1/advisories/current: every active advisory (docs/advisories.md).
func (c *Client) CurrentAdvisories(ctx context.Context) (*CurrentAdvisoriesResponse, error) {
	return call[CurrentAdvisoriesResponse](ctx, c, "GET", "/v1/advisories/current", nil, nil)
}

// FileAdvisoryReportRequest is the body of POST /v1/advisories/reports.
type FileAdvisoryReportRequest struct {
	Mint         string `json:"mint"`
	Kind         string `json:"kind"` // impersonation, compromised, scam or other
	ClaimedAsset string `json:"claimedAsset,omitempty"`
	EvidenceURL  string `json:"evidenceUrl,omitempty"`
	Note         string `json:"note,omitempty"`
}

// FileAdvisoryReportResponse is the body of a filed report.
type FileAdvisoryReportResponse = assetdapi.AdvisoryReportReceipt

// FileAdvisoryReport calls POST /v1/advisories/reports: report a suspicious mint for operator review (docs/advisories.md).
func (c *Client) FileAdvisoryReport(ctx context.Context, body *FileAdvisoryReportRequest) (*FileAdvisoryReportResponse, error) {
	return call[FileAdvisoryReportResponse](ctx, c, "POST", "/v1/advisories/reports", nil, body)
}

// AdvisoryReportResponse is the body of GET /v1/advisories/reports/{id}.
type AdvisoryReportResponse = assetdapi.AdvisoryReport

// GetAdvisoryReport calls GET /v1/advisories/reports/{id}: a report's status and resolution, to the project that filed it.
func (c *Client) GetAdvisoryReport(ctx context.Context, id string) (*AdvisoryReportResponse, error) {
	return call[AdvisoryReportResponse](ctx, c, "GET", "/v1/advisories/reports/"+url.PathEscape(id), nil, nil)
}
