package marketcache

import (
	"context"
	"errors"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// batchWindow is how long the batcher gathers mints before a call.
const batchWindow = 5 * time.Millisecond

func snapKey(mint string) string { return "s:" + mint }

// Market returns the cached merged snapshot of mint, or nil, without
// scheduling anything (the catalog's read path).
func (c *Cache) Market(mint string) *asset.Market {
	now := c.o.Now()
	var snap *asset.Market
	if it := c.snaps.read(mint, now, SnapshotFreshTTL); it != nil {
		snap = it.val.merged
	}
	return c.withAnalytics(mint, snap, now)
}

// ProviderMarket returns the cached snapshot of mint as the market
// providers gave it (no trade overlay), or nil, without scheduling
// anything (the depeg guard's market source).
func (c *Cache) ProviderMarket(mint string) *asset.Market {
	if it := c.snaps.read(mint, c.o.Now(), SnapshotFreshTTL); it != nil {
		return it.val.merged
	}
	return nil
}

// withAnalytics overlays the analytics engine's market of mint on snap
// (see mergeAnalytics); without an engine or engine data snap is returned
// as is (no allocation).
func (c *Cache) withAnalytics(mint string, snap *asset.Market, now time.Time) *asset.Market {
	if c.o.Analytics == nil {
		return snap
	}
	am := c.o.Analytics.Market(mint, now)
	if am == nil {
		return snap
	}
	return mergeAnalytics(snap, am)
}

// mergeAnalytics returns snap with the trade-derived fields of am (the
// analytics engine's market): price, 1h/24h volume, trades and unique
// wallets, 1h/24h price change, lastTradeAt and asOf, and metricsSource
// analytics_trades. Liquidity, market cap, identity (decimals, logo) and
// source stay the snapshot providers'. With no snapshot am is returned
// (source analytics_trades). Neither argument is modified; am is reused
// as the result.
func mergeAnalytics(snap, am *asset.Market) *asset.Market {
	if snap == nil {
		return am
	}
	out := am
	src := am.MetricsSource
	if src == "" {
		src = asset.SourceAnalyticsTrades
	}
	out.Source = snap.Source
	if out.Source == "" {
		out.Source = src
	}
	out.MetricsSource = src
	if out.Price == nil {
		out.Price = snap.Price
	}
	out.Liquidity, out.MarketCap = snap.Liquidity, snap.MarketCap
	out.Decimals, out.LogoURI = snap.Decimals, snap.LogoURI
	if snap.LastFetchedAt != nil {
		out.LastFetchedAt = snap.LastFetchedAt
	}
	return out
}

// Token returns the cached snapshot with its token metadata and schedules
// a refresh when it is missing or stale. ok is false when nothing is
// cached yet.
func (c *Cache) Token(mint string) (market.Token, bool) {
	c.EnsureSnapshots(mint)
	it := c.snaps.read(mint, c.o.Now(), SnapshotFreshTTL)
	if it == nil || it.val.merged == nil {
		return market.Token{Mint: mint}, false
	}
	t := it.val.meta
	t.Market = *c.withAnalytics(mint, it.val.merged, c.o.Now())
	return t, true
}

// EnsureSnapshots schedules a refresh of every mint whose snapshot is
// missing or older than SnapshotFreshTTL.
func (c *Cache) EnsureSnapshots(mints ...string) {
	if len(c.o.Snapshots) == 0 {
		return
	}
	now := c.o.Now()
	added := false
	for _, m := range mints {
		if it := c.snaps.get(m, now); it != nil && now.Sub(it.fetchedAt) < SnapshotFreshTTL {
			continue
		}
		if !c.claim(snapKey(m)) {
			continue
		}
		c.mu.Lock()
		c.pending = append(c.pending, m)
		c.mu.Unlock()
		added = true
	}
	if added {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
}

func (c *Cache) maxBatch() int {
	n := 250
	for _, p := range c.o.Snapshots {
		n = min(n, max(1, p.MaxBatch()))
	}
	return n
}

// Flush runs everything scheduled so far in the calling goroutine and
// returns when it is done: pending snapshot batches and queued jobs. Used
// at start-up (so data is there before the first request) and by tests.
func (c *Cache) Flush(ctx context.Context) {
	c.submitPending()
	for {
		select {
		case j := <-c.jobs:
			c.finish(ctx, j, j.run(ctx))
		default:
			return
		}
	}
}

// submitPending turns pending mints into batch jobs.
func (c *Cache) submitPending() {
	maxBatch := c.maxBatch()
	c.mu.Lock()
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for len(pending) > 0 {
		n := min(len(pending), maxBatch)
		batch := pending[:n:n]
		pending = pending[n:]
		keys := make([]string, len(batch))
		for i, m := range batch {
			keys[i] = snapKey(m)
		}
		c.submit(job{keys: keys, run: func(ctx context.Context) error { return c.refreshSnapshots(ctx, batch) }})
	}
}

// batchLoop turns pending mints into batch jobs.
func (c *Cache) batchLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
		// Gather briefly so that a burst of reads becomes few calls.
		t := time.NewTimer(batchWindow)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		c.submitPending()
	}
}

