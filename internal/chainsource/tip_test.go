package chainsource

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/poll"
	"github.com/assetd/assetd/internal/solanaws"
	"github.com/coder/websocket"
)

// TestTipWakesTheFollower runs the follower with a pause (Poll, TipPoll)
// of an hour against the test JSON-RPC node, and a slotSubscribe client
// (internal/solanaws) against an httptest websocket server speaking the
// documented notification shape: a new slot notification alone makes it
// step again and store the new block. The slots are the test's (100, 101,
// 102, 103), the transactions recorded ones, the legs fakeDecode's
// synthetic ones.
func TestTipWakesTheFollower(t *testing.T) {
	txs := loadRecorded(t)
	w := newWorld(t, txs)
	w.chain.mu.Lock()
	w.chain.head = 100
	w.chain.blocks = map[int64][]recordedTx{100: {txs[0]}}
	w.chain.failN, w.chain.limit = map[int64]int{}, map[int64]int{}
	w.chain.mu.Unlock()

	conns := make(chan *websocket.Conn)
	ws := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(rw, r, nil)
		if err != nil {
			return
		}
		defer func() { _ = c.CloseNow() }()
		if _, req, err := c.Read(r.Context()); err != nil || !strings.Contains(string(req), `"method":"slotSubscribe"`) {
			return
		}
		select {
		case conns <- c:
		case <-r.Context().Done():
			return
		}
		<-c.CloseRead(r.Context()).Done() // until the client closes
	}))
	t.Cleanup(ws.Close)
	tip := solanaws.New(solanaws.Config{URL: "ws" + strings.TrimPrefix(ws.URL, "http")})
	ctx, cancel := context.WithCancel(context.Background())
	var wsDone, srcDone = make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { cancel(); <-wsDone; <-srcDone })
	go func() { defer close(wsDone); _ = tip.Run(ctx) }()
	var conn *websocket.Conn
	select {
	case conn = <-conns:
	case <-time.After(time.Minute): // a guard against hanging only
		close(srcDone)
		t.Fatal("no websocket connection")
	}
	send := func(msg string) {
		t.Helper()
		if err := conn.Write(t.Context(), websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","result":5,"id":1}`)
	send(`{"jsonrpc":"2.0","method":"slotNotification","params":{"result":{"parent":100,"root":69,"slot":101},"subscription":5}}`)
	poll.For(t, time.Minute, "the first notification", func() bool { s, _ := tip.Latest(); return s.Slot == 101 })

	p := w.start(t, Config{Poll: time.Hour, TipPoll: time.Hour, Tip: tip})
	go func() { defer close(srcDone); _ = p.src.Run(ctx) }()
	// Step 1 stores slot 100; notification 101 is newer than that head,
	// so step 2 follows at once and finds nothing new; then the follower
	// waits for a slot newer than 101.
	getSlots := func() int {
		w.chain.mu.Lock()
		defer w.chain.mu.Unlock()
		return w.chain.calls["getSlot"]
	}
	poll.For(t, time.Minute, "two steps", func() bool { return getSlots() >= 2 && p.src.Status().ContiguousThroughSlot == 100 })
	if st := p.src.Status(); st.Websocket != WebsocketConnected || st.State != StateFollowing {
		t.Fatalf("status %+v, want following with the websocket connected", st)
	}
	// Slot 102 is confirmed now; without a notification the follower
	// would not look before an hour.
	w.chain.mu.Lock()
	w.chain.head = 102
	w.chain.blocks[102] = []recordedTx{txs[1]}
	w.chain.mu.Unlock()
	if n := getSlots(); n != 2 {
		t.Fatalf("%d getSlot calls before the notification, want 2", n)
	}
	send(`{"jsonrpc":"2.0","method":"slotNotification","params":{"result":{"parent":102,"root":71,"slot":103},"subscription":5}}`)
	poll.For(t, time.Minute, "block 102 stored after the notification", func() bool { return p.src.Status().ContiguousThroughSlot == 102 })
	want := []string{txs[0].Sig + "/0", txs[1].Sig + "/0"}
	slices.Sort(want)
	if got := storedSigs(t, p.st); !slices.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
	if n := getSlots(); n != 3 {
		t.Fatalf("%d getSlot calls, want 3 (one step per new slot)", n)
	}
}

// fakeTip is a TipNotifier under the test's control.
type fakeTip struct {
	connected atomic.Bool
	after     atomic.Int64
	wait      func(ctx context.Context) (int64, error)
}

func (f *fakeTip) Connected() bool { return f.connected.Load() }

func (f *fakeTip) WaitSlot(ctx context.Context, after int64) (int64, error) {
	f.after.Store(after)
	return f.wait(ctx)
}

// TestPauseFallsBackToPolling: without a connected socket, after a failed
// step, or when the socket drops while waiting, the pause is Poll (the
// getSlot poll); with one, a notification ends it without a sleep and a
// quiet socket ends it after TipPoll.
func TestPauseFallsBackToPolling(t *testing.T) {
	errDown := errors.New("socket down")
	slot := func(n int64) func(context.Context) (int64, error) {
		return func(context.Context) (int64, error) { return n, nil }
	}
	for _, tc := range []struct {
		name      string
		tip       bool
		connected bool
		failed    bool
		wait      func(context.Context) (int64, error)
		slept     []time.Duration
		tipSeen   int64
		websocket string
	}{
		{name: "no socket", slept: []time.Duration{7 * time.Second}},
		{name: "socket down", tip: true, wait: slot(1), slept: []time.Duration{7 * time.Second}, websocket: WebsocketDisconnected},
		{name: "step failed", tip: true, connected: true, failed: true, wait: slot(1), slept: []time.Duration{7 * time.Second}, websocket: WebsocketConnected},
		{name: "new slot", tip: true, connected: true, wait: slot(205), tipSeen: 205, websocket: WebsocketConnected},
		{name: "drops while waiting", tip: true, connected: true, websocket: WebsocketConnected,
			wait: func(context.Context) (int64, error) { return 0, errDown }, slept: []time.Duration{7 * time.Second}},
		{name: "quiet socket", tip: true, connected: true, websocket: WebsocketConnected,
			wait: func(ctx context.Context) (int64, error) { <-ctx.Done(); return 0, ctx.Err() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var slept []time.Duration
			cfg := Config{Poll: 7 * time.Second, TipPoll: time.Nanosecond, Sleep: func(_ context.Context, d time.Duration) error {
				slept = append(slept, d)
				return nil
			}}
			ft := &fakeTip{wait: tc.wait}
			ft.connected.Store(tc.connected)
			if tc.tip {
				cfg.Tip = ft
			}
			s := New(cfg)
			s.stats.HeadSlot = 200 // the test's slot numbers
			s.tipSeen = 199
			if err := s.pause(context.Background(), tc.failed); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(slept, tc.slept) {
				t.Fatalf("slept %v, want %v", slept, tc.slept)
			}
			if want := max(tc.tipSeen, 199); s.tipSeen != want {
				t.Fatalf("tipSeen %d, want %d", s.tipSeen, want)
			}
			if tc.tip && tc.connected && !tc.failed && ft.after.Load() != 200 {
				t.Fatalf("waited after %d, want the head 200", ft.after.Load())
			}
			if got := s.Status().Websocket; got != tc.websocket {
				t.Fatalf("status websocket %q, want %q", got, tc.websocket)
			}
		})
	}
}
