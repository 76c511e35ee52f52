package registry

import (
	"fmt"
	"slices"

	"github.com/assetd/assetd/internal/strtab"
)

// Build validates and merges the seed and the overlays into an immutable
// Snapshot.
//
// Every document is validated first (see Validate); the first invalid one
// fails the whole build with an error naming the document ("seed",
// "overlay 1", ...) and the offending entries. Nothing is half-loaded.
//
// Merge semantics, in document order:
//   - an asset replaces an earlier asset with the same assetId (reported as
//     asset_replaced); new ids are added;
//   - mintHomes entries override earlier ones for the same mint;
//   - curated lists with the same id are unioned (see docs/registry.md);
//   - LST index entries are unioned by mint;
//   - supplemental documents are merged last and only fill gaps.
//
// Then a mint listed by several assets is kept in one home (see
// resolveDuplicateMints), LST index entries no asset lists are attached to
// "solana", tiers and tags are normalised, and the indexes are built. The
// Report lists every repair, including alias collisions; none of them fails
// the build.
func Build(seed Document, overlays ...Document) (*Snapshot, *Report, error) {
	docs := append([]Document{seed}, overlays...)
	for i := range docs {
		if err := Validate(docs[i]); err != nil {
			return nil, nil, fmt.Errorf("registry: build: %s: %w", docLabel(i), err)
		}
	}
	return build(docs, true)
}

// BuildParsed is Build for documents that Seed and ParseDocument returned
// (so already validated) and that the caller hands over: they are neither
// validated again nor copied, and the Snapshot shares their memory, so the
// caller must not change or use them afterwards. A server's start-up
// builds its registry this way, holding one copy of a large import rather
// than two.
func BuildParsed(seed Document, overlays ...Document) (*Snapshot, *Report, error) {
	return build(append([]Document{seed}, overlays...), false)
}

// build merges validated documents; clone copies what the Snapshot keeps.
func build(docs []Document, clone bool) (*Snapshot, *Report, error) {
	r := newReport("")
	m := newMerger(r)
	m.clone = clone
	supplemental := false
	for i := range docs {
		if docs[i].Supplemental {
			supplemental = true
		} else {
			m.addAuthoritative(i, &docs[i])
		}
	}
	m.resolveDuplicateMints()
	if supplemental {
		taken, owned := m.takenKeys()
		for i := range docs {
			if docs[i].Supplemental {
				m.addSupplemental(i, &docs[i], taken, owned)
			}
		}
	}
	m.attachLSTIndex()
	s, err := newSnapshot(m, r)
	if err != nil {
		return nil, nil, fmt.Errorf("registry: build: %w", err)
	}
	return s, r, nil
}

// newSnapshot freezes the merged assets and builds the indexes.
func newSnapshot(m *merger, r *Report) (*Snapshot, error) {
	ids := m.sortedIDs()
	nv := 0
	for _, id := range ids {
		nv += len(m.assets[id].asset.Variants)
	}
	s := &Snapshot{
		assets:   make([]Asset, len(ids)),
		mintList: make([]string, 0, nv),
		mintAt:   make([]mintEntry, 0, nv),
		stats:    Stats{ByCategory: map[string]int{}, ByKind: map[string]int{}},
	}
	for i, id := range ids {
		s.assets[i] = m.assets[id].asset
		a := &s.assets[i]
		normaliseAsset(a)
		s.stats.Assets++
		s.stats.ByCategory[a.Category]++
		for j := range a.Variants {
			v := &a.Variants[j]
			e := mintEntry{asset: uint32(i), variant: uint32(j)}
			if m.lstMints[v.Mint] {
				e.variant |= lstBit
			}
			s.mintList = append(s.mintList, v.Mint)
			s.mintAt = append(s.mintAt, e)
			s.stats.Variants++
			s.stats.ByKind[v.Kind]++
			if e.lstIndex() {
				s.stats.LSTIndexVariants++
			}
		}
	}
	var first, dup int
	if s.ids, _, dup = strtab.NewIndex(len(s.assets), s.assetKey); dup >= 0 {
		return nil, fmt.Errorf("internal error: asset id %q repeated after merge", s.assets[dup].AssetID)
	}
	if s.mints, first, dup = strtab.NewIndex(len(s.mintList), s.mintKey); dup >= 0 {
		return nil, fmt.Errorf("internal error: mint %q in %q and %q after merge", s.mintList[dup],
			s.assets[s.mintAt[first].asset].AssetID, s.assets[s.mintAt[dup].asset].AssetID)
	}
	if s.variants, _, dup = strtab.NewIndex(len(s.mintList), s.variantKey); dup >= 0 {
		return nil, fmt.Errorf("internal error: variantId %q repeated after merge", s.variantKey(dup))
	}
	s.aliases = buildAliasIndex(s, m.lstMints, m.supplemental, r)
	s.curated = buildCurated(m.lists, s, r)
	return s, nil
}

// normaliseAsset applies the snapshot invariants: tiers set and mirrored
// (default tier3, "experimental" = tier3), tags and aliases never nil.
func normaliseAsset(a *Asset) {
	if a.Aliases == nil {
		a.Aliases = []string{}
	}
	for j := range a.Variants {
		v := &a.Variants[j]
		tier, _ := normaliseTier(v.LiquidityTier)
		if v.LiquidityTier == "" {
			tier, _ = normaliseTier(v.TrustTier)
		}
		v.LiquidityTier, v.TrustTier = tier, tier
		if v.Tags == nil {
			v.Tags = []string{}
		}
		v.Tags = slices.Clip(v.Tags)
	}
	a.Aliases = slices.Clip(a.Aliases)
	a.Variants = slices.Clip(a.Variants)
}
