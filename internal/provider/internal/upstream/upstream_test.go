package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/poll"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"  ", 0},
		{"120", 120 * time.Second},
		{" 7 ", 7 * time.Second},
		{"0", 0},
		{"-5", 0},
		{"1.5", 0},
		{"soon", 0},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"Sat, 21 Nov 2026 12:02:00 GMT", 2 * time.Minute},
		{"Saturday, 21-Nov-26 12:00:30 GMT", 30 * time.Second}, // RFC 850
		{"Sat Nov 21 12:00:10 2026", 10 * time.Second},         // asctime
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},     // in the past
		{"99999999999999999999", 0},                            // overflows int64: not a number, not a date
	}
	for _, tt := range tests {
		if got := ParseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestNumber(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		valid   bool
		wantErr bool
	}{
		{`1.5`, 1.5, true, false},
		{`"0.9989"`, 0.9989, true, false},
		{`" 42 "`, 42, true, false},
		{`null`, 0, false, false},
		{`""`, 0, false, false},
		{`-3e2`, -300, true, false},
		{`"abc"`, 0, false, true},
		{`"NaN"`, 0, false, true},
		{`"Infinity"`, 0, false, true},
		{`true`, 0, false, true},
		{`{}`, 0, false, true},
		{`[1]`, 0, false, true},
	}
	for _, tt := range tests {
		var n Number
		err := json.Unmarshal([]byte(tt.in), &n)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil && (n.Valid != tt.valid || n.V != tt.want) {
			t.Errorf("%s: got %+v, want {%v %v}", tt.in, n, tt.want, tt.valid)
		}
	}
	// Absent member stays invalid.
	var s struct{ N Number }
	if err := json.Unmarshal([]byte(`{}`), &s); err != nil || s.N.Valid || s.N.Ptr() != nil {
		t.Errorf("absent member: %+v, %v", s.N, err)
	}
	if p := (Number{V: 9, Valid: true}).IntPtr(); p == nil || *p != 9 {
		t.Errorf("IntPtr(9) = %v", p)
	}
	for _, v := range []float64{9.5, -1, 300} {
		if p := (Number{V: v, Valid: true}).IntPtr(); p != nil {
			t.Errorf("IntPtr(%v) = %d, want nil", v, *p)
		}
	}
	if p := (Number{V: 1754885472, Valid: true}).Int64Ptr(); p == nil || *p != 1754885472 {
		t.Errorf("Int64Ptr = %v", p)
	}
	if got := Sum(Number{}, Number{V: 1, Valid: true}, Number{}, Number{V: 2, Valid: true}); !got.Valid || got.V != 3 {
		t.Errorf("Sum = %+v", got)
	}
	if got := Sum(Number{}, Number{}); got.Valid {
		t.Errorf("Sum of absent = %+v", got)
	}
}

func TestValidMintDedupeChunk(t *testing.T) {
	for _, m := range []string{"So11111111111111111111111111111111111111112", "11111111111111111111111111111111"} {
		if !ValidMint(m) {
			t.Errorf("ValidMint(%q) = false", m)
		}
	}
	for _, m := range []string{"", "short", "So1111111111111111111111111111111111111111O", "So11111111111111111111111111111111111111112,x", "../../etc/passwd0000000000000000000000"} {
		if ValidMint(m) {
			t.Errorf("ValidMint(%q) = true", m)
		}
	}
	got := Dedupe([]string{" a", "b", "a", "", "c ", "b"})
	if strings.Join(got, ",") != "a,b,c" {
		t.Errorf("Dedupe = %q", got)
	}
	ch := Chunk([]int{1, 2, 3, 4, 5}, 2)
	if len(ch) != 3 || len(ch[2]) != 1 || ch[1][0] != 3 {
		t.Errorf("Chunk = %v", ch)
	}
	if PathSegment("a,b c/d") != "a,b%20c%2Fd" {
		t.Errorf("PathSegment = %q", PathSegment("a,b c/d"))
	}
}

