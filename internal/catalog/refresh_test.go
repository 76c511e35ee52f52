package catalog

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/changelog"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// loggedMarkets is a mapMarkets that logs the mints it writes, as the
// market cache does (ChangeReader).
type loggedMarkets struct {
	*mapMarkets
	log *changelog.Log[market.Change]
}

func (f *loggedMarkets) Changes(since uint64) ([]market.Change, uint64, bool) {
	return f.log.Since(since)
}

// set writes a mint's market; logged says whether the write is logged (a
// write that is not stands for a change of time alone).
func (f *loggedMarkets) set(mint string, mk *asset.Market, logged bool) {
	f.mu.Lock()
	f.markets[mint] = mk
	f.mu.Unlock()
	if logged {
		f.log.Add(market.Change{Kind: market.ChangeMint, Key: mint})
	}
}

func (f *loggedMarkets) get(mint string) *asset.Market {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.markets[mint]
}

// lossyMarkets reports its log incomplete once lose is set.
type lossyMarkets struct {
	*loggedMarkets
	lose atomic.Bool
}

func (f *lossyMarkets) Changes(since uint64) ([]market.Change, uint64, bool) {
	xs, last, ok := f.loggedMarkets.Changes(since)
	return xs, last, ok && !f.lose.Swap(false)
}

// lastMajor is the majors list's last asset (by 24 h volume) that has a
// member mint with a market, and that mint.
func lastMajor(t *testing.T, c *Catalog, mr *loggedMarkets) (string, string) {
	t.Helper()
	rows, _ := c.Curated(CuratedOptions{List: "majors"})
	members, _ := c.CuratedMembers("majors")
	for i := len(rows) - 1; i > 0; i-- {
		for _, m := range members {
			if m.AssetID == rows[i].AssetID && mr.get(m.Mint) != nil {
				return m.AssetID, m.Mint
			}
		}
	}
	t.Fatal("no majors member with a market")
	return "", ""
}

