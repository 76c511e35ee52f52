package marketcache

import (
	"strings"

	"github.com/assetd/assetd/internal/changelog"
	"github.com/assetd/assetd/internal/market"
)

// AnalyticsChanges is implemented by analytics engines that log the mints
// their trades touch (analytics.Engine).
type AnalyticsChanges interface {
	Changes(since uint64) (mints []string, last uint64, complete bool)
}

// logChanges makes the stores the catalog reads log their writes:
// snapshots and 30-day volumes by mint, coins, stock quotes and pre-IPO
// marks by their key.
func (c *Cache) logChanges() {
	c.changes = changelog.New[market.Change](0)
	mint := func(key string) { c.changes.Add(market.Change{Kind: market.ChangeMint, Key: key}) }
	prefixed := func(kind market.ChangeKind, prefix string) func(string) {
		return func(key string) {
			c.changes.Add(market.Change{Kind: kind, Key: strings.TrimPrefix(key, prefix)})
		}
	}
	c.snaps.onPut = mint
	c.daily.onPut = mint
	c.coins.onPut = prefixed(market.ChangeCoin, "c:")
	c.quotes.onPut = prefixed(market.ChangeStock, "q:")
	c.marks.onPut = prefixed(market.ChangePreIPO, "p:")
}

// Changes returns what was written after since (a number an earlier call
// returned, 0 at first): mints whose snapshot, 30-day volume or trade
// analytics changed, coins, stock quotes and pre-IPO marks; and the number
// to pass next time. complete is false when the log no longer holds every
// change since then: the caller must assume that everything changed.
// Ticker lists, DEX markets and candle windows are not logged (the catalog
// does not read them).
func (c *Cache) Changes(since uint64) (changes []market.Change, last uint64, complete bool) {
	if a, ok := c.o.Analytics.(AnalyticsChanges); ok {
		// Pull the engine's changes into this log, so one number covers both.
		c.anaMu.Lock()
		mints, alast, acomplete := a.Changes(c.anaSeq)
		c.anaSeq = alast
		if !acomplete {
			c.changes.Add(market.Change{Kind: market.ChangeAll})
		}
		if len(mints) > 0 {
			xs := make([]market.Change, len(mints))
			for i, m := range mints {
				xs[i] = market.Change{Kind: market.ChangeMint, Key: m}
			}
			c.changes.Add(xs...)
		}
		c.anaMu.Unlock()
	}
	return c.changes.Since(since)
}

// changeSeq is implemented by analytics engines that number their changes
// (analytics.Engine).
type changeSeq interface {
	ChangeSeq() uint64
}

// Version numbers what Token and Market answer, apart from the clock: the
// last write logged by the cache and the analytics engine's last change
// (0 without an engine). ok is false when the engine does not number its
// changes. Writes the logs miss (an entry evicted for capacity) and time
// (staleness, windows moving on) are not reflected: readers that reuse an
// answer across equal versions must also bound its age.
func (c *Cache) Version() (cache, analytics uint64, ok bool) {
	cache = c.changes.Last()
	if c.o.Analytics == nil {
		return cache, 0, true
	}
	a, ok := c.o.Analytics.(changeSeq)
	if !ok {
		return 0, 0, false
	}
	return cache, a.ChangeSeq(), true
}
