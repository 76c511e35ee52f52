package curator

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/assetd/assetd/internal/registry"
)

// regIndex finds the registry variants a normalised query matches without
// looking at every variant: the candidates of fromRegistry are the first
// maxRegistryCandidates variants by (rank, snapshot order), and each rank
// has a structure that yields its variants in snapshot order, or a small
// range that is, so a search touches what it matches rather than the
// registry. Built once per registry snapshot with its regKeys; integers
// and bytes only (no pointer per key or per posting for the collector).
//
//   - rank 0 (a claimed symbol or the name equal to q) and rank 1 (a
//     claimed symbol starting with q): every key in one array sorted by
//     (key, key number). Key numbers follow snapshot order, so the keys
//     equal to q are a binary-searched run in snapshot order, and the
//     keys starting with q a range whose lowest variants are picked in
//     one pass over their numbers (no key is compared inside the range).
//   - rank 2 (the name containing q, 3 bytes or more): per trigram of
//     the name keys, the variants holding it, ascending, delta-encoded as
//     uvarints. The list of q's rarest trigram is walked in snapshot
//     order and each variant verified, until enough are found.
type regIndex struct {
	first  []uint32 // per variant, its first key (first[nv] = the number of keys)
	vstart []uint32 // per asset, its first variant (vstart[na] = nv)
	sorted []keyEnt // every key, by (key, key number)
	grams  []uint32 // distinct trigrams of the name keys, ascending
	gends  []uint32 // the postings of grams[i] are post[gends[i-1]:gends[i]]
	post   []byte
}

// keyEnt is a key number and its variant; the variant's top bit marks a
// name key.
type keyEnt struct{ key, v uint32 }

const nameBit = 1 << 31

func trigram(s string, i int) uint32 { return uint32(s[i])<<16 | uint32(s[i+1])<<8 | uint32(s[i+2]) }

// buildRegIndex indexes r, the keys of assets.
func buildRegIndex(r *regKeys, assets []registry.Asset) regIndex {
	nv := len(r.nsym)
	x := regIndex{first: make([]uint32, nv+1), vstart: make([]uint32, len(assets)+1), sorted: make([]keyEnt, 0, r.keys.Len())}
	v := 0
	for i := range assets {
		x.vstart[i] = uint32(v)
		v += len(assets[i].Variants)
	}
	x.vstart[len(assets)] = uint32(v)
	npairs := 0
	for k := range r.keys.Len() {
		npairs += max(0, len(r.key(k))-2) // an upper bound: symbol keys count too
	}
	pairs := make([]uint64, 0, npairs) // trigram<<32 | variant
	k := 0
	for v := range nv {
		x.first[v] = uint32(k)
		name := k + int(r.nsym[v])
		for ; k < name; k++ {
			x.sorted = append(x.sorted, keyEnt{uint32(k), uint32(v)})
		}
		x.sorted = append(x.sorted, keyEnt{uint32(k), uint32(v) | nameBit})
		s := r.key(k)
		for i := 0; i+3 <= len(s); i++ {
			pairs = append(pairs, uint64(trigram(s, i))<<32|uint64(v))
		}
		k++
	}
	x.first[nv] = uint32(k)
	slices.SortFunc(x.sorted, func(a, b keyEnt) int {
		return cmp.Or(strings.Compare(r.key(int(a.key)), r.key(int(b.key))), cmp.Compare(a.key, b.key))
	})
	slices.Sort(pairs)
	pairs = slices.Compact(pairs)
	size, prev := 0, uint64(0)
	for _, p := range pairs {
		if p>>32 != prev>>32 {
			prev = p &^ (1<<32 - 1) // a new trigram starts from variant 0
		}
		size += uvarintLen(uint32(p) - uint32(prev))
		prev = p
	}
	x.post = make([]byte, 0, size)
	var buf [binary.MaxVarintLen32]byte
	for i := 0; i < len(pairs); {
		g := uint32(pairs[i] >> 32)
		prev := uint32(0)
		for ; i < len(pairs) && uint32(pairs[i]>>32) == g; i++ {
			v := uint32(pairs[i])
			x.post = append(x.post, buf[:binary.PutUvarint(buf[:], uint64(v-prev))]...)
			prev = v
		}
		x.grams = append(x.grams, g)
		x.gends = append(x.gends, uint32(len(x.post)))
	}
	return x
}