// refreshSnapshots calls every provider for batch and stores the merge.
// A provider that fails keeps its last good contribution; when every
// provider fails nothing is stored and the error is returned.
func (c *Cache) refreshSnapshots(ctx context.Context, batch []string) error {
	fresh := make([]map[string]market.Token, len(c.o.Snapshots))
	ok := make([]bool, len(c.o.Snapshots))
	var errs []error
	for i, p := range c.o.Snapshots {
		err := c.call(ctx, p.Source(), func(ctx context.Context) error {
			res, err := p.Snapshots(ctx, batch)
			fresh[i] = res
			return err
		})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ok[i] = true
	}
	if len(errs) == len(c.o.Snapshots) {
		return errors.Join(errs...)
	}
	now := c.o.Now()
	for _, mint := range batch {
		var prev map[string]market.Token
		if it := c.snaps.get(mint, now); it != nil {
			prev = it.val.sources
		}
		sources := make(map[string]market.Token, len(c.o.Snapshots))
		for i, p := range c.o.Snapshots {
			src := p.Source()
			if ok[i] {
				if t, found := fresh[i][mint]; found {
					if t.Market.LastFetchedAt == nil {
						ms := now.UnixMilli()
						t.Market.LastFetchedAt = &ms
					}
					sources[src] = t
				}
			} else if t, found := prev[src]; found {
				sources[src] = t // last good of a failing provider
			}
		}
		merged, meta := merge(c.o.Snapshots, sources)
		c.snaps.put(mint, snapVal{merged: merged, meta: meta, sources: sources}, now)
	}
	return nil
}

// merge flattens per-source tokens into one market, in provider priority
// order: identity (symbol, name, logo, decimals) from the first source
// that has it; price from the first source with a price, whose source is
// metricsSource and which also supplies the activity fields (volumes,
// trades, wallets, price changes, lastTradeAt, asOf) it has; liquidity
// market cap and holder count from the first source that has them. source is the first
// source with any of price, liquidity or market cap. lastFetchedAt is the
// newest contribution's.
func merge(order []market.SnapshotProvider, sources map[string]market.Token) (*asset.Market, market.Token) {
	if len(sources) == 0 {
		return nil, market.Token{}
	}
	var out asset.Market
	var meta market.Token
	var priceSrc *market.Token
	for _, p := range order {
		t, ok := sources[p.Source()]
		if !ok {
			continue
		}
		m := t.Market
		if meta.Symbol == "" {
			meta.Symbol = t.Symbol
		}
		if meta.Name == "" {
			meta.Name = t.Name
		}
		if meta.LogoURI == "" {
			meta.LogoURI = t.LogoURI
		}
		if meta.Decimals == nil {
			meta.Decimals = t.Decimals
		}
		if out.Source == "" && (m.Price != nil || m.Liquidity != nil || m.MarketCap != nil) {
			out.Source = p.Source()
		}
		if priceSrc == nil && m.Price != nil {
			tt := t
			priceSrc = &tt
		}
		if out.Liquidity == nil {
			out.Liquidity = m.Liquidity
		}
		if out.MarketCap == nil {
			out.MarketCap = m.MarketCap
		}
		if out.Holders == nil {
			out.Holders = m.Holders
		}
		if m.LastFetchedAt != nil && (out.LastFetchedAt == nil || *m.LastFetchedAt > *out.LastFetchedAt) {
			out.LastFetchedAt = m.LastFetchedAt
		}
	}
	if priceSrc != nil {
		m := priceSrc.Market
		out.MetricsSource = m.Source
		if out.MetricsSource == "" {
			out.MetricsSource = out.Source
		}
		out.Price, out.Volume1hUSD, out.Volume24hUSD = m.Price, m.Volume1hUSD, m.Volume24hUSD
		out.Trade1h, out.Trade24h, out.UniqueWallet1h, out.UniqueWallet24h = m.Trade1h, m.Trade24h, m.UniqueWallet1h, m.UniqueWallet24h
		out.PriceChange1hPercent, out.PriceChange24hPercent = m.PriceChange1hPercent, m.PriceChange24hPercent
		out.LastTradeAt, out.AsOf = m.LastTradeAt, m.AsOf
		out.PriceTrades, out.Rejected = m.PriceTrades, m.Rejected
	}
	out.Decimals = meta.Decimals
	if meta.LogoURI != "" {
		logo := meta.LogoURI
		out.LogoURI = &logo
	}
	if out.LastFetchedAt == nil {
		var zero int64
		out.LastFetchedAt = &zero
	}
	meta.Mint = ""
	return &out, meta
}

// ReferencePrice returns the market-data providers' cached price of mint
// (fresh or stale; never the analytics overlay), without scheduling or
// counting a read: the trade admission's fallback reference
// (analytics.PriceSource, docs/prices.md).
func (c *Cache) ReferencePrice(mint string) (float64, bool) {
	it := c.snaps.peek(mint)
	if it == nil || it.val.merged == nil || it.val.merged.Price == nil {
		return 0, false
	}
	return *it.val.merged.Price, true
}
