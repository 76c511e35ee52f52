package catalog

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
)

// ErrNotVariant is returned when a `mint` parameter is not a variant of
// the asset.
var ErrNotVariant = errors.New("mint is not a variant of this asset")

// Resolve resolves an asset reference (see registry.Snapshot.Resolve).
func (c *Catalog) Resolve(ref string) (registry.Resolution, error) {
	return c.model().snap.Resolve(ref)
}

// ResolveMint resolves a raw mint.
func (c *Catalog) ResolveMint(mint string) (registry.Resolution, error) {
	return c.model().snap.ResolveMint(mint)
}

// view is a resolved asset's model: the precomputed one, or one built on
// the fly for a singleton.
func (c *Catalog) view(m *model, res registry.Resolution) *assetModel {
	if i, ok := m.snap.AssetIndex(res.AssetID); ok && !res.Singleton() {
		return m.assets[i]
	}
	a := res.Asset
	known := false
	if a.Name == "" && a.Symbol == "" {
		a, known = c.indexIdentity(a, res.Mint)
	}
	if id, ok := c.markets.(IdentityReader); ok && !known && a.Name == "" && a.Symbol == "" {
		if sym, name, ok := id.TokenIdentity(res.Mint); ok {
			cp := *a // the singleton is ours, but keep the caller's value intact
			cp.Symbol, cp.Name = sym, name
			a = &cp
		}
	}
	am := &assetModel{ephemeral: true}
	buildAsset(am, a, m.snap, c.markets, NoCanonical{}, c.now(), c.advisory) // singletons have no canonical keys
	return am
}

// IdentityReader is implemented by market readers that know token symbols
// and names for mints the registry does not list; singleton assets take
// their name and symbol from it.
type IdentityReader interface {
	TokenIdentity(mint string) (symbol, name string, ok bool)
}

