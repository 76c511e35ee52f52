// Package changelog numbers changes so that a reader can ask what changed
// since the last time it looked: the market cache logs the keys it stores
// and the analytics engine the mints its trades touch; the catalog reads
// both logs to refresh only the assets whose inputs moved.
package changelog

import "sync"

// DefaultKeep is how many changes a Log keeps by default.
const DefaultKeep = 1 << 17

// Log is a bounded, numbered sequence of changes, safe for concurrent use.
// Changes are numbered from 1; the log keeps at least the last keep of
// them.
type Log[T any] struct {
	mu    sync.Mutex
	keep  int
	first uint64 // number of items[0]
	items []T
}

// New returns an empty log keeping at least the last keep changes
// (DefaultKeep when keep <= 0).
func New[T any](keep int) *Log[T] {
	if keep <= 0 {
		keep = DefaultKeep
	}
	return &Log[T]{keep: keep, first: 1}
}

// Add appends changes.
func (l *Log[T]) Add(xs ...T) {
	if len(xs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append(l.items, xs...)
	if len(l.items) >= 2*l.keep {
		drop := len(l.items) - l.keep
		l.first += uint64(drop)
		l.items = append(l.items[:0:0], l.items[drop:]...)
	}
}

// Last is the number of the last change (0 before the first).
func (l *Log[T]) Last() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.first + uint64(len(l.items)) - 1
}

// Since returns the changes numbered after seq, oldest first, and the
// number of the last change (the seq of the next call). complete is false
// when some of those changes are no longer kept: the caller must then
// assume that everything changed.
func (l *Log[T]) Since(seq uint64) (xs []T, last uint64, complete bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	last = l.first + uint64(len(l.items)) - 1
	if seq >= last {
		return nil, last, true
	}
	if seq+1 < l.first {
		return nil, last, false
	}
	return append([]T(nil), l.items[seq+1-l.first:]...), last, true
}
