// Package catalog is the asset read model: it joins the registry snapshot
// with cached market data into precomputed views (derived tiers, primary
// variant per strategy, canonical stats, variant orderings, curated rows,
// search keys). A background refresh rebuilds the model and swaps it
// atomically, so a request only looks things up and encodes JSON: it never
// waits on a provider or a database.
package catalog

import (
	"cmp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/ranking"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/stats"
	"github.com/assetd/assetd/internal/strtab"
)

// MarketReader reads cached market data. Implementations answer from
// memory at once; nil means "not cached".
type MarketReader interface {
	Market(mint string) *asset.Market
	ExecutionQuality(mint string) *asset.ExecutionQuality
	// Volume30d is the mint's 30-day USD volume summed from cached daily
	// candles, or nil when none are cached.
	Volume30d(mint string) *float64
}

// NoMarkets is a MarketReader with nothing cached.
type NoMarkets struct{}

func (NoMarkets) Market(string) *asset.Market                     { return nil }
func (NoMarkets) ExecutionQuality(string) *asset.ExecutionQuality { return nil }
func (NoMarkets) Volume30d(string) *float64                       { return nil }

// strategyIndex maps a strategy to its slot in per-strategy arrays.
func strategyIndex(s string) int {
	switch s {
	case asset.StrategyExecutionQuality:
		return 1
	case asset.StrategyStockRedeemability:
		return 2
	}
	return 0
}

// assetModel is one asset's precomputed view. A large registry has one
// per asset, so it is kept small: what only some assets need (several
// variant orders, cached details) is behind a pointer.
type assetModel struct {
	a        *registry.Asset
	variants []variantModel // parallel to a.Variants
	// primary is the index into variants per strategy (-1: none).
	primary [3]int32
	// live is set when the view holds market-derived data (a variant
	// market or execution quality, stats, a canonical arm): such a view
	// can change with time alone, so refresh passes re-derive it now and
	// then even when no change was logged (see Catalog.Refresh).
	live bool
	// ephemeral marks a view built for one request (a singleton), whose
	// details are not cached.
	ephemeral bool
	stats     *asset.Stats // nil when every field is null
	// canonical holds the canonicalMarket arm; nil when there is none
	// (most of a large registry), which costs a pointer rather than an
	// interface.
	canonical *canonicalArm
	// order holds the variant orders; one-variant assets share
	// singleOrders.
	order *orders
	// details are the asset details per strategy and variantsMode, built
	// and encoded on first use (see detailView); nil until then.
	details atomic.Pointer[detailCache]
}

// canonicalArm is an asset's canonicalMarket arm: *StockMarket,
// *PreIPOMarket or *ExtProviderMarket.
type canonicalArm struct{ arm any }

// canonicalMarket is the asset's canonicalMarket arm, or nil.
func (am *assetModel) canonicalMarket() any {
	if am.canonical == nil {
		return nil
	}
	return am.canonical.arm
}

// orders are an asset's variant orders: rarely more than one variant, so
// behind a pointer (a large registry has an assetModel per asset).
type orders struct {
	// by holds variant indexes per sortBy (liquidity, execution quality,
	// stock redeemability), all variants.
	by [3][]int
	// lstCapped marks solana yield/lst variants dropped by the default LST
	// floor and cap; nil for other assets.
	lstCapped []bool
}

// detailCache holds an asset's encoded details per strategy and
// variantsMode.
type detailCache [3][2]atomic.Pointer[detailView]

// eachKey calls f with each search key of a blob (see searchBlob; its
// pieces, no copies) until f returns false.
func eachKey(blob string, f func(k string) bool) {
	for rest := blob; rest != ""; {
		i := strings.IndexByte(rest, 0)
		if !f(rest[:i]) {
			return
		}
		rest = rest[i+1:]
	}
}

// volume24 is the sort key of curated rows: stats volume, nulls last.
func (m *assetModel) volume24() (float64, bool) {
	if m.stats == nil || m.stats.Volume24hUSD == nil {
		return 0, false
	}
	return *m.stats.Volume24hUSD, true
}

func (m *assetModel) liquidity() float64 {
	if m.stats == nil || m.stats.Liquidity == nil {
		return -1
	}
	return *m.stats.Liquidity
}

// mintRow is a curated groupBy=mint row: an asset and one of its variants.
type mintRow struct {
	asset   int
	variant int
}

