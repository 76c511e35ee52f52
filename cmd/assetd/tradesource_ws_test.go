package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestSolanaWSURLFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want string // wsURL, or the error's text
		err  bool
	}{
		{name: "flag", args: []string{"--solana-rpc-url", "http://127.0.0.1:1", "--solana-ws-url", "ws://127.0.0.1:2"}, want: "ws://127.0.0.1:2"},
		{name: "env", args: []string{"--solana-rpc-url", "https://rpc.example"}, env: "wss://rpc.example/ws", want: "wss://rpc.example/ws"},
		{name: "not ws", args: []string{"--solana-rpc-url", "http://127.0.0.1:1", "--solana-ws-url", "http://127.0.0.1:2"}, want: "--solana-ws-url must be a ws(s) URL", err: true},
		{name: "without rpc", args: []string{"--solana-ws-url", "ws://127.0.0.1:2"}, want: "--solana-ws-url needs --solana-rpc-url", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("ASSETD_SOLANA_WS_URL", tc.env)
			}
			cfg, err := quietCLI().parseServe(append([]string{"--data-dir", t.TempDir()}, tc.args...))
			if tc.err {
				var u usageError
				if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v; want a usage error with %q", err, tc.want)
				}
				return
			}
			if err != nil || cfg.tradeSource.wsURL != tc.want {
				t.Fatalf("wsURL %q, %v; want %q", cfg.tradeSource.wsURL, err, tc.want)
			}
		})
	}
}

// TestServeSolanaWSReportsTheSocket: serve with --solana-rpc-url and
// --solana-ws-url subscribes to slots, GET /v1/internal/trades/source
// says the socket is connected, and once the socket is gone (the server
// closes it and refuses new ones) it says disconnected while the follower
// keeps polling getSlot. Slots are test-chosen (synthetic): no block is
// produced, so nothing is stored.
func TestServeSolanaWSReportsTheSocket(t *testing.T) {
	var mu sync.Mutex
	getSlots := 0
	rpc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     uint64 `json:"id"`
			Method string `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		var result any
		switch req.Method {
		case "getSlot":
			mu.Lock()
			getSlots++
			mu.Unlock()
			result = 5000
		case "getBlocks":
			result = []int64{}
		default:
			http.Error(w, "unexpected method", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}))
	t.Cleanup(rpc.Close)

	subscribed := make(chan *websocket.Conn, 1)
	var refuse bool
	ws := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		no := refuse
		mu.Unlock()
		if no {
			http.Error(w, "no more sockets", http.StatusServiceUnavailable)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer func() { _ = c.CloseNow() }()
		if _, req, err := c.Read(r.Context()); err != nil || string(req) != `{"jsonrpc":"2.0","id":1,"method":"slotSubscribe"}` {
			t.Errorf("subscription request %s, %v", req, err)
			return
		}
		_ = c.Write(r.Context(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","result":0,"id":1}`))
		_ = c.Write(r.Context(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","method":"slotNotification","params":{"result":{"parent":5000,"root":4968,"slot":5001},"subscription":0}}`))
		select {
		case subscribed <- c: // the first socket; later ones (none expected) are not handed over
		default:
		}
		<-c.CloseRead(r.Context()).Done()
	}))
	t.Cleanup(ws.Close)

	dir := t.TempDir()
	key := strings.TrimSpace(mustCLI(t, "keys", "create", "--data-dir", dir, "--project", "indexer", "--scopes", "trades:write"))
	s := startServer(t, "--data-dir", dir, "--solana-rpc-url", rpc.URL, "--solana-ws-url", "ws"+strings.TrimPrefix(ws.URL, "http"))
	hdr := map[string]string{"X-Api-Key": key}
	websocketState := func() any {
		code, _, body := s.get(t, "/v1/internal/trades/source", hdr)
		if code != 200 {
			return code
		}
		return body["websocket"]
	}
	var conn *websocket.Conn
	select {
	case conn = <-subscribed:
	case <-time.After(eventuallyDeadline):
		t.Fatalf("serve never subscribed\n%s", s.logs)
	}
	eventually(t, time.Second, "status websocket connected", func() bool { return websocketState() == "connected" })

	mu.Lock()
	refuse = true
	mu.Unlock()
	_ = conn.Close(websocket.StatusGoingAway, "test closes the socket")
	eventually(t, time.Second, "status websocket disconnected", func() bool { return websocketState() == "disconnected" })
	mu.Lock()
	before := getSlots
	mu.Unlock()
	eventually(t, time.Second, "getSlot polled without the socket", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return getSlots > before
	})
}
