package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/demo"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/marketcache"
	"github.com/assetd/assetd/internal/provider/extprovider"
	"github.com/assetd/assetd/internal/provider/marketa"
	"github.com/assetd/assetd/internal/provider/marketb"
	"github.com/assetd/assetd/internal/provider/preipofile"
	"github.com/assetd/assetd/internal/provider/stockfile"
	"github.com/assetd/assetd/internal/provider/tokenmeta"
	"github.com/assetd/assetd/internal/registry"
)

// marketFlags select the market-data providers.
type marketFlags struct {
	marketAKey string
	marketAURL string
	marketB    bool
	marketBURL string
	metaURL    string
	metaKey    string
	budget     float64
	// External canonical provider (extprovider, CoinGecko-compatible):
	// enabled by ext or a key.
	ext       bool
	extKey    string
	extURL    string
	extPro    bool
	extBudget float64
	// Operator-supplied canonical files (empty: off).
	stockFile  string
	preIPOFile string

	warmInterval  time.Duration
	startupWarmup time.Duration

	// implausible counts the upstream values the adapters null (set by
	// serve to the metric; not a flag).
	implausible func(provider, field string)
}

// marketPipeline is the market cache with what feeds it.
type marketPipeline struct {
	cache *marketcache.Cache
	world *demo.World // nil unless --demo
	// metadata is the live token metadata provider, or nil.
	metadata market.MetadataProvider
	// external says an external coin provider (extprovider) is configured.
	external bool
	// priced says a snapshot provider feeds prices (readiness waits for
	// market coverage only then).
	priced bool
}

