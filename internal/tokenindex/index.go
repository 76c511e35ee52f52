// Package tokenindex is the token index: unverified token metadata
// (mint, symbol, name, decimals, logo URI, coingecko id) imported from
// token-list files, stored by the storage engines and held in memory in a
// structure built for search.
//
// The in-memory Index keeps every string in one arena and every token in
// a 24-byte record, sorted by mint. Search structures are arrays of token
// ids: by normalised symbol (exact and prefix lookups by binary search),
// by normalised name (exact and prefix), by name word (word prefix) and a
// trigram posting list over normalised names (substring). Symbols and
// logo URIs are interned; a logo URI that contains its token's mint is
// stored as a template with the mint cut out, so the 709k-token
// sonarwatch list stores its one URL pattern once. An Index is immutable
// and safe for concurrent use.
package tokenindex

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/assetd/assetd/internal/metadata"
)

// Token is one token's metadata.
type Token struct {
	Mint        string
	Symbol      string
	Name        string
	Decimals    *int
	LogoURI     string
	CoingeckoID string
}

// Clean returns t with its metadata validated (see internal/metadata)
// and a coingecko id limited to [a-z0-9-] of at most 100 bytes.
func (t Token) Clean() Token {
	m := metadata.Clean(metadata.Token{Symbol: t.Symbol, Name: t.Name, LogoURI: t.LogoURI, Decimals: t.Decimals})
	t.Symbol, t.Name, t.LogoURI, t.Decimals = m.Symbol, m.Name, m.LogoURI, m.Decimals
	if len(t.CoingeckoID) > 100 || strings.IndexFunc(t.CoingeckoID, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_')
	}) >= 0 {
		t.CoingeckoID = ""
	}
	return t
}

// ID is a token's position in an Index (stable for that Index only).
type ID = uint32

// rec is one token. Its mint, name, name key, coingecko id, symbol and
// symbol key are contiguous at off; its logo URI at logo (a template with
// a 0 byte where the mint goes, interned, when the URI contains the mint).
type rec struct {
	off     uint32
	logo    uint32
	logoLen uint16
	mintLen uint8
	nameLen uint8
	nameKey uint8 // length of the name key
	cgLen   uint8
	symLen  uint8
	symKey  uint8 // length of the symbol key
	dec     int8  // -1: unknown
}

// word is one word of a name key: token id, start and length in the key.
type word struct {
	id    ID
	start uint8
	n     uint8
}

// Index is an immutable, searchable token index.
type Index struct {
	arena string
	recs  []rec  // sorted by mint
	bySym []ID   // by symbol key, then mint
	byNam []ID   // by name key, then mint
	words []word // by word, then mint
	// trigrams of name keys: triKeys sorted, postings of triKeys[i] are
	// posts[triOff[i]:triOff[i+1]] (ascending ids).
	triKeys []uint32
	triOff  []uint32
	posts   []ID
	withCG  int
}

// Len is the number of tokens.
func (x *Index) Len() int {
	if x == nil {
		return 0
	}
	return len(x.recs)
}

func (x *Index) str(off uint32, n int) string { return x.arena[off : off+uint32(n)] }

// Mint returns the mint of id.
func (x *Index) Mint(id ID) string { r := &x.recs[id]; return x.str(r.off, int(r.mintLen)) }

func (r *rec) symOff() uint32 {
	return r.off + uint32(r.mintLen) + uint32(r.nameLen) + uint32(r.nameKey) + uint32(r.cgLen)
}

// Symbol returns the symbol of id.
func (x *Index) Symbol(id ID) string { r := &x.recs[id]; return x.str(r.symOff(), int(r.symLen)) }

// SymbolKey returns the normalised symbol of id.
func (x *Index) SymbolKey(id ID) string {
	r := &x.recs[id]
	return x.str(r.symOff()+uint32(r.symLen), int(r.symKey))
}

