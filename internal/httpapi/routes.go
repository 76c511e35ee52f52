package httpapi

import (
	"net/http"
	"strings"

	"github.com/assetd/assetd/internal/apikey"
)

// handlerFunc is a handler that returns its error for the adapter to render.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

type authMode int

const (
	authKey     authMode = iota // x-api-key holding any of the route's scopes
	authNone                    // public
	authSession                 // identity-provider session (whoami)
)

// route is one row of the table: pattern, who may call it, and how long a
// success may be cached by the client.
type route struct {
	pattern string
	auth    authMode
	scopes  []string // any one suffices
	cache   string   // Cache-Control of a success; errors are no-store
	// cacheHdr is cache as a header value, built once (build).
	cacheHdr []string
	handler  handlerFunc
}

// conditional says successes of the route carry an ETag, answer
// If-None-Match and may be compressed: every cacheable GET.
func (rt route) conditional() bool {
	return rt.cache != "" && rt.cache != noStore && strings.HasPrefix(rt.pattern, "GET ")
}

// Scopes follow the spec: `assets:read` unless stated. Only the
// mint-scoped risk-summary states another (riskRead); the fine-grained
// scopes otherwise govern asset detail include blocks (detailRead). The
// execution family states none, so it admits assets:read, and
// execution:read as its own narrower grant (execRead).
var (
	read     = []string{apikey.ScopeAssetsRead}
	riskRead = []string{apikey.ScopeAssetsRead, apikey.ScopeRiskRead}
	// detailRead: asset detail accepts assets:read or any include scope;
	// each include block then checks its own scope (includes.go).
	detailRead  = []string{apikey.ScopeAssetsRead, apikey.ScopeProfileRead, apikey.ScopeRiskRead, apikey.ScopeOHLCVRead, apikey.ScopeMarketsRead}
	tradesWrite = []string{apikey.ScopeTradesWrite}
	execRead    = []string{apikey.ScopeAssetsRead, apikey.ScopeExecutionRead}
	// anyScope: every key (advisory reports).
	anyScope = apikey.AllScopes[:]
)

// Cache-Control policies (always private: responses depend on the key).
const (
	noStore      = "no-store"
	cacheDetail  = "private, max-age=30"
	cacheCurated = "private, max-age=30, stale-while-revalidate=60"
	cacheSearch  = "private, max-age=120"
	cacheMarkets = "private, max-age=60"
	cacheLists   = "private, max-age=30"
	cacheCandles = "private, max-age=60, stale-while-revalidate=300"
	cacheTrend   = "private, max-age=30"
	cacheProfile = "private, max-age=300, stale-while-revalidate=600"
	cacheLinks   = "private, max-age=3600"
	// The contract is the same for every caller.
	cacheContract = "public, max-age=3600"
)

