package lists

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/assetd/assetd/internal/storage"
)

// View is a readable (published or unlisted) list with all its members in
// rank order. Views are immutable: read-only.
type View struct {
	List    List
	Members []Member
}

// Views is the in-memory read model of readable community lists, so list
// reads never hit the database. The server reloads it when the lists
// change topic moves (writes on any replica) and refreshes the lists its
// own writes touch at once (read-your-writes on the writing replica).
type Views struct {
	store Store
	limit int
	mu    sync.Mutex // serialises reloads and refreshes
	cur   atomic.Pointer[map[string]*View]
	// byMint maps a mint to the published slugs holding it (ascending),
	// rebuilt with cur.
	byMint atomic.Pointer[map[string][]string]
	// gen counts published models (Version).
	gen atomic.Uint64
}

// NewViews returns an empty read model over store; limit is the most
// members one list holds. Call Reload before serving.
func NewViews(store Store, limit int) *Views {
	v := &Views{store: store, limit: limit}
	v.publish(map[string]*View{})
	return v
}

var readable = []string{StatusPublished, StatusUnlisted}

// Reload rebuilds the whole model from the store.
func (v *Views) Reload(ctx context.Context) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	page, err := v.store.ListLists(ctx, Query{Statuses: readable})
	if err != nil {
		return fmt.Errorf("reload list views: %w", err)
	}
	next := make(map[string]*View, len(page.Lists))
	for _, l := range page.Lists {
		view, err := v.load(ctx, l.Slug)
		if errors.Is(err, storage.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return err
		}
		if view != nil {
			next[l.Slug] = view
		}
	}
	v.publish(next)
	return nil
}

// publish swaps in a model and its mint index.
func (v *Views) publish(next map[string]*View) {
	idx := map[string][]string{}
	for slug, x := range next {
		if !x.List.Listed() {
			continue
		}
		for _, m := range x.Members {
			idx[m.Mint] = append(idx[m.Mint], slug)
		}
	}
	for _, slugs := range idx {
		slices.Sort(slugs)
	}
	v.cur.Store(&next)
	v.byMint.Store(&idx)
	v.gen.Add(1)
}

// Version numbers the published models: it moves on every reload and
// refresh, so what is derived from the views (an encoded catalog page)
// stays valid while it holds. A single list's *View changes identity
// whenever that list is re-read.
func (v *Views) Version() uint64 { return v.gen.Load() }

// Containing returns the published lists holding mint, by slug (for
// inLists annotations); read-only.
func (v *Views) Containing(mint string) []string { return (*v.byMint.Load())[mint] }

// load reads one list; nil when it is not readable.
func (v *Views) load(ctx context.Context, slug string) (*View, error) {
	l, members, err := v.store.Members(ctx, slug, 0, v.limit)
	if err != nil {
		return nil, fmt.Errorf("load list view %q: %w", slug, err)
	}
	if !l.Readable() {
		return nil, nil
	}
	return &View{List: l, Members: members}, nil
}

// Refresh re-reads the given slugs (dropping those gone or no longer
// readable) without touching the others.
func (v *Views) Refresh(ctx context.Context, slugs ...string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	cur := *v.cur.Load()
	next := make(map[string]*View, len(cur)+len(slugs))
	for k, x := range cur {
		next[k] = x
	}
	for _, slug := range slugs {
		view, err := v.load(ctx, slug)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		delete(next, slug)
		if view != nil {
			next[slug] = view
		}
	}
	v.publish(next)
	return nil
}

// Get returns the readable list with this live slug.
func (v *Views) Get(slug string) (*View, bool) {
	x, ok := (*v.cur.Load())[slug]
	return x, ok
}

// All returns every readable list's view by slug (the event producer
// compares snapshots). The map is shared: read-only.
func (v *Views) All() map[string]*View { return *v.cur.Load() }
