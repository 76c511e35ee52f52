package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sink collects a session's output; each Flush marks a boundary.
type sink struct {
	buf     bytes.Buffer
	flushed chan string
}

func newSink() *sink { return &sink{flushed: make(chan string, 100)} }

func (s *sink) Write(p []byte) error { s.buf.Write(p); return nil }
func (s *sink) Flush() error {
	s.flushed <- s.buf.String()
	return nil
}

func appendN(t *testing.T, m *Memory, topic string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := m.Append(context.Background(), Event{Type: TypePrice, Topic: topic, Data: json.RawMessage(`{"i":1}`)}); err != nil {
			t.Fatal(err)
		}
	}
}

// ids returns the ids of the SSE messages in out, in order ("" for a
// message without one: control messages, heartbeats).
func ids(out string) []string {
	var res []string
	for _, msg := range strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n") {
		id := ""
		for _, line := range strings.Split(msg, "\n") {
			if v, ok := strings.CutPrefix(line, "id: "); ok {
				id = v
			}
		}
		res = append(res, id)
	}
	return res
}

func TestPutTrimFirst(t *testing.T) {
	m := NewMemory(4, nil)
	base := time.Unix(1000, 0)
	for i, id := range []uint64{10, 11, 12} {
		if !m.Put(Event{ID: id, Type: TypeTrending, Topic: "trending", Time: base.Add(time.Duration(i) * time.Second)}) {
			t.Fatalf("put %d refused", id)
		}
	}
	if m.Put(Event{ID: 11, Type: TypeTrending, Topic: "trending"}) {
		t.Fatal("put of an old id accepted")
	}
	if m.First() != 10 || m.Last() != 12 {
		t.Fatalf("first %d last %d", m.First(), m.Last())
	}
	if _, err := m.Since(context.Background(), 5, 10); !errors.Is(err, ErrExpired) {
		t.Fatalf("cursor before the first put: %v", err)
	}
	if n := m.Trim(base.Add(1500 * time.Millisecond)); n != 2 || m.First() != 12 {
		t.Fatalf("trim: %d first %d", n, m.First())
	}
	m.Trim(base.Add(time.Hour))
	if _, err := m.Since(context.Background(), 11, 10); !errors.Is(err, ErrExpired) {
		t.Fatalf("emptied ring, old cursor: %v", err)
	}
	if got, err := m.Since(context.Background(), 12, 10); err != nil || len(got) != 0 {
		t.Fatalf("emptied ring, current cursor: %v %v", got, err)
	}
	// A gap (the mirror missed ids) restarts the ring after it.
	m.Put(Event{ID: 20, Type: TypeTrending, Topic: "trending", Time: base.Add(2 * time.Hour)})
	if _, err := m.Since(context.Background(), 12, 10); !errors.Is(err, ErrExpired) {
		t.Fatalf("cursor before a gap: %v", err)
	}
}