// routes is the route table: every endpoint, its scope, its cache policy.
func (s *Server) routes() []route {
	rs := []route{
		// Meta
		{pattern: "GET /v1/health", auth: authNone, cache: noStore, handler: s.health},
		{pattern: readyzPattern, auth: authNone, cache: noStore, handler: s.ready},
		{pattern: "GET /v1/whoami", auth: authSession, cache: noStore, handler: s.whoami},
		{pattern: "GET /openapi.json", auth: authNone, cache: cacheContract, handler: s.openapi},
		{pattern: "GET /{$}", auth: authNone, cache: noStore, handler: s.root},

		// Assets (collection). Literal segments win over {assetId}.
		{pattern: "GET /v1/assets/resolve", scopes: read, cache: cacheSearch, handler: s.resolve},
		{pattern: "GET /v1/assets/search", scopes: read, cache: cacheSearch, handler: s.search},
		{pattern: "GET /v1/assets/curated", scopes: read, cache: cacheCurated, handler: s.curated},
		{pattern: "POST /v1/assets/market-snapshots", scopes: read, cache: cacheMarkets, handler: s.marketSnapshots},
		{pattern: "GET /v1/assets/variant-markets", scopes: read, cache: cacheMarkets, handler: s.variantMarkets},
		{pattern: "GET /v1/assets/trending", scopes: read, cache: cacheTrend, handler: s.trendingList},
		{pattern: "GET /v1/assets/risk-summary", scopes: riskRead, cache: noStore, handler: s.mintRiskSummary},
		{pattern: "POST /v1/assets/price-history", scopes: read, cache: noStore, handler: s.priceHistory},
		{pattern: "POST /v1/assets/verdicts", scopes: riskRead, cache: noStore, handler: s.verdicts},

		// Asset by id.
		{pattern: "GET /v1/assets/{assetId}", scopes: detailRead, cache: cacheDetail, handler: s.assetDetail},
		{pattern: "GET /v1/assets/{assetId}/variants", scopes: read, cache: cacheDetail, handler: s.assetVariants},
		{pattern: "GET /v1/assets/{assetId}/variant-market", scopes: read, cache: cacheMarkets, handler: s.variantMarket},
		{pattern: "GET /v1/assets/{assetId}/markets", scopes: read, cache: cacheMarkets, handler: s.assetMarkets},
		{pattern: "GET /v1/assets/{assetId}/variant-top-markets", scopes: read, cache: cacheMarkets, handler: s.variantTopMarkets},
		{pattern: "GET /v1/assets/{assetId}/ohlcv", scopes: read, cache: cacheCandles, handler: s.ohlcv},
		{pattern: "GET /v1/assets/{assetId}/price-chart", scopes: read, cache: cacheCandles, handler: s.priceChart},
		{pattern: "GET /v1/assets/{assetId}/price-at", scopes: read, cache: cacheCandles, handler: s.priceAt},
		{pattern: "GET /v1/assets/{assetId}/profile", scopes: read, cache: cacheProfile, handler: s.assetProfile},
		{pattern: "GET /v1/assets/{assetId}/tickers", scopes: read, cache: cacheProfile, handler: s.assetTickers},
		{pattern: "GET /v1/assets/{assetId}/description", scopes: read, cache: cacheProfile, handler: s.assetDescription},
		{pattern: "GET /v1/assets/{assetId}/risk-summary", scopes: read, cache: noStore, handler: s.assetRisk(false)},
		{pattern: "GET /v1/assets/{assetId}/risk-details", scopes: read, cache: noStore, handler: s.assetRisk(true)},
		{pattern: "GET /v1/assets/{assetId}/changes", scopes: read, cache: noStore, handler: s.assetChanges},

		// News feed (served from memory; sources are polled in the background).
		{pattern: "GET /v1/news/feed", scopes: read, cache: noStore, handler: s.newsFeed},

		// Internal trade ingest (8 MiB body, its own limit; see ingestTrades).
		{pattern: "POST /v1/internal/trades", scopes: tradesWrite, cache: noStore, handler: s.ingestTrades},
		{pattern: "GET /v1/internal/trades/source", scopes: tradesWrite, cache: noStore, handler: s.tradeSource},
	}
	if s.d.Execution != nil {
		rs = append(rs, []route{
			// Execution (v2): assets:read or execution:read; errors (refusals included) are no-store.
			{pattern: "GET /v2/execution/links", scopes: execRead, cache: cacheLinks, handler: s.executionLinks},
			{pattern: "GET /v2/execution/evaluate", scopes: execRead, cache: noStore, handler: s.executionEvaluate},
			{pattern: "GET /v2/execution/route", scopes: execRead, cache: noStore, handler: s.executionRoute},
		}...)
	}
	if s.d.AdvisoryFeed != nil {
		rs = append(rs, []route{
			// Advisory feed (docs/advisories.md): read from the store.
			{pattern: "GET /v1/advisories", scopes: read, cache: noStore, handler: s.advisoryFeed},
			{pattern: "GET /v1/advisories/current", scopes: read, cache: noStore, handler: s.currentAdvisories},
		}...)
	}
	if s.d.AdvisoryReports != nil {
		rs = append(rs, []route{
			// Reports: any key; a project reads only its own.
			{pattern: "POST /v1/advisories/reports", scopes: anyScope, cache: noStore, handler: s.fileReport},
			{pattern: "GET /v1/advisories/reports/{id}", scopes: anyScope, cache: noStore, handler: s.getReport},
		}...)
	}
	if s.d.Webhooks != nil {
		rs = append(rs, []route{
			// Webhooks (docs/webhooks.md): assets:read, like list writes;
			// every endpoint belongs to the key's project (another
			// project's is a 404).
			{pattern: "POST /v1/webhooks", scopes: read, cache: noStore, handler: s.webhookCreate},
			{pattern: "GET /v1/webhooks", scopes: read, cache: noStore, handler: s.webhookList},
			{pattern: "GET /v1/webhooks/{id}", scopes: read, cache: noStore, handler: s.webhookGet},
			{pattern: "PATCH /v1/webhooks/{id}", scopes: read, cache: noStore, handler: s.webhookUpdate},
			{pattern: "DELETE /v1/webhooks/{id}", scopes: read, cache: noStore, handler: s.webhookDelete},
			{pattern: "POST /v1/webhooks/{id}/secret", scopes: read, cache: noStore, handler: s.webhookRotate},
			{pattern: "GET /v1/webhooks/{id}/deliveries", scopes: read, cache: noStore, handler: s.webhookDeliveries},
			{pattern: "POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver", scopes: read, cache: noStore, handler: s.webhookRedeliver},
		}...)
	}
	if s.d.Stream != nil {
		// Server-sent events (docs/events.md): no-store, never compressed.
		rs = append(rs, route{pattern: "GET /v1/stream", scopes: read, cache: noStore, handler: s.stream})
	}
	if s.d.Dashboard != nil {
		rs = append(rs, route{pattern: "/dashboard/", auth: authNone, cache: noStore, handler: s.dashboard},
			route{pattern: "GET /dashboard", auth: authNone, cache: noStore, handler: s.dashboardSlash})
	}
	if s.d.Lists == nil {
		return rs
	}
	if s.d.TokenLists != nil {
		rs = append(rs, route{pattern: "GET /v2/lists/{slug}/tokenlist.json", scopes: read, cache: cacheLists, handler: s.listTokenList})
	}
	return append(rs, []route{
		// Lists (v2): every route needs only assets:read; writes are bound
		// to the key's project in the handlers.
		{pattern: "GET /v2/lists", scopes: read, cache: cacheLists, handler: s.listCatalog},
		{pattern: "POST /v2/lists", scopes: read, cache: noStore, handler: s.listCreate},
		{pattern: "GET /v2/lists/tokens", scopes: read, cache: cacheLists, handler: s.listCompose},
		{pattern: "GET /v2/lists/search-tokens", scopes: read, cache: cacheLists, handler: s.searchTokens},
		{pattern: "GET /v2/lists/{slug}", scopes: read, cache: cacheLists, handler: s.listDetail},
		{pattern: "PATCH /v2/lists/{slug}", scopes: read, cache: noStore, handler: s.listUpdate},
		{pattern: "DELETE /v2/lists/{slug}", scopes: read, cache: noStore, handler: s.listDelete},
		{pattern: "PUT /v2/lists/{slug}/members/{mint}", scopes: read, cache: noStore, handler: s.memberPut},
		{pattern: "DELETE /v2/lists/{slug}/members/{mint}", scopes: read, cache: noStore, handler: s.memberDelete},
		{pattern: "POST /v2/lists/{slug}/members", scopes: read, cache: noStore, handler: s.memberBulk},
	}...)
}
