package curator

import (
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// Protected is the static protected-claim index: collision keys of
// symbols (and names) claimed by registry variants, curated members and
// coingecko-listed index tokens, with the mints that hold them, plus the
// operator's allow-list of legitimate duplicates. Immutable once built.
type Protected struct {
	symbols map[string]*entry
	names   map[string]*entry
	allow   map[string]bool
}

type entry struct {
	mints map[string]struct{}
	by    string // the first protector: registry:<assetId>, curated:<list> or coingecko:<id>
}

func (e *entry) holds(mint string) bool { _, ok := e.mints[mint]; return ok }

func (p *Protected) symbol(key string) *entry {
	if p == nil || key == "" {
		return nil
	}
	return p.symbols[key]
}

// minNameKey is the shortest name collision key that protects (shorter
// names are too generic to claim).
const minNameKey = 4

func (p *Protected) name(key string) *entry {
	if p == nil || len(key) < minNameKey {
		return nil
	}
	return p.names[key]
}

func (p *Protected) allowed(mint string) bool { return p != nil && p.allow[mint] }

// Len is the number of protected symbols.
func (p *Protected) Len() int {
	if p == nil {
		return 0
	}
	return len(p.symbols)
}

// Protects reports whether a symbol is protected and by what.
func (p *Protected) Protects(symbol string) (string, bool) {
	e := p.symbol(tokenindex.CollisionKey(tokenindex.Key(symbol)))
	if e == nil {
		return "", false
	}
	return e.by, true
}

func (p *Protected) add(m map[string]*entry, raw, mint, by string) {
	key := tokenindex.CollisionKey(tokenindex.Key(raw))
	if key == "" {
		return
	}
	e := m[key]
	if e == nil {
		e = &entry{mints: map[string]struct{}{}, by: by}
		m[key] = e
	}
	e.mints[mint] = struct{}{}
}

// derivative kinds do not claim their asset's symbol.
func derivative(kind string) bool {
	switch kind {
	case asset.KindYield, asset.KindLST, asset.KindETF, asset.KindLeveraged, asset.KindBasket, asset.KindTokenizedEquity:
		return true
	}
	return false
}

// ClaimedSymbols are the symbols a registry variant claims: its own
// symbol; the asset symbol when it has none, unless its kind is a
// derivative; and, for the identity kinds native, wrapped and bridged,
// the asset symbol too (wSOL protects SOL).
func ClaimedSymbols(a *registry.Asset, v *registry.Variant) []string {
	var out []string
	if v.Symbol != "" {
		out = append(out, v.Symbol)
	}
	identity := v.Kind == asset.KindNative || v.Kind == asset.KindWrapped || v.Kind == asset.KindBridged
	if a.Symbol != "" && a.Symbol != v.Symbol && (identity || v.Symbol == "" && !derivative(v.Kind)) {
		out = append(out, a.Symbol)
	}
	return out
}

// BuildProtected builds the index from the registry snapshot, the
// coingecko-listed tokens of the token index (x may be nil) and the
// allow-listed mints.
func BuildProtected(snap *registry.Snapshot, x *tokenindex.Index, allow map[string]bool) *Protected {
	p := &Protected{symbols: map[string]*entry{}, names: map[string]*entry{}, allow: allow}
	if snap != nil {
		for i := range snap.Assets() {
			a := &snap.Assets()[i]
			for j := range a.Variants {
				v := &a.Variants[j]
				by := "registry:" + a.AssetID
				for _, s := range ClaimedSymbols(a, v) {
					p.add(p.symbols, s, v.Mint, by)
				}
				if v.Name != "" {
					p.add(p.names, v.Name, v.Mint, by)
				}
				if !derivative(v.Kind) && a.Name != "" {
					p.add(p.names, a.Name, v.Mint, by)
				}
			}
		}
		// Curated members no asset lists claim their index symbol.
		for _, l := range snap.CuratedLists() {
			for _, m := range l.Members {
				if _, _, ok := snap.VariantByMint(m.Mint); ok {
					continue
				}
				if t, ok := x.Get(m.Mint); ok {
					p.add(p.symbols, t.Symbol, m.Mint, "curated:"+l.ID)
				}
			}
		}
	}
	for id := 0; id < x.Len(); id++ {
		cg := x.CoingeckoID(tokenindex.ID(id))
		if cg == "" {
			continue
		}
		mint := x.Mint(tokenindex.ID(id))
		p.add(p.symbols, x.Symbol(tokenindex.ID(id)), mint, "coingecko:"+cg)
		p.add(p.names, x.Name(tokenindex.ID(id)), mint, "coingecko:"+cg)
	}
	return p
}