func newTestClient(t *testing.T, h http.Handler, mut func(*Options)) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	o := Options{Name: "test", BaseURL: srv.URL, Timeout: 5 * time.Second, Header: http.Header{"X-Key": {"sekret-key-123"}}, SecretHeaders: []string{"X-Key"}}
	if mut != nil {
		mut(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestGetStatusMapping(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		maxBody    int64
		wantStatus int // StatusError code, 0 for none
		wantRL     time.Duration
		isRL       bool
		wantIs     error
		wantBody   string
	}{
		{name: "ok", status: 200, body: `{"a":1}`, wantBody: `{"a":1}`},
		{name: "429 seconds", status: 429, header: map[string]string{"Retry-After": "30"}, isRL: true, wantRL: 30 * time.Second},
		{name: "429 date", status: 429, header: map[string]string{"Retry-After": now.Add(5 * time.Minute).Format(http.TimeFormat)}, isRL: true, wantRL: 5 * time.Minute},
		{name: "429 none", status: 429, isRL: true},
		{name: "500", status: 500, body: "boom", wantStatus: 500, wantIs: market.ErrUpstream},
		{name: "503", status: 503, wantStatus: 503, wantIs: market.ErrUpstream},
		{name: "401", status: 401, body: `{"message":"bad key sekret-key-123"}`, wantStatus: 401, wantIs: market.ErrUpstream},
		{name: "404", status: 404, wantStatus: 404, wantIs: market.ErrUpstream},
		{name: "too large", status: 200, body: strings.Repeat("x", 100), maxBody: 10, wantIs: market.ErrMalformed},
		{name: "exactly the cap", status: 200, body: strings.Repeat("x", 10), maxBody: 10, wantBody: strings.Repeat("x", 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}), func(o *Options) { o.MaxBody = tt.maxBody; o.Now = func() time.Time { return now } })
			body, err := c.Get(context.Background(), "/x", nil)
			if tt.wantBody != "" {
				if err != nil || string(body) != tt.wantBody {
					t.Fatalf("Get = %q, %v", body, err)
				}
				return
			}
			if err == nil {
				t.Fatal("want an error")
			}
			if strings.Contains(err.Error(), "sekret-key-123") {
				t.Errorf("error leaks the key: %v", err)
			}
			var rl *market.RateLimitedError
			if got := errors.As(err, &rl); got != tt.isRL {
				t.Fatalf("RateLimitedError = %v, want %v (%v)", got, tt.isRL, err)
			}
			if tt.isRL && rl.RetryAfter != tt.wantRL {
				t.Errorf("RetryAfter = %v, want %v", rl.RetryAfter, tt.wantRL)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("err = %v, want errors.Is %v", err, tt.wantIs)
			}
			if tt.wantStatus != 0 && !IsStatus(err, tt.wantStatus) {
				t.Errorf("err = %v, want status %d", err, tt.wantStatus)
			}
		})
	}
}

func TestGetRequestShape(t *testing.T) {
	var got *http.Request
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		_, _ = w.Write([]byte(`{}`))
	}), func(o *Options) { o.BaseURL += "/prefix/" })
	if _, err := c.Get(context.Background(), "/tokens/"+PathSegment("A,B"), map[string][]string{"q": {"x y"}}); err != nil {
		t.Fatal(err)
	}
	if got.URL.EscapedPath() != "/prefix/tokens/A,B" || got.URL.Query().Get("q") != "x y" {
		t.Errorf("request %s", got.URL)
	}
	if got.Header.Get("X-Key") != "sekret-key-123" || got.Header.Get("Accept") != "application/json" || got.Header.Get("User-Agent") == "" {
		t.Errorf("headers %v", got.Header)
	}
}

