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

// buildAliasIndex indexes the alias keys of assets (sorted by id) and
// reports every key that more than one asset claims. supplemental holds the
// ids of assets from supplemental documents.
func buildAliasIndex(assets []Asset, lstMints, supplemental map[string]bool, r *Report) aliasIndex {
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
	return index.Build()
}

// lookupAlias finds ref in the alias index case-insensitively. ASCII
// references up to 128 bytes are lower-cased on the stack, so the lookup
// does not allocate.
func lookupAlias(index *aliasIndex, ref string) (aliasEntry, bool) {
	var buf [128]byte
	if len(ref) > len(buf) {
		return aliasValue(index.Get(aliasKey(ref)))
	}
	b := buf[:len(ref)]
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		if c >= 0x80 {
			return aliasValue(index.Get(aliasKey(ref)))
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return aliasValue(index.GetBytes(b))
}

func aliasValue(e *aliasEntry, ok bool) (aliasEntry, bool) {
	if !ok {
		return 0, false
	}
	return *e, true
}
