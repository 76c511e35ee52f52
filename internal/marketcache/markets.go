package marketcache

import (
	"context"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// MaxMarketsPerMint is how many DEX markets are cached per mint.
const MaxMarketsPerMint = 100

func marketsKey(mint string) string { return "m:" + mint }
func dailyKey(mint string) string   { return "d:" + mint }

// DEXMarkets returns the cached DEX markets of mint (most liquid first)
// and when they were fetched, scheduling a refresh when missing or stale.
// ok is false when nothing is cached yet.
func (c *Cache) DEXMarkets(mint string) ([]market.DEXMarket, time.Time, bool) {
	now := c.o.Now()
	it := c.markets.read(mint, now, MarketsFreshTTL)
	if c.o.Markets != nil && (it == nil || now.Sub(it.fetchedAt) >= MarketsFreshTTL) && c.claim(marketsKey(mint)) {
		c.submit(job{keys: []string{marketsKey(mint)}, run: func(ctx context.Context) error {
			var res []market.DEXMarket
			err := c.call(ctx, c.o.Markets.Source(), func(ctx context.Context) error {
				var err error
				res, err = c.o.Markets.Markets(ctx, mint, MaxMarketsPerMint)
				return err
			})
			if err != nil {
				return err
			}
			c.markets.put(mint, res, c.o.Now())
			return nil
		}})
	}
	if it == nil {
		return nil, time.Time{}, false
	}
	return it.val, it.fetchedAt, true
}

// Volume30d is the mint's USD volume over the last 30 daily candles, or
// nil when none are cached (no scheduling; see EnsureDaily).
func (c *Cache) Volume30d(mint string) *float64 {
	if it := c.daily.read(mint, c.o.Now(), DailyFreshTTL); it != nil {
		return it.val
	}
	return nil
}

// ExecutionQuality is served by the trade analytics engine (nil without
// one, or when it has no rollup for mint).
func (c *Cache) ExecutionQuality(mint string) *asset.ExecutionQuality {
	if c.o.Analytics == nil {
		return nil
	}
	return c.o.Analytics.ExecutionQuality(mint, c.o.Now())
}

// EnsureDaily schedules a refresh of the 30-day volume of every mint whose
// value is missing or older than DailyFreshTTL.
func (c *Cache) EnsureDaily(mints ...string) {
	if c.o.OHLCV == nil {
		return
	}
	now := c.o.Now()
	for _, mint := range mints {
		if it := c.daily.get(mint, now); it != nil && now.Sub(it.fetchedAt) < DailyFreshTTL {
			continue
		}
		if !c.claim(dailyKey(mint)) {
			continue
		}
		c.submit(job{keys: []string{dailyKey(mint)}, run: func(ctx context.Context) error {
			to := c.o.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
			from := to.Add(-30 * 24 * time.Hour)
			var candles []market.Candle
			err := c.call(ctx, c.o.OHLCV.Source(), func(ctx context.Context) error {
				var err error
				candles, err = c.o.OHLCV.OHLCV(ctx, mint, "1D", from.Unix(), to.Unix())
				return err
			})
			if err != nil {
				return err
			}
			var v *float64
			if len(candles) > 0 {
				sum := 0.0
				for _, k := range candles {
					sum += k.Volume
				}
				v = &sum
			}
			c.daily.put(mint, v, c.o.Now())
			return nil
		}})
	}
}

// Warm schedules refreshes of snapshots, DEX markets and 30-day volumes
// of mints; the serve command calls it periodically for every registry
// mint so curated assets stay fresh ahead of requests.
func (c *Cache) Warm(mints []string) {
	c.EnsureSnapshots(mints...)
	c.EnsureDaily(mints...)
	for _, m := range mints {
		c.DEXMarkets(m)
	}
}
