package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/events"
	"github.com/assetd/assetd/internal/poll"
	"github.com/assetd/assetd/internal/ratelimit"
)

// Synthetic mints (well-formed addresses, no real token).
const (
	streamMintA = "So11111111111111111111111111111111111111112"
	streamMintB = "11111111111111111111111111111111"
)

type streamEnv struct {
	h    *harness
	log  *events.Memory
	hub  *events.Hub
	beat chan time.Time
	srv  *httptest.Server
}

func newStreamEnv(t *testing.T, capacity int, opts events.HubOptions) *streamEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := &streamEnv{h: newHarness(t, ratelimit.Policy{}), log: events.NewMemory(capacity, nil), beat: make(chan time.Time)}
	e.hub = events.NewHub(e.log, opts)
	go e.hub.Run(ctx)
	e.h.srv.d.Stream = e.hub
	e.h.srv.d.StreamHeartbeat = func() (<-chan time.Time, func()) { return e.beat, func() {} }
	e.h.srv.d.CORSOrigins = []string{"https://wallet.example"}
	e.h.h = e.h.srv.build(nil)
	e.srv = httptest.NewServer(e.h.h)
	t.Cleanup(e.srv.Close)
	return e
}

func (e *streamEnv) append(t *testing.T, topic string, n int) {
	t.Helper()
	typ := events.TypeTrending
	if strings.HasPrefix(topic, "price:") {
		typ = events.TypePrice
	}
	for i := 0; i < n; i++ {
		if _, err := e.log.Append(context.Background(), events.Event{Type: typ, Topic: topic, Data: json.RawMessage(`{"synthetic":true}`)}); err != nil {
			t.Fatal(err)
		}
	}
}

// sseMsg is one parsed SSE message.
type sseMsg struct {
	id, event, data, comment string
}

type sseConn struct {
	t      *testing.T
	resp   *http.Response
	r      *bufio.Reader
	cancel context.CancelFunc
}

// open connects a stream; the response (headers, status, first bytes) is
// checked against the contract.
func (e *streamEnv) open(t *testing.T, key, query string, hdr map[string]string) *sseConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard, not a timing assertion
	req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/v1/stream?"+query, nil)
	req.Header.Set("X-Api-Key", e.h.plain[key])
	req.Header.Set("Accept-Encoding", "gzip")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	c := &sseConn{t: t, resp: resp, r: bufio.NewReader(resp.Body), cancel: cancel}
	t.Cleanup(c.close)
	var body []byte
	if resp.StatusCode != http.StatusOK {
		body = readAll(resp)
	}
	creq := httptest.NewRequest("GET", "/v1/stream?"+query, nil)
	checkContract(t, creq, resp.StatusCode, resp.Header, body)
	if body != nil {
		c.resp.Body = nopBody{strings.NewReader(string(body))}
		c.r = bufio.NewReader(c.resp.Body)
	}
	return c
}

type nopBody struct{ *strings.Reader }

func (nopBody) Close() error { return nil }

func readAll(resp *http.Response) []byte {
	var b strings.Builder
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			return []byte(b.String())
		}
	}
}

func (c *sseConn) close() { c.cancel(); c.resp.Body.Close() }

// next reads one message (a heartbeat comment counts as one).
func (c *sseConn) next() sseMsg {
	c.t.Helper()
	var m sseMsg
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			c.t.Fatalf("stream ended: %v (partial %+v)", err, m)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if m != (sseMsg{}) {
				return m
			}
		case strings.HasPrefix(line, ":"):
			m.comment = strings.TrimSpace(line[1:])
		case strings.HasPrefix(line, "id: "):
			m.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			m.event = line[7:]
		case strings.HasPrefix(line, "data: "):
			m.data = line[6:]
		default:
			c.t.Fatalf("unexpected SSE line %q", line)
		}
	}
}

func (c *sseConn) ids(n int) []uint64 {
	c.t.Helper()
	var out []uint64
	for len(out) < n {
		m := c.next()
		if m.comment != "" {
			continue
		}
		id, err := strconv.ParseUint(m.id, 10, 64)
		if err != nil {
			c.t.Fatalf("message without an id: %+v", m)
		}
		var ev events.Event
		if err := json.Unmarshal([]byte(m.data), &ev); err != nil || ev.ID != id || ev.Type != m.event {
			c.t.Fatalf("data %q does not match id %s event %s: %v", m.data, m.id, m.event, err)
		}
		out = append(out, id)
	}
	return out
}

