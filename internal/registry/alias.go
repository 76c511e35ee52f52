package registry

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/assetd/assetd/internal/strtab"
)

// Alias tiers: when several assets claim one alias key, the lowest tier wins,
// then the asset id that sorts first. An asset's own id therefore always
// beats another asset's alias.
const (
	tierAssetID      uint8 = iota // the asset id itself
	tierAsset                     // name, symbol, coin id, stock ticker, pre-IPO symbol, aliases
	tierVariant                   // variant ids, symbols and names
	tierLSTIndex                  // ids, symbols and names of LST index variants
	tierSupplemental              // every key of an asset from a supplemental document
)

// tierName describes a tier in issues.
func tierName(t uint8) string {
	switch t {
	case tierAssetID:
		return "asset id"
	case tierAsset:
		return "asset alias"
	case tierVariant:
		return "variant"
	case tierLSTIndex:
		return "LST index"
	}
	return "supplemental"
}

// aliasEntry is what an alias key resolves to: the index of the asset in
// the Snapshot's assets, shifted left by one, with the low bit set when
// the key came from an LST index variant (such references resolve with
// resolvedBy "lst_index"). Four bytes rather than a pointer and a flag:
// a large registry has several keys per asset.
type aliasEntry uint32

// aliasIndex maps alias keys to their entries: a large registry has
// several hundred thousand keys, held without a pointer each (strtab).
type aliasIndex = strtab.Table[aliasEntry]

func (e aliasEntry) asset() int     { return int(e >> 1) }
func (e aliasEntry) lstIndex() bool { return e&1 != 0 }

// aliasKey normalises a reference for the alias index: lower case. Keys are
// compared exactly otherwise (inner spaces and punctuation matter).
func aliasKey(s string) string { return strings.ToLower(s) }

// assetKeys yields every alias key of an asset at every tier, LST index
// variants included (used to decide whether an id is already taken).
func assetKeys(a *Asset) iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range claims(a, nil, false) {
			if !yield(k.key) {
				return
			}
		}
	}
}

type claim struct {
	key  string
	tier uint8
}

// claims yields the alias keys an asset claims with their tier. Variants
// whose mint is in lstMints claim at tierLSTIndex; every key of a
// supplemental asset claims at tierSupplemental, so gap-filling data never
// shadows a reference the authoritative registry answers.
func claims(a *Asset, lstMints map[string]bool, supplemental bool) iter.Seq[claim] {
	return func(yield func(claim) bool) {
		emit := func(s string, t uint8) bool {
			if s == "" {
				return true
			}
			if supplemental {
				t = tierSupplemental
			}
			return yield(claim{aliasKey(s), t})
		}
		if !emit(a.AssetID, tierAssetID) {
			return
		}
		assetLevel := []string{a.Name, a.Symbol, a.CoinID, a.StockTicker}
		if a.PreIPO != nil {
			assetLevel = append(assetLevel, a.PreIPO.Symbol)
		}
		for _, s := range slices.Concat(assetLevel, a.Aliases) {
			if !emit(s, tierAsset) {
				return
			}
		}
		for i := range a.Variants {
			v := &a.Variants[i]
			t := tierVariant
			if lstMints[v.Mint] {
				t = tierLSTIndex
			}
			for _, s := range [...]string{v.VariantID, v.Symbol, v.Name} {
				if !emit(s, t) {
					return
				}
			}
		}
	}
}

// buildAliasIndex indexes the alias keys of the snapshot's assets and
// reports every key that more than one asset claims. supplemental holds the
// ids of assets from supplemental documents.
//
// A key that is an asset id or a variant id, and resolves to what the
// snapshot's id or variant-id index finds for it (see derivedAlias), is
// left out of the table: lookupAlias answers it from those indexes. At
// 150,000 assets that is every asset id and most variant ids, half the
// keys.
func buildAliasIndex(s *Snapshot, lstMints, supplemental map[string]bool, r *Report) aliasIndex {
	return aliasKeys(s.assets, lstMints, supplemental, r).BuildKeeping(func(k string, e aliasEntry) bool {
		d, ok := derivedAlias(s, k)
		return !ok || d != e
	})
}

