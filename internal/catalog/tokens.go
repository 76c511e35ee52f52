package catalog

import (
	"cmp"
	"slices"
	"strings"

	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
)

// SetTokens sets where the catalog finds tokens the registry does not
// list: v1 search ranks them after canonical assets, and singleton views
// take their symbol and name from it.
func (c *Catalog) SetTokens(f func() *tokenindex.Index) { c.tokens.Store(&f) }

func (c *Catalog) tokenIndex() *tokenindex.Index {
	if f := c.tokens.Load(); f != nil && *f != nil {
		return (*f)()
	}
	return nil
}

// singletonCap bounds the index matches of each match class that v1
// search ranks.
const singletonCap = 200

// searchSingletons returns up to n singleton rows for the query from the
// token index: by match class (exact symbol or name, symbol or name
// prefix, name word prefix, name substring), then tokens with an external
// listing id (a coingecko id) first, then cached liquidity desc, then
// mint. Registry mints are left to the canonical results. listed is how
// many of the first rows are exact matches with a listing id: the
// canonical asset of a symbol the registry does not list, which Search
// ranks with the canonical exact matches.
func (c *Catalog) searchSingletons(m *model, q string, si int, variants bool, n int) (rows []Row, listed int) {
	x := c.tokenIndex()
	key := tokenindex.Key(q)
	if x == nil || n <= 0 || key == "" {
		return nil, 0
	}
	type hit struct {
		id     tokenindex.ID
		class  int
		listed bool
		liq    float64
	}
	seen := map[tokenindex.ID]bool{}
	var hits []hit
	collect := func(class int, scan func(func(tokenindex.ID) bool)) {
		k := 0
		scan(func(id tokenindex.ID) bool {
			if seen[id] {
				return true
			}
			seen[id] = true
			if _, _, ok := m.snap.VariantByMint(x.Mint(id)); ok {
				return true
			}
			h := hit{id: id, class: class, listed: x.CoingeckoID(id) != ""}
			if mk := c.markets.Market(x.Mint(id)); mk != nil && mk.Liquidity != nil {
				h.liq = *mk.Liquidity
			}
			hits = append(hits, h)
			k++
			return k < singletonCap
		})
	}
	collect(matchExact, func(f func(tokenindex.ID) bool) { x.BySymbol(key, false, f) })
	collect(matchExact, func(f func(tokenindex.ID) bool) { x.ByName(key, false, f) })
	if len(hits) < n {
		collect(matchPrefix, func(f func(tokenindex.ID) bool) { x.BySymbol(key, true, f) })
		collect(matchPrefix, func(f func(tokenindex.ID) bool) { x.ByName(key, true, f) })
		collect(matchPrefix, func(f func(tokenindex.ID) bool) { x.ByNameWord(key, f) })
	}
	if len(hits) < n {
		collect(matchSubstring, func(f func(tokenindex.ID) bool) { x.NameContains(key, f) })
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(a.class, b.class), tokenindex.ListedFirst(a.listed, b.listed), cmp.Compare(b.liq, a.liq),
			strings.Compare(x.Mint(a.id), x.Mint(b.id)))
	})
	if len(hits) > n {
		hits = hits[:n]
	}
	out := make([]Row, 0, len(hits))
	for _, h := range hits {
		res, err := m.snap.ResolveMint(x.Mint(h.id))
		if err != nil {
			continue
		}
		if h.class == matchExact && h.listed && listed == len(out) {
			listed++
		}
		out = append(out, c.row(c.view(m, res), si, variants, 0, new(Variant)))
	}
	return out, listed
}

// indexIdentity returns a singleton's symbol and name from the token index.
func (c *Catalog) indexIdentity(a *registry.Asset, mint string) (*registry.Asset, bool) {
	t, ok := c.tokenIndex().Get(mint)
	if !ok || t.Symbol == "" && t.Name == "" {
		return a, false
	}
	cp := *a
	cp.Symbol, cp.Name = t.Symbol, t.Name
	return &cp, true
}
