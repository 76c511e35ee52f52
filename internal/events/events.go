// Package events is assetd's internal event log: state changes (a price
// that moved, an advisory set or lifted, a list that changed, a mint that
// entered or left trending, a stablecoin's depeg tier) appended with a
// global, strictly increasing cursor, retained for a bounded window and
// read by the SSE stream and the webhook dispatcher.
//
// Memory is the embedded default's log; other implementations (the store,
// JetStream) keep the same method set, which consumers declare as their
// own small interfaces.
package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Event types. Topic names are derived from them: "price:<mint>",
// "advisories", "list:<slug>", "trending", "depeg".
const (
	TypePrice    = "price"
	TypeAdvisory = "advisory"
	TypeList     = "list"
	TypeTrending = "trending"
	TypeDepeg    = "depeg"
)

// Event is one entry of the log.
type Event struct {
	// ID is the global cursor: 1 for the first event ever appended, then
	// strictly increasing by one. SSE sends it as `id:`, webhooks derive
	// their stable webhook-id from it.
	ID uint64 `json:"id"`
	// Type is one of the Type* constants.
	Type string `json:"type"`
	// Topic is what a subscriber filters on (see the package doc).
	Topic string `json:"topic"`
	// Time is when the event was appended (UTC).
	Time time.Time `json:"time"`
	// Data is the event's JSON payload.
	Data json.RawMessage `json:"data"`
	// Key, when set, deduplicates appends in a cluster: a durable log
	// drops an event whose Key was appended within its dedupe window
	// (JetStream's Nats-Msg-Id, the store's recent keys). Not serialised.
	Key string `json:"-"`
}

// ErrExpired is returned by Since when the cursor is older than the
// retention window: events after it were dropped, so the reader must
// resynchronise (the SSE stream sends a `reset` event).
var ErrExpired = errors.New("events: cursor older than the retention window")

// Memory is an in-memory log retaining the last Capacity events. It is safe
// for concurrent use.
type Memory struct {
	mu      sync.Mutex
	buf     []Event // ring, len == capacity once full
	start   int     // index of the oldest event in buf
	n       int     // events held
	next    uint64  // ID the next Append assigns
	changed chan struct{}
	now     func() time.Time
}

// NewMemory returns a log holding at most capacity events (capacity ≥ 1).
// now may be nil (time.Now).
func NewMemory(capacity int, now func() time.Time) *Memory {
	if capacity < 1 {
		capacity = 1
	}
	if now == nil {
		now = time.Now
	}
	return &Memory{buf: make([]Event, capacity), next: 1, changed: make(chan struct{}), now: now}
}

// Append assigns e its ID and time and adds it, dropping the oldest event
// when full. It returns the stored event.
func (m *Memory) Append(_ context.Context, e Event) (Event, error) {
	if e.Type == "" || e.Topic == "" {
		return Event{}, fmt.Errorf("events: append: type and topic are required")
	}
	m.mu.Lock()
	e.ID = m.next
	m.next++
	e.Time = m.now().UTC()
	m.pushUnlock(e)
	return e, nil
}

// Last returns the ID of the newest event (0 when none was ever appended).
func (m *Memory) Last() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.next - 1
}

// Since returns up to limit events with ID > after, oldest first. It
// returns ErrExpired when events after `after` were already dropped.
func (m *Memory) Since(_ context.Context, after uint64, limit int) ([]Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if after >= m.next-1 {
		return nil, nil
	}
	if m.n == 0 {
		return nil, ErrExpired // events after `after` existed and are gone
	}
	oldest := m.buf[m.start].ID
	if after+1 < oldest {
		return nil, ErrExpired
	}
	skip := int(after + 1 - oldest)
	k := m.n - skip
	if limit > 0 && k > limit {
		k = limit
	}
	out := make([]Event, k)
	for i := range k {
		out[i] = m.buf[(m.start+skip+i)%len(m.buf)]
	}
	return out, nil
}

// Wait blocks until an event with ID > after exists or ctx ends.
func (m *Memory) Wait(ctx context.Context, after uint64) error {
	for {
		m.mu.Lock()
		if m.next-1 > after {
			m.mu.Unlock()
			return nil
		}
		ch := m.changed
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// pushUnlock adds e to the ring (dropping the oldest event when full),
// releases m.mu and wakes the waiters. m.mu must be held.
func (m *Memory) pushUnlock(e Event) {
	capacity := len(m.buf)
	if m.n < capacity {
		m.buf[(m.start+m.n)%capacity] = e
		m.n++
	} else {
		m.buf[m.start] = e
		m.start = (m.start + 1) % capacity
	}
	ch := m.changed
	m.changed = make(chan struct{})
	m.mu.Unlock()
	close(ch)
}

// Put adds an event whose ID was assigned elsewhere (a durable log this
// ring mirrors). An event at or below Last is ignored (false); an event
// after a gap empties the ring first, so cursors before it get ErrExpired.
// Put keeps e.Time.
func (m *Memory) Put(e Event) bool {
	m.mu.Lock()
	if e.ID == 0 || e.ID < m.next {
		m.mu.Unlock()
		return false
	}
	if e.ID != m.next {
		m.start, m.n = 0, 0
	}
	m.next = e.ID + 1
	m.pushUnlock(e)
	return true
}

// Trim drops the events appended before t (the retention window); the
// cursor keeps counting.
func (m *Memory) Trim(t time.Time) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	dropped := 0
	for m.n > 0 && m.buf[m.start].Time.Before(t) {
		m.buf[m.start] = Event{}
		m.start = (m.start + 1) % len(m.buf)
		m.n--
		dropped++
	}
	return dropped
}

// First returns the ID of the oldest event held (0 when none).
func (m *Memory) First() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == 0 {
		return 0
	}
	return m.buf[m.start].ID
}

// Advance records that the log this ring mirrors has assigned every ID up
// to last and retains none of those the ring lacks: an empty ring then
// answers cursors below last with ErrExpired, and Put continues after it.
func (m *Memory) Advance(last uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == 0 && m.next <= last {
		m.next = last + 1
	}
}
