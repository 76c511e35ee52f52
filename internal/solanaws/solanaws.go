// Package solanaws is a small Solana websocket client for one
// subscription, slotSubscribe: it connects (github.com/coder/websocket),
// subscribes, reads slotNotifications ({slot, parent, root}) and keeps
// only the newest slot, so its memory does not grow with the chain or
// with a slow reader. It reconnects with exponential backoff and jitter,
// answers the server's pings (the library does, while reading), echoes a
// server's close and sends its own close when its context ends. A
// connection that delivers no message for IdleTimeout is taken as dead
// and redialled.
//
// It is a tip hint for the JSON-RPC trade source (chainsource.TipNotifier):
// a new slot wakes the follower at once; correctness never depends on it.
package solanaws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/assetd/assetd/internal/ctxwait"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// MaxMessage is the largest message read (a slotNotification is about
// 120 bytes; the library's default is 32 KiB).
const MaxMessage = 4096

// subscribeID is the JSON-RPC id of the one request sent.
const subscribeID = 1

// subscribeRequest is the slotSubscribe request (no params).
var subscribeRequest = []byte(`{"jsonrpc":"2.0","id":1,"method":"slotSubscribe"}`)

// ErrNotConnected is WaitSlot's answer while no subscription is live.
var ErrNotConnected = errors.New("solanaws: slot subscription not connected")

// Config configures a Client. URL is required.
type Config struct {
	// URL is the ws:// or wss:// endpoint.
	URL string
	// MinBackoff is the first pause before redialling (default 0.5 s),
	// doubling per failed attempt up to MaxBackoff (default 30 s), each
	// with jitter (a random 50–100 % of it); the backoff starts over once
	// a notification arrives.
	MinBackoff, MaxBackoff time.Duration
	// IdleTimeout: with no message for this long (dialling included) the
	// connection is closed and redialled (default 30 s; mainnet produces
	// a slot every ~400 ms).
	IdleTimeout time.Duration
	// HTTPClient dials (default http.DefaultClient).
	HTTPClient *http.Client
	// Sleep waits between attempts (default a timer).
	Sleep func(ctx context.Context, d time.Duration) error
	Log   *slog.Logger
}

// ValidURL reports whether u is a ws:// or wss:// URL with a host.
func ValidURL(u string) error {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "ws" && p.Scheme != "wss") || p.Host == "" {
		return fmt.Errorf("not a ws(s) URL: %q", u)
	}
	return nil
}

// State is the client's view for an operator.
type State struct {
	Connected bool
	// Slot is the newest slot notified (zero before the first).
	Slot Slot
	// Connects counts subscriptions confirmed; LastError is why the last
	// connection ended or failed ("" while none has).
	Connects  int64
	LastError string
}

// Client keeps one slot subscription alive (Run) and reports its newest
// slot (Latest, WaitSlot).
type Client struct {
	cfg Config

	mu        sync.Mutex
	latest    Slot
	connected bool
	connects  int64
	lastErr   string
	// changed is closed (and replaced) whenever latest or connected
	// changes: a broadcast that holds nothing.
	changed chan struct{}
}

