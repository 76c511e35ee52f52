package catalog

import (
	"cmp"
	"slices"
	"strings"

	"github.com/assetd/assetd/internal/strtab"
)

// searchIndex finds the assets whose search keys contain a query without
// scanning every asset. Built with the registry structure (search keys do
// not depend on market data) and shared by the models of one snapshot.
type searchIndex struct {
	blobs strtab.List // the indexes' blobs: keys are pieces of them
	// keys holds every (search key, asset) pair sorted by key: exact and
	// prefix matches are a binary-searched range.
	keys []keyRef
	// gramAt maps each 2- and 3-byte substring of the keys to its number
	// g; the assets (ascending, distinct) whose keys contain it are
	// postings[spans[g].start:spans[g].end], or, for a gram in more than
	// maxPosting assets, not kept (a negative span). One array of every
	// posting list rather than a slice per gram: no growth slack, no slice
	// headers for the collector to scan.
	gramAt   map[uint32]int32
	spans    []span
	postings []int32
	// masks are per asset the characters its keys use (see charMask), a
	// cheap pre-test when search has to walk assets in liquidity order.
	masks []uint64
}

type span struct{ start, end int32 }

// keyRef is a search key of an asset: where it starts in the asset's
// blob. Eight bytes rather than a string header and an index: a large
// registry has several keys per asset.
type keyRef struct {
	asset int32
	off   uint32
}

// key returns r's key.
func (x *searchIndex) key(r keyRef) string {
	b := x.blobs.At(int(r.asset))[r.off:]
	return b[:strings.IndexByte(b, 0)]
}

func gram2(a, b byte) uint32    { return 2<<24 | uint32(a)<<8 | uint32(b) }
func gram3(a, b, c byte) uint32 { return 3<<24 | uint32(a)<<16 | uint32(b)<<8 | uint32(c) }

// charMask has a bit per letter and digit s uses, and bit 63 for any
// other byte.
func charMask(s string) uint64 {
	var m uint64
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			m |= 1 << (c - 'a')
		case c >= '0' && c <= '9':
			m |= 1 << (26 + c - '0')
		default:
			m |= 1 << 63
		}
	}
	return m
}

// assetGrams returns the distinct grams of an asset's keys, sorted, in
// buf's storage.
func assetGrams(blob string, buf []uint32) []uint32 {
	buf = buf[:0]
	eachKey(blob, func(k string) bool {
		for j := 0; j+1 < len(k); j++ {
			buf = append(buf, gram2(k[j], k[j+1]))
			if j+2 < len(k) {
				buf = append(buf, gram3(k[j], k[j+1], k[j+2]))
			}
		}
		return true
	})
	slices.Sort(buf)
	return slices.Compact(buf)
}

// maxPosting is the longest posting list kept. A longer one could never
// be the list candidates starts from (it gives up past smallSet), only a
// filter of a shorter one, and candidates may return a superset: leaving
// it out costs a few more matchClass checks and saves most of the index
// (gram lists of 150,000 synthetic assets: 7.5 M postings kept in full).
const maxPosting = smallSet

func buildSearchIndex(m *model) *searchIndex {
	x := &searchIndex{blobs: m.indexes.blobs, gramAt: map[uint32]int32{}, masks: make([]uint64, len(m.assets))}
	n := 0
	for i := range x.blobs.Len() {
		blob := x.blobs.At(i)
		n += strings.Count(blob, "\x00")
	}
	x.keys = make([]keyRef, 0, n)
	// Two passes over the grams: count each gram's assets, then place
	// them, so every posting list kept is allocated once at its exact
	// size.
	var gs []uint32
	var counts []int32
	for i := range x.blobs.Len() {
		blob := x.blobs.At(i)
		for off := 0; off < len(blob); {
			k := blob[off:]
			k = k[:strings.IndexByte(k, 0)]
			x.keys = append(x.keys, keyRef{int32(i), uint32(off)})
			x.masks[i] |= charMask(k)
			off += len(k) + 1
		}
		gs = assetGrams(blob, gs)
		for _, g := range gs {
			at, ok := x.gramAt[g]
			if !ok {
				at = int32(len(counts))
				x.gramAt[g] = at
				counts = append(counts, 0)
			}
			counts[at]++
		}
	}
	x.spans = make([]span, len(counts))
	var kept int32
	for g, c := range counts {
		if c > maxPosting {
			x.spans[g] = span{-1, -1} // common: not kept
			continue
		}
		x.spans[g] = span{kept, kept} // end grows to start+c below
		kept += c
	}
	x.postings = make([]int32, kept)
	for i := range x.blobs.Len() {
		blob := x.blobs.At(i)
		gs = assetGrams(blob, gs)
		for _, g := range gs {
			if sp := &x.spans[x.gramAt[g]]; sp.start >= 0 {
				x.postings[sp.end] = int32(i)
				sp.end++
			}
		}
	}
	slices.SortFunc(x.keys, func(a, b keyRef) int {
		return cmp.Or(strings.Compare(x.key(a), x.key(b)), cmp.Compare(a.asset, b.asset))
	})
	return x
}