// Name returns the name of id.
func (x *Index) Name(id ID) string {
	r := &x.recs[id]
	return x.str(r.off+uint32(r.mintLen), int(r.nameLen))
}

// NameKey returns the normalised name of id.
func (x *Index) NameKey(id ID) string {
	r := &x.recs[id]
	return x.str(r.off+uint32(r.mintLen)+uint32(r.nameLen), int(r.nameKey))
}

// ListedFirst orders a token with an external listing id (a coingecko id)
// before one without: the rule both searches apply among equal matches.
// a and b say whether each of the two is listed.
func ListedFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// CoingeckoID returns the coingecko id of id ("" when none).
func (x *Index) CoingeckoID(id ID) string {
	r := &x.recs[id]
	return x.str(r.off+uint32(r.mintLen)+uint32(r.nameLen)+uint32(r.nameKey), int(r.cgLen))
}

// Token returns the metadata of id (the logo URI is rebuilt from its
// template, the only allocation).
func (x *Index) Token(id ID) Token {
	r := &x.recs[id]
	t := Token{Mint: x.Mint(id), Symbol: x.Symbol(id), Name: x.Name(id), CoingeckoID: x.CoingeckoID(id)}
	if r.dec >= 0 {
		d := int(r.dec)
		t.Decimals = &d
	}
	if r.logoLen > 0 {
		t.LogoURI = strings.Replace(x.str(r.logo, int(r.logoLen)), "\x00", t.Mint, 1)
	}
	return t
}

// Lookup returns the id of mint.
func (x *Index) Lookup(mint string) (ID, bool) {
	if x == nil {
		return 0, false
	}
	i, ok := slices.BinarySearchFunc(x.recs, mint, func(r rec, m string) int { return strings.Compare(x.str(r.off, int(r.mintLen)), m) })
	return ID(i), ok
}

// Get returns the metadata of mint.
func (x *Index) Get(mint string) (Token, bool) {
	id, ok := x.Lookup(mint)
	if !ok {
		return Token{}, false
	}
	return x.Token(id), true
}

// scan calls fn for each id of ids whose key (by key) starts with prefix
// (exact: equals prefix) in key order, until fn returns false.
func scan(ids []ID, key func(ID) string, prefix string, exact bool, fn func(ID) bool) {
	i, _ := slices.BinarySearchFunc(ids, prefix, func(id ID, p string) int { return strings.Compare(key(id), p) })
	for ; i < len(ids); i++ {
		k := key(ids[i])
		if exact && k != prefix || !exact && !strings.HasPrefix(k, prefix) {
			return
		}
		if !fn(ids[i]) {
			return
		}
	}
}

// BySymbol calls fn for each token whose normalised symbol equals key
// (prefix: starts with key), in key then mint order, until fn returns
// false. key must be normalised (Key).
func (x *Index) BySymbol(key string, prefix bool, fn func(ID) bool) {
	if x == nil || key == "" {
		return
	}
	scan(x.bySym, x.SymbolKey, key, !prefix, fn)
}

// ByName calls fn for each token whose normalised name equals key
// (prefix: starts with key), in key then mint order, until fn returns
// false.
func (x *Index) ByName(key string, prefix bool, fn func(ID) bool) {
	if x == nil || key == "" {
		return
	}
	scan(x.byNam, x.NameKey, key, !prefix, fn)
}

func (x *Index) wordStr(w word) string {
	r := &x.recs[w.id]
	return x.str(r.off+uint32(r.mintLen)+uint32(r.nameLen)+uint32(w.start), int(w.n))
}

// ByNameWord calls fn for each token with a name word after the first
// starting with key (a token may come more than once when several of its
// words match), until fn returns false. ByName(key, true, fn) covers
// first words.
func (x *Index) ByNameWord(key string, fn func(ID) bool) {
	if x == nil || key == "" {
		return
	}
	i, _ := slices.BinarySearchFunc(x.words, key, func(w word, p string) int { return strings.Compare(x.wordStr(w), p) })
	for ; i < len(x.words) && strings.HasPrefix(x.wordStr(x.words[i]), key); i++ {
		if !fn(x.words[i].id) {
			return
		}
	}
}

