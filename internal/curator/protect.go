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
// keys have one holder, so the first is held inline and the rest, when
// there are any, behind a pointer; a large registry has a few entries per
// variant.
type entry struct {
	mint   string   // the first holder
	others *holders // further holders, nil when none
	by     string   // the first protector: registry:<assetId>, curated:<list> or coingecko:<id>
}

// holders are an entry's further holders.
type holders struct {
	more []string // distinct, in claim order
	// set holds every holder when more is long (see manyHolders).
	set map[string]struct{}
}

// manyHolders is the number of further holders past which an entry also
// gets a set.
const manyHolders = 16

func (e *entry) holds(mint string) bool {
	switch {
	case e.mint == mint:
		return true
	case e.others == nil:
		return false
	case e.others.set != nil:
		_, ok := e.others.set[mint]
		return ok
	}
	return slices.Contains(e.others.more, mint)
}

// holderCount is the number of distinct holders.
func (e *entry) holderCount() int {
	if e.others == nil {
		return 1
	}
	return 1 + len(e.others.more)
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

// add records mint as a holder of raw's collision key in m; a new key is
// protected by by() (called only then).
func (p *Protected) add(m map[string]entry, raw, mint string, by func() string) {
	key := tokenindex.CollisionKey(tokenindex.Key(raw))
	if key == "" {
		return
	}
	e, ok := m[key]
	switch {
	case !ok:
		m[key] = entry{mint: mint, by: by()}
		return
	case e.holds(mint):
		return
	case e.others == nil:
		e.others = &holders{}
		m[key] = e
	}
	h := e.others // shared with the map's copy of e
	h.more = append(h.more, mint)
	if h.set != nil {
		h.set[mint] = struct{}{}
	} else if len(h.more) > manyHolders {
		h.set = make(map[string]struct{}, 2*len(h.more))
		h.set[e.mint] = struct{}{}
		for _, o := range h.more {
			h.set[o] = struct{}{}
		}
	}
}

// label returns a func giving prefix+id, joined once on first call.
func label(prefix, id string) func() string {
	var s string
	return func() string {
		if s == "" {
			s = prefix + id
		}
		return s
	}
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
	return appendClaimedSymbols(nil, a, v)
}

// appendClaimedSymbols appends the symbols v claims (ClaimedSymbols) to
// out, at most two.
func appendClaimedSymbols(out []string, a *registry.Asset, v *registry.Variant) []string {
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
			by := label("registry:", a.AssetID) // one string per asset
			for j := range a.Variants {
				v := &a.Variants[j]
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
					p.add(p.symbols, t.Symbol, m.Mint, label("curated:", l.ID))
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
		by := label("coingecko:", cg)
		p.add(p.symbols, x.Symbol(tokenindex.ID(id)), mint, by)
		p.add(p.names, x.Name(tokenindex.ID(id)), mint, by)
	}
	return p
}