func TestParseTopics(t *testing.T) {
	mint := "So11111111111111111111111111111111111111112"
	for _, tc := range []struct {
		in   string
		want []string
		code string
	}{
		{in: "trending,advisories,depeg", want: []string{"trending", "advisories", "depeg"}},
		{in: "price:" + mint + ", list:my-list,price:" + mint, want: []string{"price:" + mint, "list:my-list"}},
		{in: "", code: CodeMissingTopics},
		{in: "prices", code: CodeInvalidTopic},
		{in: "price:notamint", code: CodeInvalidTopic},
		{in: "list:Bad_Slug", code: CodeInvalidTopic},
		{in: "trending,", code: CodeInvalidTopic},
	} {
		got, err := ParseTopics(tc.in)
		if tc.code != "" {
			var te *TopicError
			if !errors.As(err, &te) || te.Code != tc.code {
				t.Errorf("%q: err %v, want code %s", tc.in, err, tc.code)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: %v %v", tc.in, got, err)
		}
	}
}

func TestHubLimits(t *testing.T) {
	h := NewHub(NewMemory(8, nil), HubOptions{ConnsPerKey: 2, TopicsPerKey: 3})
	a, err := h.Subscribe("k", []string{"trending", "depeg"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Subscribe("k", []string{"advisories", "price:x"}); !errors.Is(err, ErrTooManyTopics) {
		t.Fatalf("topics over the key's limit: %v", err)
	}
	b, err := h.Subscribe("k", []string{"advisories"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Subscribe("k", nil); !errors.Is(err, ErrTooManyConns) {
		t.Fatalf("connections over the key's limit: %v", err)
	}
	if _, err := h.Subscribe("other", []string{"trending"}); err != nil {
		t.Fatalf("another key: %v", err)
	}
	a.Close()
	a.Close() // idempotent
	if _, err := h.Subscribe("k", []string{"trending", "depeg"}); err != nil {
		t.Fatalf("after a close: %v", err)
	}
	b.Close()
	if h.Clients() != 2 {
		t.Fatalf("clients %d", h.Clients())
	}
}

// A resumed session replays exactly the events after its cursor on its
// topics, then continues live with no gap and no duplicate.
func TestSessionReplayThenLive(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := NewMemory(100, nil)
	appendN(t, m, "trending", 3) // 1-3
	appendN(t, m, "price:x", 2)  // 4-5 (not subscribed)
	appendN(t, m, "trending", 2) // 6-7
	h := NewHub(m, HubOptions{})
	go h.Run(ctx)
	sub, err := h.Subscribe("k", []string{"trending"})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	out := newSink()
	s := &Session{Sub: sub, Resume: true, After: 2, ReplayPage: 2}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, out) }()
	first := <-out.flushed
	if got := strings.Join(ids(first), ","); got != "3,6,7" {
		t.Fatalf("replay ids %s\n%s", got, first)
	}
	appendN(t, m, "trending", 1) // 8
	var last string
	for !strings.Contains(last, "id: 8\n") {
		last = <-out.flushed
	}
	if got := strings.Join(ids(last), ","); got != "3,6,7,8" {
		t.Fatalf("ids %s", got)
	}
	if !strings.Contains(last, "event: price\ndata: {\"id\":8,\"type\":\"price\",\"topic\":\"trending\"") {
		t.Fatalf("framing:\n%s", last)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("run: %v", err)
	}
}

func TestSessionResetAndHeartbeat(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := NewMemory(3, nil)
	appendN(t, m, "trending", 6) // 4-6 retained
	h := NewHub(m, HubOptions{})
	sub, _ := h.Subscribe("k", []string{"trending"})
	defer sub.Close()
	beat := make(chan time.Time)
	out := newSink()
	go func() { _ = (&Session{Sub: sub, Resume: true, After: 1, Heartbeat: beat}).Run(ctx, out) }()
	first := <-out.flushed
	if !strings.HasPrefix(first, "id: 6\nevent: reset\ndata: {") {
		t.Fatalf("reset:\n%s", first)
	}
	beat <- time.Now()
	if got := <-out.flushed; !strings.HasSuffix(got, ": heartbeat\n\n") {
		t.Fatalf("heartbeat:\n%s", got)
	}
}

// A subscriber that does not read is cut once its buffer is full; the
// others keep every event.
func TestHubOverflow(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := NewMemory(100, nil)
	h := NewHub(m, HubOptions{Buffer: 4})
	slow, _ := h.Subscribe("k", []string{"trending"})
	fast, _ := h.Subscribe("k", []string{"trending"})
	out := newSink()
	done := make(chan error, 1)
	go func() { done <- (&Session{Sub: fast}).Run(ctx, out) }()
	seen := <-out.flushed
	for i := 0; i < 10; i++ {
		appendN(t, m, "trending", 1)
		evs, _ := m.Since(ctx, uint64(i), 10)
		h.dispatch(evs)
		for !strings.Contains(seen, "id: "+strconv.Itoa(i+1)+"\n") {
			seen = <-out.flushed
		}
	}
	if !slow.Overflowed() || fast.Overflowed() || h.Overflows() != 1 {
		t.Fatalf("slow %v fast %v cut %d", slow.Overflowed(), fast.Overflowed(), h.Overflows())
	}
	so := newSink()
	if err := (&Session{Sub: slow}).Run(ctx, so); !errors.Is(err, ErrOverflow) {
		t.Fatalf("slow run: %v", err)
	}
	if got := so.buf.String(); !strings.Contains(got, "event: overflow\ndata: {\"lastEventId\":\"0\"") || strings.Contains(got, "id: 5\n") {
		t.Fatalf("slow output:\n%s", got)
	}
}
