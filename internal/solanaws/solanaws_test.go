package solanaws

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The slot numbers below are test-chosen (synthetic), not mainnet slots;
// the message shapes are those of Solana's slotSubscribe documentation
// (https://solana.com/docs/rpc/websocket/slotsubscribe).

// notification is a slotNotification as the docs show it.
func notification(sub, slot, parent, root string) string {
	return `{"jsonrpc":"2.0","method":"slotNotification","params":{"result":{"parent":` + parent + `,"root":` + root + `,"slot":` + slot + `},"subscription":` + sub + `}}`
}

// serverConn is one accepted connection, scripted by the test.
type serverConn struct {
	c    *websocket.Conn
	req  []byte // the first message (the subscription request)
	done chan struct{}
}

func (sc *serverConn) send(t *testing.T, msg string) {
	t.Helper()
	if err := sc.c.Write(t.Context(), websocket.MessageText, []byte(msg)); err != nil {
		t.Fatalf("server write: %v", err)
	}
}

// wsServer accepts websocket connections and hands each to the test.
type wsServer struct {
	srv   *httptest.Server
	conns chan *serverConn
}

func newServer(t *testing.T) *wsServer {
	t.Helper()
	s := &wsServer{conns: make(chan *serverConn)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer func() { _ = c.CloseNow() }()
		_, req, err := c.Read(r.Context())
		if err != nil {
			return
		}
		sc := &serverConn{c: c, req: req, done: make(chan struct{})}
		select {
		case s.conns <- sc:
		case <-r.Context().Done():
			return
		}
		select {
		case <-sc.done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *wsServer) url() string { return "ws" + strings.TrimPrefix(s.srv.URL, "http") }

func (s *wsServer) accept(t *testing.T) *serverConn {
	t.Helper()
	select {
	case sc := <-s.conns:
		t.Cleanup(func() { close(sc.done) })
		return sc
	case <-time.After(time.Minute): // a guard against hanging, not a speed check
		t.Fatal("no connection")
		return nil
	}
}

// start runs a client against s; its Run's result arrives on the channel.
func start(t *testing.T, s *wsServer) (*Client, context.CancelFunc, chan error) {
	t.Helper()
	c := New(Config{URL: s.url(), MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond,
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return c, cancel, done
}

func waitSlot(t *testing.T, c *Client, after int64) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for {
		slot, err := c.WaitSlot(ctx, after)
		if errors.Is(err, ErrNotConnected) {
			// Not subscribed yet (or between connections): wait for the
			// state to change.
			c.mu.Lock()
			ch := c.changed
			c.mu.Unlock()
			if c.Connected() {
				continue
			}
			select {
			case <-ch:
				continue
			case <-ctx.Done():
			}
		}
		if err != nil {
			t.Fatalf("WaitSlot(%d): %v", after, err)
		}
		return slot
	}
}

func TestSubscribesAndKeepsTheNewestSlot(t *testing.T) {
	s := newServer(t)
	c, _, _ := start(t, s)
	sc := s.accept(t)
	if got, want := string(sc.req), `{"jsonrpc":"2.0","id":1,"method":"slotSubscribe"}`; got != want {
		t.Fatalf("subscription request %s, want %s", got, want)
	}
	sc.send(t, `{"jsonrpc":"2.0","result":7,"id":1}`)
	sc.send(t, notification("7", "1000", "999", "968"))
	if got := waitSlot(t, c, 0); got != 1000 {
		t.Fatalf("first slot %d, want 1000", got)
	}
	// Several notifications before the reader looks: only the newest is
	// kept (no queue).
	sc.send(t, notification("7", "1001", "1000", "969"))
	sc.send(t, notification("7", "1003", "1001", "970"))
	sc.send(t, `{"jsonrpc":"2.0","method":"rootNotification","params":{"result":970,"subscription":8}}`) // another method: ignored
	sc.send(t, notification("7", "1004", "1003", "971"))
	if got := waitSlot(t, c, 1003); got != 1004 {
		t.Fatalf("slot after 1003: %d, want 1004", got)
	}
	if l, _ := c.Latest(); l != (Slot{Slot: 1004, Parent: 1003, Root: 971}) {
		t.Fatalf("latest %+v", l)
	}
	st := c.State()
	if !st.Connected || st.Connects != 1 || st.LastError != "" {
		t.Fatalf("state %+v, want connected once without error", st)
	}
	// A notification of another subscription id is not ours.
	sc.send(t, notification("9", "2000", "1999", "1900"))
	sc.send(t, notification("7", "1005", "1004", "972"))
	if got := waitSlot(t, c, 1004); got != 1005 {
		t.Fatalf("slot after 1004: %d, want 1005 (subscription 9 is not ours)", got)
	}
}

func TestReconnectsAfterTheServerCloses(t *testing.T) {
	s := newServer(t)
	c, _, _ := start(t, s)
	first := s.accept(t)
	first.send(t, `{"jsonrpc":"2.0","result":3,"id":1}`)
	first.send(t, notification("3", "500", "499", "468"))
	waitSlot(t, c, 0)
	if err := first.c.Close(websocket.StatusGoingAway, "restarting"); err != nil {
		t.Fatalf("server close: %v", err)
	}
	second := s.accept(t)
	if string(second.req) != `{"jsonrpc":"2.0","id":1,"method":"slotSubscribe"}` {
		t.Fatalf("resubscription request %s", second.req)
	}
	second.send(t, `{"jsonrpc":"2.0","result":4,"id":1}`)
	second.send(t, notification("4", "502", "501", "470"))
	if got := waitSlot(t, c, 500); got != 502 {
		t.Fatalf("slot after reconnect %d, want 502", got)
	}
	st := c.State()
	if !st.Connected || st.Connects != 2 {
		t.Fatalf("state %+v, want connected twice", st)
	}
}

func TestAnswersPingsAndClosesOnShutdown(t *testing.T) {
	s := newServer(t)
	c, cancel, done := start(t, s)
	sc := s.accept(t)
	sc.send(t, `{"jsonrpc":"2.0","result":1,"id":1}`)
	sc.send(t, notification("1", "10", "9", "0"))
	waitSlot(t, c, 0)
	// The server's reader runs while it pings: the client's pong ends
	// Ping.
	read := make(chan error, 1)
	go func() {
		_, _, err := sc.c.Read(context.Background())
		read <- err
	}()
	ctx, cancelPing := context.WithTimeout(t.Context(), time.Minute)
	defer cancelPing()
	if err := sc.c.Ping(ctx); err != nil {
		t.Fatalf("ping not answered: %v", err)
	}
	cancel()
	if err := <-read; websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("server read after client shutdown: %v, want a close frame with status going away", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	done <- nil // for the cleanup
	if c.Connected() {
		t.Fatal("still connected after Run ended")
	}
}

func TestRefusedOrMalformedEndsTheConnection(t *testing.T) {
	for _, tc := range []struct{ name, msg, lastError string }{
		{"refused", `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}`, "slotSubscribe refused: error -32601: Method not found"},
		{"malformed", `{"jsonrpc":"2.0","method":"slotNotification","params":{"result":{"slot":"x"},"subscription":1}}`, "slotNotification result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			c, _, _ := start(t, s)
			if _, err := c.WaitSlot(t.Context(), 0); !errors.Is(err, ErrNotConnected) {
				t.Fatalf("WaitSlot before a subscription: %v, want ErrNotConnected", err)
			}
			sc := s.accept(t)
			closed := sc.c.CloseRead(t.Context()) // the server answers the client's close
			sc.send(t, tc.msg)
			<-closed.Done()
			again := s.accept(t) // redialled
			if st := c.State(); st.Connected || !strings.Contains(st.LastError, tc.lastError) {
				t.Fatalf("state %+v, want disconnected with %q", st, tc.lastError)
			}
			again.send(t, `{"jsonrpc":"2.0","result":2,"id":1}`)
			again.send(t, notification("2", "42", "41", "10"))
			if got := waitSlot(t, c, 0); got != 42 {
				t.Fatalf("slot %d, want 42", got)
			}
		})
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Message
		err      bool
	}{
		{"docs notification", notification("0", "76", "75", "44"), Message{Method: "slotNotification", Slot: &Slot{Slot: 76, Parent: 75, Root: 44}}, false},
		{"subscribe response", `{"jsonrpc":"2.0","result":0,"id":1}`, Message{Response: true, ID: 1}, false},
		{"subscribe error", `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}`, Message{Response: true, ID: 1, Err: &RPCError{Code: -32601, Message: "Method not found"}}, false},
		{"other method", `{"jsonrpc":"2.0","method":"rootNotification","params":{"result":42,"subscription":0}}`, Message{Method: "rootNotification"}, false},
		{"missing root", `{"jsonrpc":"2.0","method":"slotNotification","params":{"result":{"parent":75,"slot":76},"subscription":0}}`, Message{}, true},
		{"missing subscription", `{"jsonrpc":"2.0","method":"slotNotification","params":{"result":{"parent":75,"root":44,"slot":76}}}`, Message{}, true},
		{"negative slot", notification("0", "-1", "0", "0"), Message{}, true},
		{"fractional slot", notification("0", "76.5", "75", "44"), Message{}, true},
		{"slot beyond int64", notification("0", "9223372036854775808", "75", "44"), Message{}, true},
		{"parent after slot", notification("0", "76", "77", "44"), Message{}, true},
		{"root after slot", notification("0", "76", "75", "80"), Message{}, true},
		{"not 2.0", `{"jsonrpc":"1.0","result":0,"id":1}`, Message{}, true},
		{"no id no method", `{"jsonrpc":"2.0","result":0}`, Message{}, true},
		{"string result", `{"jsonrpc":"2.0","result":"a","id":1}`, Message{}, true},
		{"not json", `slot 76`, Message{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.in))
			if (err != nil) != tc.err {
				t.Fatalf("err %v, want error %v", err, tc.err)
			}
			if tc.err {
				return
			}
			if got.Response != tc.want.Response || got.ID != tc.want.ID || got.Method != tc.want.Method || got.Subscription != tc.want.Subscription ||
				(got.Slot == nil) != (tc.want.Slot == nil) || (got.Slot != nil && *got.Slot != *tc.want.Slot) ||
				(got.Err == nil) != (tc.want.Err == nil) || (got.Err != nil && *got.Err != *tc.want.Err) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	const lo, hi = 500 * time.Millisecond, 30 * time.Second
	for _, tc := range []struct {
		attempt int
		jitter  float64
		want    time.Duration
	}{
		{0, 0, 250 * time.Millisecond},
		{0, 0.999999, 500 * time.Millisecond},
		{1, 0, 500 * time.Millisecond},
		{3, 0.5, 3 * time.Second},
		{6, 0, 15 * time.Second},
		{7, 0, 15 * time.Second}, // capped at 30 s before jitter
		{100, 0.999999, hi},
	} {
		got := Backoff(lo, hi, tc.attempt, tc.jitter)
		if d := got - tc.want; d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("Backoff(attempt %d, jitter %v) = %v, want %v", tc.attempt, tc.jitter, got, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(notification("0", "76", "75", "44")))
	f.Add([]byte(`{"jsonrpc":"2.0","result":0,"id":1}`))
	f.Add([]byte(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"rootNotification","params":{"result":42,"subscription":0}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		if m.Slot != nil {
			s := *m.Slot
			if s.Slot < 0 || s.Parent < 0 || s.Root < 0 || s.Parent > s.Slot || s.Root > s.Slot || m.Subscription < 0 {
				t.Fatalf("implausible notification accepted: %+v sub %d", s, m.Subscription)
			}
			if m.Method != "slotNotification" || m.Response {
				t.Fatalf("slot on a %+v", m)
			}
		}
		if m.Response && (m.ID < 0 || m.Subscription < 0 || m.Method != "") {
			t.Fatalf("implausible response accepted: %+v", m)
		}
	})
}