// NameContains calls fn, in id order, for each token whose normalised
// name contains key (at least 3 bytes; shorter keys match nothing), until
// fn returns false.
func (x *Index) NameContains(key string, fn func(ID) bool) {
	if x == nil || len(key) < 3 {
		return
	}
	// The rarest trigram of key bounds the candidates; each is verified.
	var best []ID
	for i := 0; i+3 <= len(key); i++ {
		p := x.postings(tri(key[i:]))
		if p == nil {
			return
		}
		if best == nil || len(p) < len(best) {
			best = p
		}
	}
	for _, id := range best {
		if strings.Contains(x.NameKey(id), key) && !fn(id) {
			return
		}
	}
}

func (x *Index) postings(t uint32) []ID {
	i, ok := slices.BinarySearch(x.triKeys, t)
	if !ok {
		return nil
	}
	return x.posts[x.triOff[i]:x.triOff[i+1]]
}

func tri(s string) uint32 { return uint32(s[0])<<16 | uint32(s[1])<<8 | uint32(s[2]) }

// Stats describes an Index.
type Stats struct {
	Tokens        int
	WithCoingecko int
	ArenaBytes    int
	NameWords     int
	Trigrams      int
	Postings      int
}

// Stats returns the index's counts.
func (x *Index) Stats() Stats {
	if x == nil {
		return Stats{}
	}
	return Stats{Tokens: len(x.recs), WithCoingecko: x.withCG, ArenaBytes: len(x.arena), NameWords: len(x.words),
		Trigrams: len(x.triKeys), Postings: len(x.posts)}
}

// Builder accumulates tokens for an Index. The zero value is ready.
type Builder struct {
	arena   []byte
	recs    []rec
	interns map[string]uint32
	scratch []byte
}

// maxKey bounds a stored key (it must fit a byte length).
const maxKey = 255

// Add adds a token; it is cleaned first. Tokens with an empty or overlong
// mint are skipped. When a mint is added twice the later token wins.
func (b *Builder) Add(t Token) {
	t = t.Clean()
	if t.Mint == "" || len(t.Mint) > 64 {
		return
	}
	if b.interns == nil {
		b.interns = map[string]uint32{}
	}
	symKey := cut(Key(t.Symbol))
	nameKey := cut(Key(t.Name))
	r := rec{off: uint32(len(b.arena)), mintLen: uint8(len(t.Mint)), nameLen: uint8(len(t.Name)), nameKey: uint8(len(nameKey)),
		cgLen: uint8(len(t.CoingeckoID)), symLen: uint8(len(t.Symbol)), symKey: uint8(len(symKey)), dec: -1}
	if t.Decimals != nil {
		r.dec = int8(*t.Decimals)
	}
	b.arena = append(b.arena, t.Mint...)
	b.arena = append(b.arena, t.Name...)
	b.arena = append(b.arena, nameKey...)
	b.arena = append(b.arena, t.CoingeckoID...)
	b.arena = append(b.arena, t.Symbol...)
	b.arena = append(b.arena, symKey...)
	if t.LogoURI != "" {
		// A URI holding the mint is stored once per pattern (the
		// sonarwatch list's 709k URIs share one); others inline.
		if i := strings.Index(t.LogoURI, t.Mint); i >= 0 {
			r.logo = b.intern(t.LogoURI[:i], "\x00", t.LogoURI[i+len(t.Mint):])
			r.logoLen = uint16(len(t.LogoURI) - len(t.Mint) + 1)
		} else {
			r.logo, r.logoLen = uint32(len(b.arena)), uint16(len(t.LogoURI))
			b.arena = append(b.arena, t.LogoURI...)
		}
	}
	b.recs = append(b.recs, r)
}

