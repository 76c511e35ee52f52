package curator

import (
	"slices"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/strtab"
	"github.com/assetd/assetd/internal/tokenindex"
)

// Protected is the static protected-claim index: collision keys of
// symbols (and names) claimed by registry variants, curated members and
// coingecko-listed index tokens, with the mints that hold them, plus the
// operator's allow-list of legitimate duplicates. Immutable once built.
//
// A key the registry or a curated member claims is held by those mints
// only; coingecko-listed tokens hold only keys nobody else claims, and
// when several do, the search decides which of them is dominant
// (claimVerdicts).
//
// A large registry protects a few keys per variant, so an entry names its
// first holder and protector by a source (indexes into the registry
// snapshot or the token index the index was built from) rather than by
// strings, and the protector's text is joined only when reported.
type Protected struct {
	symbols claims
	names   claims
	others  []holders // further holders of entries (entry.others)
	allow   map[string]bool

	// What sources index: the snapshot's assets and curated lists and
	// the token index.
	assets []registry.Asset
	lists  []registry.CuratedList
	x      *tokenindex.Index
}

// sourceKind is what protects a key.
type sourceKind uint8

const (
	srcRegistry  sourceKind = iota + 1 // a registry variant: registry:<assetId>
	srcCurated                         // a curated member no asset lists: curated:<list>
	srcCoingecko                       // a coingecko-listed index token: coingecko:<id>
)

// source is a claim: who protects a key and the mint that holds it.
type source struct {
	kind sourceKind
	i    uint32 // srcRegistry: asset index; srcCurated: list index; srcCoingecko: token id
	j    uint32 // srcRegistry: variant index in the asset; srcCurated: member index in the list
}

// protector is the protector of s: registry:<assetId>, curated:<list> or
// coingecko:<id>.
func (p *Protected) protector(s source) string {
	switch s.kind {
	case srcRegistry:
		return "registry:" + p.assets[s.i].AssetID
	case srcCurated:
		return "curated:" + p.lists[s.i].ID
	case srcCoingecko:
		return "coingecko:" + p.x.CoingeckoID(s.i)
	}
	panic("curator: protector of an unknown source kind")
}

// mint is the mint of the holder of s.
func (p *Protected) mint(s source) string {
	switch s.kind {
	case srcRegistry:
		return p.assets[s.i].Variants[s.j].Mint
	case srcCurated:
		return p.lists[s.i].Members[s.j].Mint
	case srcCoingecko:
		return p.x.Mint(s.i)
	}
	panic("curator: mint of an unknown source kind")
}