// TestRefreshDirtySet: a refresh pass re-derives exactly the assets whose
// inputs moved; everything else keeps its view (and encoded detail), and
// the model version moves only when some view changed.
func TestRefreshDirtySet(t *testing.T) {
	type env struct {
		c  *Catalog
		mr *loggedMarkets
	}
	moved := func(mk *asset.Market) *asset.Market {
		cp := *mk
		cp.Price, cp.Volume24hUSD = fp(*mk.Price*2), fp(1e15)
		return &cp
	}
	for _, tc := range []struct {
		name string
		// change changes inputs and returns the asset ids whose views must
		// change.
		change  func(t *testing.T, e env) []string
		refresh func(c *Catalog)
	}{
		{name: "idle pass", change: func(*testing.T, env) []string { return nil }},
		{name: "a rewrite with equal values", change: func(t *testing.T, e env) []string {
			_, mint := lastMajor(t, e.c, e.mr)
			cp := *e.mr.get(mint)
			e.mr.set(mint, &cp, true)
			return nil
		}},
		{name: "a moved price", change: func(t *testing.T, e env) []string {
			id, mint := lastMajor(t, e.c, e.mr)
			e.mr.set(mint, moved(e.mr.get(mint)), true)
			return []string{id}
		}},
		{name: "two moved assets", change: func(t *testing.T, e env) []string {
			id, mint := lastMajor(t, e.c, e.mr)
			e.mr.set(mint, moved(e.mr.get(mint)), true)
			res, _ := e.c.Resolve("tesla")
			p := e.c.Primary(res, asset.StrategyLiquidity)
			e.mr.set(p.Mint, &asset.Market{Price: fp(1), Liquidity: fp(5)}, true)
			return []string{id, "tesla"}
		}},
		{name: "an unlogged change reaches the view within SweepPasses passes", change: func(t *testing.T, e env) []string {
			id, mint := lastMajor(t, e.c, e.mr)
			e.mr.set(mint, moved(e.mr.get(mint)), false)
			return []string{id}
		}, refresh: func(c *Catalog) {
			for range SweepPasses {
				c.Refresh()
			}
		}},
		{name: "a changed advisory", change: func(t *testing.T, e env) []string {
			res, _ := e.c.Resolve("tesla")
			p := e.c.Primary(res, asset.StrategyLiquidity)
			adv := &asset.Advisory{Status: asset.AdvisoryCaution, Reason: "test"}
			e.c.advice.Store(ptrTo(AdvisoryFunc(func(m string) *asset.Advisory {
				if m == p.Mint {
					return adv
				}
				return nil
			})))
			return []string{"tesla"}
		}, refresh: func(c *Catalog) { c.AdvisoriesChanged() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap, err := seedSnap()
			if err != nil {
				t.Fatal(err)
			}
			mr := &loggedMarkets{mapMarkets: syntheticMarkets(snap, "dirty"), log: changelog.New[market.Change](0)}
			c := New(snap, mr, func() time.Time { return testNow }, nil)
			before := c.model()
			details := map[string][]byte{}
			for _, id := range []string{"solana", "bitcoin", "tesla", "usd-coin"} {
				if res, err := c.Resolve(id); err == nil {
					d, _ := c.Detail(res, DetailOptions{})
					details[id] = d.AssetJSON
				}
			}
			want := tc.change(t, env{c, mr})
			if tc.refresh != nil {
				tc.refresh(c)
			} else {
				c.Refresh()
			}
			after := c.model()
			var got []string
			for i := range before.assets {
				if before.assets[i] != after.assets[i] {
					got = append(got, before.assets[i].a.AssetID)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("re-derived views %v, want %v", got, want)
			}
			if (before.version != after.version) != (len(want) > 0) {
				t.Errorf("version %d -> %d with changed views %v", before.version, after.version, want)
			}
			if len(want) == 0 && before != after {
				t.Error("a pass that changed nothing swapped the model")
			}
			for _, id := range slices.Sorted(maps.Keys(details)) {
				res, _ := c.Resolve(id)
				d, _ := c.Detail(res, DetailOptions{})
				same := &d.AssetJSON[0] == &details[id][0]
				if changed := slices.Contains(want, id); same == changed {
					t.Errorf("%s: encoded detail kept %v, asset changed %v", id, same, changed)
				}
			}
			if strings.Contains(tc.name, "moved") || strings.Contains(tc.name, "unlogged") {
				// The moved asset leads the curated list now (volume 1e15).
				rows, _ := c.Curated(CuratedOptions{List: "majors"})
				if rows[0].AssetID != want[0] && !slices.Contains(want, rows[0].AssetID) {
					t.Errorf("majors starts with %s, want the moved %v", rows[0].AssetID, want)
				}
				byMint, _ := c.Curated(CuratedOptions{List: "majors", ByMint: true})
				if !slices.Contains(want, byMint[0].AssetID) {
					t.Errorf("majors by mint starts with %s, want the moved %v", byMint[0].AssetID, want)
				}
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestRefreshLostChanges: when the change log lost changes, a pass
// re-derives every asset, and keeps those that came out equal.
func TestRefreshLostChanges(t *testing.T) {
	snap, err := seedSnap()
	if err != nil {
		t.Fatal(err)
	}
	lm := &loggedMarkets{mapMarkets: syntheticMarkets(snap, "lost"), log: changelog.New[market.Change](0)}
	mr := &lossyMarkets{loggedMarkets: lm}
	c := New(snap, mr, func() time.Time { return testNow }, nil)
	res, _ := c.Resolve("bitcoin")
	p := c.Primary(res, asset.StrategyLiquidity)
	lm.set(p.Mint, &asset.Market{Price: fp(3), Liquidity: fp(7)}, false) // not logged: only the full pass sees it
	before := c.model()
	mr.lose.Store(true)
	c.Refresh()
	after := c.model()
	for i := range before.assets {
		if changed := before.assets[i] != after.assets[i]; changed != (before.assets[i].a.AssetID == "bitcoin") {
			t.Errorf("%s: view replaced %v", before.assets[i].a.AssetID, changed)
		}
	}
}

// TestRegistryChangeRebuildsStructure: a new snapshot rebuilds the
// structure: new assets are searchable, curated and resolvable at once.
func TestRegistryChangeRebuildsStructure(t *testing.T) {
	snap, err := seedSnap()
	if err != nil {
		t.Fatal(err)
	}
	mr := &loggedMarkets{mapMarkets: syntheticMarkets(snap, "structure"), log: changelog.New[market.Change](0)}
	c := New(snap, mr, func() time.Time { return testNow }, nil)
	v := c.Version()
	if rows := c.Search(SearchOptions{Query: "SYN000003", Limit: 5}); len(rows) != 0 {
		t.Fatalf("synthetic asset found before the registry lists it: %v", rows)
	}
	seed, _ := registry.Seed()
	snap2, _, err := registry.Build(seed, syntheticDoc(5))
	if err != nil {
		t.Fatal(err)
	}
	c.SetSnapshot(snap2)
	if c.Version() == v {
		t.Error("registry change kept the version")
	}
	if c.model().indexes == nil || c.model().inputs == nil {
		t.Fatal("no structure")
	}
	rows := c.Search(SearchOptions{Query: "SYN000003", Limit: 5})
	if len(rows) != 1 || rows[0].AssetID != "syn-000003" {
		t.Fatalf("search after the registry change: %+v", rows)
	}
	if _, err := c.Resolve("syn-000004"); err != nil {
		t.Error(err)
	}
	// A market change of a new mint refreshes it like any other.
	mr.set(mintOf("syn-000004"), &asset.Market{Price: fp(2), Liquidity: fp(9)}, true)
	c.Refresh()
	res, _ := c.Resolve("syn-000004")
	if p := c.Primary(res, asset.StrategyLiquidity); p == nil || p.Market == nil || *p.Market.Price != 2 {
		t.Errorf("new asset's market not refreshed: %+v", p)
	}
}

// TestConcurrentReadsAndRefreshes exercises reads while refresh passes
// replace views and advisories change (run with -race).
func TestConcurrentReadsAndRefreshes(t *testing.T) {
	snap, err := seedSnap()
	if err != nil {
		t.Fatal(err)
	}
	mr := &loggedMarkets{mapMarkets: syntheticMarkets(snap, "concurrent"), log: changelog.New[market.Change](0)}
	c := New(snap, mr, func() time.Time { return testNow }, nil)
	var mints []string
	for mint := range mr.markets {
		mints = append(mints, mint)
	}
	slices.Sort(mints)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				res, _ := c.Resolve([]string{"solana", "bitcoin", "tesla"}[(g+i)%3])
				c.Detail(res, DetailOptions{Strategy: asset.Strategies[i%3]})
				c.Search(SearchOptions{Query: "s", Limit: 20, VariantsAll: true})
				c.Curated(CuratedOptions{List: asset.CuratedLists[i%8], ByMint: i%2 == 1})
			}
		})
	}
	for i := range 20 {
		mint := mints[i%len(mints)]
		mr.set(mint, &asset.Market{Price: fp(float64(i + 1)), Liquidity: fp(float64(1000 * (i + 1)))}, true)
		c.Refresh()
		if i%7 == 0 {
			c.AdvisoriesChanged()
		}
	}
	stop.Store(true)
	wg.Wait()
}