// intern stores the concatenation of parts once and returns its offset.
func (b *Builder) intern(parts ...string) uint32 {
	b.scratch = b.scratch[:0]
	for _, p := range parts {
		b.scratch = append(b.scratch, p...)
	}
	if off, ok := b.interns[string(b.scratch)]; ok { // no allocation on lookup
		return off
	}
	off := uint32(len(b.arena))
	b.arena = append(b.arena, b.scratch...)
	b.interns[string(b.scratch)] = off
	return off
}

// cut trims s to maxKey bytes at a rune boundary.
func cut(s string) string {
	if len(s) <= maxKey {
		return s
	}
	i := maxKey
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i]
}

// Grow reserves room for n more tokens (and a generous estimate of their
// bytes, so the arena is not copied while it fills; Build returns the
// unused part).
func (b *Builder) Grow(n int) {
	b.recs = slices.Grow(b.recs, n)
	b.arena = slices.Grow(b.arena, n*bytesPerToken)
}

// bytesPerToken over-estimates a token's arena bytes (the sonarwatch list
// averages about 110).
const bytesPerToken = 192

// Len is the number of tokens added so far.
func (b *Builder) Len() int { return len(b.recs) }

// Build returns the Index. The Builder must not be used afterwards.
func (b *Builder) Build() *Index {
	x := &Index{}
	b.interns = nil
	arena := b.arena
	if cap(arena)-len(arena) > len(arena)/8 {
		// Return the unused reservation: the arena lives as long as the index.
		arena = slices.Clone(arena)
	}
	b.arena = nil
	if len(arena) > 0 {
		x.arena = unsafe.String(unsafe.SliceData(arena), len(arena)) // arena is never written again
	}
	recs := b.recs
	mint := func(r *rec) string { return x.arena[r.off : r.off+uint32(r.mintLen)] }
	// Order by mint; of two equal mints the later added wins.
	perm := make([]uint32, len(recs))
	pfx := make([]uint64, len(recs))
	for i := range recs {
		perm[i] = uint32(i)
		pfx[i] = prefix(mint(&recs[i]))
	}
	slices.SortFunc(perm, func(a, c uint32) int {
		if pfx[a] != pfx[c] {
			return cmp.Compare(pfx[a], pfx[c])
		}
		return cmp.Or(strings.Compare(mint(&recs[a]), mint(&recs[c])), cmp.Compare(a, c))
	})
	pfx = nil
	out := make([]rec, 0, len(recs))
	for i, p := range perm {
		if i+1 < len(perm) && mint(&recs[perm[i+1]]) == mint(&recs[p]) {
			continue
		}
		out = append(out, recs[p])
	}
	b.recs, perm = nil, nil
	x.recs = out
	n := len(x.recs)
	x.bySym = make([]ID, n)
	x.byNam = make([]ID, n)
	for i := range x.recs {
		x.bySym[i], x.byNam[i] = ID(i), ID(i)
		if x.recs[i].cgLen > 0 {
			x.withCG++
		}
	}
	// The four structures are independent: build them in parallel. ids
	// ascend with the mint, so the id tie-break orders ties by mint.
	var wg sync.WaitGroup
	wg.Go(func() { sortByKey(x.bySym, x.SymbolKey) })
	wg.Go(func() { sortByKey(x.byNam, x.NameKey) })
	wg.Go(x.buildWords)
	wg.Go(x.buildTrigrams)
	wg.Wait()
	return x
}