// ResolvedBody is the body of GET /v1/assets/resolve for a resolution:
// the variant of a mint reference, else the liquidity primary.
func (c *Catalog) ResolvedBody(res registry.Resolution) Resolved {
	m := c.model()
	am := c.view(m, res)
	a := am.a
	out := Resolved{AssetID: res.AssetID, ResolvedBy: res.ResolvedBy,
		Asset: ResolveAsset{AssetID: a.AssetID, Name: nonEmpty(a.Name), Symbol: nonEmpty(a.Symbol), Category: a.Category, Aliases: a.Aliases}}
	if out.Asset.Aliases == nil {
		out.Asset.Aliases = []string{}
	}
	if res.Mint != "" {
		out.Mint = &res.Mint
	}
	var vb Variant
	var v *Variant
	if res.Mint != "" {
		am.variants[variantIndex(a, res.Mint)].view(&vb)
		v = &vb
	} else {
		v = am.primaryView(0, &vb)
	}
	if v != nil {
		out.Variant = &ResolveVariant{Mint: v.Mint, Chain: "solana", Kind: v.Kind, LiquidityTier: v.LiquidityTier,
			TrustTier: v.TrustTier, Tags: v.Tags, Issuer: v.Issuer, IssuerURL: v.IssuerURL, Label: v.Label, Advisory: v.Advisory}
	}
	return out
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// DetailOptions are the asset detail parameters the model answers.
type DetailOptions struct {
	Strategy    string
	Mint        string // optional; must be a variant of the asset
	VariantsAll bool   // variantsMode=all
}

// DetailResult is the asset detail plus what include blocks need.
type DetailResult struct {
	// Asset is shared with other requests: read-only.
	Asset *Detail
	// AssetJSON is the JSON encoding of Asset, cached with the model (nil
	// when Asset cannot be encoded); read-only.
	AssetJSON  []byte
	Resolution *Resolution
	// Mint is the variant include computations use: the mint parameter,
	// else the path mint of a mint reference, else the primary.
	Mint string
}

// Detail returns the asset detail of a resolution.
func (c *Catalog) Detail(res registry.Resolution, o DetailOptions) (DetailResult, error) {
	m := c.model()
	am := c.view(m, res)
	if o.Mint != "" && !hasMint(am.a, o.Mint) {
		return DetailResult{}, ErrNotVariant
	}
	si := strategyIndex(o.Strategy)
	mode := 0
	if o.VariantsAll {
		mode = 1
	}
	dv := am.detailView(si, mode)
	d := dv.d
	out := DetailResult{Asset: d, AssetJSON: dv.json}
	if res.ResolvedBy != asset.ResolvedByAssetID {
		r := &Resolution{Ref: res.Ref, ResolvedBy: res.ResolvedBy, AssetID: res.AssetID}
		if res.Mint != "" {
			r.Mint = &res.Mint
		}
		out.Resolution = r
	}
	switch {
	case o.Mint != "":
		out.Mint = o.Mint
	case res.Mint != "":
		out.Mint = res.Mint
	case d.PrimaryVariant != nil:
		out.Mint = d.PrimaryVariant.Mint
	}
	return out, nil
}

// detailView is an asset detail and its JSON encoding.
type detailView struct {
	d    *Detail
	json []byte // nil when d cannot be encoded (a non-finite number)
}

// detailView returns the asset detail for a strategy and variantsMode,
// built and encoded on first use: the model is immutable, so the detail of
// a large asset is encoded once per model rather than once per request.
func (am *assetModel) detailView(si, mode int) *detailView {
	if am.ephemeral {
		return am.newDetailView(si, mode)
	}
	dc := am.details.Load()
	if dc == nil {
		// Concurrent first uses may each make one; any of them may win.
		am.details.CompareAndSwap(nil, new(detailCache))
		dc = am.details.Load()
	}
	if dv := dc[si][mode].Load(); dv != nil {
		return dv
	}
	dv := am.newDetailView(si, mode)
	// Concurrent first uses build equal views; any of them may win.
	dc[si][mode].Store(dv)
	return dv
}

// newDetailView builds and encodes the asset detail for a strategy and
// variantsMode.
func (am *assetModel) newDetailView(si, mode int) *detailView {
	a := am.a
	groups, _ := am.groups(mode)
	d := &Detail{AssetID: a.AssetID, Name: a.Name, Symbol: a.Symbol, Category: a.Category, Aliases: a.Aliases,
		ImageURL: am.image(), Stats: am.stats, PrimaryVariantStrategy: asset.Strategies[si], PrimaryVariant: am.primaryView(si, new(Variant)),
		CanonicalMarket: am.canonicalMarket(), VariantGroups: groups}
	if d.Aliases == nil {
		d.Aliases = []string{}
	}
	dv := &detailView{d: d}
	if b, err := json.Marshal(d); err == nil {
		dv.json = b
	}
	return dv
}

func hasMint(a *registry.Asset, mint string) bool {
	for i := range a.Variants {
		if a.Variants[i].Mint == mint {
			return true
		}
	}
	return false
}

// VariantFilter narrows the variants endpoint.
type VariantFilter struct {
	Kind             string
	LiquidityTier    string // derived tier; "" = any
	StockVariantTier string
	Mint             string // kept even when capping applies; must belong
	All              bool   // variantsMode=all
	SortBy           string
}

// Variants returns the asset's variant rows filtered and ordered.
func (c *Catalog) Variants(res registry.Resolution, f VariantFilter) ([]*Variant, error) {
	m := c.model()
	am := c.view(m, res)
	if f.Mint != "" && !hasMint(am.a, f.Mint) {
		return nil, ErrNotVariant
	}
	var buf [32]int
	keep := buf[:0]
	for _, i := range am.order.by[strategyIndex(f.SortBy)] {
		vm := &am.variants[i]
		if !f.All && am.capped(i) && vm.rv.Mint != f.Mint {
			continue
		}
		if f.Kind != "" && vm.rv.Kind != f.Kind || f.LiquidityTier != "" && tierName(vm.tier) != f.LiquidityTier ||
			f.StockVariantTier != "" && vm.rv.StockVariantTier != f.StockVariantTier {
			continue
		}
		keep = append(keep, i)
	}
	views := make([]Variant, len(keep))
	out := make([]*Variant, len(keep))
	for j, i := range keep {
		am.variants[i].view(&views[j])
		out[j] = &views[j]
	}
	return out, nil
}

// SearchOptions are the search parameters.
type SearchOptions struct {
	Query       string
	Category    string
	Limit       int
	VariantsAll bool
	Strategy    string
}

// match classes, best first.
const (
	matchMint = iota
	matchExact
	matchPrefix
	matchSubstring
	matchNone
)

// Search ranks canonical assets by match class (exact mint, exact
// symbol/alias/name/id, prefix, substring), then canonical liquidity desc,
// then asset id; singleton tokens of the token index follow (see
// searchSingletons), except exact matches with an external listing id,
// which rank after the canonical exact matches (the canonical asset of a
// symbol the registry does not list, such as TRUMP). A query that is a
// well-formed mint no asset lists returns its singleton.
func (c *Catalog) Search(o SearchOptions) []Row {
	m := c.model()
	si := strategyIndex(o.Strategy)
	q := strings.TrimSpace(o.Query)
	if registry.ValidMint(q) {
		res, err := m.snap.ResolveMint(q)
		if err != nil {
			return []Row{}
		}
		am := c.view(m, res)
		if o.Category != "" && am.a.Category != o.Category {
			return []Row{}
		}
		return []Row{c.row(am, si, o.VariantsAll, 0, new(Variant))}
	}
	hits := m.searchAssets(strings.ToLower(q), o.Category, o.Limit)
	out := make([]Row, len(hits), max(o.Limit, len(hits)))
	prims := make([]Variant, len(hits))
	for j, h := range hits {
		out[j] = c.row(m.assets[h.asset], si, o.VariantsAll, 0, &prims[j])
	}
	// Then singleton tokens of the token index (category crypto), the
	// listed exact ones after the canonical exact matches.
	if o.Category == "" || o.Category == singletonCategory {
		exact := 0
		for exact < len(hits) && hits[exact].class <= matchExact {
			exact++
		}
		singles, listed := c.searchSingletons(m, q, si, o.VariantsAll, o.Limit-exact)
		out = slices.Insert(out, exact, singles[:listed]...)
		out = append(out, singles[listed:]...)
		if len(out) > o.Limit {
			out = out[:o.Limit]
		}
	}
	return out
}

// singletonCategory is the category of singleton assets.
const singletonCategory = "crypto"

// row is an asset row; with variants, every (default-filtered) variant by
// liquidity desc. The view of the primary variant is written into prim.
func (c *Catalog) row(am *assetModel, si int, variants bool, mode int, prim *Variant) Row {
	r := am.row()
	r.PrimaryVariant = am.primaryView(si, prim)
	if variants {
		_, r.Variants = am.groups(mode)
	}
	return r
}

// CuratedOptions are the curated endpoint parameters.
type CuratedOptions struct {
	List        string
	ByMint      bool // groupBy=mint
	VariantsAll bool // variants=all (groupBy=asset only)
	AllVariants bool // variantsMode=all
	Strategy    string
}

// Curated returns every row of a curated list in response order; callers
// page by slicing. ok is false for an unknown list.
func (c *Catalog) Curated(o CuratedOptions) ([]Row, bool) {
	m := c.model()
	cm, ok := m.curated[o.List]
	if !ok {
		return nil, false
	}
	si := strategyIndex(o.Strategy)
	mode := 0
	if o.AllVariants {
		mode = 1
	}
	if o.ByMint {
		rows := cm.mints[mode]
		out := make([]Row, len(rows))
		views := make([]Variant, len(rows))
		for j, r := range rows {
			am := m.assets[r.asset]
			am.variants[r.variant].view(&views[j])
			out[j] = am.row()
			out[j].PrimaryVariant = &views[j]
		}
		return out, true
	}
	out := make([]Row, len(cm.assets))
	prims := make([]Variant, len(cm.assets))
	for j, ai := range cm.assets {
		out[j] = c.row(m.assets[ai], si, o.VariantsAll, mode, &prims[j])
	}
	return out, true
}

// CuratedMembers is the effective membership of a curated list, the mints
// of `curated?list=<id>&groupBy=mint` (LST floor and cap included), in
// list order with dense ranks from 0: what the v2 curated slugs serve.
// ok is false for an unknown list. The slice is shared: do not modify.
func (c *Catalog) CuratedMembers(list string) ([]registry.CuratedMember, bool) {
	cm, ok := c.model().curated[list]
	if !ok {
		return nil, false
	}
	return cm.members, true
}

// Categories are the values the search category filter accepts.
func Categories() []string { return asset.Categories }

// Primary returns the asset's primary variant under strategy (nil when the
// asset has none).
func (c *Catalog) Primary(res registry.Resolution, strategy string) *Variant {
	m := c.model()
	return c.view(m, res).primaryView(strategyIndex(strategy), new(Variant))
}

// HasVariant reports whether mint is a variant of the resolved asset.
func (c *Catalog) HasVariant(res registry.Resolution, mint string) bool {
	return hasMint(c.view(c.model(), res).a, mint)
}

// VariantMeta returns the registry identity of a known mint: its asset id
// (a singleton id for unknown mints), symbol, name and decimals.
func (c *Catalog) VariantMeta(mint string) (assetID, symbol, name string, decimals *int) {
	a, v, ok := c.model().snap.VariantByMint(mint)
	if !ok {
		return registry.SingletonAssetID(mint), "", "", nil
	}
	return a.AssetID, v.Symbol, v.Name, v.Decimals
}

// InCuratedList reports whether mint is a member of any of the named
// static curated lists (majors, lsts, currencies, rwas, etfs, metals,
// stocks).
func (c *Catalog) InCuratedList(mint string, ids ...string) bool {
	set := c.model().lists[mint]
	for _, id := range ids {
		if i := slices.Index(asset.CuratedLists, id); i >= 0 && set&(1<<i) != 0 {
			return true
		}
	}
	return false
}
