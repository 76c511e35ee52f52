package catalog

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/ranking"
	"github.com/assetd/assetd/internal/registry"
	gocmp "github.com/google/go-cmp/cmp"
	"github.com/mr-tron/base58"
)

// Model-level properties of the catalog over the seed registry with
// synthetic market data (the HTTP tests in internal/httpapi pin exact
// expectations on a hand-written fixture).

var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// mapMarkets is a MarketReader over maps; swap replaces its content.
type mapMarkets struct {
	mu      sync.RWMutex
	markets map[string]*asset.Market
	quality map[string]*asset.ExecutionQuality
	vol30   map[string]*float64
}

func (f *mapMarkets) Market(m string) *asset.Market {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.markets[m]
}

func (f *mapMarkets) ExecutionQuality(m string) *asset.ExecutionQuality {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.quality[m]
}

func (f *mapMarkets) Volume30d(m string) *float64 {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.vol30[m]
}

func fp(v float64) *float64 { return &v }

// syntheticMarkets gives every mint of snap a market derived from a hash
// of the mint and salt: liquidities from 10k to ~316M (so some Solana LSTs
// fall under the 250k floor), one mint in seven without a market, one in
// five on a shared round liquidity (ties), one in three with a fill-quality
// rollup.
func syntheticMarkets(snap *registry.Snapshot, salt string) *mapMarkets {
	f := &mapMarkets{markets: map[string]*asset.Market{}, quality: map[string]*asset.ExecutionQuality{}, vol30: map[string]*float64{}}
	asOf := testNow.Add(-time.Hour).Unix()
	for _, a := range snap.Assets() {
		for _, v := range a.Variants {
			h := sha256.Sum256([]byte(salt + v.Mint))
			u := func(i int) float64 { return float64(uint16(h[i])<<8|uint16(h[i+1])) / 65535 }
			if h[0]%7 == 0 {
				continue
			}
			liq := math.Round(math.Pow(10, 4+4.5*u(2)))
			vol := math.Round(liq * (0.05 + 2*u(4)))
			if h[1]%5 == 0 {
				liq, vol = 1_000_000, 100_000
			}
			f.markets[v.Mint] = &asset.Market{Price: fp(1 + 100*u(6)), Liquidity: fp(liq), Volume24hUSD: fp(vol), Trade24h: fp(100 + 1000*u(8)),
				MarketCap: fp(liq * 10), PriceChange24hPercent: fp(u(10)), PriceChange1hPercent: fp(-u(12))}
			f.vol30[v.Mint] = fp(vol * 30)
			if h[14]%3 == 0 {
				f.quality[v.Mint] = &asset.ExecutionQuality{Volume24hUSD: vol / 2, Trade24h: 50, FlowSourceCount: 2,
					ExecutionScore: math.Round(100 * u(16)), IsEligibleForPrimary: h[18]%2 == 0, AsOf: &asOf}
			}
		}
	}
	return f
}

var seedSnap = sync.OnceValues(func() (*registry.Snapshot, error) {
	doc, err := registry.Seed()
	if err != nil {
		return nil, err
	}
	s, _, err := registry.Build(doc)
	return s, err
})

func newSeedCatalog(t testing.TB, salt string) (*Catalog, *mapMarkets) {
	t.Helper()
	snap, err := seedSnap()
	if err != nil {
		t.Fatal(err)
	}
	mr := syntheticMarkets(snap, salt)
	return New(snap, mr, func() time.Time { return testNow }, nil), mr
}

func mintOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	sum[0] |= 1
	return base58.Encode(sum[:])
}

func liq(v *Variant) (float64, bool) {
	if v == nil || v.Market == nil || v.Market.Liquidity == nil {
		return 0, false
	}
	return *v.Market.Liquidity, true
}

