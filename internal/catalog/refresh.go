package catalog

import (
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/market"
)

// ChangeReader is implemented by market readers that log what they store
// (marketcache.Cache): the catalog then refreshes only the assets whose
// inputs changed. Changes returns the changes after since (a number an
// earlier call returned, 0 at first) and the number to pass next time;
// complete is false when some were lost (everything may have changed).
type ChangeReader interface {
	Changes(since uint64) (changes []market.Change, last uint64, complete bool)
}

// SweepPasses: a refresh pass also re-derives 1/SweepPasses of the views
// that hold market data, whether or not a change was logged for them, so
// that what changes with time alone (trade windows moving on without new
// trades, a pre-IPO mark turning stale) reaches every view within
// SweepPasses passes (30 s at the server's 1 s interval).
const SweepPasses = 30

// inputIndex maps the canonical keys a change names to the assets that
// read them (mints resolve through the snapshot).
type inputIndex struct {
	coins, stocks, preIPOs map[string][]int32
}

func buildInputs(m *model) *inputIndex {
	x := &inputIndex{coins: map[string][]int32{}, stocks: map[string][]int32{}, preIPOs: map[string][]int32{}}
	for i, am := range m.assets {
		a := am.a
		if a.CoinID != "" {
			x.coins[a.CoinID] = append(x.coins[a.CoinID], int32(i))
		}
		if a.StockTicker != "" {
			k := strings.ToUpper(a.StockTicker)
			x.stocks[k] = append(x.stocks[k], int32(i))
		}
		if a.PreIPO != nil && a.PreIPO.Symbol != "" {
			k := strings.ToUpper(a.PreIPO.Symbol)
			x.preIPOs[k] = append(x.preIPOs[k], int32(i))
		}
	}
	return x
}

// Refresh brings the model up to date with the market cache, doing work
// in proportion to what changed: with a market reader that logs its
// changes (ChangeReader) it re-derives only the assets whose mints or
// canonical keys were written since the last pass, plus a slice of the
// views holding market data (see SweepPasses); a view that comes out equal
// to the one served is kept, with its encoded detail. The model (and its
// Version) changes only when some view did, so responses derived from one
// version stay valid across idle passes. Without a change log Refresh is
// Rebuild.
func (c *Catalog) Refresh() {
	feed, ok := c.markets.(ChangeReader)
	if !ok {
		c.Rebuild()
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.model()
	changes, last, complete := feed.Changes(c.cursor)
	c.cursor = last
	n := len(old.assets)
	if n == 0 {
		return
	}
	var dirty []int32
	all := !complete
	for _, ch := range changes {
		switch ch.Kind {
		case market.ChangeMint:
			if a, _, ok := old.snap.VariantByMint(ch.Key); ok {
				if i, ok := old.snap.AssetIndex(a.AssetID); ok {
					dirty = append(dirty, int32(i))
				}
			}
		case market.ChangeCoin:
			dirty = append(dirty, old.inputs.coins[ch.Key]...)
		case market.ChangeStock:
			dirty = append(dirty, old.inputs.stocks[ch.Key]...)
		case market.ChangePreIPO:
			dirty = append(dirty, old.inputs.preIPOs[ch.Key]...)
		default:
			all = true
		}
	}
	if all {
		dirty = make([]int32, n)
		for i := range dirty {
			dirty[i] = int32(i)
		}
	} else {
		step := (n + SweepPasses - 1) / SweepPasses
		for k := range step {
			i := (c.sweep + k) % n
			if old.assets[i].live {
				dirty = append(dirty, int32(i))
			}
		}
		c.sweep = (c.sweep + step) % n
		slices.Sort(dirty)
		dirty = slices.Compact(dirty)
	}
	c.applyLocked(old, dirty)
}

// applyLocked re-derives the dirty assets of old and, when any view
// changed, swaps in a model sharing everything else with old. Callers
// hold c.mu.
func (c *Catalog) applyLocked(old *model, dirty []int32) {
	if len(dirty) == 0 {
		return
	}
	start := time.Now()
	now := c.now()
	canon := c.canonical()
	var changed, moved []int32
	var views []*assetModel
	for _, i := range dirty {
		om := old.assets[i]
		nm := newAssetModel(om.a, old.snap, c.markets, canon, now, c.advisory)
		if sameView(om, nm) {
			continue
		}
		changed = append(changed, i)
		views = append(views, nm)
		if nm.liquidity() != om.liquidity() {
			moved = append(moved, i)
		}
	}
	if len(changed) == 0 {
		return
	}
	m := &model{snap: old.snap, assets: slices.Clone(old.assets), lists: old.lists, builtAt: now,
		inputs: old.inputs, indexes: old.indexes, byLiq: old.byLiq}
	for k, i := range changed {
		m.assets[i] = views[k]
	}
	m.curated = buildCurated(m, m.snap)
	if len(moved) > 0 {
		m.byLiq = liquidityOrder(m, old.byLiq, moved)
	}
	m.version = c.gen.Add(1)
	c.cur.Store(m)
	if c.log != nil {
		c.log.Debug("catalog model refreshed", "checked", len(dirty), "changed", len(changed), "took", time.Since(start))
	}
}

// sameView reports whether two builds of one asset serve the same data.
func sameView(a, b *assetModel) bool {
	return a.primary == b.primary && reflect.DeepEqual(a.order, b.order) &&
		reflect.DeepEqual(a.stats, b.stats) && reflect.DeepEqual(a.canonical, b.canonical) && reflect.DeepEqual(a.variants, b.variants)
}
