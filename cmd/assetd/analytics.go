package main

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/demo"
	"github.com/assetd/assetd/internal/marketcache"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/registry"
	"github.com/prometheus/client_golang/prometheus"
)

// Demo trade feed: how often the demo world's new trades are ingested and
// how much history is backfilled at start (so the 24 h windows are full).
const (
	demoFeedInterval = 3 * time.Second
	// demoBackfill is a little over the 24 h window so the 24 h price
	// change has a price before the window from the start.
	demoBackfill = 24*time.Hour + 10*time.Minute
	// demoSyncBackfill is the part of demoBackfill ingested before serving
	// (about 1 s for the seed registry; all 24 h take about 15 s and run
	// in the background).
	demoSyncBackfill = time.Hour
	trendingInterval = 30 * time.Second
	pruneInterval    = 5 * time.Minute
)

// demoDedupeEntries bounds the remembered signatures in demo mode: the
// demo stream delivers each trade once, so the signature set only has to
// catch a client re-posting recent trades, and the default (sized for
// 24 h of real ingest) would be the demo's largest structure.
const demoDedupeEntries = 400_000

// analyticsConfig is the engine's configuration for serve.
func analyticsConfig(cfg serveConfig, fallback analytics.PriceSource) analytics.Config {
	dust := cfg.dustUSD
	if dust == 0 {
		dust = -1 // --dust-usd 0 turns the dust rule off
	}
	c := analytics.Config{DustUSD: dust, OutlierFactor: cfg.outlierFactor, Fallback: fallback}
	if cfg.demo {
		c.DedupeMaxEntries = demoDedupeEntries
		return c
	}
	// With a store behind ingest the store deduplicates (internal/ingest).
	c.NoDedupe = true
	return c
}

// lateReference is the trade admission's fallback reference price (the
// market cache's), set once the market cache exists: the cache is built
// over the engine.
type lateReference struct {
	cache atomic.Pointer[marketcache.Cache]
}

func (l *lateReference) ReferencePrice(mint string) (float64, bool) {
	if c := l.cache.Load(); c != nil {
		return c.ReferencePrice(mint)
	}
	return 0, false
}

// registerAdmissionMetrics exposes the trades rejected from the price per
// mint and reason (only mints with a rejection have series).
func registerAdmissionMetrics(m *metrics.Metrics, eng *analytics.Engine) {
	m.Sample("assetd_trades_price_rejected_total", "Valid trades rejected from the price since start (rebuild included), by mint and reason: dust, price_outlier (docs/prices.md).",
		prometheus.CounterValue, []string{"mint", "reason"}, func(emit func(float64, ...string)) {
			for _, r := range eng.RejectedCounts() {
				emit(float64(r.Count), r.Mint, r.Reason)
			}
		})
}

// runPrune prunes the engine periodically until ctx ends.
func runPrune(ctx context.Context, eng *analytics.Engine, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			eng.Prune(now)
		}
	}
}

// simTrade converts a demo trade to the engine's event.
func simTrade(t *demo.SimTrade) analytics.Trade {
	return analytics.Trade{
		Signature: t.Signature, Slot: int64(t.Slot), BlockTime: t.BlockTime, Mint: t.Mint, Side: t.Side,
		TokenAmount: t.TokenAmount, USDAmount: t.USDAmount, PriceUSD: t.PriceUSD, Wallet: t.Wallet,
		Venue: t.Venue, IsBot: t.IsBot,
	}
}

// demoFeed feeds the analytics engine from the demo world's trade stream
// (every simulated trade exactly once, whatever the ticker's phase).
type demoFeed struct {
	eng    *analytics.Engine
	world  *demo.World
	snap   func() *registry.Snapshot
	stream *demo.TradeStream
	last   time.Time // the stream's cursor: trades before last were ingested
	from   time.Time // where the last backfill began
	// ctx, when set, stops a step between batches once done.
	ctx context.Context
	buf []analytics.Trade
}

// step ingests every registry mint's trades from f.last up to now (the
// last complete minute of the world at most) and moves f.last there.
func (f *demoFeed) step(now time.Time) analytics.IngestResult {
	var total analytics.IngestResult
	if f.stream == nil || !f.stream.Cursor().Equal(f.last) {
		f.stream = f.world.TradeStream(f.last)
	}
	f.stream.Poll(f.snap().Mints(), now, func(sim []demo.SimTrade) bool {
		if f.ctx != nil && f.ctx.Err() != nil {
			return false
		}
		f.buf = f.buf[:0]
		for i := range sim {
			f.buf = append(f.buf, simTrade(&sim[i]))
		}
		r := f.eng.Ingest(f.buf)
		total.Accepted += r.Accepted
		total.Duplicates += r.Duplicates
		total.Rejected += r.Rejected
		for k, n := range r.Reasons {
			if total.Reasons == nil {
				total.Reasons = map[string]int{}
			}
			total.Reasons[k] += n
		}
		return true
	})
	f.last = f.stream.Cursor()
	if cap(f.buf) > 1<<14 {
		f.buf = nil // a backfill's batches: do not keep their memory
	}
	return total
}

// backfill ingests the last d of trades.
func (f *demoFeed) backfill(now time.Time, d time.Duration, log *slog.Logger) {
	f.backfillRange(now.Add(-d), now, log)
}

// backfillRange ingests the trades of [from, to) and leaves f.last at to
// (the start of to's minute).
func (f *demoFeed) backfillRange(from, to time.Time, log *slog.Logger) {
	start := time.Now()
	f.from, f.last = from, from
	r := f.step(to)
	log.Info("analytics backfilled from the demo world", "from", from.UTC().Format(time.RFC3339), "to", f.last.UTC().Format(time.RFC3339),
		"accepted", r.Accepted, "duplicates", r.Duplicates, "rejected", r.Rejected, "took", time.Since(start).Round(time.Millisecond))
}

// run ingests new demo trades every interval until ctx ends.
func (f *demoFeed) run(ctx context.Context, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r := f.step(time.Now())
			if r.Rejected > 0 {
				log.Warn("demo trades rejected", "rejected", r.Rejected, "reasons", r.Reasons)
			}
		}
	}
}
