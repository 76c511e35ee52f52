package storetest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/events"
)

// EventTests are the event log's conformance tests (run by Run).
var EventTests = []struct {
	Name string
	Fn   func(*testing.T, Harness)
}{
	{"EventLogAppendSincePrune", testEventLog},
	{"EventLogConcurrentAppendsContiguous", testEventLogConcurrent},
}

func eventStore(t *testing.T, s Store) events.Store {
	t.Helper()
	es, ok := s.(events.Store)
	if !ok {
		t.Fatalf("%T does not implement events.Store", s)
	}
	return es
}

func testEventLog(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	es := eventStore(t, s)
	ctx := context.Background()
	if head, err := es.EventHead(ctx); err != nil || head != 0 {
		t.Fatalf("empty head: %d %v", head, err)
	}
	at := t0
	ev := func(topic, key string) events.Event {
		return events.Event{Type: events.TypePrice, Topic: topic, Time: at, Key: key, Data: json.RawMessage(`{"priceUsd":1.5}`)}
	}
	out, err := es.AppendEvents(ctx, []events.Event{ev("price:A", "k1"), ev("price:B", "")}, at.Add(-time.Minute))
	if err != nil || len(out) != 2 || out[0].ID != 1 || out[1].ID != 2 {
		t.Fatalf("append: %+v %v", out, err)
	}
	// k1 again inside the dedupe window: dropped; outside it: stored.
	if out, err = es.AppendEvents(ctx, []events.Event{ev("price:A", "k1")}, at.Add(-time.Minute)); err != nil || len(out) != 0 {
		t.Fatalf("duplicate key stored: %+v %v", out, err)
	}
	at = t0.Add(time.Hour)
	if out, err = es.AppendEvents(ctx, []events.Event{ev("price:A", "k1")}, at.Add(-time.Minute)); err != nil || len(out) != 1 || out[0].ID != 3 {
		t.Fatalf("key outside window: %+v %v", out, err)
	}
	got, err := es.EventsSince(ctx, 1, 10)
	if err != nil || len(got) != 2 || got[0].ID != 2 || got[1].ID != 3 || got[0].Topic != "price:B" || got[1].Key != "k1" {
		t.Fatalf("since 1: %+v %v", got, err)
	}
	if !got[1].Time.Equal(at) || string(got[1].Data) != `{"priceUsd":1.5}` || got[1].Type != events.TypePrice {
		t.Fatalf("round trip: %+v", got[1])
	}
	// Prune by time: 1 and 2 are older than t0+1m.
	if n, err := es.PruneEvents(ctx, t0.Add(time.Minute), 100); err != nil || n != 2 {
		t.Fatalf("prune by time: %d %v", n, err)
	}
	if got, _ := es.EventsSince(ctx, 0, 10); len(got) != 1 || got[0].ID != 3 {
		t.Fatalf("after prune: %+v", got)
	}
	// IDs never go back after a prune; prune by count keeps the newest.
	for i := 0; i < 3; i++ {
		if _, err := es.AppendEvents(ctx, []events.Event{ev("trending", "")}, at); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := es.PruneEvents(ctx, t0, 2); err != nil || n != 2 {
		t.Fatalf("prune by count: %d %v", n, err)
	}
	got, _ = es.EventsSince(ctx, 0, 10)
	if len(got) != 2 || got[0].ID != 5 || got[1].ID != 6 {
		t.Fatalf("after count prune: %+v", got)
	}
	if head, _ := es.EventHead(ctx); head != 6 {
		t.Fatalf("head %d, want 6", head)
	}
}

// Concurrent appenders (two handles, as two replicas) get contiguous IDs
// and a reader following id > cursor never skips one.
func testEventLogConcurrent(t *testing.T, h Harness) {
	s, other := h.Fresh(t)
	stores := []events.Store{eventStore(t, s), eventStore(t, other())}
	ctx := context.Background()
	const perWriter = 20
	var wg sync.WaitGroup
	errs := make(chan error, 4*perWriter)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(st events.Store) {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				if _, err := st.AppendEvents(ctx, []events.Event{{Type: events.TypeTrending, Topic: "trending", Time: t0, Data: json.RawMessage(`{}`)}}, t0); err != nil {
					errs <- err
				}
			}
		}(stores[w%2])
	}
	// A follower reading while they append.
	seen := map[uint64]bool{}
	var cursor uint64
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	follow := func() {
		for {
			got, err := stores[1].EventsSince(ctx, cursor, 7)
			if err != nil {
				t.Error(err)
				return
			}
			if len(got) == 0 {
				return
			}
			for _, e := range got {
				if e.ID != cursor+1 {
					t.Errorf("follower: id %d after %d", e.ID, cursor)
				}
				seen[e.ID] = true
				cursor = e.ID
			}
		}
	}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		follow()
	}
	follow()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if cursor != 4*perWriter || len(seen) != 4*perWriter {
		t.Fatalf("follower ended at %d having seen %d, want %d", cursor, len(seen), 4*perWriter)
	}
}