func TestStreamRefusals(t *testing.T) {
	e := newStreamEnv(t, 16, events.HubOptions{})
	for _, tc := range []struct {
		name, key, query string
		hdr              map[string]string
		status           int
		code             string
	}{
		{"missing topics", "read", "", nil, 400, events.CodeMissingTopics},
		{"unknown topic", "read", "topics=prices", nil, 400, events.CodeInvalidTopic},
		{"bad mint", "read", "topics=price:xyz", nil, 400, events.CodeInvalidTopic},
		{"bad cursor", "read", "topics=trending", map[string]string{"Last-Event-ID": "abc"}, 400, "invalid_param"},
		{"bad since", "read", "topics=trending&since=-1", nil, 400, "invalid_param"},
		{"scope", "none", "topics=trending", nil, 403, "insufficient_scope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.h.do(t, "GET", "/v1/stream?"+tc.query, withKey(e.h.plain[tc.key], tc.hdr), nil)
			if r.status != tc.status || errCode(r) != tc.code {
				t.Fatalf("%d %s, want %d %s: %s", r.status, errCode(r), tc.status, tc.code, r.raw)
			}
			if tc.status == 400 && errTag(r) != "BadRequestError" {
				t.Fatalf("tag %s", errTag(r))
			}
		})
	}
}

func withKey(key string, hdr map[string]string) map[string]string {
	out := map[string]string{"X-Api-Key": key}
	for k, v := range hdr {
		out[k] = v
	}
	return out
}

func TestStreamPerKeyLimits(t *testing.T) {
	e := newStreamEnv(t, 16, events.HubOptions{ConnsPerKey: 2, TopicsPerKey: 3})
	a := e.open(t, "read", "topics=trending,depeg", nil)
	if a.resp.StatusCode != 200 {
		t.Fatalf("first stream: %d", a.resp.StatusCode)
	}
	over := e.open(t, "read", "topics=advisories,price:"+streamMintA, nil)
	if over.resp.StatusCode != 429 || !strings.Contains(string(readAll(over.resp)), `"limit":"stream_topics"`) ||
		over.resp.Header.Get("Retry-After") == "" {
		t.Fatalf("topics over the limit: %d", over.resp.StatusCode)
	}
	b := e.open(t, "read", "topics=advisories", nil)
	if b.resp.StatusCode != 200 {
		t.Fatalf("second stream: %d", b.resp.StatusCode)
	}
	third := e.open(t, "read", "topics=trending", nil)
	body := string(readAll(third.resp))
	if third.resp.StatusCode != 429 || !strings.Contains(body, `"_tag":"RateLimitedError"`) || !strings.Contains(body, `"limit":"stream_connections"`) {
		t.Fatalf("connections over the limit: %d %s", third.resp.StatusCode, body)
	}
	// Closing a stream frees its share.
	a.close()
	poll.For(t, 30*time.Second, "the closed stream to be released", func() bool { return e.hub.Clients() == 1 })
	if c := e.open(t, "read", "topics=trending", nil); c.resp.StatusCode != 200 {
		t.Fatalf("after a close: %d", c.resp.StatusCode)
	}
}

// The stream's headers and framing; a client that disconnects while
// events are appended and comes back with Last-Event-ID gets exactly the
// events it missed on its topics, then the live ones: no gap, no
// duplicate.
func TestStreamResumeContiguous(t *testing.T) {
	e := newStreamEnv(t, 1000, events.HubOptions{})
	topics := "topics=price:" + streamMintA + ",trending"
	c := e.open(t, "read", topics, map[string]string{"Origin": "https://wallet.example"})
	h := c.resp.Header
	if c.resp.StatusCode != 200 || h.Get("Content-Type") != "text/event-stream" || h.Get("Cache-Control") != "no-store" ||
		h.Get("Content-Encoding") != "" || h.Get("Access-Control-Allow-Origin") != "https://wallet.example" || h.Get("X-Request-Id") == "" {
		t.Fatalf("status %d headers %v", c.resp.StatusCode, h)
	}
	e.beat <- time.Now()
	if m := c.next(); m.comment != "heartbeat" {
		t.Fatalf("heartbeat: %+v", m)
	}
	e.append(t, "price:"+streamMintA, 2) // 1-2
	e.append(t, "price:"+streamMintB, 1) // 3: not subscribed
	e.append(t, "trending", 1)           // 4
	if got := c.ids(3); !equalIDs(got, 1, 2, 4) {
		t.Fatalf("live ids %v", got)
	}
	c.close()
	// "Disconnected" while events keep coming (the 60 s of the acceptance,
	// as appended events rather than time).
	for i := 0; i < 20; i++ {
		e.append(t, "price:"+streamMintA, 1)
		e.append(t, "price:"+streamMintB, 1)
		e.append(t, "trending", 1)
	}
	var want []uint64
	evs, _ := e.log.Since(context.Background(), 4, 1000)
	for _, ev := range evs {
		if ev.Topic != "price:"+streamMintB {
			want = append(want, ev.ID)
		}
	}
	r := e.open(t, "read", topics, map[string]string{"Last-Event-ID": "4"})
	got := r.ids(len(want))
	e.append(t, "trending", 1) // live after the replay
	got = append(got, r.ids(1)...)
	want = append(want, e.log.Last())
	if !equalIDs(got, want...) {
		t.Fatalf("after reconnect\n got %v\nwant %v", got, want)
	}
	// ?since= does the same.
	s := e.open(t, "read", topics+"&since="+strconv.FormatUint(e.log.Last()-1, 10), nil)
	if got := s.ids(1); got[0] != e.log.Last() {
		t.Fatalf("since: %v", got)
	}
}