// aliasKeys gathers every alias key of assets (sorted by id) with the
// entry it resolves to, and reports every key more than one asset claims.
func aliasKeys(assets []Asset, lstMints, supplemental map[string]bool, r *Report) *strtab.Builder[aliasEntry] {
	// While building, an entry holds the winning asset and its tier
	// (asset<<3 | tier); candidates lists, in claim order, every asset
	// claiming a key more than one asset claims.
	n := 0
	for i := range assets {
		n += 2 + 2*len(assets[i].Variants) + len(assets[i].Aliases)
	}
	index := strtab.NewBuilder[aliasEntry](n)
	candidates := map[string][]int{}
	for i := range assets {
		for c := range claims(&assets[i], lstMints, supplemental[assets[i].AssetID]) {
			e, added := index.Add(c.key)
			if added {
				*e = aliasEntry(i<<3) | aliasEntry(c.tier)
				continue
			}
			cur, tier := int(*e>>3), uint8(*e&7)
			cs, multi := candidates[c.key]
			switch {
			case !multi && cur != i:
				// The winner so far is the only claimant.
				candidates[c.key] = []int{cur, i}
			case multi && !slices.Contains(cs, i):
				candidates[c.key] = append(cs, i)
			}
			// Assets arrive in id order, so on equal tiers the earlier
			// (smaller id) asset stays.
			if c.tier < tier {
				*e = aliasEntry(i<<3) | aliasEntry(c.tier)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(candidates)) {
		p, _ := index.Add(k) // present
		e := *p
		win, tier := int(e>>3), uint8(e&7)
		ids := make([]string, len(candidates[k]))
		for i, c := range candidates[k] {
			ids[i] = assets[c].AssetID
		}
		r.add(Issue{
			Kind: IssueAliasCollision, Key: k, AssetID: assets[win].AssetID, Candidates: ids,
			Detail: fmt.Sprintf("resolves to %s (%s)", assets[win].AssetID, tierName(tier)),
		})
	}
	values := index.Values()
	for k, e := range values {
		lst := aliasEntry(0)
		if uint8(e&7) == tierLSTIndex {
			lst = 1
		}
		values[k] = e>>3<<1 | lst
	}
	return index
}

// derivedAlias is the entry the snapshot's indexes give an alias key: the
// asset with that id, else the asset of the variant with that variant id
// (flagged when an LST index attached it).
func derivedAlias[K string | []byte](s *Snapshot, k K) (aliasEntry, bool) {
	if i, ok := strtab.Lookup(&s.ids, k, s.assetKey); ok {
		return aliasEntry(i << 1), true
	}
	if n, ok := strtab.Lookup(&s.variants, k, s.variantKey); ok {
		e := s.mintAt[n]
		lst := aliasEntry(0)
		if e.lstIndex() {
			lst = 1
		}
		return aliasEntry(e.asset<<1) | lst, true
	}
	return 0, false
}

// lookupAlias finds ref among the alias keys case-insensitively: in the
// alias table, else among the keys it leaves to the snapshot's indexes.
// ASCII references up to 128 bytes are lower-cased on the stack, so the
// lookup does not allocate.
func (s *Snapshot) lookupAlias(ref string) (aliasEntry, bool) {
	var buf [128]byte
	if len(ref) > len(buf) {
		return lookupKey(s, aliasKey(ref))
	}
	b := buf[:len(ref)]
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		if c >= 0x80 {
			return lookupKey(s, aliasKey(ref))
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return lookupKey(s, b)
}

// lookupKey finds an alias key (lower case).
func lookupKey[K string | []byte](s *Snapshot, k K) (aliasEntry, bool) {
	if e, ok := strtab.Get(&s.aliases, k); ok {
		return *e, true
	}
	return derivedAlias(s, k)
}
