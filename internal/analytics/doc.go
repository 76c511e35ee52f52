// Package analytics is the in-memory trade analytics engine behind the
// analytics_trades market source and the analytics_fill_quality
// execution-quality rollups.
//
// An Engine ingests validated trade events (Trade) idempotently by
// signature and maintains, per mint:
//
//   - rolling windows (5m, 15m, 1h, 6h, 24h) over a sparse ring of
//     per-minute buckets: USD volume, trade count, exact unique wallets,
//     1h and 24h price change, last trade (Market, Windows);
//   - OHLCV candles for 1m, 5m, 15m, 1H, 4H, 1D and 1W aligned to UTC
//     boundaries, correct for late and out-of-order trades, with bounded
//     retention per interval and a dirty-set hook for persistence
//     (Candles, OHLCV, DirtyCandles, LoadCandles);
//   - 24h execution-quality rollups with 5 s markouts (ExecutionQuality);
//
// and computes the top-50 trending set by the balanced momentum score
// (Trending, scoring version ScoringVersion).
//
// The package does no I/O and starts no goroutines. Every method is safe
// for concurrent use; state is sharded by mint. Read methods take the
// evaluation time as an argument; Ingest reads the injected clock
// (Config.Clock). docs/analytics.md describes the model.
package analytics