// curatedModel holds a curated list's rows in response order.
type curatedModel struct {
	assets []int        // groupBy=asset
	mints  [2][]mintRow // groupBy=mint [default, variantsMode=all]
	// members are the default mint rows' mints in list order (lists in
	// curated-rank order, members by rank, the dynamic LST set last): the
	// effective membership the v2 curated slugs serve.
	members []registry.CuratedMember
}

// model is one immutable read model.
type model struct {
	// version numbers the models of one catalog, increasing per rebuild.
	version uint64
	snap    *registry.Snapshot
	assets  []*assetModel
	curated map[string]*curatedModel
	// lists maps a curated-list member mint to the bit set of its static
	// lists (bit i = asset.CuratedLists[i]).
	lists   map[string]uint16
	builtAt time.Time
	// inputs maps canonical keys to the assets that read them; indexes
	// holds the search index. Both depend on the registry only: a refresh
	// of market data shares them with the model it replaces.
	inputs  *inputIndex
	indexes *indexes
	// byLiq is every asset index by canonical liquidity desc, then asset
	// id: the order search ranks within a match class.
	byLiq []int32
}

// indexes are the structures built once per registry structure, possibly
// after the model is served.
type indexes struct {
	// blobs hold per asset its search keys, lower case, distinct, each
	// ended by \x00 (see searchBlob): one string for a fast substring
	// test, the keys are its pieces.
	blobs  strtab.List
	search atomic.Pointer[searchIndex] // nil until built: search scans
	built  chan struct{}               // closed once search is set
}

// newIndexes returns the indexes of assets, the search index not built.
func newIndexes(assets []registry.Asset) *indexes {
	blobs := make([]string, len(assets))
	for i := range assets {
		blobs[i] = searchBlob(&assets[i])
	}
	// Packed: no string header per asset, no allocation rounded up.
	return &indexes{blobs: strtab.NewList(blobs), built: make(chan struct{})}
}

// setSearch installs the search index (once per indexes).
func (x *indexes) setSearch(si *searchIndex) {
	x.search.Store(si)
	close(x.built)
}

const solanaAssetID = "solana"

func isLSTKind(kind string) bool { return kind == asset.KindYield || kind == asset.KindLST }

// build computes the model from a snapshot and the market cache.
func build(snap *registry.Snapshot, mr MarketReader, cr CanonicalReader, now time.Time, adv func(string) *asset.Advisory) *model {
	all := snap.Assets()
	m := &model{snap: snap, assets: make([]*assetModel, len(all)), builtAt: now}
	for i := range all {
		m.assets[i] = newAssetModel(&all[i], snap, mr, cr, now, adv)
	}
	m.curated = buildCurated(m, snap)
	m.lists = map[string]uint16{}
	for _, l := range snap.CuratedLists() {
		i := slices.Index(asset.CuratedLists, l.ID)
		if i < 0 {
			continue
		}
		bit := uint16(1) << i
		for _, mem := range l.Members {
			m.lists[mem.Mint] |= bit
		}
	}
	m.inputs = buildInputs(m)
	m.indexes = newIndexes(all)
	m.byLiq = liquidityOrder(m, nil, nil)
	return m
}

// newAssetModel builds the view of one registry asset.
func newAssetModel(a *registry.Asset, snap *registry.Snapshot, mr MarketReader, cr CanonicalReader, now time.Time, adv func(string) *asset.Advisory) *assetModel {
	am := &assetModel{}
	buildAsset(am, a, snap, mr, cr, now, adv)
	return am
}

// restricted reports whether an advisory keeps a variant from being
// primary while another exists: compromised or blocked (the execution
// endpoints refuse such a mint).
func restricted(a *asset.Advisory) bool {
	return a != nil && (a.Status == asset.AdvisoryCompromised || a.Status == asset.AdvisoryBlocked)
}

// variantModel is the model of one variant: its registry variant and what
// the catalog derives for it. A large registry has one per variant, so it
// holds no copy of the registry's strings: Variant views are made from it
// on use (see view), for a response or a cached detail.
type variantModel struct {
	rv       *registry.Variant // in the snapshot, which is immutable
	market   *asset.Market
	quality  *asset.ExecutionQuality
	advisory *asset.Advisory // nil when the mint is not flagged
	preIPO   *PreIPOBlock
	// tier is the liquidityTier and trustTier of the view (see tierOf):
	// from the market liquidity when it is known, else the registry's
	// stored hint.
	tier uint8
}

// tierOf numbers a tier name for variantModel.tier: 1 for tier1, 2 for
// tier2, 3 for anything else (a snapshot holds tier1..tier3 only).
func tierOf(name string) uint8 {
	switch name {
	case asset.Tier1:
		return 1
	case asset.Tier2:
		return 2
	}
	return 3
}

