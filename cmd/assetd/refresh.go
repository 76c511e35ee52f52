package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/assetd/assetd/internal/marketcache"
	"github.com/assetd/assetd/internal/refresh"
	"github.com/assetd/assetd/internal/refresh/redisshare"
)

// refreshFlags tune the cluster's one refresher of provider data
// (docs/scale-out.md); they matter only with --redis-url.
type refreshFlags struct {
	leaseTTL time.Duration
	grace    time.Duration
}

func addRefreshFlags(fs *flag.FlagSet, f *refreshFlags) {
	fs.DurationVar(&f.leaseTTL, "refresh-lease-ttl", refresh.DefaultLeaseTTL, "with --redis-url: how long the refresher lease outlives its holder (one replica calls the market, canonical and news providers; the others read its results from Redis)")
	fs.DurationVar(&f.grace, "refresh-grace", 2*time.Minute, "with --redis-url: how long a replica waits for the refresher to publish a result it needs before calling the provider itself")
}

func (f refreshFlags) validate() error {
	if f.leaseTTL < time.Second || f.leaseTTL > 10*time.Minute || f.grace < 0 {
		return errors.New("--refresh-lease-ttl must be within 1s..10m and --refresh-grace not negative")
	}
	return nil
}

// refresher is the lease and the provider decorators of one replica; nil
// without --redis-url (or with --demo, which has no upstream): every
// replica then refreshes for itself.
type refresher struct {
	elector *refresh.Elector
	sharer  *refresh.Sharer
	rdb     *goredis.Client
}

func newRefresher(ctx context.Context, cfg serveConfig, log *slog.Logger) (*refresher, error) {
	if cfg.redis.url == "" || cfg.demo {
		return nil, nil
	}
	rdb, err := redisshare.Open(cfg.redis.url, cfg.redis.timeout)
	if err != nil {
		return nil, fmt.Errorf("--redis-url: %w", err)
	}
	st := redisshare.New(rdb, cfg.redis.prefix)
	log = log.With("component", "refresh")
	r := &refresher{rdb: rdb, elector: refresh.NewElector(st, cfg.refresh.leaseTTL, nil, log)}
	r.sharer = refresh.NewSharer(refresh.Config{Leader: r.elector, Results: st, Grace: cfg.refresh.grace,
		MaxAge: resultAge(marketcache.SnapshotFreshTTL, cfg.market.warmInterval), Log: log})
	// Decide leadership before the start-up warm-up, so the first replica
	// warms from the providers and the others from its results.
	if r.elector.Step(ctx) {
		log.Info("refresher lease held: this replica calls the providers for the cluster", "ttl", cfg.refresh.leaseTTL)
	} else {
		log.Info("refresher lease not held (another replica holds it, or Redis is unreachable): provider data is read from the shared results, or fetched directly while Redis is down", "ttl", cfg.refresh.leaseTTL)
	}
	return r, nil
}

// wrap puts the shared decorators around the upstream providers of o.
// Local file providers (stocks, pre-IPO marks) stay as they are.
func (r *refresher) wrap(o *marketcache.Options, warm time.Duration) {
	if r == nil {
		return
	}
	age := func(fresh time.Duration) time.Duration { return resultAge(fresh, warm) }
	for i, p := range o.Snapshots {
		o.Snapshots[i] = r.sharer.Snapshots(p)
	}
	if o.Markets != nil {
		o.Markets = r.sharer.Markets(o.Markets, age(marketcache.MarketsFreshTTL))
	}
	if o.OHLCV != nil {
		o.OHLCV = r.sharer.OHLCV(o.OHLCV, age(marketcache.DailyFreshTTL))
	}
	if o.Coins != nil {
		o.Coins = r.sharer.Coins(o.Coins, age(marketcache.TickersFreshTTL))
	}
}

// resultAge is how long a published result lives: the leader refreshes a
// key at least once per its fresh TTL plus two warm cycles, and a result
// outlives that twice over.
func resultAge(fresh, warm time.Duration) time.Duration { return 2 * (fresh + 2*warm) }

// leader is the news service's Leader option (nil: always).
func (r *refresher) leader() func() bool {
	if r == nil {
		return nil
	}
	return r.elector.Leader
}

func (r *refresher) run(ctx context.Context) {
	if r != nil {
		r.elector.Run(ctx)
	}
}

func (r *refresher) close() {
	if r != nil {
		_ = r.rdb.Close()
	}
}