// New returns a client (not connected: call Run).
func New(cfg Config) *Client {
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 500 * time.Millisecond
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(30*time.Second, cfg.MinBackoff)
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 30 * time.Second
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	if cfg.Sleep == nil {
		cfg.Sleep = ctxwait.Sleep
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Client{cfg: cfg, changed: make(chan struct{})}
}

// Run keeps the subscription alive until ctx ends (then nil).
func (c *Client) Run(ctx context.Context) error {
	attempt := 0
	failing := false // log once per run of failures
	for ctx.Err() == nil {
		got, err := c.session(ctx)
		c.down(err)
		if ctx.Err() != nil {
			return nil
		}
		if got { // a productive session: the next failure is a new outage
			attempt = 0
			failing = false
		}
		if err != nil && !failing {
			c.cfg.Log.Warn("slot subscription ended; redialling with backoff (logged once until a slot arrives)", "err", err)
			failing = true
		}
		if err := c.cfg.Sleep(ctx, Backoff(c.cfg.MinBackoff, c.cfg.MaxBackoff, attempt, rand.Float64())); err != nil {
			return nil
		}
		attempt++
	}
	return nil
}

// Backoff is the pause before attempt (0-based): min doubled per attempt
// up to max, scaled to 50–100 % by jitter (in [0, 1)).
func Backoff(minD, maxD time.Duration, attempt int, jitter float64) time.Duration {
	d := minD << min(attempt, 30)
	if d <= 0 || d > maxD {
		d = maxD
	}
	return time.Duration(float64(d) * (0.5 + jitter/2))
}

// session dials, subscribes and reads until the connection ends; got
// reports whether a notification arrived.
func (c *Client) session(ctx context.Context) (got bool, err error) {
	dctx, cancel := context.WithTimeout(ctx, c.cfg.IdleTimeout)
	conn, resp, err := websocket.Dial(dctx, c.cfg.URL, &websocket.DialOptions{HTTPClient: c.cfg.HTTPClient})
	cancel()
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		return false, fmt.Errorf("dial: %w", err)
	}
	defer func() { _ = conn.CloseNow() }()
	conn.SetReadLimit(MaxMessage)
	// Shutting down sends a close frame (and waits for the server's
	// answer, which ends the read below) rather than dropping the TCP
	// connection.
	stop := context.AfterFunc(ctx, func() { _ = conn.Close(websocket.StatusGoingAway, "shutting down") })
	defer stop()

	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.IdleTimeout)
	err = conn.Write(wctx, websocket.MessageText, subscribeRequest)
	cancel()
	if err != nil {
		return false, fmt.Errorf("send slotSubscribe: %w", err)
	}
	sub := int64(-1) // subscription id, once confirmed
	for {
		// Reads are not cancelled by ctx (its end closes the connection
		// properly, above); the idle timeout drops a silent connection.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.IdleTimeout)
		typ, data, err := conn.Read(rctx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return got, nil
			}
			if s := websocket.CloseStatus(err); s != -1 {
				return got, fmt.Errorf("server closed the connection (%d)", s)
			}
			return got, fmt.Errorf("read: %w", err)
		}
		if typ != websocket.MessageText {
			continue
		}
		m, err := Parse(data)
		if err != nil {
			_ = conn.Close(websocket.StatusUnsupportedData, "malformed message")
			return got, err
		}
		switch {
		case m.Response && m.ID == subscribeID:
			if m.Err != nil {
				_ = conn.Close(websocket.StatusNormalClosure, "")
				return got, fmt.Errorf("slotSubscribe refused: %w", m.Err)
			}
			sub = m.Subscription
			c.up()
		case m.Slot != nil && (sub < 0 || m.Subscription == sub):
			// A notification before the confirmation (servers send them
			// in order, but only the one subscription exists) counts too.
			if sub < 0 {
				sub = m.Subscription
				c.up()
			}
			c.publish(*m.Slot)
			got = true
		}
	}
}

func (c *Client) up() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.connected = true
	c.connects++
	c.lastErr = ""
	c.broadcast()
}

func (c *Client) down(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.lastErr = err.Error()
	}
	if c.connected {
		c.connected = false
		c.broadcast()
	}
}

// publish keeps s when it is newer than the newest slot (callers of
// WaitSlot wake); an older one (a reconnect to a node behind) is dropped.
func (c *Client) publish(s Slot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s.Slot <= c.latest.Slot && c.latest.Slot != 0 {
		return
	}
	c.latest = s
	c.broadcast()
}

// broadcast wakes every waiter (callers hold mu).
func (c *Client) broadcast() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Connected reports whether the subscription is live (confirmed, or a
// notification arrived, and the connection not ended since).
func (c *Client) Connected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.connected
}

// Latest is the newest slot notified (false before the first).
func (c *Client) Latest() (Slot, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.latest, c.latest.Slot != 0
}

// State is the client's state now.
func (c *Client) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return State{Connected: c.connected, Slot: c.latest, Connects: c.connects, LastError: c.lastErr}
}

// WaitSlot returns the newest slot once it is newer than after, ctx's
// error when ctx ends first, or ErrNotConnected as soon as the
// subscription is not live (at the call or while waiting): the caller
// then polls instead.
func (c *Client) WaitSlot(ctx context.Context, after int64) (int64, error) {
	for {
		c.mu.Lock()
		latest, connected, ch := c.latest.Slot, c.connected, c.changed
		c.mu.Unlock()
		switch {
		case latest > after:
			return latest, nil
		case !connected:
			return 0, ErrNotConnected
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-ch:
		}
	}
}