// tierName is the name of a tier numbered by tierOf.
func tierName(t uint8) string {
	switch t {
	case 1:
		return asset.Tier1
	case 2:
		return asset.Tier2
	}
	return asset.Tier3
}

// newVariantModel derives the model of one variant from the market cache.
func newVariantModel(v *registry.Variant, mr MarketReader) variantModel {
	mk := mr.Market(v.Mint)
	tier := v.LiquidityTier
	if mk != nil && mk.Liquidity != nil {
		tier = asset.LiquidityTier(mk.Liquidity)
	}
	return variantModel{rv: v, tier: tierOf(tier), market: mk, quality: mr.ExecutionQuality(v.Mint)}
}

// view writes the Variant view of vm into v. Every field is assigned, one
// by one: a composite literal is built aside and copied in with a bulk
// write barrier, which made building rows 2-3x slower while the GC runs.
func (vm *variantModel) view(v *Variant) {
	rv := vm.rv
	v.VariantID, v.Mint, v.Kind = rv.VariantID, rv.Mint, rv.Kind
	v.LiquidityTier = tierName(vm.tier)
	v.TrustTier = v.LiquidityTier
	v.Tags = rv.Tags
	if v.Tags == nil {
		v.Tags = []string{}
	}
	v.Issuer, v.IssuerURL, v.Label, v.StockVariantTier = rv.Issuer, rv.IssuerURL, rv.Label, rv.StockVariantTier
	v.Symbol, v.Name = rv.Symbol, rv.Name
	v.Market, v.ExecutionQuality, v.Advisory, v.PreIPO = vm.market, vm.quality, vm.advisory, vm.preIPO
}

// buildAsset derives am from a; adv gives each variant's advisory, which
// annotates it and keeps a restricted variant from being primary.
func buildAsset(am *assetModel, a *registry.Asset, snap *registry.Snapshot, mr MarketReader, cr CanonicalReader, now time.Time, adv func(string) *asset.Advisory) {
	am.a = a
	n := len(a.Variants)
	am.variants = make([]variantModel, n)
	cands := make([]ranking.Candidate, n)
	for i := range a.Variants {
		v := &a.Variants[i]
		am.variants[i] = newVariantModel(v, mr)
		am.variants[i].advisory = adv(v.Mint)
		rank := 0
		if r, ok := snap.CuratedRank(v.Mint); ok {
			rank = r + 1
		}
		cands[i] = ranking.Candidate{Mint: v.Mint, Kind: v.Kind, StockVariantTier: v.StockVariantTier,
			Market: am.variants[i].market, Quality: am.variants[i].quality, CuratedRank: rank,
			Restricted: restricted(am.variants[i].advisory)}
	}
	for si, s := range asset.Strategies {
		p, _ := ranking.SelectPrimary(cands, s, a.Category, now)
		am.primary[si] = int32(p)
	}
	// Stats: canonical aggregates; price fields from the liquidity primary
	// whatever strategy a request asks for, so stats never depend on it.
	var inBuf [4]stats.Input // most assets have few variants: no allocation
	in := inBuf[:0]
	if n > len(inBuf) {
		in = make([]stats.Input, 0, n)
	}
	in = in[:n]
	for i := range a.Variants {
		in[i] = stats.Input{Kind: a.Variants[i].Kind, Market: am.variants[i].market, Volume30dUSD: mr.Volume30d(a.Variants[i].Mint)}
	}
	if st := stats.Aggregate(in, int(am.primary[0])); !stats.IsEmpty(st) {
		am.stats = &st
	}
	// Canonical arm, stats overrides and preIpo blocks, before any view
	// (rows, groups, details) copies stats or variants.
	applyCanonical(am, a, cr, now)
	if n == 1 && a.AssetID != solanaAssetID {
		am.order = singleOrders
	} else {
		am.order = &orders{by: singleOrders.by}
	}
	var rows []ranking.Row
	if n > 1 {
		rows = make([]ranking.Row, n)
	}
	for si, s := range asset.Strategies {
		if n == 1 {
			break
		}
		for i := range rows {
			rows[i] = ranking.Row{Index: i, Mint: a.Variants[i].Mint, StockVariantTier: a.Variants[i].StockVariantTier,
				Market: am.variants[i].market, Quality: am.variants[i].quality}
		}
		ranking.SortVariants(rows, s)
		ord := make([]int, n)
		for i, r := range rows {
			ord[i] = r.Index
		}
		am.order.by[si] = ord
	}
	if a.AssetID == solanaAssetID {
		var lst []ranking.Row
		for i := range a.Variants {
			if isLSTKind(a.Variants[i].Kind) {
				lst = append(lst, ranking.Row{Index: i, Mint: a.Variants[i].Mint, Market: am.variants[i].market})
			}
		}
		capped := make([]bool, n)
		for _, r := range lst {
			capped[r.Index] = true
		}
		for _, r := range ranking.CapLSTVariants(lst, "", false) {
			capped[r.Index] = false
		}
		am.order.lstCapped = capped
	}
	am.live = am.stats != nil || am.canonical != nil
	for i := range am.variants {
		if v := &am.variants[i]; v.market != nil || v.quality != nil || v.preIPO != nil {
			am.live = true
		}
	}
}