// newMarketPipeline builds the providers: the demo world with --demo, else
// marketdata_a when a key is given and marketdata_b unless disabled.
func newMarketPipeline(cfg serveConfig, snap *registry.Snapshot, eng marketcache.Analytics, obs marketcache.Observer, log *slog.Logger, ref *refresher) (*marketPipeline, error) {
	o := marketcache.Options{Budget: cfg.market.budget, Burst: 5, Log: log, Analytics: eng, Observer: obs}
	p := &marketPipeline{}
	if cfg.demo {
		p.world = demo.New(demo.Config{Assets: snap.Assets()})
		o.Snapshots = []market.SnapshotProvider{p.world}
		o.Markets, o.OHLCV = p.world, p.world
		o.Coins, o.Stocks, o.PreIPO = p.world.Coins(), p.world.Stocks(), p.world.PreIPO()
		o.Budget = 0 // simulated: no upstream to protect
	} else {
		if cfg.market.marketAKey != "" {
			a, err := marketa.New(marketa.Config{BaseURL: cfg.market.marketAURL, APIKey: cfg.market.marketAKey, Logger: log, Implausible: cfg.market.implausible})
			if err != nil {
				return nil, fmt.Errorf("marketdata_a: %w", err)
			}
			o.Snapshots = append(o.Snapshots, a)
			o.Markets, o.OHLCV = a, a
		}
		if cfg.market.marketB {
			b, err := marketb.New(marketb.Config{BaseURL: cfg.market.marketBURL, Logger: log, Implausible: cfg.market.implausible})
			if err != nil {
				return nil, fmt.Errorf("marketdata_b: %w", err)
			}
			o.Snapshots = append(o.Snapshots, b)
			if o.Markets == nil {
				o.Markets = b
			}
		}
	}
	if !cfg.demo {
		if err := p.canonicalProviders(cfg.market, &o, log); err != nil {
			return nil, err
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
	// With a cluster refresher, one replica calls these providers and the
	// others read its results (docs/scale-out.md).
	ref.wrap(&o, cfg.market.warmInterval)
	p.cache = marketcache.New(o)
	p.external = o.Coins != nil
	p.priced = len(o.Snapshots) > 0
	return p, nil
}

// canonicalProviders adds the real canonical providers the flags name:
// the external coin provider (with its own, slower budget) and the stock
// and pre-IPO files.
func (p *marketPipeline) canonicalProviders(f marketFlags, o *marketcache.Options, log *slog.Logger) error {
	// Files are local reads: no request budget.
	o.Budgets = map[string]float64{asset.SourceAnalyticsStock: 0, asset.SourcePreIPO: 0}
	if f.ext || f.extKey != "" {
		c, err := extprovider.New(extprovider.Config{BaseURL: f.extURL, APIKey: f.extKey, Pro: f.extPro, Logger: log, Implausible: f.implausible})
		if err != nil {
			return fmt.Errorf("extprovider: %w", err)
		}
		o.Coins = c
		o.Budgets[asset.SourceExtProvider] = f.extBudget
	}
	if f.stockFile != "" {
		s, err := stockfile.Open(f.stockFile)
		if err != nil {
			return fmt.Errorf("stock file: %w", err)
		}
		o.Stocks = s
		log.Info("stock data loaded", "file", f.stockFile, "tickers", len(s.Tickers()))
	}
	if f.preIPOFile != "" {
		m, err := openMarks(f.preIPOFile, log)
		if err != nil {
			return fmt.Errorf("pre-IPO marks file: %w", err)
		}
		o.PreIPO = m
	}
	return nil
}

// marksFile serves a pre-IPO marks file and re-reads it when its
// modification time changes, so operators update marks without a
// restart. A file that stops parsing keeps the last good marks (and is
// logged).
type marksFile struct {
	path string
	log  *slog.Logger
	mu   sync.Mutex
	mod  time.Time
	cur  *preipofile.Source
}

func openMarks(path string, log *slog.Logger) (*marksFile, error) {
	m := &marksFile{path: path, log: log}
	if err := m.reload(); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *marksFile) reload() error {
	st, err := os.Stat(m.path)
	if err != nil {
		return err
	}
	if m.cur != nil && st.ModTime().Equal(m.mod) {
		return nil
	}
	src, err := preipofile.Open(m.path)
	if err != nil {
		return err
	}
	m.cur, m.mod = src, st.ModTime()
	m.log.Info("pre-IPO marks loaded", "file", m.path, "symbols", len(src.Symbols()))
	return nil
}

func (m *marksFile) Source() string { return asset.SourcePreIPO }

func (m *marksFile) Mark(ctx context.Context, symbol string) (market.PreIPOMark, error) {
	m.mu.Lock()
	if err := m.reload(); err != nil {
		m.log.Warn("pre-IPO marks file not reloaded; keeping the last good marks", "file", m.path, "err", err)
	}
	cur := m.cur
	m.mu.Unlock()
	return cur.Mark(ctx, symbol)
}

// canonicalKeys lists the registry's coin ids, stock tickers and pre-IPO
// symbols, the keys of the canonical caches.
func canonicalKeys(snap *registry.Snapshot) (coins, tickers, symbols []string) {
	for _, a := range snap.Assets() {
		if a.CoinID != "" {
			coins = append(coins, a.CoinID)
		}
		if a.StockTicker != "" {
			tickers = append(tickers, a.StockTicker)
		}
		if a.PreIPO != nil && a.PreIPO.Symbol != "" {
			symbols = append(symbols, a.PreIPO.Symbol)
		}
	}
	return coins, tickers, symbols
}

// warm schedules every registry mint and canonical key.
func (p *marketPipeline) warm(snap *registry.Snapshot) {
	p.cache.Warm(snap.Mints())
	p.cache.WarmCanonical(canonicalKeys(snap))
}

// setSnapshot follows a registry reload.
func (p *marketPipeline) setSnapshot(snap *registry.Snapshot) {
	if p.world != nil {
		p.world.SetAssets(snap.Assets())
	}
	p.warm(snap)
}

// warmup fills the cache for every registry mint before serving, bounded
// by d (the demo world answers in milliseconds; real providers may not).
func (p *marketPipeline) warmup(ctx context.Context, snap *registry.Snapshot, d time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	mints := snap.Mints()
	p.warm(snap)
	p.cache.Flush(ctx)
	log.Info("market cache warmed", "mints", len(mints), "upstream_calls", p.cache.UpstreamCalls(),
		"upstream_errors", p.cache.UpstreamErrors(), "took", time.Since(start).Round(time.Millisecond))
}

// runWarmer re-warms every registry mint periodically until ctx ends,
// logging one summary of the previous cycle each time.
func (p *marketPipeline) runWarmer(ctx context.Context, snap func() *registry.Snapshot, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s := snap()
			p.cache.LogCycle(log, s.Mints())
			p.warm(s)
		}
	}
}
