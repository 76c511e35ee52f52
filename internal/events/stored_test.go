package events

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeStore is an in-memory events.Store for the Stored tests (the
// engines run the conformance suite in internal/storage/storetest).
type fakeStore struct {
	mu   sync.Mutex
	rows []Event
	head uint64
}

func (f *fakeStore) AppendEvents(_ context.Context, evs []Event, dedupeSince time.Time) ([]Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Event
	for _, e := range evs {
		dup := false
		for _, r := range f.rows {
			if e.Key != "" && r.Key == e.Key && !r.Time.Before(dedupeSince) {
				dup = true
			}
		}
		if dup {
			continue
		}
		f.head++
		e.ID = f.head
		f.rows = append(f.rows, e)
		out = append(out, e)
	}
	return out, nil
}

func (f *fakeStore) EventsSince(_ context.Context, after uint64, limit int) ([]Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Event
	for _, r := range f.rows {
		if r.ID > after && len(out) < limit {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f *fakeStore) EventHead(context.Context) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.head, nil
}

func (f *fakeStore) PruneEvents(_ context.Context, before time.Time, keep int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var kept []Event
	for _, r := range f.rows {
		if !r.Time.Before(before) && r.ID+uint64(keep) > f.head {
			kept = append(kept, r)
		}
	}
	n := len(f.rows) - len(kept)
	f.rows = kept
	return int64(n), nil
}

func TestStoredFollowsTableAndWindow(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	st := &fakeStore{}
	a := NewStored(st, LogOptions{Now: clock, Retention: time.Hour, MaxEvents: 10})
	if err := a.Load(ctx); err != nil {
		t.Fatal(err)
	}
	out, err := a.AppendBatch(ctx, []Event{{Type: TypePrice, Topic: "price:x", Key: "k"}, {Type: TypeTrending, Topic: "trending"}})
	if err != nil || len(out) != 2 || a.Last() != 2 {
		t.Fatalf("append: %+v %v last %d", out, err, a.Last())
	}
	if e, err := a.Append(ctx, Event{Type: TypePrice, Topic: "price:x", Key: "k"}); err != nil || e.ID != 0 {
		t.Fatalf("duplicate key: %+v %v", e, err)
	}
	// A second replica on the same table sees the same sequence.
	b := NewStored(st, LogOptions{Now: clock, Retention: time.Hour, MaxEvents: 10})
	if err := b.Load(ctx); err != nil || b.Last() != 2 {
		t.Fatalf("second load: %d %v", b.Last(), err)
	}
	if _, err := b.Append(ctx, Event{Type: TypeDepeg, Topic: "depeg"}); err != nil {
		t.Fatal(err)
	}
	if err := a.sync(ctx); err != nil || a.Last() != 3 {
		t.Fatalf("a after b's append: %d %v", a.Last(), err)
	}
	// Two hours later everything is outside the window: a restarted log
	// continues the ids and reports old cursors expired.
	now = now.Add(2 * time.Hour)
	c := NewStored(st, LogOptions{Now: clock, Retention: time.Hour, MaxEvents: 10})
	if err := c.Load(ctx); err != nil || c.Last() != 3 {
		t.Fatalf("reload after the window: last %d %v", c.Last(), err)
	}
	if _, err := c.Since(ctx, 1, 10); !errors.Is(err, ErrExpired) {
		t.Fatalf("old cursor: %v", err)
	}
	if e, _ := c.Append(ctx, Event{Type: TypePrice, Topic: "price:x", Key: "k"}); e.ID != 4 {
		t.Fatalf("append after reload: id %d", e.ID)
	}
	a.Prune(ctx)
	if _, err := a.Since(ctx, 1, 10); !errors.Is(err, ErrExpired) {
		t.Fatalf("pruned mirror: %v", err)
	}
}