// TestCuratedAllIsUnion: list=all holds every row of every other list, at
// asset and at mint level, in both variantsMode settings; and every member
// mint of the static lists is an all mint row unless the LST floor drops
// it.
func TestCuratedAllIsUnion(t *testing.T) {
	c, _ := newSeedCatalog(t, "")
	snap := c.Snapshot()
	for _, mode := range []bool{false, true} {
		all := map[string]bool{}
		allMints := map[string]bool{}
		for _, byMint := range []bool{false, true} {
			rows, ok := c.Curated(CuratedOptions{List: "all", ByMint: byMint, AllVariants: mode})
			if !ok {
				t.Fatal("list all unknown")
			}
			for _, r := range rows {
				if byMint {
					if allMints[r.PrimaryVariant.Mint] {
						t.Errorf("all mint rows repeat %s", r.PrimaryVariant.Mint)
					}
					allMints[r.PrimaryVariant.Mint] = true
				} else {
					if all[r.AssetID] {
						t.Errorf("all asset rows repeat %s", r.AssetID)
					}
					all[r.AssetID] = true
				}
			}
		}
		for _, id := range asset.CuratedLists[1:] {
			for _, byMint := range []bool{false, true} {
				rows, _ := c.Curated(CuratedOptions{List: id, ByMint: byMint, AllVariants: mode})
				for _, r := range rows {
					if byMint && !allMints[r.PrimaryVariant.Mint] {
						t.Errorf("mode all=%v: %s mint row %s (%s) missing from list=all", mode, id, r.PrimaryVariant.VariantID, r.AssetID)
					}
					if !byMint && !all[r.AssetID] {
						t.Errorf("mode all=%v: %s asset row %s missing from list=all", mode, id, r.AssetID)
					}
				}
			}
		}
		for _, l := range snap.CuratedLists()[1:] {
			for _, m := range l.Members {
				a, v, ok := snap.VariantByMint(m.Mint)
				if !ok {
					continue
				}
				capped := !mode && a.AssetID == "solana" && (v.Kind == asset.KindYield || v.Kind == asset.KindLST) && !aboveFloor(c, m.Mint)
				if allMints[m.Mint] == capped {
					t.Errorf("mode all=%v: %s member %s: in all mint rows = %v, capped = %v", mode, l.ID, v.VariantID, allMints[m.Mint], capped)
				}
			}
		}
	}
}

func aboveFloor(c *Catalog, mint string) bool {
	m := c.markets.Market(mint)
	return m != nil && m.Liquidity != nil && *m.Liquidity >= ranking.LSTMinLiquidityUSD
}

