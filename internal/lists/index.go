package lists

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/assetd/assetd/internal/asset"
)

// AdvisoryIndex is the in-memory advisory snapshot the read path annotates
// from, swapped atomically when the store's advisories change.
type AdvisoryIndex struct {
	store  AdvisoryStore
	cur    atomic.Pointer[map[string]*asset.Advisory]
	loaded atomic.Bool
	gen    atomic.Uint64
}

// NewAdvisoryIndex returns an empty index over store; call Reload.
func NewAdvisoryIndex(store AdvisoryStore) *AdvisoryIndex {
	x := &AdvisoryIndex{store: store}
	empty := map[string]*asset.Advisory{}
	x.cur.Store(&empty)
	return x
}

// Reload rebuilds the index from the store; on error the old one stays.
func (x *AdvisoryIndex) Reload(ctx context.Context) error {
	snap, err := x.store.AdvisorySnapshot(ctx)
	if err != nil {
		return fmt.Errorf("reload advisories: %w", err)
	}
	m := make(map[string]*asset.Advisory, len(snap))
	for mint, a := range snap {
		a := a
		m[mint] = &a
	}
	x.cur.Store(&m)
	x.gen.Add(1)
	x.loaded.Store(true)
	return nil
}

// Loaded reports whether a Reload has succeeded at least once. Until then
// the index is empty for want of data, not because nothing is flagged:
// execution gates fail closed on it.
func (x *AdvisoryIndex) Loaded() bool { return x.loaded.Load() }

// Get returns the advisory of mint, or nil when it is not flagged. The
// value is shared: read-only.
func (x *AdvisoryIndex) Get(mint string) *asset.Advisory { return (*x.cur.Load())[mint] }

// Version changes whenever Reload swaps the index in, so anything derived
// from the advisories (an encoded response) stays valid while it holds.
func (x *AdvisoryIndex) Version() uint64 { return x.gen.Load() }

// Len is the number of flagged mints.
func (x *AdvisoryIndex) Len() int { return len(*x.cur.Load()) }

// All returns every flagged mint's advisory (the event producer compares
// snapshots). The map and values are shared: read-only.
func (x *AdvisoryIndex) All() map[string]*asset.Advisory { return *x.cur.Load() }
