// Package strtab provides packed string lists and immutable hash indexes
// for large read-only lookups. An Index maps keys the caller already
// holds to their numbers; a Table maps keys it packs into one string (a
// List) to values. Slots are integers, so neither holds a pointer per key
// for the garbage collector to follow: a key costs 1.3 to 2.7 4-byte
// slots (a power of two, under 3/4 full), plus, in a Table, its bytes, a
// 4-byte end offset and its value. For hundreds of thousands of keys that
// is a fraction of a map.
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

// Index finds keys the caller holds, by their number: key n is whatever
// the caller's key function returns for n (a field of its n-th element,
// say), so the index itself is 4-byte slots and nothing else. The zero
// Index is empty. An Index is safe for concurrent reads.
type Index struct {
	seed  maphash.Seed
	slots []uint32 // 1 + key number, 0 when free; a power of two, under 3/4 full
}

// NewIndex indexes the keys key(0) … key(n-1). They should be distinct:
// when two are equal, dup is the number of the later one and first the
// number of the earlier (dup is -1 when every key is distinct), and Find
// returns the earlier. It panics past 2^31 keys.
func NewIndex(n int, key func(int) string) (x Index, first, dup int) {
	if n >= math.MaxUint32/2 {
		panic("strtab: keys exceed the index's 32-bit slots")
	}
	first, dup = -1, -1
	if n == 0 {
		return x, first, dup
	}
	x.seed = maphash.MakeSeed()
	x.slots = make([]uint32, max(8, 1<<bits.Len(uint(n+n/3))))
	mask := uint64(len(x.slots) - 1)
	for k := range n {
		s := key(k)
		i := maphash.String(x.seed, s) & mask
		for ; x.slots[i] != 0; i = (i + 1) & mask {
			if dup < 0 && key(int(x.slots[i]-1)) == s {
				first, dup = int(x.slots[i]-1), k
			}
		}
		x.slots[i] = uint32(k) + 1
	}
	return x, first, dup
}

// Find returns the number of the key equal to k; key must be the function
// the index was built with, over the same keys.
func (x *Index) Find(k string, key func(int) string) (int, bool) { return Lookup(x, k, key) }

// Lookup is Find with the key as a string or in bytes (not converted).
func Lookup[K string | []byte](x *Index, k K, key func(int) string) (int, bool) {
	if len(x.slots) == 0 { // an empty index has no seed to hash with
		return 0, false
	}
	var h uint64
	switch k := any(k).(type) {
	case string:
		h = maphash.String(x.seed, k)
	case []byte:
		h = maphash.Bytes(x.seed, k)
	}
	return find(x, h, k, key)
}

// find probes for k, whose hash is h (the comparison with a []byte key
// does not convert it); x is not empty. A later duplicate sits after the
// earlier one in its probe sequence, so the earlier is found.
func find[K string | []byte](x *Index, h uint64, k K, key func(int) string) (int, bool) {
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return 0, false
		}
		if key(int(s-1)) == string(k) {
			return int(s - 1), true
		}
	}
}

// Table maps distinct strings to values. Build one with a Builder; the
// zero Table is empty. A Table is safe for concurrent reads.
type Table[V any] struct {
	index  Index
	keys   List // in insertion order
	values []V
}

// Len is the number of keys.
func (t *Table[V]) Len() int { return len(t.values) }

// Key returns key n (0 ≤ n < Len, in insertion order).
func (t *Table[V]) Key(n int) string { return t.keys.At(n) }

// Value returns key n's value, which the caller must not modify.
func (t *Table[V]) Value(n int) *V { return &t.values[n] }

// Get returns key's value.
func (t *Table[V]) Get(key string) (*V, bool) { return Get(t, key) }

// Get is Table.Get with the key as a string or in bytes (not converted).
func Get[V any, K string | []byte](t *Table[V], key K) (*V, bool) {
	n, ok := Lookup(&t.index, key, t.keys.At)
	if !ok {
		return nil, false
	}
	return &t.values[n], true
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
func (b *Builder[V]) Build() Table[V] { return b.BuildKeeping(nil) }

// BuildKeeping is Build with only the keys for which keep, when not nil,
// reports true.
func (b *Builder[V]) BuildKeeping(keep func(key string, v V) bool) Table[V] {
	keys, values := b.keys, b.values
	if keep != nil {
		keys, values = nil, nil
		for n, k := range b.keys {
			if keep(k, b.values[n]) {
				keys, values = append(keys, k), append(values, b.values[n])
			}
		}
	}
	t := Table[V]{keys: NewList(keys), values: slices.Clone(values)}
	t.index, _, _ = NewIndex(len(keys), t.keys.At) // the Builder's keys are distinct
	return t
}
