package curator

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/poll"
	"github.com/assetd/assetd/internal/registry"
)

// hangingProvider answers no search until release is closed (or the
// search's context ends), counting the searches in flight and the most
// ever in flight at once.
type hangingProvider struct {
	release             chan struct{}
	calls               atomic.Int64
	inFlight, maxFlight atomic.Int64
	mu                  sync.Mutex
	queries             map[string]int
}

func newHangingProvider() *hangingProvider {
	return &hangingProvider{release: make(chan struct{}), queries: map[string]int{}}
}

func (h *hangingProvider) Search(ctx context.Context, q string, limit int) ([]market.TokenMeta, error) {
	h.calls.Add(1)
	h.mu.Lock()
	h.queries[q]++
	h.mu.Unlock()
	n := h.inFlight.Add(1)
	defer h.inFlight.Add(-1)
	for {
		m := h.maxFlight.Load()
		if n <= m || h.maxFlight.CompareAndSwap(m, n) {
			break
		}
	}
	select {
	case <-h.release:
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestServiceBoundsProviderWork: 200 distinct queries against a provider
// that never answers start at most ProviderSearches searches (one
// goroutine each), queue at most ProviderQueue and shed the rest; every
// response answers at once from memory with the provider degraded, and
// a query never has two searches.
func TestServiceBoundsProviderWork(t *testing.T) {
	const searches, queue, queries = 4, 16, 200
	p := newHangingProvider()
	bg, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	svc := New(Config{Registry: func() *registry.Snapshot { return nil }, Provider: p, Background: bg,
		ProviderSearches: searches, ProviderQueue: queue, Now: func() time.Time { return now }})
	base := runtime.NumGoroutine()

	for round := range 2 { // the second round repeats every query: single-flight, nothing more starts
		for i := range queries {
			r := svc.Search(context.Background(), Request{Query: fmt.Sprintf("Q%03d", i), Policy: PolicyDegen})
			if r.Sources.Provider != "degraded" {
				t.Fatalf("round %d query %d: provider %q, want degraded", round, i, r.Sources.Provider)
			}
		}
	}
	poll.For(t, time.Minute, "the bounded searches reach the provider", func() bool { return p.inFlight.Load() == searches })

	if w := svc.ProviderWork(); w.Running != searches || w.Queued != queue || w.Shed != 2*(queries-searches-queue) {
		t.Errorf("work %+v, want %d running, %d queued, %d shed", w, searches, queue, 2*(queries-searches-queue))
	}
	if n := p.maxFlight.Load(); n > searches {
		t.Errorf("%d provider searches in flight at once, bound %d", n, searches)
	}
	if n := p.calls.Load(); n != searches {
		t.Errorf("%d provider calls while it hangs, want %d", n, searches)
	}
	if d := runtime.NumGoroutine() - base; d > searches {
		t.Errorf("%d goroutines more than before the queries, bound %d (one per running search)", d, searches)
	}

	// Released, the running searches finish and the queue drains through
	// the same workers; each queued query is searched once.
	close(p.release)
	poll.For(t, time.Minute, "the queue drains", func() bool { w := svc.ProviderWork(); return w.Running == 0 && w.Queued == 0 })
	if n := p.calls.Load(); n != searches+queue {
		t.Errorf("%d provider calls after the drain, want %d", n, searches+queue)
	}
	for q, n := range p.queries {
		if n != 1 {
			t.Errorf("query %s searched %d times", q, n)
		}
	}
	if n := p.maxFlight.Load(); n > searches {
		t.Errorf("%d provider searches in flight at once, bound %d", n, searches)
	}
	// A shed query is searched when asked again once there is room.
	shed := fmt.Sprintf("Q%03d", queries-1)
	svc.Search(context.Background(), Request{Query: shed, Policy: PolicyDegen})
	poll.For(t, time.Minute, "the shed query is searched", func() bool {
		return svc.Search(context.Background(), Request{Query: shed, Policy: PolicyDegen}).Sources.Provider == "ok"
	})
}

// TestServiceDropsQueueAtShutdown: once the background context ends, the
// workers return and the queued searches are dropped, not run.
func TestServiceDropsQueueAtShutdown(t *testing.T) {
	p := newHangingProvider()
	bg, cancel := context.WithCancel(context.Background())
	svc := New(Config{Registry: func() *registry.Snapshot { return nil }, Provider: p, Background: bg,
		ProviderSearches: 1, ProviderQueue: 8, Now: func() time.Time { return now }})
	for i := range 5 {
		svc.Search(context.Background(), Request{Query: fmt.Sprintf("Q%d", i)})
	}
	poll.For(t, time.Minute, "the first search reaches the provider", func() bool { return p.inFlight.Load() == 1 })
	cancel()
	poll.For(t, time.Minute, "the worker returns", func() bool { w := svc.ProviderWork(); return w.Running == 0 && w.Queued == 0 })
	if n := p.calls.Load(); n != 1 {
		t.Errorf("%d provider calls, want 1 (the queue is dropped at shutdown)", n)
	}
}
