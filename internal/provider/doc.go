// Package provider groups the real upstream adapters of the market-data
// pipeline. Each adapter lives in its own package and implements the
// interfaces of internal/market:
//
//   - marketa: a Birdeye-compatible API (source "marketdata_a"):
//     SnapshotProvider, MarketsProvider, OHLCVProvider.
//   - marketb: a DexScreener-compatible API (source "marketdata_b"):
//     SnapshotProvider, MarketsProvider.
//   - tokenmeta: a Jupiter Tokens v2 compatible API: MetadataProvider.
//   - lstindex: the Sanctum LST list (file or URL): LSTIndex.
//   - extprovider: a CoinGecko-compatible API (source "extprovider"):
//     CoinProvider.
//   - stockfile: an operator CSV of daily stock candles (source
//     "analytics_stock"): StockProvider.
//   - preipofile: an operator JSON file of pre-IPO reference marks (source
//     "preipo"): PreIPOProvider.
//   - newsfeed: RSS/Atom news and social feeds (feed sources "newsprov" and
//     "social"): news.Source, with its own conditional-request client
//     (docs/news.md).
//
// The HTTP adapters share the plumbing of internal/provider/internal/upstream:
// per-call deadlines, size-capped bodies and one error mapping (timeouts,
// transport errors and 5xx wrap market.ErrUpstream, HTTP 429 is a
// *market.RateLimitedError, undecodable bodies wrap market.ErrMalformed;
// extprovider also maps HTTP 404 to market.ErrNotFound).
// docs/providers.md describes endpoints, field mappings and batch sizes.
package provider
