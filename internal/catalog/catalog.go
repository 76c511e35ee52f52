package catalog

import (
	"context"
	"log/slog"
	"reflect"
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
	// Refresh state (under mu): the market change log position read so
	// far, and where the sweep of live views continues.
	cursor uint64
	sweep  int
	// syncIndex builds the search index inside Rebuild whatever the
	// registry size (tests).
	syncIndex bool
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
	return NewWith(snap, mr, now, log, Options{})
}

// Options are the catalog's other inputs, set at construction so that the
// first build is the only one (each Set* method rebuilds).
type Options struct {
	Advisories AdvisoryFunc
	Canonical  CanonicalReader
	Tokens     func() *tokenindex.Index
}

// NewWith is New with the other inputs set before the first build.
func NewWith(snap *registry.Snapshot, mr MarketReader, now func() time.Time, log *slog.Logger, o Options) *Catalog {
	if mr == nil {
		mr = NoMarkets{}
	}
	if now == nil {
		now = time.Now
	}
	c := &Catalog{markets: mr, now: now, log: log}
	c.snap.Store(snap)
	if o.Advisories != nil {
		c.advice.Store(&o.Advisories)
	}
	if o.Canonical != nil {
		c.canon.Store(&o.Canonical)
	}
	if o.Tokens != nil {
		c.tokens.Store(&o.Tokens)
	}
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

// Rebuild recomputes the whole model (structure: search index, curated
// lists, input maps; and every view) from the snapshot and the market
// cache and swaps it in. It runs when the registry, the advisories or the
// canonical reader change; market updates go through Refresh.
func (c *Catalog) Rebuild() {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	if feed, ok := c.markets.(ChangeReader); ok {
		// Everything logged so far is read by this build.
		_, c.cursor, _ = feed.Changes(c.cursor)
	}
	m := build(c.snap.Load(), c.markets, c.canonical(), c.now(), c.advisory)
	m.version = c.gen.Add(1)
	c.cur.Store(m)
	if c.log != nil {
		c.log.Debug("catalog model rebuilt", "assets", len(m.assets), "took", time.Since(start))
	}
	if c.syncIndex || len(m.assets) <= syncIndexAssets {
		m.indexes.setSearch(buildSearchIndex(m))
		return
	}
	// A large registry's search index is built off the caller's path
	// (search scans until it is there), so a rebuild, and start-up, does
	// not wait for it.
	go func() {
		start := time.Now()
		m.indexes.setSearch(buildSearchIndex(m))
		if c.log != nil {
			c.log.Info("catalog search index built", "assets", len(m.assets), "took", time.Since(start).Round(time.Millisecond))
		}
	}()
}

// syncIndexAssets: registries up to this size get their search index
// built inside Rebuild.
const syncIndexAssets = 20_000

// AdvisoriesChanged re-derives the views whose advisory differs from the
// advisory function's current answer (call it after the advisory index
// reloads); other views, the structure and, when nothing differs, the
// model version stay.
func (c *Catalog) AdvisoriesChanged() {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.model()
	var dirty []int32
	for i, am := range old.assets {
		for j := range am.variants {
			if !reflect.DeepEqual(am.variants[j].advisory, c.advisory(am.variants[j].rv.Mint)) {
				dirty = append(dirty, int32(i))
				break
			}
		}
	}
	c.applyLocked(old, dirty)
}

// Run refreshes the model every interval until ctx ends, so market
// updates reach stats, primaries and orderings (see Refresh).
func (c *Catalog) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.Refresh()
		}
	}
}

func (c *Catalog) model() *model { return c.cur.Load() }

// SearchIndexBuilt is closed once the search index of the registry
// structure served now is built (at once for a small registry; a large
// one's is built in the background).
func (c *Catalog) SearchIndexBuilt() <-chan struct{} { return c.model().indexes.built }

// Version identifies the model currently served: it changes on every
// rebuild and on every refresh that changed a view (never on an idle
// refresh), so anything derived from one version (an encoded response)
// stays valid while Version returns the same number.
func (c *Catalog) Version() uint64 { return c.model().version }

// TokenIndex is the token index search reads beside the model (nil: none);
// it reloads on its own, so it is part of what a search result depends on.
func (c *Catalog) TokenIndex() *tokenindex.Index { return c.tokenIndex() }
