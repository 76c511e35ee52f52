package analytics

import (
	"hash/maphash"
	"sync"
)

// sigKey is a trade identity's dedupe key: a seeded 64-bit hash of the
// signature and leg, and the signature's first 8 bytes with the leg in
// the low byte's place mixed in. Two distinct identities collide only when
// both the hash's top 56 bits (the table keeps the low 8 for the
// generation) and the prefixes match.
type sigKey struct {
	h, prefix uint64
}

// dedupe remembers recently ingested signatures, sharded by the hash's
// low bits. Each shard tags every key with the generation it was inserted
// in; a generation ends when it is TTL old or holds maxPerGen keys, and
// keys two generations old are then dropped. So a signature is remembered
// for at least TTL after it was first seen unless more than maxPerGen
// newer signatures land in its shard first, and a shard holds at most
// 2 × maxPerGen keys.
type dedupe struct {
	seed      maphash.Seed
	ttl       int64 // seconds
	maxPerGen int
	shards    []dedupeShard
}

type dedupeShard struct {
	mu       sync.Mutex
	tab      sigTable
	gen      uint64 // 1..255
	genStart int64  // unix seconds the current generation began
	genCount int    // keys inserted in the current generation
	_        [16]byte
}

func newDedupe(shards int, ttlSeconds int64, maxEntries int) *dedupe {
	d := &dedupe{
		seed:      maphash.MakeSeed(),
		ttl:       ttlSeconds,
		maxPerGen: max(1, maxEntries/(2*shards)),
		shards:    make([]dedupeShard, shards),
	}
	for i := range d.shards {
		d.shards[i].gen = 1
	}
	return d
}

// key is the dedupe key of (sig, leg). Leg 0 hashes the signature alone;
// another leg remixes that hash with the leg (no allocation either way).
func (d *dedupe) key(sig string, leg int) sigKey {
	h := maphash.String(d.seed, sig)
	if leg != 0 {
		h = mix64(h ^ uint64(leg)*0x9e3779b97f4a7c15)
	}
	return sigKey{h: h, prefix: sigPrefix(sig) ^ uint64(leg)}
}

// mix64 is SplitMix64's finalizer: every input bit affects every output
// bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// insertLocked records k, of shard s, at time now (unix seconds) and
// reports false when k was already remembered. The caller holds s.mu.
func (d *dedupe) insertLocked(s *dedupeShard, k sigKey, now int64) bool {
	i, found := s.tab.find(k)
	if found {
		return false
	}
	if s.genStart == 0 {
		s.genStart = now
	}
	if now-s.genStart >= d.ttl || s.genCount >= d.maxPerGen {
		prev := s.gen
		s.gen = s.gen%255 + 1
		s.genStart, s.genCount = now, 0
		s.tab.keepOnly(prev)
		i, _ = s.tab.find(k)
	}
	s.tab.put(i, k, s.gen)
	s.genCount++
	return true
}

func (d *dedupe) size() int {
	n := 0
	for i := range d.shards {
		s := &d.shards[i]
		s.mu.Lock()
		n += s.tab.n
		s.mu.Unlock()
	}
	return n
}

// sigTable is an open-addressing (linear probing) hash set of sigKeys,
// each tagged with a generation 1..255 in the low byte of its stored hash
// word (0 marks an empty slot). One probe usually reads one cache line,
// where a Go map of millions of entries costs two or more misses.
type sigTable struct {
	slots []sigSlot // len is a power of two, or 0
	n     int
}

type sigSlot struct {
	w uint64 // hash with the low byte replaced by the generation
	p uint64 // signature prefix
}

const sigTableMinSize = 64

// find returns the slot holding k, or the empty slot where k would go.
// The table must not be full; an empty table gets its first slots.
func (t *sigTable) find(k sigKey) (int, bool) {
	if len(t.slots) == 0 {
		t.slots = make([]sigSlot, sigTableMinSize)
	}
	mask := len(t.slots) - 1
	want := k.h &^ 0xff
	for i := int(k.h>>12) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.w == 0 {
			return i, false
		}
		if s.w&^0xff == want && s.p == k.prefix {
			return i, true
		}
	}
}

// put stores k with generation gen in empty slot i (from find), growing
// the table past 5/8 load.
func (t *sigTable) put(i int, k sigKey, gen uint64) {
	t.slots[i] = sigSlot{w: k.h&^0xff | gen, p: k.prefix}
	t.n++
	if t.n*8 > len(t.slots)*5 {
		t.rebuild(len(t.slots)*2, 0)
	}
}

// keepOnly drops every key not of generation gen.
func (t *sigTable) keepOnly(gen uint64) {
	n := 0
	for i := range t.slots {
		if t.slots[i].w&0xff == gen {
			n++
		}
	}
	size := sigTableMinSize
	for n*8 > size*3 { // start at most 3/8 full
		size *= 2
	}
	t.rebuild(size, gen)
}

// rebuild rehashes into size slots, keeping generation keep (0: all).
func (t *sigTable) rebuild(size int, keep uint64) {
	old := t.slots
	t.slots, t.n = make([]sigSlot, size), 0
	mask := size - 1
	for _, s := range old {
		if s.w == 0 || keep != 0 && s.w&0xff != keep {
			continue
		}
		i := int(s.w>>12) & mask
		for t.slots[i].w != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
		t.n++
	}
}
