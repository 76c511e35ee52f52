// Package strtab provides packed string lists and an immutable
// string-keyed hash table over one, for large read-only indexes. Its keys live in one string and its slots are
// integers, so a table holds no pointer per key for the garbage collector
// to follow, and a key costs its bytes, a 4-byte end offset, its value and
// two or so 4-byte slots: for hundreds of thousands of keys, a fraction of
// a map[string]V.
package strtab

import (
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// List is an immutable list of strings packed in one string with 4-byte
// end offsets: no string header or pointer per element.
type List struct {
	text string   // the strings, concatenated
	ends []uint32 // ends[n] is where string n ends in text; it starts where n-1 ends
}

// NewList packs strs. It panics past 2^32 bytes.
func NewList(strs []string) List {
	size := 0
	for _, s := range strs {
		size += len(s)
	}
	if size > math.MaxUint32 {
		panic("strtab: strings exceed the list's 32-bit offsets")
	}
	l := List{ends: make([]uint32, len(strs))}
	var text strings.Builder
	text.Grow(size)
	for n, s := range strs {
		text.WriteString(s)
		l.ends[n] = uint32(text.Len())
	}
	l.text = text.String()
	return l
}

// Len is the number of strings.
func (l *List) Len() int { return len(l.ends) }

// At returns string n (0 ≤ n < Len).
func (l *List) At(n int) string {
	start := uint32(0)
	if n > 0 {
		start = l.ends[n-1]
	}
	return l.text[start:l.ends[n]]
}

// Table maps distinct strings to values. Build one with a Builder; the
// zero Table is empty. A Table is safe for concurrent reads.
type Table[V any] struct {
	seed   maphash.Seed
	keys   List // in insertion order
	values []V
	slots  []uint32 // 1 + key number, 0 when free; a power of two, at most half full
}

// Len is the number of keys.
func (t *Table[V]) Len() int { return len(t.values) }

// Key returns key n (0 ≤ n < Len, in insertion order).
func (t *Table[V]) Key(n int) string { return t.keys.At(n) }

// Value returns key n's value, which the caller must not modify.
func (t *Table[V]) Value(n int) *V { return &t.values[n] }

// Get returns key's value.
func (t *Table[V]) Get(key string) (*V, bool) {
	if len(t.slots) == 0 { // an empty table has no seed to hash with
		return nil, false
	}
	return get(t, maphash.String(t.seed, key), key)
}

// GetBytes is Get with the key in bytes, without converting it.
func (t *Table[V]) GetBytes(key []byte) (*V, bool) {
	if len(t.slots) == 0 {
		return nil, false
	}
	return get(t, maphash.Bytes(t.seed, key), key)
}

// get probes for key, whose hash is h (the comparison with a []byte key
// does not convert it); t is not empty.
func get[V any, K string | []byte](t *Table[V], h uint64, key K) (*V, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return nil, false
		}
		if t.Key(int(s-1)) == string(key) {
			return &t.values[s-1], true
		}
	}
}

// Builder gathers distinct keys and their values; Build freezes them.
type Builder[V any] struct {
	at     map[string]uint32
	keys   []string
	values []V
}

// NewBuilder returns a Builder sized for about n keys.
func NewBuilder[V any](n int) *Builder[V] {
	return &Builder[V]{at: make(map[string]uint32, n), keys: make([]string, 0, n), values: make([]V, 0, n)}
}

// Len is the number of keys added.
func (b *Builder[V]) Len() int { return len(b.keys) }

// Add returns key's value, adding key with a zero value when it is new
// (added true). The pointer is valid until the next Add.
func (b *Builder[V]) Add(key string) (v *V, added bool) {
	if n, ok := b.at[key]; ok {
		return &b.values[n], false
	}
	b.at[key] = uint32(len(b.keys))
	b.keys = append(b.keys, key)
	var zero V
	b.values = append(b.values, zero)
	return &b.values[len(b.values)-1], true
}

// Values returns the values in insertion order, for adjustments before
// Build (the slice is the Builder's own).
func (b *Builder[V]) Values() []V { return b.values }

// Build returns the table of the keys added so far. It panics past 2^32
// bytes of keys or 2^31 keys.
func (b *Builder[V]) Build() Table[V] {
	if len(b.keys) >= math.MaxUint32/2 {
		panic("strtab: keys exceed the table's 32-bit slots")
	}
	t := Table[V]{seed: maphash.MakeSeed(), keys: NewList(b.keys), values: slices.Clone(b.values)}
	if len(b.keys) == 0 {
		return t
	}
	t.slots = make([]uint32, max(8, 1<<bits.Len(uint(2*len(b.keys)-1))))
	mask := uint64(len(t.slots) - 1)
	for n, k := range b.keys {
		i := maphash.String(t.seed, k) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(n) + 1
	}
	return t
}
