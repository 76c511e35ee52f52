package catalog

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// Catalog serves asset views from the current model. It is safe for
// concurrent use.
type Catalog struct {
	markets MarketReader
	now     func() time.Time
	log     *slog.Logger
	cur     atomic.Pointer[model]
	mu      sync.Mutex // serialises rebuilds
	snap    atomic.Pointer[registry.Snapshot]
	advice  atomic.Pointer[AdvisoryFunc]
	canon   atomic.Pointer[CanonicalReader]
	tokens  atomic.Pointer[func() *tokenindex.Index]
	gen     atomic.Uint64 // last model version
}

// SetCanonical sets where the model reads canonical (asset-level) market
// data from: canonicalMarket arms, stats overrides and variant preIpo
// blocks. Without it the model has none.
func (c *Catalog) SetCanonical(cr CanonicalReader) {
	c.canon.Store(&cr)
	c.Rebuild()
}

func (c *Catalog) canonical() CanonicalReader {
	if p := c.canon.Load(); p != nil && *p != nil {
		return *p
	}
	return NoCanonical{}
}

// AdvisoryFunc returns the advisory of a mint, or nil.
type AdvisoryFunc func(mint string) *asset.Advisory

// SetAdvisories sets where variant views take their advisory from and
// rebuilds the model.
func (c *Catalog) SetAdvisories(f AdvisoryFunc) {
	c.advice.Store(&f)
	c.Rebuild()
}

func (c *Catalog) advisory(mint string) *asset.Advisory {
	if f := c.advice.Load(); f != nil && *f != nil {
		return (*f)(mint)
	}
	return nil
}

// New returns a catalog over snap reading markets from mr.
func New(snap *registry.Snapshot, mr MarketReader, now func() time.Time, log *slog.Logger) *Catalog {
	if mr == nil {
		mr = NoMarkets{}
	}
	if now == nil {
		now = time.Now
	}
	c := &Catalog{markets: mr, now: now, log: log}
	c.snap.Store(snap)
	c.Rebuild()
	return c
}

// Snapshot returns the registry snapshot the catalog serves.
func (c *Catalog) Snapshot() *registry.Snapshot { return c.snap.Load() }

// SetSnapshot swaps the registry snapshot and rebuilds the model.
func (c *Catalog) SetSnapshot(s *registry.Snapshot) {
	c.snap.Store(s)
	c.Rebuild()
}

// Rebuild recomputes the model from the snapshot and the market cache and
// swaps it in.
func (c *Catalog) Rebuild() {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	m := build(c.snap.Load(), c.markets, c.canonical(), c.now(), c.advisory)
	m.version = c.gen.Add(1)
	c.cur.Store(m)
	if c.log != nil {
		c.log.Debug("catalog model rebuilt", "assets", len(m.assets), "took", time.Since(start))
	}
}

// Run rebuilds the model every interval until ctx ends, so market updates
// reach stats, primaries and orderings.
func (c *Catalog) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.Rebuild()
		}
	}
}

func (c *Catalog) model() *model { return c.cur.Load() }

// Version identifies the model currently served: it changes on every
// rebuild, so anything derived from one version (an encoded response)
// stays valid while Version returns the same number.
func (c *Catalog) Version() uint64 { return c.model().version }

// TokenIndex is the token index search reads beside the model (nil: none);
// it reloads on its own, so it is part of what a search result depends on.
func (c *Catalog) TokenIndex() *tokenindex.Index { return c.tokenIndex() }