// TestCuratedOrder: asset rows by stats.volume24hUSD desc, nulls last,
// then asset id; mint rows keep that asset order, each asset's rows
// contiguous and in the variant liquidity order.
func TestCuratedOrder(t *testing.T) {
	c, _ := newSeedCatalog(t, "order")
	vol := func(r Row) (float64, bool) {
		if r.Stats == nil || r.Stats.Volume24hUSD == nil {
			return 0, false
		}
		return *r.Stats.Volume24hUSD, true
	}
	before := func(a, b Row) int { // <= 0 when a may precede b
		va, oka := vol(a)
		vb, okb := vol(b)
		if oka != okb {
			if oka {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(vb, va); c != 0 {
			return c
		}
		return strings.Compare(a.AssetID, b.AssetID)
	}
	for _, list := range asset.CuratedLists {
		for _, strategy := range asset.Strategies {
			rows, _ := c.Curated(CuratedOptions{List: list, Strategy: strategy})
			for i := 1; i < len(rows); i++ {
				if before(rows[i-1], rows[i]) >= 0 {
					t.Errorf("%s: %s before %s breaks the volume order", list, rows[i-1].AssetID, rows[i].AssetID)
				}
			}
			for _, mode := range []bool{false, true} {
				mrows, _ := c.Curated(CuratedOptions{List: list, ByMint: true, AllVariants: mode, Strategy: strategy})
				seen := map[string]bool{}
				for i, r := range mrows {
					if i > 0 && mrows[i-1].AssetID != r.AssetID {
						if seen[r.AssetID] {
							t.Errorf("%s: rows of %s are not contiguous", list, r.AssetID)
						}
						if before(mrows[i-1], r) >= 0 {
							t.Errorf("%s: mint rows of %s before %s", list, mrows[i-1].AssetID, r.AssetID)
						}
					}
					seen[r.AssetID] = true
					if i > 0 && mrows[i-1].AssetID == r.AssetID {
						res, _ := c.Resolve(r.AssetID)
						order, _ := c.Variants(res, VariantFilter{All: true})
						if slices.IndexFunc(order, func(v *Variant) bool { return v.Mint == mrows[i-1].PrimaryVariant.Mint }) >
							slices.IndexFunc(order, func(v *Variant) bool { return v.Mint == r.PrimaryVariant.Mint }) {
							t.Errorf("%s: %s before %s breaks the liquidity order", list, mrows[i-1].PrimaryVariant.VariantID, r.PrimaryVariant.VariantID)
						}
					}
					if r.Variants != nil {
						t.Errorf("%s: mint row with variants", list)
					}
				}
			}
		}
	}
}

// TestLSTCapping: the solana asset's default variant set keeps every
// non-LST variant and exactly the LSTs with liquidity >= 250k, in the
// liquidity order; variantsMode=all keeps everything; the lsts list is the
// same dynamic set; a pinned mint is always kept.
func TestLSTCapping(t *testing.T) {
	c, mr := newSeedCatalog(t, "lst")
	res, err := c.Resolve("solana")
	if err != nil {
		t.Fatal(err)
	}
	all, _ := c.Variants(res, VariantFilter{All: true})
	def, _ := c.Variants(res, VariantFilter{})
	var want, dropped []string
	for _, v := range all {
		isLST := v.Kind == asset.KindYield || v.Kind == asset.KindLST
		if l, ok := liq(v); !isLST || ok && l >= ranking.LSTMinLiquidityUSD {
			want = append(want, v.Mint)
		} else {
			dropped = append(dropped, v.Mint)
		}
	}
	if len(dropped) == 0 || len(want) == len(all) {
		t.Fatalf("synthetic markets must put some LSTs under the floor (dropped %d of %d)", len(dropped), len(all))
	}
	if d := gocmp.Diff(want, mints(def)); d != "" {
		t.Errorf("default set (-want +got):\n%s", d)
	}
	for i := 1; i < len(all); i++ {
		a, aok := liq(all[i-1])
		b, bok := liq(all[i])
		if !aok && bok || aok && bok && a < b {
			t.Errorf("variants not by liquidity desc at %d: %v then %v", i, a, b)
		}
	}
	lsts, _ := c.Curated(CuratedOptions{List: "lsts", ByMint: true})
	var wantLST []string
	for _, v := range def {
		if v.Kind == asset.KindYield || v.Kind == asset.KindLST {
			wantLST = append(wantLST, v.Mint)
		}
	}
	var gotLST []string
	for _, r := range lsts {
		gotLST = append(gotLST, r.PrimaryVariant.Mint)
	}
	if d := gocmp.Diff(wantLST, gotLST); d != "" {
		t.Errorf("lsts list mint rows (-want +got):\n%s", d)
	}
	for _, pin := range dropped {
		got, err := c.Variants(res, VariantFilter{Mint: pin})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(mints(got), pin) || len(got) != len(def)+1 {
			t.Errorf("pinned %s: %d rows, pinned present %v", pin, len(got), slices.Contains(mints(got), pin))
		}
	}
	// Detail groups follow the same cap.
	d, _ := c.Detail(res, DetailOptions{})
	da, _ := c.Detail(res, DetailOptions{VariantsAll: true})
	if n := len(d.Asset.VariantGroups.Yield) + len(d.Asset.VariantGroups.LST); n != len(wantLST) {
		t.Errorf("default detail has %d LSTs, want %d", n, len(wantLST))
	}
	if n := len(da.Asset.VariantGroups.Yield) + len(da.Asset.VariantGroups.LST); n != len(wantLST)+len(dropped) {
		t.Errorf("variantsMode=all detail has %d LSTs, want %d", n, len(wantLST)+len(dropped))
	}
	_ = mr
}

func mints(vs []*Variant) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Mint
	}
	return out
}