func equalIDs(got []uint64, want ...uint64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func TestStreamResetOutsideWindow(t *testing.T) {
	e := newStreamEnv(t, 4, events.HubOptions{})
	e.append(t, "trending", 10) // 7-10 retained
	c := e.open(t, "read", "topics=trending", map[string]string{"Last-Event-ID": "2"})
	m := c.next()
	if m.event != events.EventReset || m.id != "10" || !strings.Contains(m.data, `"lastEventId":"10"`) {
		t.Fatalf("reset: %+v", m)
	}
	e.append(t, "trending", 1)
	if got := c.ids(1); got[0] != 11 {
		t.Fatalf("after reset: %v", got)
	}
}

// stuckWriter is a client whose socket is full: writes after the
// headers block until released.
type stuckWriter struct {
	mu      sync.Mutex
	hdr     http.Header
	status  int
	buf     strings.Builder
	started chan struct{}
	release chan struct{}
	blocked bool
	once    sync.Once
}

func (w *stuckWriter) Header() http.Header { return w.hdr }
func (w *stuckWriter) WriteHeader(code int) {
	w.status = code
}
func (w *stuckWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	block := w.blocked
	w.blocked = true
	w.mu.Unlock()
	if block {
		<-w.release
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}
func (w *stuckWriter) Flush() { w.once.Do(func() { close(w.started) }) }

// A client that cannot keep up is cut with a final overflow message once
// its queue is full; the other clients get every event.
func TestStreamOverflow(t *testing.T) {
	e := newStreamEnv(t, 1000, events.HubOptions{Buffer: 4})
	fast := e.open(t, "read", "topics=trending", nil)
	w := &stuckWriter{hdr: http.Header{}, started: make(chan struct{}), release: make(chan struct{})}
	req := httptest.NewRequest("GET", "/v1/stream?topics=trending", nil)
	req.Header.Set("X-Api-Key", e.h.plain["read"])
	done := make(chan struct{})
	go func() { e.h.h.ServeHTTP(w, req); close(done) }()
	<-w.started
	// One event at a time, each read by the fast client before the next:
	// the fast client's queue never holds more than one, while the slow
	// one (its write blocked from the second event on) fills its 4.
	for i := 1; i <= 8; i++ {
		e.append(t, "trending", 1)
		if got := fast.ids(1); got[0] != uint64(i) {
			t.Fatalf("fast client: %v, want %d", got, i)
		}
	}
	if e.hub.Overflows() != 1 {
		t.Fatalf("overflows %d, want the slow client's", e.hub.Overflows())
	}
	close(w.release)
	<-done
	checkContract(t, req, w.status, w.hdr, nil)
	// The overflow message ends the stream, carries no id and names the
	// last event written (the one whose write was blocked, or the one
	// before it).
	out := w.buf.String()
	msgs := strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n")
	last := msgs[len(msgs)-1]
	prev := msgs[len(msgs)-2]
	lastID := strings.TrimPrefix(strings.SplitN(prev, "\n", 2)[0], "id: ")
	if w.status != 200 || !strings.HasPrefix(last, "event: overflow\ndata: {\"lastEventId\":\""+lastID+"\"") || (lastID != "1" && lastID != "2") {
		t.Fatalf("slow client output (%d):\n%s", w.status, out)
	}
	if got := fast.ids(0); len(got) != 0 {
		t.Fatal(got)
	}
}