// Slot is one slotNotification's result.
type Slot struct {
	Slot   int64 `json:"slot"`
	Parent int64 `json:"parent"`
	Root   int64 `json:"root"`
}

// RPCError is a JSON-RPC error answered to the subscription request.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("error %d: %s", e.Code, e.Message) }

// Message is one parsed server message: a response to a request
// (Response, ID, and Subscription or Err), a slotNotification (Slot,
// Subscription), or another notification (Method only).
type Message struct {
	Response     bool
	ID           int64
	Err          *RPCError
	Method       string
	Slot         *Slot
	Subscription int64
}

// wire is a JSON-RPC 2.0 message as the server sends it.
type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *RPCError       `json:"error"`
	Params  *struct {
		Result       json.RawMessage `json:"result"`
		Subscription *uint64         `json:"subscription"`
	} `json:"params"`
}

// wireSlot is the notification's result; u64 on the wire.
type wireSlot struct {
	Slot   *uint64 `json:"slot"`
	Parent *uint64 `json:"parent"`
	Root   *uint64 `json:"root"`
}

// Parse reads one server message. A slotNotification must carry slot,
// parent and root (u64 within int64, parent and root not after slot) and
// a subscription id; a response, an id and a u64 result or an error
// object.
func Parse(data []byte) (Message, error) {
	var w wire
	if err := json.Unmarshal(data, &w); err != nil {
		return Message{}, fmt.Errorf("solanaws: message: %w", err)
	}
	if w.JSONRPC != "2.0" {
		return Message{}, fmt.Errorf("solanaws: message: jsonrpc %q, want 2.0", w.JSONRPC)
	}
	if w.Method != "" {
		m := Message{Method: w.Method}
		if w.Method != "slotNotification" {
			return m, nil
		}
		if w.Params == nil || w.Params.Subscription == nil || len(w.Params.Result) == 0 {
			return Message{}, errors.New("solanaws: slotNotification without params.result and params.subscription")
		}
		sub, err := toInt64("subscription", w.Params.Subscription)
		if err != nil {
			return Message{}, err
		}
		var ws wireSlot
		if err := json.Unmarshal(w.Params.Result, &ws); err != nil {
			return Message{}, fmt.Errorf("solanaws: slotNotification result: %w", err)
		}
		var s Slot
		if s.Slot, err = toInt64("slot", ws.Slot); err != nil {
			return Message{}, err
		}
		if s.Parent, err = toInt64("parent", ws.Parent); err != nil {
			return Message{}, err
		}
		if s.Root, err = toInt64("root", ws.Root); err != nil {
			return Message{}, err
		}
		if s.Parent > s.Slot || s.Root > s.Slot {
			return Message{}, fmt.Errorf("solanaws: slotNotification: parent %d or root %d after slot %d", s.Parent, s.Root, s.Slot)
		}
		m.Slot, m.Subscription = &s, sub
		return m, nil
	}
	if len(w.ID) == 0 || string(w.ID) == "null" {
		return Message{}, errors.New("solanaws: message is neither a notification nor a response")
	}
	var id uint64
	if err := json.Unmarshal(w.ID, &id); err != nil {
		return Message{}, fmt.Errorf("solanaws: response id: %w", err)
	}
	m := Message{Response: true}
	if m.ID, _ = toInt64("id", &id); m.ID < 0 {
		return Message{}, errors.New("solanaws: response id out of range")
	}
	if w.Error != nil {
		m.Err = w.Error
		return m, nil
	}
	var sub uint64
	if err := json.Unmarshal(w.Result, &sub); err != nil {
		return Message{}, fmt.Errorf("solanaws: response result: %w", err)
	}
	var err error
	if m.Subscription, err = toInt64("result", &sub); err != nil {
		return Message{}, err
	}
	return m, nil
}

func toInt64(name string, v *uint64) (int64, error) {
	if v == nil {
		return 0, fmt.Errorf("solanaws: %s missing", name)
	}
	if *v > math.MaxInt64 {
		return -1, fmt.Errorf("solanaws: %s %d out of range", name, *v)
	}
	return int64(*v), nil
}