// TestSearchOrderProperty: for random queries taken from the assets' own
// keys, results are ordered by match class, then canonical liquidity desc,
// then asset id, hold every matching asset up to the limit, and respect
// the category filter.
func TestSearchOrderProperty(t *testing.T) {
	c, _ := newSeedCatalog(t, "search")
	m := c.model()
	rng := rand.New(rand.NewPCG(7, 11))
	class := func(blob string, q string) int {
		best := matchNone
		for _, k := range keysOf(blob) {
			switch {
			case k == q:
				return matchExact
			case strings.HasPrefix(k, q):
				best = min(best, matchPrefix)
			case strings.Contains(k, q):
				best = min(best, matchSubstring)
			}
		}
		return best
	}
	for range 300 {
		ai := rng.IntN(len(m.assets))
		am, keys := m.assets[ai], keysOf(m.indexes.blobs.At(ai))
		k := keys[rng.IntN(len(keys))]
		i := rng.IntN(len(k))
		q := k[i : i+1+rng.IntN(len(k)-i)]
		if strings.TrimSpace(q) != q || q == "" {
			continue
		}
		limit := 1 + rng.IntN(50)
		category := ""
		if rng.IntN(4) == 0 {
			category = am.a.Category
		}
		rows := c.Search(SearchOptions{Query: q, Limit: limit, Category: category})
		type key struct {
			class int
			liq   float64
			id    string
		}
		var want []key
		for j := range m.assets {
			o := m.assets[j]
			if cl := class(m.indexes.blobs.At(j), strings.ToLower(q)); cl != matchNone && (category == "" || o.a.Category == category) {
				want = append(want, key{cl, o.liquidity(), o.a.AssetID})
			}
		}
		slices.SortFunc(want, func(a, b key) int {
			if c := cmp.Compare(a.class, b.class); c != 0 {
				return c
			}
			if c := cmp.Compare(b.liq, a.liq); c != 0 {
				return c
			}
			return strings.Compare(a.id, b.id)
		})
		if len(want) > limit {
			want = want[:limit]
		}
		var wantIDs []string
		for _, w := range want {
			wantIDs = append(wantIDs, w.id)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.AssetID)
		}
		if d := gocmp.Diff(wantIDs, got); d != "" {
			t.Fatalf("search %q limit %d category %q (-want +got):\n%s", q, limit, category, d)
		}
	}
}

// TestSingletonViews: an unknown mint is served as a singleton everywhere.
func TestSingletonViews(t *testing.T) {
	c, _ := newSeedCatalog(t, "")
	unknown := mintOf("nobody lists me")
	res, err := c.Resolve(unknown)
	if err != nil || !res.Singleton() {
		t.Fatalf("resolve: %+v %v", res, err)
	}
	d, err := c.Detail(res, DetailOptions{Strategy: asset.StrategyExecutionQuality})
	if err != nil || d.Asset.AssetID != "solana-"+unknown || d.Asset.Stats != nil || d.Asset.PrimaryVariant.Mint != unknown ||
		d.Mint != unknown || d.Resolution == nil || d.Resolution.ResolvedBy != asset.ResolvedBySingleton {
		t.Fatalf("detail %+v %+v %v", d, d.Asset, err)
	}
	if _, err := c.Detail(res, DetailOptions{Mint: mintOf("other")}); err != ErrNotVariant {
		t.Errorf("foreign mint: %v", err)
	}
	vs, _ := c.Variants(res, VariantFilter{})
	if len(vs) != 1 || vs[0].Mint != unknown {
		t.Errorf("variants %+v", vs)
	}
	rows := c.Search(SearchOptions{Query: unknown, Limit: 20, VariantsAll: true})
	if len(rows) != 1 || rows[0].AssetID != "solana-"+unknown || len(rows[0].Variants) != 1 {
		t.Errorf("search %+v", rows)
	}
	b := c.ResolvedBody(res)
	if b.Variant == nil || b.Variant.Mint != unknown || b.Variant.Chain != "solana" || b.Mint == nil || *b.Mint != unknown {
		t.Errorf("resolved body %+v", b)
	}
}