func TestGetTimeoutAndCancel(t *testing.T) {
	stop := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })

	c, err := New(Options{Name: "test", BaseURL: srv.URL, Timeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), "/slow", nil)
	if !errors.Is(err, market.ErrUpstream) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("adapter timeout: err = %v", err)
	}

	c, _ = New(Options{Name: "test", BaseURL: srv.URL, Timeout: -1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Get(ctx, "/slow", nil)
	if !errors.Is(err, market.ErrUpstream) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestGetTransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens any more
	c, err := New(Options{Name: "test", BaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(context.Background(), "/x", nil); !errors.Is(err, market.ErrUpstream) {
		t.Errorf("err = %v, want ErrUpstream", err)
	}
}

func TestNewValidates(t *testing.T) {
	for _, u := range []string{"ftp://x", "not a url", "/relative", "https://h/?q=1", "https://user:pw@h"} {
		if _, err := New(Options{Name: "t", BaseURL: u}); err == nil {
			t.Errorf("New(%q) accepted", u)
		}
	}
	if c, err := New(Options{Name: "t", DefaultBaseURL: "https://api.example.com/"}); err != nil || c.base != "https://api.example.com" {
		t.Errorf("default base: %v %v", c, err)
	}
}

func TestForEachAndBatchError(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")

	// All good.
	var running, peak atomic.Int32
	errs := ForEach(ctx, 20, 3, func(ctx context.Context, i int) error {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		defer running.Add(-1)
		return nil
	})
	if failed, err := BatchError(ctx, errs); failed != 0 || err != nil {
		t.Errorf("all good: %d %v", failed, err)
	}
	if peak.Load() > 3 {
		t.Errorf("concurrency peak %d > 3", peak.Load())
	}

	// Some fail: tolerated.
	errs = ForEach(ctx, 4, 2, func(ctx context.Context, i int) error {
		if i%2 == 0 {
			return boom
		}
		return nil
	})
	if failed, err := BatchError(ctx, errs); failed != 2 || err != nil {
		t.Errorf("partial: %d %v", failed, err)
	}

	// All fail: the first error.
	errs = ForEach(ctx, 3, 2, func(ctx context.Context, i int) error { return boom })
	if _, err := BatchError(ctx, errs); !errors.Is(err, boom) {
		t.Errorf("all fail: %v", err)
	}

	// A rate limit stops the rest and wins.
	var calls atomic.Int32
	errs = ForEach(ctx, 10, 1, func(ctx context.Context, i int) error {
		calls.Add(1)
		if i == 1 {
			return &market.RateLimitedError{RetryAfter: time.Second}
		}
		return nil
	})
	var rl *market.RateLimitedError
	if _, err := BatchError(ctx, errs); !errors.As(err, &rl) || rl.RetryAfter != time.Second {
		t.Errorf("rate limited: %v", err)
	}
	if calls.Load() != 2 {
		t.Errorf("calls after the rate limit: %d, want 2", calls.Load())
	}

	// The parent ending is an upstream failure.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	errs = ForEach(cctx, 3, 1, func(ctx context.Context, i int) error { return ctx.Err() })
	if _, err := BatchError(cctx, errs); !errors.Is(err, market.ErrUpstream) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestNoKeyOnCrossHostRedirect(t *testing.T) {
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Key") != "" {
			leaked.Store(true)
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(other.Close)
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/same" {
			http.Redirect(w, r, "/ok", http.StatusFound)
			return
		}
		if r.URL.Path == "/ok" {
			_, _ = w.Write([]byte(`{"ok":true}`))
			return
		}
		http.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/steal", http.StatusFound)
	}), nil)
	if b, err := c.Get(context.Background(), "/same", nil); err != nil || string(b) != `{"ok":true}` {
		t.Errorf("same-host redirect: %q %v", b, err)
	}
	_, err := c.Get(context.Background(), "/elsewhere", nil)
	if !IsStatus(err, http.StatusFound) || !errors.Is(err, market.ErrUpstream) {
		t.Errorf("cross-host redirect: err = %v, want a 302 StatusError", err)
	}
	if leaked.Load() {
		t.Error("the key was sent to another host")
	}
}

// TestDefaultClientBoundsConnections: calls beyond DefaultMaxConns to a
// host that never answers wait for a connection instead of opening
// more; the upstream never sees more connections than the bound.
func TestDefaultClientBoundsConnections(t *testing.T) {
	const calls = DefaultMaxConns + 36
	stop := make(chan struct{})
	var inFlight, conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Add(1)
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })

	c, err := New(Options{Name: "test", BaseURL: srv.URL, Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() { _, _ = c.Get(ctx, "/hang", nil) })
	}
	poll.For(t, time.Minute, "the bound's calls reach the upstream", func() bool { return inFlight.Load() >= DefaultMaxConns })
	if n, m := conns.Load(), inFlight.Load(); n > DefaultMaxConns || m > DefaultMaxConns {
		t.Errorf("%d connections and %d calls in flight for %d hanging calls, bound %d", n, m, calls, DefaultMaxConns)
	}
	cancel()
	wg.Wait()
}