// prefixRange is the range of keys starting with q.
func (x *searchIndex) prefixRange(q string) (lo, hi int) {
	lo, _ = slices.BinarySearchFunc(x.keys, q, func(r keyRef, q string) int { return strings.Compare(x.key(r), q) })
	hi = lo + sortSearch(len(x.keys)-lo, func(i int) bool { return !strings.HasPrefix(x.key(x.keys[lo+i]), q) })
	return lo, hi
}

// sortSearch is sort.Search (the first i in [0, n) where f is true).
func sortSearch(n int, f func(int) bool) int {
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if !f(h) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// posting is the assets whose keys contain gram g (ascending; nil when
// none do), or common true when more than maxPosting do and the list is
// not kept.
func (x *searchIndex) posting(g uint32) (list []int32, common bool) {
	at, ok := x.gramAt[g]
	if !ok {
		return nil, false
	}
	sp := x.spans[at]
	if sp.start < 0 {
		return nil, true
	}
	return x.postings[sp.start:sp.end:sp.end], false
}

// candidates returns the assets whose keys may contain q (a superset,
// ascending), or ok false when the index cannot narrow them to at most
// limit (q shorter than 2 bytes, or every gram of q too common).
func (x *searchIndex) candidates(q string, limit int) (out []int32, ok bool) {
	if len(q) < 2 {
		return nil, false
	}
	var lists [][]int32
	add := func(g uint32) {
		if l, common := x.posting(g); !common {
			lists = append(lists, l)
		}
	}
	if len(q) == 2 {
		add(gram2(q[0], q[1]))
	} else {
		for j := 0; j+2 < len(q); j++ {
			add(gram3(q[j], q[j+1], q[j+2]))
		}
	}
	if len(lists) == 0 {
		return nil, false // every gram of q is common
	}
	slices.SortFunc(lists, func(a, b []int32) int { return cmp.Compare(len(a), len(b)) })
	if len(lists[0]) > limit {
		return nil, false
	}
	out = make([]int32, 0, len(lists[0]))
next:
	for _, a := range lists[0] {
		for _, l := range lists[1:] {
			if _, found := slices.BinarySearch(l, a); !found {
				continue next
			}
		}
		out = append(out, a)
	}
	return out, true
}

// matchClass is the best match class of q (lower case) among an asset's
// search keys (its blob): exact, prefix, substring or none.
func matchClass(blob, lq string) int {
	if !strings.Contains(blob, lq) {
		return matchNone
	}
	best := matchNone
	for rest := blob; rest != ""; {
		i := strings.IndexByte(rest, 0)
		switch k := rest[:i]; {
		case k == lq:
			return matchExact
		case best > matchPrefix && strings.HasPrefix(k, lq):
			best = matchPrefix
		case best > matchSubstring && strings.Contains(k, lq):
			best = matchSubstring
		}
		rest = rest[i+1:]
	}
	return best
}

// searchHit is an asset matching a query and how.
type searchHit struct {
	asset int32
	class int
}

// smallSet bounds the candidates search ranks by sorting; past it, search
// walks the assets in liquidity order and stops once the top rows are
// known.
const smallSet = 4096

// search returns the top limit assets for lq (lower case, not empty) by
// match class, then canonical liquidity desc, then asset id: the ranking
// of the former full scan, computed from the index.
func (m *model) searchAssets(lq, category string, limit int) []searchHit {
	keep := func(ai int32) bool { return category == "" || m.assets[ai].a.Category == category }
	x := m.indexes.search.Load()
	if x == nil { // not built yet: scan
		var hits []searchHit
		for i := range m.indexes.blobs.Len() {
			blob := m.indexes.blobs.At(i)
			if keep(int32(i)) {
				if c := matchClass(blob, lq); c != matchNone {
					hits = append(hits, searchHit{int32(i), c})
				}
			}
		}
		return m.rankHits(hits, limit)
	}
	lo, hi := x.prefixRange(lq)
	// Exact and prefix matches: the key range.
	var hits []searchHit
	seen := map[int32]bool{}
	prefixKnown := hi-lo <= smallSet
	if prefixKnown {
		for _, r := range x.keys[lo:hi] {
			if !seen[r.asset] && keep(r.asset) {
				seen[r.asset] = true
				hits = append(hits, searchHit{r.asset, matchClass(x.blobs.At(int(r.asset)), lq)})
			}
		}
		if len(hits) < limit {
			// Substring matches are needed: from the gram index when it
			// narrows them enough.
			if cands, ok := x.candidates(lq, smallSet); ok {
				for _, ai := range cands {
					if !seen[ai] && keep(ai) {
						if c := matchClass(x.blobs.At(int(ai)), lq); c != matchNone {
							seen[ai] = true
							hits = append(hits, searchHit{ai, c})
						}
					}
				}
				return m.rankHits(hits, limit)
			}
		} else {
			return m.rankHits(hits, limit)
		}
	} else {
		// Too many prefix matches to sort: the exact ones from the key
		// range, the rest by walking.
		for i := lo; i < hi && x.key(x.keys[i]) == lq; i++ {
			if r := x.keys[i]; !seen[r.asset] && keep(r.asset) {
				seen[r.asset] = true
				hits = append(hits, searchHit{r.asset, matchExact})
			}
		}
	}
	return m.walkHits(lq, hits, seen, keep, prefixKnown, limit)
}

// rankHits sorts hits by class, liquidity desc, asset id and keeps limit.
func (m *model) rankHits(hits []searchHit, limit int) []searchHit {
	slices.SortFunc(hits, func(a, b searchHit) int {
		if c := cmp.Compare(a.class, b.class); c != 0 {
			return c
		}
		if c := cmp.Compare(m.assets[b.asset].liquidity(), m.assets[a.asset].liquidity()); c != 0 {
			return c
		}
		return cmp.Compare(m.assets[a.asset].a.AssetID, m.assets[b.asset].a.AssetID)
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// walkHits completes hits (every exact match, and every prefix match when
// prefixKnown; seen marks them) by walking the assets in liquidity order,
// which is the order inside a match class, so the walk stops as soon as no
// later asset can enter the top limit.
func (m *model) walkHits(lq string, hits []searchHit, seen map[int32]bool, keep func(int32) bool, prefixKnown bool, limit int) []searchHit {
	known := m.rankHits(hits, len(hits)) // exact (and prefix when known), ranked
	var prefix, sub []searchHit
	qm := charMask(lq)
	masks := m.indexes.search.Load().masks
	for _, ai := range m.byLiq {
		if len(known)+len(prefix) >= limit || prefixKnown && len(known)+len(sub) >= limit {
			break
		}
		if masks[ai]&qm != qm || seen[ai] || !keep(ai) {
			continue
		}
		switch matchClass(m.indexes.blobs.At(int(ai)), lq) {
		case matchPrefix:
			prefix = append(prefix, searchHit{ai, matchPrefix})
		case matchSubstring:
			if len(sub) < limit {
				sub = append(sub, searchHit{ai, matchSubstring})
			}
		}
	}
	// known is exact then (when prefixKnown) prefix hits in rank order;
	// walked prefix hits are prefix hits the range did not list.
	out := append(known, prefix...)
	out = append(out, sub...)
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// liquidityOrder is every asset index by canonical liquidity desc, then
// asset id. With prev (the order of the model m replaces) and the assets
// whose liquidity may have moved, it re-places only those.
func liquidityOrder(m *model, prev []int32, moved []int32) []int32 {
	less := func(a, b int32) int {
		if c := cmp.Compare(m.assets[b].liquidity(), m.assets[a].liquidity()); c != 0 {
			return c
		}
		return cmp.Compare(m.assets[a].a.AssetID, m.assets[b].a.AssetID)
	}
	if prev == nil {
		out := make([]int32, len(m.assets))
		for i := range out {
			out[i] = int32(i)
		}
		slices.SortFunc(out, less)
		return out
	}
	mv := make(map[int32]bool, len(moved))
	for _, a := range moved {
		mv[a] = true
	}
	rest := make([]int32, 0, len(prev))
	for _, a := range prev {
		if !mv[a] {
			rest = append(rest, a)
		}
	}
	moved = slices.Clone(moved)
	slices.SortFunc(moved, less)
	out := make([]int32, 0, len(prev))
	i, j := 0, 0
	for i < len(rest) || j < len(moved) {
		if j == len(moved) || i < len(rest) && less(rest[i], moved[j]) <= 0 {
			out = append(out, rest[i])
			i++
		} else {
			out = append(out, moved[j])
			j++
		}
	}
	return out
}
