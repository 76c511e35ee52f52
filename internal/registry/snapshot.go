package registry

import "github.com/assetd/assetd/internal/strtab"

// Snapshot is an immutable, indexed registry built by Build. It is safe for
// concurrent use. Accessors return pointers and slices that point into the
// snapshot without copying: callers must treat them as read-only.
type Snapshot struct {
	assets []Asset // sorted by AssetID
	// The lookups are strtab.Indexes over keys the snapshot already holds
	// (4-byte slots, about 2 MB at 150,000 assets, rather than a map of
	// each: 6-8 MB).
	ids      strtab.Index // key n is assets[n].AssetID
	mintList []string     // every variant mint, in asset order
	mintAt   []mintEntry  // where mintList[n] is
	mints    strtab.Index // key n is mintList[n]: exact, case-sensitive
	variants strtab.Index // key n is the VariantID at mintAt[n]: exact
	aliases  aliasIndex
	curated  curatedIndex
	stats    Stats
}

// mintEntry locates a variant: the index of its asset in the Snapshot's
// assets and its index in that asset's variants, with lstBit set when it
// was attached from an LST index. Eight bytes rather than two pointers
// and a flag: a large registry has two such maps of every variant.
type mintEntry struct {
	asset   uint32
	variant uint32
}

const lstBit = 1 << 31

func (e mintEntry) lstIndex() bool { return e.variant&lstBit != 0 }

// at returns the asset and variant e locates.
func (s *Snapshot) at(e mintEntry) (*Asset, *Variant) {
	a := &s.assets[e.asset]
	return a, &a.Variants[e.variant&^lstBit]
}

// The key functions of the Snapshot's indexes.
func (s *Snapshot) assetKey(n int) string { return s.assets[n].AssetID }
func (s *Snapshot) mintKey(n int) string  { return s.mintList[n] }
func (s *Snapshot) variantKey(n int) string {
	_, v := s.at(s.mintAt[n])
	return v.VariantID
}

// assetIndex returns the index in assets of the asset with exactly this id.
func (s *Snapshot) assetIndex(id string) (int, bool) { return s.ids.Find(id, s.assetKey) }

// mint locates the variant with exactly this mint.
func (s *Snapshot) mint(mint string) (mintEntry, bool) {
	n, ok := s.mints.Find(mint, s.mintKey)
	if !ok {
		return mintEntry{}, false
	}
	return s.mintAt[n], true
}

// Stats counts what a Snapshot holds.
type Stats struct {
	Assets   int
	Variants int
	// LSTIndexVariants counts variants attached from an LST index.
	LSTIndexVariants int
	ByCategory       map[string]int
	ByKind           map[string]int
}

// Assets returns every asset, sorted by AssetID.
func (s *Snapshot) Assets() []Asset { return s.assets }

// Asset returns the asset with exactly this id.
func (s *Snapshot) Asset(id string) (*Asset, bool) {
	i, ok := s.assetIndex(id)
	if !ok {
		return nil, false
	}
	return &s.assets[i], true
}

// AssetIndex returns the index in Assets of the asset with exactly this
// id.
func (s *Snapshot) AssetIndex(id string) (int, bool) {
	return s.assetIndex(id)
}

// VariantByMint returns the variant with this mint (exact, case-sensitive)
// and its asset.
func (s *Snapshot) VariantByMint(mint string) (*Asset, *Variant, bool) {
	e, ok := s.mint(mint)
	if !ok {
		return nil, nil, false
	}
	a, v := s.at(e)
	return a, v, true
}

// Variant returns the variant with exactly this variant id and its asset.
func (s *Snapshot) Variant(variantID string) (*Asset, *Variant, bool) {
	n, ok := s.variants.Find(variantID, s.variantKey)
	if !ok {
		return nil, nil, false
	}
	a, v := s.at(s.mintAt[n])
	return a, v, true
}

// IsLSTIndexMint reports whether the mint was attached to "solana" from an
// LST index (rather than listed by a registry asset).
func (s *Snapshot) IsLSTIndexMint(mint string) bool {
	e, _ := s.mint(mint)
	return e.lstIndex()
}

// Mints returns every variant mint, in asset order (shared: read-only).
func (s *Snapshot) Mints() []string { return s.mintList }

// CuratedLists returns every curated list in UI order: "all", then majors,
// lsts, currencies, rwas, etfs, metals, stocks. Lists no document defines
// are present and empty.
func (s *Snapshot) CuratedLists() []CuratedList { return s.curated.lists }

// CuratedList returns one curated list by id (including "all").
func (s *Snapshot) CuratedList(id string) (*CuratedList, bool) {
	i, ok := s.curated.byID[id]
	if !ok {
		return nil, false
	}
	return &s.curated.lists[i], true
}

// CuratedAssetIDs returns the distinct asset ids of a list in member order
// (the groupBy=asset view), or nil for an unknown list.
func (s *Snapshot) CuratedAssetIDs(id string) []string { return s.curated.assetIDs[id] }

// CuratedRank returns the curated mint rank used by primary-variant
// tie-breaks: the position of the mint's first appearance when walking the
// lists majors, lsts, currencies, rwas, etfs, metals, stocks in order (lower
// is better). ok is false for mints in no list.
func (s *Snapshot) CuratedRank(mint string) (rank int, ok bool) {
	rank, ok = s.curated.rank[mint]
	return rank, ok
}

// Stats returns the snapshot's counts. The maps are shared: do not modify.
func (s *Snapshot) Stats() Stats { return s.stats }
