// Package marketcache is the in-process market-data cache: snapshots per
// mint (merged across providers), DEX markets per mint and daily candles
// (for volume30dUSD). Reads return what is cached at once and never wait on
// a provider; a missing or stale entry schedules a background refresh,
// deduplicated per key, batched per provider, run by a bounded worker pool
// under a per-provider request budget. Last good values survive provider
// failures and keep being served, marked by their fetch time.
package marketcache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/changelog"
	"github.com/assetd/assetd/internal/market"
)

// TTLs: a value older than its fresh TTL is served and refreshed in the
// background. Values are never dropped for age (last good wins over null).
const (
	SnapshotFreshTTL = 60 * time.Second
	MarketsFreshTTL  = 5 * time.Minute
	DailyFreshTTL    = time.Hour
	// RetryBackoff is how long a key whose refresh failed waits before the
	// next attempt.
	RetryBackoff = 15 * time.Second
)

// Options configure a Cache.
type Options struct {
	Snapshots []market.SnapshotProvider // in merge priority order
	Markets   market.MarketsProvider    // may be nil
	OHLCV     market.OHLCVProvider      // may be nil (no volume30dUSD)
	Metadata  market.MetadataProvider   // may be nil (token identity from snapshots only)
	// Canonical (asset-level) providers; each may be nil.
	Coins  market.CoinProvider   // extprovider: coin profile, market stats, tickers, candles
	Stocks market.StockProvider  // analytics_stock: quotes and candles of mapped equities
	PreIPO market.PreIPOProvider // preipo: reference marks of pre-IPO equities
	// Analytics is the trade analytics engine (may be nil). When it has a
	// market for a mint, its trade-derived fields override the snapshot
	// providers' (metricsSource analytics_trades); it also serves
	// ExecutionQuality.
	Analytics Analytics
	// Workers bounds concurrent provider calls (default 8).
	Workers int
	// Budget is each provider's request rate (requests per second, burst
	// Burst); zero means unlimited. Budgets overrides it per source name
	// (e.g. a slower budget for a keyless external provider); calls over
	// such a budget fail with ErrOverBudget instead of waiting.
	Budget  float64
	Burst   int
	Budgets map[string]float64
	// Deadline bounds one provider call (default 10s).
	Deadline time.Duration
	// Capacity bounds each store (default 200,000 keys).
	Capacity int
	Now      func() time.Time
	Log      *slog.Logger
	// Jitter spreads a failing provider's backoff (default: uniform in
	// [d/2, d]); Observer sees every provider call and deferral (may be nil).
	Jitter   func(d time.Duration) time.Duration
	Observer Observer
}

// Analytics is the trade analytics engine as the cache reads it.
type Analytics interface {
	Market(mint string, now time.Time) *asset.Market
	ExecutionQuality(mint string, now time.Time) *asset.ExecutionQuality
}

type snapVal struct {
	merged  *asset.Market
	meta    market.Token // identity fields of the chosen source
	sources map[string]market.Token
}

// ErrOverBudget: a call to a source with its own budget was deferred
// because the budget was spent.
var ErrOverBudget = errors.New("provider budget spent; call deferred")

// Cache is safe for concurrent use. Start it with Run.
type Cache struct {
	o        Options
	snaps    *store[snapVal]
	markets  *store[[]market.DEXMarket]
	daily    *store[*float64]
	meta     *store[market.TokenMeta]
	coins    *store[entry[market.Coin]]
	tickers  *store[entry[[]market.Ticker]]
	quotes   *store[entry[market.StockQuote]]
	marks    *store[entry[market.PreIPOMark]]
	series   *store[entry[[]market.Candle]]
	jobs     chan job
	limiters map[string]*rate.Limiter

	mu       sync.Mutex
	inflight map[string]time.Time // key -> when scheduled (or failed, for backoff)
	paused   map[string]time.Time // source -> no calls before
	health   map[string]*health   // source -> failures and backoff
	// lastCycle holds the provider totals at the previous LogCycle.
	lastCycle map[string]ProviderStatus
	pending   []string // mints awaiting a snapshot batch
	wake      chan struct{}

	calls  atomic.Int64
	errors atomic.Int64

	// changes logs the writes the catalog reads (see Changes).
	changes *changelog.Log[market.Change]
	anaMu   sync.Mutex
	anaSeq  uint64 // the analytics engine's change number read so far
}

type job struct {
	keys []string // released when the job ends
	run  func(ctx context.Context) error
}