// uvarintLen is the length of v as a uvarint.
func uvarintLen(v uint32) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// rankOf is the rank of variant v for q (regKeys.rank).
func (x *regIndex) rankOf(r *regKeys, v uint32, q string) int {
	rank, _ := r.rank(int(v), int(x.first[v]), q)
	return rank
}

// assetOf returns the asset index of variant v and v's index in it.
func (x *regIndex) assetOf(v uint32) (asset, j int) {
	i, found := slices.BinarySearch(x.vstart, v)
	if !found {
		i--
	}
	for i+1 < len(x.vstart) && x.vstart[i+1] == v { // assets without variants start where the next one does
		i++
	}
	return i, int(v - x.vstart[i])
}

// match returns the variants of the first n by (rank, snapshot order)
// for the normalised query q (not a mint), in that order: the result of
// ranking every variant with regKeys.rank and a stable sort by rank.
func (x *regIndex) match(r *regKeys, q string, n int) []uint32 {
	key := func(e keyEnt) string { return r.key(int(e.key)) }
	lo, _ := slices.BinarySearchFunc(x.sorted, q, func(e keyEnt, q string) int { return strings.Compare(key(e), q) })
	eq := lo
	for eq < len(x.sorted) && key(x.sorted[eq]) == q {
		eq++
	}
	// Rank 0: the run of keys equal to q, in snapshot order (a variant
	// with several keys equal to q has them side by side).
	out := make([]uint32, 0, n)
	for _, e := range x.sorted[lo:eq] {
		v := e.v &^ nameBit
		if len(out) > 0 && out[len(out)-1] == v {
			continue
		}
		if len(out) == n {
			return out
		}
		out = append(out, v)
	}
	// Rank 1: the lowest variants among the symbol keys that start with q
	// (and are longer: equal ones are rank 0), whose rank is 1 (not 0 by
	// another key).
	if len(q) >= 2 {
		hi := eq + leading(x.sorted[eq:], func(e keyEnt) bool { return strings.HasPrefix(key(e), q) })
		low := lowest{n: n - len(out)}
		for _, e := range x.sorted[eq:hi] {
			if e.v&nameBit == 0 && low.wants(e.v) && x.rankOf(r, e.v, q) == 1 {
				low.add(e.v)
			}
		}
		out = append(out, low.vs...)
	}
	if len(out) == n || len(q) < 3 {
		return out
	}
	// Rank 2: walk the postings of q's rarest trigram in snapshot order.
	var list []byte
	for i := 0; i+3 <= len(q); i++ {
		g, ok := slices.BinarySearch(x.grams, trigram(q, i))
		if !ok {
			return out // no name holds this trigram, so none holds q
		}
		start := uint32(0)
		if g > 0 {
			start = x.gends[g-1]
		}
		if p := x.post[start:x.gends[g]]; list == nil || len(p) < len(list) {
			list = p
		}
	}
	v := uint64(0)
	for len(list) > 0 && len(out) < n {
		d, w := binary.Uvarint(list)
		list = list[w:]
		v += d
		if x.rankOf(r, uint32(v), q) == 2 {
			out = append(out, uint32(v))
		}
	}
	return out
}

// leading returns the number of leading elements of s for which in holds
// (in must hold for a prefix of s and for nothing after it).
func leading(s []keyEnt, in func(keyEnt) bool) int {
	i, _ := slices.BinarySearchFunc(s, 0, func(e keyEnt, _ int) int {
		if in(e) {
			return -1
		}
		return 1
	})
	return i
}

// lowest keeps the n lowest distinct variant numbers added, ascending.
type lowest struct {
	n  int
	vs []uint32
}

// wants reports whether v would be kept (its rank is checked only then).
func (l *lowest) wants(v uint32) bool {
	if l.n <= 0 {
		return false
	}
	return len(l.vs) < l.n || v < l.vs[len(l.vs)-1]
}

func (l *lowest) add(v uint32) {
	i, found := slices.BinarySearch(l.vs, v)
	if found {
		return
	}
	l.vs = slices.Insert(l.vs, i, v)
	if len(l.vs) > l.n {
		l.vs = l.vs[:l.n]
	}
}