// singleOrders are the orders of every one-variant asset (shared,
// read-only).
var singleOrders = &orders{by: [3][]int{{0}, {0}, {0}}}

// groups returns the variant groups of the asset detail and the variants
// by liquidity desc, for a variantsMode (0 default, 1 all). Computed on
// use (details are cached; rows with variants go into cached bodies)
// rather than held per asset; the views of one call share one allocation.
func (am *assetModel) groups(mode int) (Groups, []*Variant) {
	g := Groups{Spot: []*Variant{}, LST: []*Variant{}, Yield: []*Variant{}, ETF: []*Variant{}, Leveraged: []*Variant{},
		Basket: []*Variant{}, TokenizedEquity: []*Variant{}}
	n := len(am.order.by[0])
	if mode == 0 && am.order.lstCapped != nil {
		n = 0
		for _, i := range am.order.by[0] {
			if !am.capped(i) {
				n++
			}
		}
	}
	views := make([]Variant, n)
	byLiq := make([]*Variant, 0, n)
	for _, i := range am.order.by[0] {
		if mode == 0 && am.capped(i) {
			continue
		}
		v := &views[len(byLiq)]
		am.variants[i].view(v)
		byLiq = append(byLiq, v)
		switch v.Kind {
		case asset.KindLST:
			g.LST = append(g.LST, v)
		case asset.KindYield:
			g.Yield = append(g.Yield, v)
		case asset.KindETF:
			g.ETF = append(g.ETF, v)
		case asset.KindLeveraged:
			g.Leveraged = append(g.Leveraged, v)
		case asset.KindBasket:
			g.Basket = append(g.Basket, v)
		case asset.KindTokenizedEquity:
			g.TokenizedEquity = append(g.TokenizedEquity, v)
		default:
			g.Spot = append(g.Spot, v)
		}
	}
	return g, byLiq
}

// row is the asset row without its primary variant and variants.
func (am *assetModel) row() Row {
	a := am.a
	return Row{AssetID: a.AssetID, Name: a.Name, Symbol: a.Symbol, Category: a.Category, ImageURL: am.image(), Stats: am.stats}
}

// capped reports whether variant i is hidden by the default LST floor/cap.
func (am *assetModel) capped(i int) bool { return am.order.lstCapped != nil && am.order.lstCapped[i] }

// image is the asset's curated image, nil when it has none: a pointer
// into the snapshot, which is immutable.
func (am *assetModel) image() *string {
	if am.a.ImageURL == "" {
		return nil
	}
	return &am.a.ImageURL
}

// primaryView writes the view of the primary variant for a strategy into
// v and returns v, or returns nil when the asset has no primary.
func (am *assetModel) primaryView(si int, v *Variant) *Variant {
	p := am.primary[si]
	if p < 0 {
		return nil
	}
	am.variants[p].view(v)
	return v
}

// searchBlob joins the strings a search matches against, lower-cased,
// trimmed, distinct and not empty, each ended by \x00: asset id, symbol,
// name, coin id, stock ticker, aliases, then variant symbols and names.
func searchBlob(a *registry.Asset) string {
	var buf [16]string
	keys := buf[:0]
	size := 0
	add := func(s string) {
		s = strings.ToLower(strings.TrimSpace(s))
		if s == "" || slices.Contains(keys, s) {
			return
		}
		keys = append(keys, s)
		size += len(s) + 1
	}
	add(a.AssetID)
	add(a.Symbol)
	add(a.Name)
	add(a.CoinID)
	add(a.StockTicker)
	for _, al := range a.Aliases {
		add(al)
	}
	for i := range a.Variants {
		add(a.Variants[i].Symbol)
		add(a.Variants[i].Name)
	}
	// One allocation of the exact size: a large registry holds a blob per
	// asset, and a growing Builder would leave up to half of each unused.
	var b strings.Builder
	b.Grow(size)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
	}
	return b.String()
}