// entry is a protected key: its first claim (first holder and protector)
// and, when more mints hold it, the rest. Most keys have one holder.
type entry struct {
	first  source
	others uint32 // 1 + index in Protected.others; 0 when none
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

func (p *Protected) holds(e *entry, mint string) bool {
	if p.mint(e.first) == mint {
		return true
	}
	if e.others == 0 {
		return false
	}
	h := &p.others[e.others-1]
	if h.set != nil {
		_, ok := h.set[mint]
		return ok
	}
	return slices.Contains(h.more, mint)
}

// holderCount is the number of distinct holders of e.
func (p *Protected) holderCount(e *entry) int {
	if e.others == 0 {
		return 1
	}
	return 1 + len(p.others[e.others-1].more)
}

// claims are a key set's entries by collision key, in a pointer-free
// table (internal/strtab): a map[string]entry costs about four times as
// much for 300,000 keys.
type claims = strtab.Table[entry]

// claimsBuilder gathers a key set's entries; build freezes them.
type claimsBuilder struct {
	minKey int // shorter keys are never looked up, so not kept
	b      *strtab.Builder[entry]
}

func newClaimsBuilder(minKey int) *claimsBuilder {
	return &claimsBuilder{minKey: minKey, b: strtab.NewBuilder[entry](0)}
}

func (b *claimsBuilder) build() claims { return b.b.Build() }

func (p *Protected) symbol(key string) (*entry, bool) {
	if p == nil || key == "" {
		return nil, false
	}
	return p.symbols.Get(key)
}

// minNameKey is the shortest name collision key that protects (shorter
// names are too generic to claim).
const minNameKey = 4

func (p *Protected) name(key string) (*entry, bool) {
	if p == nil || len(key) < minNameKey {
		return nil, false
	}
	return p.names.Get(key)
}

func (p *Protected) allowed(mint string) bool { return p != nil && p.allow[mint] }

// Len is the number of protected symbols.
func (p *Protected) Len() int {
	if p == nil {
		return 0
	}
	return p.symbols.Len()
}

// Protects reports whether a symbol is protected and by what.
func (p *Protected) Protects(symbol string) (string, bool) {
	e, ok := p.symbol(tokenindex.CollisionKey(tokenindex.Key(symbol)))
	if !ok {
		return "", false
	}
	return p.protector(e.first), true
}

// add records the holder of src as a holder of raw's collision key in b;
// src is the protector of a new key.
func (p *Protected) add(b *claimsBuilder, raw string, src source) {
	key := tokenindex.CollisionKey(tokenindex.Key(raw))
	if key == "" || len(key) < b.minKey {
		return
	}
	e, added := b.b.Add(key)
	if added {
		e.first = src
		return
	}
	if src.kind == srcCoingecko && e.first.kind != srcCoingecko {
		// A registry variant or curated member holds the key (they are
		// added first): a listed token sharing it is a claimant.
		return
	}
	mint := p.mint(src)
	if p.holds(e, mint) {
		return
	}
	if e.others == 0 {
		p.others = append(p.others, holders{})
		e.others = uint32(len(p.others))
	}
	h := &p.others[e.others-1]
	h.more = append(h.more, mint)
	if h.set != nil {
		h.set[mint] = struct{}{}
	} else if len(h.more) > manyHolders {
		h.set = make(map[string]struct{}, 2*len(h.more))
		h.set[p.mint(e.first)] = struct{}{}
		for _, o := range h.more {
			h.set[o] = struct{}{}
		}
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

// BuildProtected builds the index from the registry snapshot, the
// coingecko-listed tokens of the token index (x may be nil) and the
// allow-listed mints. It refers to snap and x, which must not change.
func BuildProtected(snap *registry.Snapshot, x *tokenindex.Index, allow map[string]bool) *Protected {
	p := &Protected{allow: allow, x: x}
	syms, names := newClaimsBuilder(1), newClaimsBuilder(minNameKey)
	if snap != nil {
		p.assets, p.lists = snap.Assets(), snap.CuratedLists()
		var claimed []string
		for i := range p.assets {
			a := &p.assets[i]
			for j := range a.Variants {
				v := &a.Variants[j]
				src := source{kind: srcRegistry, i: uint32(i), j: uint32(j)}
				claimed = appendClaimedSymbols(claimed[:0], a, v)
				for _, s := range claimed {
					p.add(syms, s, src)
				}
				if v.Name != "" {
					p.add(names, v.Name, src)
				}
				if !derivative(v.Kind) && a.Name != "" {
					p.add(names, a.Name, src)
				}
			}
		}
		// Curated members no asset lists claim their index symbol.
		for i := range p.lists {
			for j, m := range p.lists[i].Members {
				if _, _, ok := snap.VariantByMint(m.Mint); ok {
					continue
				}
				if id, ok := x.Lookup(m.Mint); ok {
					p.add(syms, x.Symbol(id), source{kind: srcCurated, i: uint32(i), j: uint32(j)})
				}
			}
		}
	}
	for id := 0; id < x.Len(); id++ {
		if x.CoingeckoID(tokenindex.ID(id)) == "" {
			continue
		}
		src := source{kind: srcCoingecko, i: uint32(id)}
		p.add(syms, x.Symbol(tokenindex.ID(id)), src)
		p.add(names, x.Name(tokenindex.ID(id)), src)
	}
	p.symbols, p.names = syms.build(), names.build()
	return p
}
