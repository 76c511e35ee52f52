package curator

import (
	"slices"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// Protected is the static protected-claim index: collision keys of
// symbols (and names) claimed by registry variants, curated members and
// coingecko-listed index tokens, with the mints that hold them, plus the
// operator's allow-list of legitimate duplicates. Immutable once built.
type Protected struct {
	symbols map[string]entry
	names   map[string]entry
	allow   map[string]bool
}

// entry is a protected key: its holders and its first protector. Most
// keys have one holder, so the first is held inline; a large registry has
// a few entries per variant.
type entry struct {
	mint string   // the first holder
	more []string // further holders, distinct, in claim order
	// set holds every holder when more is long (see manyHolders).
	set map[string]struct{}
	by  string // the first protector: registry:<assetId>, curated:<list> or coingecko:<id>
}

// manyHolders is the number of further holders past which an entry also
// gets a set.
const manyHolders = 16

func (e *entry) holds(mint string) bool {
	if e.mint == mint {
		return true
	}
	if e.set != nil {
		_, ok := e.set[mint]
		return ok
	}
	return slices.Contains(e.more, mint)
}

func (p *Protected) symbol(key string) (entry, bool) {
	if p == nil || key == "" {
		return entry{}, false
	}
	e, ok := p.symbols[key]
	return e, ok
}

// minNameKey is the shortest name collision key that protects (shorter
// names are too generic to claim).
const minNameKey = 4

func (p *Protected) name(key string) (entry, bool) {
	if p == nil || len(key) < minNameKey {
		return entry{}, false
	}
	e, ok := p.names[key]
	return e, ok
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
	e, ok := p.symbol(tokenindex.CollisionKey(tokenindex.Key(symbol)))
	if !ok {
		return "", false
	}
	return e.by, true
}

// add records mint as a holder of raw's collision key in m; a new key
// is protected by by, or by byPrefix+byID (joined only then).
func (p *Protected) add(m map[string]entry, raw, mint, byPrefix, byID string) {
	key := tokenindex.CollisionKey(tokenindex.Key(raw))
	if key == "" {
		return
	}
	e, ok := m[key]
	switch {
	case !ok:
		m[key] = entry{mint: mint, by: byPrefix + byID}
		return
	case e.holds(mint):
		return
	}
	e.more = append(e.more, mint)
	if e.set != nil {
		e.set[mint] = struct{}{}
	} else if len(e.more) > manyHolders {
		e.set = make(map[string]struct{}, 2*len(e.more))
		e.set[e.mint] = struct{}{}
		for _, h := range e.more {
			e.set[h] = struct{}{}
		}
	}
	m[key] = e
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

func newProtected(allow map[string]bool) *Protected {
	return &Protected{symbols: map[string]entry{}, names: map[string]entry{}, allow: allow}
}

// BuildProtected builds the index from the registry snapshot, the
// coingecko-listed tokens of the token index (x may be nil) and the
// allow-listed mints.
func BuildProtected(snap *registry.Snapshot, x *tokenindex.Index, allow map[string]bool) *Protected {
	p := newProtected(allow)
	if snap != nil {
		for i := range snap.Assets() {
			a := &snap.Assets()[i]
			for j := range a.Variants {
				v := &a.Variants[j]
				for _, s := range ClaimedSymbols(a, v) {
					p.add(p.symbols, s, v.Mint, "registry:", a.AssetID)
				}
				if v.Name != "" {
					p.add(p.names, v.Name, v.Mint, "registry:", a.AssetID)
				}
				if !derivative(v.Kind) && a.Name != "" {
					p.add(p.names, a.Name, v.Mint, "registry:", a.AssetID)
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
					p.add(p.symbols, t.Symbol, m.Mint, "curated:", l.ID)
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
		p.add(p.symbols, x.Symbol(tokenindex.ID(id)), mint, "coingecko:", cg)
		p.add(p.names, x.Name(tokenindex.ID(id)), mint, "coingecko:", cg)
	}
	return p
}