// TestDetailMint: the include mint is the mint parameter, else the path
// mint of a mint reference, else the primary.
func TestDetailMint(t *testing.T) {
	c, _ := newSeedCatalog(t, "")
	res, _ := c.Resolve("usd")
	d, _ := c.Detail(res, DetailOptions{})
	if d.Mint != d.Asset.PrimaryVariant.Mint || d.Resolution != nil {
		t.Errorf("slug: mint %s primary %s resolution %+v", d.Mint, d.Asset.PrimaryVariant.Mint, d.Resolution)
	}
	usdt := "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"
	res, _ = c.Resolve(usdt)
	d, _ = c.Detail(res, DetailOptions{})
	if d.Mint != usdt || d.Resolution == nil || d.Resolution.ResolvedBy != asset.ResolvedByMint {
		t.Errorf("mint ref: %+v", d)
	}
	pyusd := "2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo"
	d, _ = c.Detail(res, DetailOptions{Mint: pyusd})
	if d.Mint != pyusd {
		t.Errorf("mint param: %s", d.Mint)
	}
}

// TestDetailCache: the detail of a model is built and encoded once per
// strategy and variantsMode, the cached encoding is the encoding of the
// detail, and a rebuild serves fresh data.
func TestDetailCache(t *testing.T) {
	c, mr := newSeedCatalog(t, "cache")
	res, _ := c.Resolve("solana")
	for _, s := range asset.Strategies {
		for _, all := range []bool{false, true} {
			d1, _ := c.Detail(res, DetailOptions{Strategy: s, VariantsAll: all})
			d2, _ := c.Detail(res, DetailOptions{Strategy: s, VariantsAll: all})
			if d1.Asset != d2.Asset || &d1.AssetJSON[0] != &d2.AssetJSON[0] {
				t.Errorf("%s/%v: detail rebuilt on the second call", s, all)
			}
			want, err := json.Marshal(d1.Asset)
			if err != nil || string(want) != string(d1.AssetJSON) {
				t.Errorf("%s/%v: cached encoding differs from the detail's", s, all)
			}
			if d1.Asset.PrimaryVariantStrategy != s {
				t.Errorf("strategy %q echoed as %q", s, d1.Asset.PrimaryVariantStrategy)
			}
		}
	}
	before, _ := c.Detail(res, DetailOptions{})
	// New market data reaches the detail after a rebuild.
	mr.mu.Lock()
	mr.markets["So11111111111111111111111111111111111111112"] = &asset.Market{Liquidity: fp(123), Volume24hUSD: fp(456), Price: fp(7)}
	mr.mu.Unlock()
	c.Rebuild()
	after, _ := c.Detail(res, DetailOptions{})
	if after.Asset == before.Asset || string(after.AssetJSON) == string(before.AssetJSON) {
		t.Fatal("rebuild served the old detail")
	}
	if !strings.Contains(string(after.AssetJSON), `"liquidity":123,`) {
		t.Errorf("rebuilt detail lacks the new market: %.300s", after.AssetJSON)
	}
}

// TestConcurrentReadsAndRebuilds exercises every read while the model is
// rebuilt (run with -race).
func TestConcurrentReadsAndRebuilds(t *testing.T) {
	c, _ := newSeedCatalog(t, "race")
	refs := []string{"solana", "usd", "tesla", "spacex", "USDC", mintOf("x")}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				res, err := c.Resolve(refs[(g+i)%len(refs)])
				if err != nil {
					t.Error(err)
					return
				}
				s := asset.Strategies[i%3]
				d, _ := c.Detail(res, DetailOptions{Strategy: s, VariantsAll: i%2 == 0})
				if d.AssetJSON == nil {
					t.Error("no encoding")
					return
				}
				c.Variants(res, VariantFilter{SortBy: s})
				c.ResolvedBody(res)
				c.Search(SearchOptions{Query: "s", Limit: 20, VariantsAll: true, Strategy: s})
				c.Curated(CuratedOptions{List: asset.CuratedLists[i%8], ByMint: i%2 == 1, Strategy: s})
			}
		})
	}
	for range 5 {
		c.Rebuild()
	}
	stop.Store(true)
	wg.Wait()
}