// New returns a cache; call Run to start its workers.
func New(o Options) *Cache {
	if o.Workers <= 0 {
		o.Workers = 8
	}
	if o.Deadline <= 0 {
		o.Deadline = 10 * time.Second
	}
	if o.Capacity <= 0 {
		o.Capacity = 200_000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Jitter == nil {
		o.Jitter = equalJitter
	}
	c := &Cache{o: o, snaps: newStore[snapVal](o.Capacity), markets: newStore[[]market.DEXMarket](o.Capacity),
		daily: newStore[*float64](o.Capacity), meta: newStore[market.TokenMeta](o.Capacity),
		coins: newStore[entry[market.Coin]](o.Capacity), tickers: newStore[entry[[]market.Ticker]](o.Capacity),
		quotes: newStore[entry[market.StockQuote]](o.Capacity), marks: newStore[entry[market.PreIPOMark]](o.Capacity),
		series: newStore[entry[[]market.Candle]](o.Capacity), jobs: make(chan job, 4096), limiters: map[string]*rate.Limiter{},
		inflight: map[string]time.Time{}, paused: map[string]time.Time{}, health: map[string]*health{}, wake: make(chan struct{}, 1)}
	c.logChanges()
	for _, p := range o.Snapshots {
		c.healthOf(p.Source())
	}
	if o.Markets != nil {
		c.healthOf(o.Markets.Source())
	}
	if o.OHLCV != nil {
		c.healthOf(o.OHLCV.Source())
	}
	return c
}

func (c *Cache) limiter(source string) *rate.Limiter {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.limiters[source]
	if l == nil {
		lim, burst := rate.Inf, c.o.Burst
		budget := c.o.Budget
		if b, ok := c.o.Budgets[source]; ok {
			budget = b
		}
		if budget > 0 {
			lim = rate.Limit(budget)
			burst = max(burst, 1)
		}
		l = rate.NewLimiter(lim, burst)
		c.limiters[source] = l
	}
	return l
}

// UpstreamCalls is the number of provider calls made so far.
func (c *Cache) UpstreamCalls() int64 { return c.calls.Load() }

// UpstreamErrors is the number of failed provider calls.
func (c *Cache) UpstreamErrors() int64 { return c.errors.Load() }

// claim marks key in flight; false when it already is, or failed less than
// RetryBackoff ago.
func (c *Cache) claim(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.inflight[key]; ok && c.o.Now().Sub(t) < RetryBackoff {
		return false
	}
	c.inflight[key] = c.o.Now()
	return true
}

// release ends key's flight; a failure keeps it blocked for RetryBackoff.
func (c *Cache) release(key string, failed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if failed {
		c.inflight[key] = c.o.Now()
		return
	}
	delete(c.inflight, key)
}

func (c *Cache) submit(j job) {
	select {
	case c.jobs <- j:
	default:
		for _, k := range j.keys {
			c.release(k, false) // queue full: a later read reschedules
		}
	}
}

// call runs one provider call under its budget and deadline, unless the
// provider asked to wait (Retry-After), backs off after failures, or its
// own budget is spent: those calls are deferred (not made) and counted.
func (c *Cache) call(ctx context.Context, source string, fn func(ctx context.Context) error) error {
	h := c.healthOf(source)
	c.mu.Lock()
	until := c.paused[source]
	c.mu.Unlock()
	if d := until.Sub(c.o.Now()); d > 0 {
		c.deferred(source, h, DeferredRetryAfter)
		return &market.RateLimitedError{RetryAfter: d} // honour the provider's Retry-After
	}
	if err := c.admit(source, h); err != nil {
		c.deferred(source, h, DeferredBackoff)
		return err
	}
	if _, own := c.o.Budgets[source]; own {
		// A source with its own (slow) budget never holds a worker
		// waiting: a call over budget is deferred, and its key retried
		// after RetryBackoff.
		if !c.limiter(source).Allow() {
			c.deferred(source, h, DeferredBudget)
			return fmt.Errorf("%s: %w", source, ErrOverBudget)
		}
	} else if err := c.limiter(source).Wait(ctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// The budget would not free a slot before ctx's deadline.
		c.deferred(source, h, DeferredBudget)
		return fmt.Errorf("%s: %w", source, ErrOverBudget)
	}
	cctx, cancel := context.WithTimeout(ctx, c.o.Deadline)
	defer cancel()
	start := c.o.Now()
	err := fn(cctx)
	if errors.Is(err, market.ErrPending) {
		// Another replica refreshes this key (internal/refresh): no call
		// was made, and nothing about the provider's health is known.
		c.deferred(source, h, DeferredPending)
		return err
	}
	c.calls.Add(1)
	c.outcome(ctx, source, h, c.o.Now().Sub(start), err)
	if err != nil {
		c.errors.Add(1)
		var rl *market.RateLimitedError
		if errors.As(err, &rl) {
			// Hold the whole provider back for what it asked (default 30s).
			wait := rl.RetryAfter
			if wait <= 0 {
				wait = 30 * time.Second
			}
			c.mu.Lock()
			c.paused[source] = c.o.Now().Add(wait)
			c.mu.Unlock()
			c.o.Log.Info("provider asked to wait; calls deferred", "provider", source, "retry_after", wait)
		}
	}
	return err
}

// finish releases a job's keys. A failed job's keys wait RetryBackoff; a
// deferred job (budget spent, provider backing off) or one abandoned by its
// caller is released at once, so the next read or warm cycle retries it
// (a deferral costs no upstream call). Failures are logged at DEBUG: the
// provider's state changes and the warm cycle summary are the INFO/WARN
// record (see outcome and WarmSummary).
func (c *Cache) finish(ctx context.Context, j job, err error) {
	deferred := errors.Is(err, ErrOverBudget) || errors.Is(err, ErrBackingOff) || errors.Is(err, market.ErrPending) || ctx.Err() != nil
	switch {
	case err == nil:
	case deferred:
		c.o.Log.Debug("market refresh deferred", "first", j.keys[0], "err", err)
	default:
		c.o.Log.Debug("market refresh failed", "keys", len(j.keys), "first", j.keys[0], "err", err)
	}
	for _, k := range j.keys {
		c.release(k, err != nil && !deferred)
	}
}

// Run starts the workers and the snapshot batcher; it returns when ctx ends.
func (c *Cache) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range c.o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case j := <-c.jobs:
					c.finish(ctx, j, j.run(ctx))
				}
			}
		}()
	}
	c.batchLoop(ctx)
	wg.Wait()
}
