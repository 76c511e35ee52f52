package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/assetd/assetd/internal/demo"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/marketcache"
	"github.com/assetd/assetd/internal/provider/marketa"
	"github.com/assetd/assetd/internal/provider/marketb"
	"github.com/assetd/assetd/internal/provider/tokenmeta"
	"github.com/assetd/assetd/internal/registry"
)

// marketFlags select the market-data providers.
type marketFlags struct {
	marketAKey    string
	marketAURL    string
	marketB       bool
	marketBURL    string
	metaURL       string
	metaKey       string
	budget        float64
	warmInterval  time.Duration
	startupWarmup time.Duration
}

// marketPipeline is the market cache with what feeds it.
type marketPipeline struct {
	cache *marketcache.Cache
	world *demo.World // nil unless --demo
	// metadata is the live token metadata provider, or nil.
	metadata market.MetadataProvider
}

// newMarketPipeline builds the providers: the demo world with --demo, else
// marketdata_a when a key is given and marketdata_b unless disabled.
func newMarketPipeline(cfg serveConfig, snap *registry.Snapshot, eng marketcache.Analytics, log *slog.Logger) (*marketPipeline, error) {
	o := marketcache.Options{Budget: cfg.market.budget, Burst: 5, Log: log, Analytics: eng}
	p := &marketPipeline{}
	if cfg.demo {
		p.world = demo.New(demo.Config{Assets: snap.Assets()})
		o.Snapshots = []market.SnapshotProvider{p.world}
		o.Markets, o.OHLCV = p.world, p.world
		o.Budget = 0 // simulated: no upstream to protect
	} else {
		if cfg.market.marketAKey != "" {
			a, err := marketa.New(marketa.Config{BaseURL: cfg.market.marketAURL, APIKey: cfg.market.marketAKey, Logger: log})
			if err != nil {
				return nil, fmt.Errorf("marketdata_a: %w", err)
			}
			o.Snapshots = append(o.Snapshots, a)
			o.Markets, o.OHLCV = a, a
		}
		if cfg.market.marketB {
			b, err := marketb.New(marketb.Config{BaseURL: cfg.market.marketBURL, Logger: log})
			if err != nil {
				return nil, fmt.Errorf("marketdata_b: %w", err)
			}
			o.Snapshots = append(o.Snapshots, b)
			if o.Markets == nil {
				o.Markets = b
			}
		}
	}
	if !cfg.demo && (cfg.market.metaURL != "" || cfg.market.metaKey != "") {
		tm, err := tokenmeta.New(tokenmeta.Config{BaseURL: cfg.market.metaURL, APIKey: cfg.market.metaKey, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("token metadata: %w", err)
		}
		o.Metadata = tm
		p.metadata = tm
	}
	p.cache = marketcache.New(o)
	return p, nil
}

// registryMints lists every variant mint of a snapshot.
func registryMints(snap *registry.Snapshot) []string {
	var out []string
	for _, a := range snap.Assets() {
		for _, v := range a.Variants {
			out = append(out, v.Mint)
		}
	}
	return out
}

// setSnapshot follows a registry reload.
func (p *marketPipeline) setSnapshot(snap *registry.Snapshot) {
	if p.world != nil {
		p.world.SetAssets(snap.Assets())
	}
	p.cache.Warm(registryMints(snap))
}

// warmup fills the cache for every registry mint before serving, bounded
// by d (the demo world answers in milliseconds; real providers may not).
func (p *marketPipeline) warmup(ctx context.Context, snap *registry.Snapshot, d time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	mints := registryMints(snap)
	p.cache.Warm(mints)
	p.cache.Flush(ctx)
	log.Info("market cache warmed", "mints", len(mints), "upstream_calls", p.cache.UpstreamCalls(),
		"upstream_errors", p.cache.UpstreamErrors(), "took", time.Since(start).Round(time.Millisecond))
}

// runWarmer re-warms every registry mint periodically until ctx ends.
func (p *marketPipeline) runWarmer(ctx context.Context, snap func() *registry.Snapshot, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.cache.Warm(registryMints(snap()))
		}
	}
}
