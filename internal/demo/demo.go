// Package demo is the built-in SIMULATED market world behind
// `assetd serve --demo`. No number it produces is real: prices, liquidity,
// volumes, trade and wallet counts, DEX pools, candles and trades are all
// generated from seeded random walks around rough, round reference levels.
// See docs/demo.md.
//
// The world is deterministic: every figure is a pure function of the seed,
// the mint (with the registry facts about it: asset id, category, kind,
// symbols, stock ticker) and the time asked about, so two Worlds (or two
// processes of the same build) agree on every number. Nothing depends on
// when the World was created or on the order of calls.
//
// World implements market.SnapshotProvider, market.MarketsProvider and
// market.OHLCVProvider, plus a trade-stream hook (Trades). It reports the
// spec source "marketdata_a" so responses stay inside the spec's enum;
// Simulated() tells the HTTP layer to flag the data as simulated. The
// canonical (asset-level) feeds come from adapters: Coins()
// (market.CoinProvider, "extprovider"), Stocks() (market.StockProvider,
// "analytics_stock") and PreIPO() (market.PreIPOProvider, "preipo").
package demo

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// DefaultSeed is the seed used when Config.Seed is zero.
const DefaultSeed uint64 = 0x5EED_DE30_A55E_7D00

// DefaultHistory is the span of candle and trade history behind "now".
const DefaultHistory = 30 * 24 * time.Hour

// DefaultMaxCachedDays bounds the caches: that many path days (about
// 1 KiB each) and mint days (0.4 KiB), half as many path hours (0.5 KiB)
// and mint hours (1 KiB); about 15 MiB when all are full.
const DefaultMaxCachedDays = 8192

// MaxBatch is the most mints one Snapshots call accepts.
const MaxBatch = 250

// MaxTradesPerCall caps the trades one Trades call returns (the earliest
// ones win); ask for shorter windows on deep markets.
const MaxTradesPerCall = 100_000

// Well-known quote mints.
const (
	USDCMint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	WSOLMint = "So11111111111111111111111111111111111111112"
)

// Config configures a World.
type Config struct {
	// Assets are the registry's asset groups (registry.Snapshot.Assets());
	// their variants get category-specific markets. Mints not listed get a
	// thin long-tail market.
	Assets []registry.Asset
	// Seed selects the world; zero means DefaultSeed.
	Seed uint64
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// History is how far back candles and trades are served; zero means
	// DefaultHistory. The start is rounded down to a Monday 00:00 UTC so
	// every interval, 1W included, has complete first bars.
	History time.Duration
	// MaxCachedDays bounds the caches of computed values (see
	// DefaultMaxCachedDays); zero means DefaultMaxCachedDays.
	MaxCachedDays int
}

// World is the simulated market world. It is safe for concurrent use.
type World struct {
	seed    uint64
	now     func() time.Time
	history int64 // seconds
	c       caches
	cat     atomic.Pointer[catalog]
}

// catalog is the per-mint view of one registry generation. Immutable once
// built; SetAssets swaps it whole.
type catalog struct {
	byMint map[string]*profile
	canon  canonIndex
}

// New builds a World.
func New(cfg Config) *World {
	w := &World{seed: cfg.Seed, now: cfg.Now}
	if w.seed == 0 {
		w.seed = DefaultSeed
	}
	if w.now == nil {
		w.now = time.Now
	}
	h := cfg.History
	if h <= 0 {
		h = DefaultHistory
	}
	w.history = int64(h / time.Second)
	n := cfg.MaxCachedDays
	if n <= 0 {
		n = DefaultMaxCachedDays
	}
	w.c = newCaches(n)
	w.SetAssets(cfg.Assets)
	return w
}

// SetAssets replaces the asset list (call it when the registry reloads).
// Mints keep their numbers as long as the registry facts about them stay
// the same.
func (w *World) SetAssets(assets []registry.Asset) {
	c := &catalog{byMint: make(map[string]*profile), canon: newCanonIndex()}
	for i := range assets {
		a := &assets[i]
		ps := w.assetPath(a)
		c.canon.add(w.canonAsset(a, ps))
		for j := range a.Variants {
			v := &a.Variants[j]
			if v.Mint == "" {
				continue
			}
			if _, dup := c.byMint[v.Mint]; dup {
				continue
			}
			c.byMint[v.Mint] = w.variantProfile(a, v, ps)
		}
	}
	w.cat.Store(c)
}

// Simulated reports that the data is simulated (always true).
func (w *World) Simulated() bool { return true }

// Source is the spec source name reported for the simulated data. The
// spec's enum has no "simulated" value, so the world reports marketdata_a
// and the service flags the data as simulated elsewhere (health, docs).
func (w *World) Source() string { return asset.SourceMarketDataA }

// MaxBatch is the most mints one Snapshots call accepts.
func (w *World) MaxBatch() int { return MaxBatch }

// Seed returns the world's seed.
func (w *World) Seed() uint64 { return w.seed }

// profile returns the profile of a mint: the registry's when listed, a
// long-tail one otherwise; nil for a string that is not a Solana address.
func (w *World) profile(mint string) *profile {
	if p, ok := w.cat.Load().byMint[mint]; ok {
		return p
	}
	k := ckey{strHash(mint), 0}
	if p, ok := w.c.longTail.get(k); ok && p.mint == mint {
		return p
	}
	if !validMint(mint) {
		return nil
	}
	p := w.longTailProfile(mint)
	if got := w.c.longTail.put(k, p); got.mint == mint {
		return got
	}
	return p // hash collision: serve uncached
}

// Known reports whether the mint is listed by the current asset list.
func (w *World) Known(mint string) bool {
	_, ok := w.cat.Load().byMint[mint]
	return ok
}

// clock returns now in unix seconds and the last complete minute boundary.
// Volumes, trades and candles cover complete minutes only; prices are
// interpolated to the second.
func (w *World) clock() (now time.Time, sec, minute int64) {
	now = w.now()
	sec = now.Unix()
	return now, sec, floorDiv(sec, secPerMin) * secPerMin
}

// historyStart is the first second served: now − History, rounded down to
// a Monday 00:00 UTC.
func (w *World) historyStart(sec int64) int64 { return alignWeek(sec - w.history) }

func alignWeek(t int64) int64 {
	return floorDiv(t-mondayOffset, secPerWeek)*secPerWeek + mondayOffset
}

// align rounds t down to the interval's bar boundary (1W: Monday 00:00 UTC).
func align(t int64, iv market.Interval) int64 {
	if iv == "1W" {
		return alignWeek(t)
	}
	d := int64(iv.Duration() / time.Second)
	return floorDiv(t, d) * d
}

func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}

// Interface checks.
var (
	_ market.SnapshotProvider = (*World)(nil)
	_ market.MarketsProvider  = (*World)(nil)
	_ market.OHLCVProvider    = (*World)(nil)
)
