package events

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Reader is the part of a log the hub and the webhook dispatcher read:
// Memory, Stored and the JetStream log implement it.
type Reader interface {
	Last() uint64
	Since(ctx context.Context, after uint64, limit int) ([]Event, error)
	Wait(ctx context.Context, after uint64) error
}

// Stream defaults (docs/events.md "Limits").
const (
	DefaultClientBuffer   = 256
	DefaultConnsPerKey    = 10
	DefaultTopicsPerKey   = 100
	DefaultHeartbeat      = 15 * time.Second
	DefaultReplayPage     = 500
	hubPage               = 1024
	hubRetryAfterReadFail = time.Second
)

// Limit errors of Subscribe (429 on the stream).
var (
	ErrTooManyConns  = errors.New("events: too many stream connections for this key")
	ErrTooManyTopics = errors.New("events: too many stream topics for this key")
)

// HubOptions configure a Hub; zero values take the defaults.
type HubOptions struct {
	// Buffer is how many events one client may have queued; a client
	// further behind is cut with an overflow event.
	Buffer int
	// ConnsPerKey and TopicsPerKey bound one key's open streams and the
	// topics they hold together.
	ConnsPerKey, TopicsPerKey int
	Log                       *slog.Logger
}

// Frame is one event as the stream writes it: the SSE bytes, encoded once
// for every subscriber.
type Frame struct {
	ID    uint64
	Topic string
	Bytes []byte
}

// Hub fans the log out to stream subscribers: one goroutine (Run) reads
// the log in order and queues each event's frame, without blocking, on
// every subscriber of its topic.
type Hub struct {
	src  Reader
	opts HubOptions

	mu      sync.Mutex
	pos     uint64 // last event dispatched
	started bool
	byTopic map[string]map[*Sub]struct{}
	perKey  map[string]*keyUse
	clients atomic.Int64
	cut     atomic.Int64
}

type keyUse struct{ conns, topics int }