// buildCurated computes every curated list's rows in response order:
// stats.volume24hUSD desc (nulls last), then asset id; groupBy=mint rows
// keep that asset order and, inside an asset, the variant liquidity order.
// The lsts list (and the LST part of all) is the solana asset's dynamic
// yield/LST set under the same floor and cap as the variants endpoint.
func buildCurated(m *model, snap *registry.Snapshot) map[string]*curatedModel {
	out := map[string]*curatedModel{}
	solana, hasSolana := snap.AssetIndex(solanaAssetID)
	// The registry's "all" list keeps one member per asset (an asset-level
	// list); its mint rows are every member of the other lists, so that
	// list=all&groupBy=mint holds every curated mint.
	var allMembers []registry.CuratedMember
	lstAdded := map[string]int64{} // registry lsts members' join times
	for _, l := range snap.CuratedLists() {
		if l.ID != registry.AllListID {
			allMembers = append(allMembers, l.Members...)
		}
		if l.ID == "lsts" {
			for _, mem := range l.Members {
				lstAdded[mem.Mint] = mem.AddedAt
			}
		}
	}
	for _, l := range snap.CuratedLists() {
		cm := &curatedModel{}
		seenAsset := map[int]bool{}
		var mintRows [2][]mintRow
		seenMint := map[string]bool{}
		addMint := func(ai, vi int, addedAt int64) {
			mint := m.assets[ai].a.Variants[vi].Mint
			if seenMint[mint] {
				return
			}
			seenMint[mint] = true
			mintRows[1] = append(mintRows[1], mintRow{ai, vi})
			if !m.assets[ai].capped(vi) {
				mintRows[0] = append(mintRows[0], mintRow{ai, vi})
				cm.members = append(cm.members, registry.CuratedMember{Mint: mint, Rank: len(cm.members), AssetID: m.assets[ai].a.AssetID, AddedAt: addedAt})
			}
		}
		addAsset := func(ai int) {
			if !seenAsset[ai] {
				seenAsset[ai] = true
				cm.assets = append(cm.assets, ai)
			}
		}
		members := l.Members
		if l.ID == registry.AllListID {
			members = allMembers
		}
		for _, mem := range members {
			a, _, ok := snap.VariantByMint(mem.Mint)
			if !ok {
				continue // the registry reports members it cannot place
			}
			ai, _ := snap.AssetIndex(a.AssetID)
			if (l.ID == "lsts" || l.ID == registry.AllListID) && ai == solana && hasSolana && isLSTKind(variantKind(a, mem.Mint)) {
				continue // replaced by the dynamic set below
			}
			addAsset(ai)
			addMint(ai, variantIndex(a, mem.Mint), mem.AddedAt)
		}
		if hasSolana && (l.ID == "lsts" || l.ID == registry.AllListID) {
			sm := m.assets[solana]
			for _, vi := range sm.order.by[0] {
				if isLSTKind(sm.a.Variants[vi].Kind) {
					addAsset(solana)
					addMint(solana, vi, lstAdded[sm.a.Variants[vi].Mint])
				}
			}
		}
		byVolume := func(a, b int) int {
			va, oka := m.assets[a].volume24()
			vb, okb := m.assets[b].volume24()
			if oka != okb {
				if oka {
					return -1
				}
				return 1
			}
			if c := cmp.Compare(vb, va); c != 0 {
				return c
			}
			return cmp.Compare(m.assets[a].a.AssetID, m.assets[b].a.AssetID)
		}
		slices.SortStableFunc(cm.assets, byVolume)
		for mode := range 2 {
			rows := mintRows[mode]
			pos := func(r mintRow) int { return slices.Index(m.assets[r.asset].order.by[0], r.variant) }
			slices.SortStableFunc(rows, func(x, y mintRow) int {
				if x.asset != y.asset {
					return byVolume(x.asset, y.asset)
				}
				return cmp.Compare(pos(x), pos(y))
			})
			cm.mints[mode] = rows
		}
		out[l.ID] = cm
	}
	return out
}

func variantIndex(a *registry.Asset, mint string) int {
	for i := range a.Variants {
		if a.Variants[i].Mint == mint {
			return i
		}
	}
	return 0
}

func variantKind(a *registry.Asset, mint string) string {
	return a.Variants[variantIndex(a, mint)].Kind
}
