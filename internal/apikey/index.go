package apikey

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync/atomic"
)

// Index is an immutable snapshot of the active keys, keyed by the raw
// SHA-256 of the plaintext.
type Index struct {
	byHash map[[32]byte]*entry
}

// entry is an indexed key with its decoded stored hash.
type entry struct {
	key    *Key
	stored [32]byte
}

// NewIndex builds an index over the active keys in keys.
func NewIndex(keys []Key) (*Index, error) {
	idx := &Index{byHash: make(map[[32]byte]*entry, len(keys))}
	for i := range keys {
		k := &keys[i]
		if !k.Active() {
			continue
		}
		e := &entry{key: k}
		if n, err := hex.Decode(e.stored[:], []byte(k.Hash)); err != nil || n != 32 {
			return nil, fmt.Errorf("key %s: malformed hash", k.ID)
		}
		idx.byHash[e.stored] = e
	}
	return idx, nil
}

// Len is the number of active keys.
func (x *Index) Len() int { return len(x.byHash) }

// Lookup returns the active key whose plaintext is s, or nil. The stored
// hash is compared in constant time once the candidate is found. It does
// not allocate: the plaintext (fixed length, checked by WellFormed) is
// copied into a stack array and hashed there.
func (x *Index) Lookup(s string) *Key {
	if !WellFormed(s) {
		return nil
	}
	var buf [plaintextLen]byte
	copy(buf[:], s)
	h := sha256.Sum256(buf[:])
	e := x.byHash[h]
	if e == nil {
		return nil
	}
	if subtle.ConstantTimeCompare(e.stored[:], h[:]) != 1 {
		return nil
	}
	return e.key
}

// Lister is what the cache needs from a store.
type Lister interface {
	// ListKeys returns every key, active and revoked.
	ListKeys(ctx context.Context) ([]Key, error)
}

// Cache holds the current Index and swaps it atomically on Reload.
type Cache struct {
	store Lister
	log   *slog.Logger
	cur   atomic.Pointer[Index]
}

// NewCache returns an empty cache over store; call Reload before serving.
func NewCache(store Lister, log *slog.Logger) *Cache {
	c := &Cache{store: store, log: log}
	c.cur.Store(&Index{byHash: map[[32]byte]*entry{}})
	return c
}

// Reload rebuilds the index from the store. On error the old index stays.
func (c *Cache) Reload(ctx context.Context) error {
	keys, err := c.store.ListKeys(ctx)
	if err != nil {
		return fmt.Errorf("reload keys: %w", err)
	}
	idx, err := NewIndex(keys)
	if err != nil {
		return fmt.Errorf("reload keys: %w", err)
	}
	c.cur.Store(idx)
	c.log.Debug("api keys reloaded", "active", idx.Len())
	return nil
}

// Lookup authenticates a plaintext key against the current snapshot.
func (c *Cache) Lookup(s string) *Key { return c.cur.Load().Lookup(s) }
