package marketcache

import (
	"sync"
	"sync/atomic"
	"time"
)

// item is one cached value with the time it was fetched. A value is never
// dropped for being old: the last good value is served, marked by its
// fetch time, until a refresh replaces it or capacity evicts it.
type item[V any] struct {
	val       V
	fetchedAt time.Time
	usedAt    atomic.Int64 // unix ns of the last read, for eviction
}

// store is a bounded map of items. When full, inserting a new key evicts
// an approximately least recently read entry.
type store[V any] struct {
	mu    sync.RWMutex
	items map[string]*item[V]
	cap   int
	// onPut, when set, is told every key put stores (the change log).
	onPut func(key string)
	// Reads through read: a miss (nothing cached), a stale hit (served,
	// older than the fresh TTL) or a fresh hit.
	hits, stale, misses atomic.Int64
}

func newStore[V any](capacity int) *store[V] {
	return &store[V]{items: make(map[string]*item[V]), cap: capacity}
}

// get returns the item of key, or nil.
func (s *store[V]) get(key string, now time.Time) *item[V] {
	s.mu.RLock()
	it := s.items[key]
	s.mu.RUnlock()
	if it != nil {
		it.usedAt.Store(now.UnixNano())
	}
	return it
}

// read is get on a read path: it also counts a hit, stale hit or miss
// against ttl (metrics).
func (s *store[V]) read(key string, now time.Time, ttl time.Duration) *item[V] {
	it := s.get(key, now)
	switch {
	case it == nil:
		s.misses.Add(1)
	case now.Sub(it.fetchedAt) >= ttl:
		s.stale.Add(1)
	default:
		s.hits.Add(1)
	}
	return it
}

// peek returns the item of key, or nil, without marking it used.
func (s *store[V]) peek(key string) *item[V] {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.items[key]
}

// put stores val for key.
func (s *store[V]) put(key string, val V, fetchedAt time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := &item[V]{val: val, fetchedAt: fetchedAt}
	if old, ok := s.items[key]; ok {
		it.usedAt.Store(old.usedAt.Load())
	} else {
		if len(s.items) >= s.cap {
			s.evictLocked()
		}
		it.usedAt.Store(fetchedAt.UnixNano())
	}
	s.items[key] = it
	if s.onPut != nil {
		s.onPut(key)
	}
}

// evictLocked removes the least recently used of a sample of entries (Go
// map iteration order is random), a cheap approximation of LRU.
func (s *store[V]) evictLocked() {
	var victim string
	oldest := int64(1<<63 - 1)
	n := 0
	for k, it := range s.items {
		if u := it.usedAt.Load(); u < oldest {
			victim, oldest = k, u
		}
		if n++; n == 16 {
			break
		}
	}
	delete(s.items, victim)
}

func (s *store[V]) len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.items)
}
