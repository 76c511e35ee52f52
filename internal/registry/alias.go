package registry

import (
	"fmt"
	"iter"
	"slices"
	"strings"
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

// aliasEntry is what an alias key resolves to.
type aliasEntry struct {
	asset *Asset
	// lstIndex is set when the key came from an LST index variant; such
	// references resolve with resolvedBy "lst_index".
	lstIndex bool
}

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
func buildAliasIndex(assets []Asset, lstMints, supplemental map[string]bool, r *Report) map[string]aliasEntry {
	type best struct {
		asset      int // index into assets
		tier       uint8
		candidates []int
	}
	keys := map[string]*best{}
	for i := range assets {
		for c := range claims(&assets[i], lstMints, supplemental[assets[i].AssetID]) {
			b, ok := keys[c.key]
			if !ok {
				keys[c.key] = &best{asset: i, tier: c.tier, candidates: []int{i}}
				continue
			}
			if !slices.Contains(b.candidates, i) {
				b.candidates = append(b.candidates, i)
			}
			// Assets arrive in id order, so on equal tiers the earlier
			// (smaller id) asset stays.
			if c.tier < b.tier {
				b.asset, b.tier = i, c.tier
			}
		}
	}
	index := make(map[string]aliasEntry, len(keys))
	for k, b := range keys {
		index[k] = aliasEntry{asset: &assets[b.asset], lstIndex: b.tier == tierLSTIndex}
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k, b := range keys {
			if len(b.candidates) > 1 && !yield(k) {
				return
			}
		}
	}) {
		b := keys[k]
		ids := make([]string, len(b.candidates))
		for i, c := range b.candidates {
			ids[i] = assets[c].AssetID
		}
		r.add(Issue{
			Kind: IssueAliasCollision, Key: k, AssetID: assets[b.asset].AssetID, Candidates: ids,
			Detail: fmt.Sprintf("resolves to %s (%s)", assets[b.asset].AssetID, tierName(b.tier)),
		})
	}
	return index
}

// lookupAlias finds ref in the alias index case-insensitively. ASCII
// references up to 128 bytes are lower-cased on the stack, so the lookup
// does not allocate.
func lookupAlias(index map[string]aliasEntry, ref string) (aliasEntry, bool) {
	var buf [128]byte
	if len(ref) > len(buf) {
		e, ok := index[aliasKey(ref)]
		return e, ok
	}
	b := buf[:len(ref)]
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		if c >= 0x80 {
			e, ok := index[aliasKey(ref)]
			return e, ok
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	e, ok := index[string(b)]
	return e, ok
}