// NewHub returns a hub over src; call Run.
func NewHub(src Reader, opts HubOptions) *Hub {
	if opts.Buffer <= 0 {
		opts.Buffer = DefaultClientBuffer
	}
	if opts.ConnsPerKey <= 0 {
		opts.ConnsPerKey = DefaultConnsPerKey
	}
	if opts.TopicsPerKey <= 0 {
		opts.TopicsPerKey = DefaultTopicsPerKey
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Hub{src: src, opts: opts, byTopic: map[string]map[*Sub]struct{}{}, perKey: map[string]*keyUse{}}
}

// Source is the log the hub reads (for replays).
func (h *Hub) Source() Reader { return h.src }

// Clients is the number of open subscriptions; Overflows how many were cut.
func (h *Hub) Clients() int64   { return h.clients.Load() }
func (h *Hub) Overflows() int64 { return h.cut.Load() }

// Sub is one stream subscription.
type Sub struct {
	h      *Hub
	key    string
	topics []string
	// From is the last event the hub had dispatched when the subscription
	// started: live frames are the events after it.
	From uint64
	ch   chan *Frame
	over atomic.Bool
	once sync.Once
}

// C delivers the subscription's live frames in cursor order. It is closed
// when the subscriber fell more than the buffer behind (Overflowed).
func (s *Sub) C() <-chan *Frame { return s.ch }

// Overflowed reports that the subscriber was cut for falling behind.
func (s *Sub) Overflowed() bool { return s.over.Load() }

// Topics are the subscription's topics.
func (s *Sub) Topics() []string { return s.topics }

// Subscribe registers a subscriber of topics for key (an API key id),
// within the key's limits.
func (h *Hub) Subscribe(key string, topics []string) (*Sub, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	u := h.perKey[key]
	if u == nil {
		u = &keyUse{}
	}
	if u.conns+1 > h.opts.ConnsPerKey {
		return nil, ErrTooManyConns
	}
	if u.topics+len(topics) > h.opts.TopicsPerKey {
		return nil, ErrTooManyTopics
	}
	u.conns++
	u.topics += len(topics)
	h.perKey[key] = u
	if !h.started {
		// Before Run's first read: live starts at the log's end.
		h.pos, h.started = h.src.Last(), true
	}
	s := &Sub{h: h, key: key, topics: topics, From: h.pos, ch: make(chan *Frame, h.opts.Buffer)}
	for _, t := range topics {
		m := h.byTopic[t]
		if m == nil {
			m = map[*Sub]struct{}{}
			h.byTopic[t] = m
		}
		m[s] = struct{}{}
	}
	h.clients.Add(1)
	return s, nil
}

// Close unregisters the subscription and frees its key's share.
func (s *Sub) Close() {
	s.once.Do(func() {
		h := s.h
		h.mu.Lock()
		defer h.mu.Unlock()
		h.detach(s)
		if u := h.perKey[s.key]; u != nil {
			u.conns--
			u.topics -= len(s.topics)
			if u.conns <= 0 {
				delete(h.perKey, s.key)
			}
		}
		h.clients.Add(-1)
	})
}

// detach removes s from the topic index (h.mu held).
func (h *Hub) detach(s *Sub) {
	for _, t := range s.topics {
		if m := h.byTopic[t]; m != nil {
			delete(m, s)
			if len(m) == 0 {
				delete(h.byTopic, t)
			}
		}
	}
}

// Run dispatches the log's events until ctx ends.
func (h *Hub) Run(ctx context.Context) {
	h.mu.Lock()
	if !h.started {
		h.pos, h.started = h.src.Last(), true
	}
	h.mu.Unlock()
	for {
		h.mu.Lock()
		pos := h.pos
		h.mu.Unlock()
		if err := h.src.Wait(ctx, pos); err != nil {
			return
		}
		evs, err := h.src.Since(ctx, pos, hubPage)
		if errors.Is(err, ErrExpired) {
			// The hub fell behind the log's window (it never should): every
			// subscriber may have missed events, so every one is cut.
			h.opts.Log.Warn("event hub fell behind the log's window; cutting every stream", "pos", pos)
			h.overflowAll(h.src.Last())
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			h.opts.Log.Warn("event hub: reading the log failed", "err", err)
			t := time.NewTimer(hubRetryAfterReadFail)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			continue
		}
		h.dispatch(evs)
	}
}

// dispatch queues evs (in order, after pos) on their subscribers.
func (h *Hub) dispatch(evs []Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range evs {
		e := &evs[i]
		if e.ID <= h.pos {
			continue
		}
		h.pos = e.ID
		subs := h.byTopic[e.Topic]
		if len(subs) == 0 {
			continue
		}
		f := &Frame{ID: e.ID, Topic: e.Topic, Bytes: EncodeSSE(e)}
		for s := range subs {
			select {
			case s.ch <- f:
			default:
				h.cutLocked(s)
			}
		}
	}
}

// cutLocked marks s overflowed, detaches it and closes its channel.
func (h *Hub) cutLocked(s *Sub) {
	if s.over.Swap(true) {
		return
	}
	h.detach(s)
	close(s.ch)
	h.cut.Add(1)
}

func (h *Hub) overflowAll(last uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.byTopic {
		for s := range m {
			h.cutLocked(s)
		}
	}
	h.pos = last
}

// EncodeSSE is the event as one SSE message: id (the cursor), event (the
// type) and data (the event as JSON, one line).
func EncodeSSE(e *Event) []byte {
	body, err := json.Marshal(e)
	if err != nil {
		body = []byte(`{}`)
	}
	b := make([]byte, 0, len(body)+len(e.Type)+40)
	b = append(b, "id: "...)
	b = strconv.AppendUint(b, e.ID, 10)
	b = append(b, "\nevent: "...)
	b = append(b, e.Type...)
	b = append(b, "\ndata: "...)
	b = append(b, body...)
	return append(b, "\n\n"...)
}

// Control messages of the stream (docs/events.md).
const (
	// EventReset: the cursor is older than the window; resynchronise.
	EventReset = "reset"
	// EventOverflow: the client fell too far behind and is disconnected.
	EventOverflow = "overflow"
)

// ControlSSE encodes a control message. A reset carries id (the cursor
// the client continues from); an overflow none, so the client's
// Last-Event-ID stays the last event it received.
func ControlSSE(kind string, id uint64, data any) []byte {
	body, err := json.Marshal(data)
	if err != nil {
		body = []byte(`{}`)
	}
	var b []byte
	if kind == EventReset {
		b = append(b, "id: "...)
		b = strconv.AppendUint(b, id, 10)
		b = append(b, '\n')
	}
	b = append(b, "event: "...)
	b = append(b, kind...)
	b = append(b, "\ndata: "...)
	b = append(b, body...)
	return append(b, "\n\n"...)
}

// Heartbeat is the SSE comment sent while the stream is idle.
var Heartbeat = []byte(": heartbeat\n\n")

// Matcher reports whether a topic is among a subscription's.
func Matcher(topics []string) func(string) bool {
	set := make(map[string]struct{}, len(topics))
	for _, t := range topics {
		set[t] = struct{}{}
	}
	return func(t string) bool { _, ok := set[t]; return ok }
}