func isWordByte(c byte) bool {
	return c >= 0x80 || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

type keyedWord struct {
	pfx uint64
	w   word
}

// prefix packs the first 8 bytes of s big-endian, so comparing prefixes
// orders like comparing strings whenever they differ.
func prefix(s string) uint64 {
	var p uint64
	for i := 0; i < 8; i++ {
		p <<= 8
		if i < len(s) {
			p |= uint64(s[i])
		}
	}
	return p
}

// sortByKey sorts ids by key, then id, comparing packed prefixes first
// (most comparisons never touch the arena).
func sortByKey(ids []ID, key func(ID) string) {
	type keyed struct {
		pfx uint64
		id  ID
	}
	ks := make([]keyed, len(ids))
	for i, id := range ids {
		ks[i] = keyed{prefix(key(id)), id}
	}
	slices.SortFunc(ks, func(a, c keyed) int {
		if a.pfx != c.pfx {
			return cmp.Compare(a.pfx, c.pfx)
		}
		return cmp.Or(strings.Compare(key(a.id), key(c.id)), cmp.Compare(a.id, c.id))
	})
	for i := range ks {
		ids[i] = ks[i].id
	}
}

// buildWords indexes every word of every name key but a leading one (a
// name's first word is found by ByName's prefix lookup).
func (x *Index) buildWords() {
	var ws []word
	for id := range x.recs {
		k := x.NameKey(ID(id))
		for i := 0; i < len(k); {
			if !isWordByte(k[i]) {
				i++
				continue
			}
			j := i
			for j < len(k) && isWordByte(k[j]) {
				j++
			}
			if i > 0 {
				ws = append(ws, word{id: ID(id), start: uint8(i), n: uint8(j - i)})
			}
			i = j
		}
	}
	keyed := make([]keyedWord, len(ws))
	for i, w := range ws {
		keyed[i] = keyedWord{prefix(x.wordStr(w)), w}
	}
	slices.SortFunc(keyed, func(a, c keyedWord) int {
		if a.pfx != c.pfx { // cmp.Or would evaluate the string comparison too
			return cmp.Compare(a.pfx, c.pfx)
		}
		return cmp.Or(strings.Compare(x.wordStr(a.w), x.wordStr(c.w)), cmp.Compare(a.w.id, c.w.id), cmp.Compare(a.w.start, c.w.start))
	})
	for i := range keyed {
		ws[i] = keyed[i].w
	}
	x.words = slices.Clip(ws)
}

// buildTrigrams builds the posting lists in two passes (count, fill) so
// no intermediate pair list is held.
func (x *Index) buildTrigrams() {
	counts := map[uint32]uint32{}
	var seen []uint32
	each := func(id ID, fn func(uint32)) {
		k := x.NameKey(id)
		seen = seen[:0]
		for i := 0; i+3 <= len(k); i++ {
			t := tri(k[i:])
			if !slices.Contains(seen, t) {
				seen = append(seen, t)
				fn(t)
			}
		}
	}
	for id := range x.recs {
		each(ID(id), func(t uint32) { counts[t]++ })
	}
	x.triKeys = make([]uint32, 0, len(counts))
	for t := range counts {
		x.triKeys = append(x.triKeys, t)
	}
	slices.Sort(x.triKeys)
	x.triOff = make([]uint32, len(x.triKeys)+1)
	total := uint32(0)
	for i, t := range x.triKeys {
		x.triOff[i] = total
		total += counts[t]
		counts[t] = uint32(i) // reuse as the key's slot
	}
	x.triOff[len(x.triKeys)] = total
	x.posts = make([]ID, total)
	fill := slices.Clone(x.triOff[:len(x.triKeys)])
	for id := range x.recs {
		each(ID(id), func(t uint32) {
			slot := counts[t]
			x.posts[fill[slot]] = ID(id)
			fill[slot]++
		})
	}
}

// Equal reports whether two tokens carry the same metadata.
func (t Token) Equal(o Token) bool {
	return t.Mint == o.Mint && t.Symbol == o.Symbol && t.Name == o.Name && t.LogoURI == o.LogoURI &&
		t.CoingeckoID == o.CoingeckoID && decOr(t.Decimals) == decOr(o.Decimals)
}

func decOr(d *int) int {
	if d == nil {
		return -1
	}
	return *d
}
