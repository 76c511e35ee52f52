package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/client/assetdapi"
)

// script answers the i-th request with the i-th reply (the last one
// repeats) and counts requests.
type reply struct {
	status     int
	retryAfter string
	body       string
}

func scripted(t *testing.T, replies ...reply) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		rp := replies[min(i, len(replies)-1)]
		if r.Header.Get("x-api-key") != "k1" {
			t.Errorf("x-api-key = %q", r.Header.Get("x-api-key"))
		}
		w.Header().Set("X-Request-Id", "req-"+string(rune('a'+i)))
		w.Header().Set("Content-Type", "application/json")
		if rp.retryAfter != "" {
			w.Header().Set("Retry-After", rp.retryAfter)
		}
		w.WriteHeader(rp.status)
		w.Write([]byte(rp.body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// recorder is an injected sleeper: it records each wait and never sleeps.
type recorder struct{ waits []time.Duration }

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return ctx.Err()
}

func newTestClient(t *testing.T, srv *httptest.Server, rec *recorder, jitter time.Duration) *Client {
	t.Helper()
	c, err := New(srv.URL, "k1", WithSleeper(rec.sleep), WithJitter(func() time.Duration { return jitter }))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const (
	okHealth = `{"ok":true}`
	limited  = `{"error":{"_tag":"RateLimitedError","message":"slow down","details":{"code":"rate_limited"}}}`
	down     = `{"error":{"_tag":"InternalServerError","message":"internal server error"}}`
)

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestRetryTimings(t *testing.T) {
	for _, c := range []struct {
		name      string
		replies   []reply
		jitter    time.Duration
		wantWaits []time.Duration
		wantCalls int32
		wantErr   int // status of the final error, 0 for success
	}{
		{"429 without Retry-After: 250·2^n + jitter, then success",
			[]reply{{429, "", limited}, {429, "", limited}, {200, "", okHealth}}, 37 * time.Millisecond,
			ms(287, 537), 3, 0},
		{"429 with a longer Retry-After wins",
			[]reply{{429, "3", limited}, {200, "", okHealth}}, 10 * time.Millisecond,
			ms(3000), 2, 0},
		{"429 with a shorter Retry-After: the backoff wins",
			[]reply{{429, "1", limited}, {429, "1", limited}, {429, "1", limited}, {200, "", okHealth}}, 149 * time.Millisecond,
			ms(1000, 1000, 1149), 4, 0},
		{"503 retried 4 times at most, then its error",
			[]reply{{503, "", down}}, 0,
			ms(250, 500, 1000, 2000), 5, 503},
		{"500, 502 and 504 are transient too",
			[]reply{{500, "", down}, {502, "", down}, {504, "", down}, {200, "", okHealth}}, 5 * time.Millisecond,
			ms(255, 505, 1005), 4, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, calls := scripted(t, c.replies...)
			rec := &recorder{}
			h, err := newTestClient(t, srv, rec, c.jitter).Health(context.Background())
			if got := calls.Load(); got != c.wantCalls {
				t.Errorf("calls = %d, want %d", got, c.wantCalls)
			}
			if !slices.Equal(rec.waits, c.wantWaits) {
				t.Errorf("waits = %v, want %v", rec.waits, c.wantWaits)
			}
			var apiErr *Error
			switch {
			case c.wantErr == 0 && (err != nil || !bool(h.Ok)):
				t.Fatalf("Health = %+v, %v", h, err)
			case c.wantErr != 0 && (!errors.As(err, &apiErr) || apiErr.Status != c.wantErr):
				t.Fatalf("err = %v, want a %d *Error", err, c.wantErr)
			}
		})
		// The generated client behind API() follows the same rule: same
		// waits, same calls, and the last answer parsed by its status.
		t.Run(c.name+" (generated client)", func(t *testing.T) {
			srv, calls := scripted(t, c.replies...)
			rec := &recorder{}
			res, err := newTestClient(t, srv, rec, c.jitter).API().HealthWithResponse(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := calls.Load(); got != c.wantCalls {
				t.Errorf("calls = %d, want %d", got, c.wantCalls)
			}
			if !slices.Equal(rec.waits, c.wantWaits) {
				t.Errorf("waits = %v, want %v", rec.waits, c.wantWaits)
			}
			switch {
			case c.wantErr == 0 && (res.StatusCode() != 200 || res.JSON200 == nil || !bool(res.JSON200.Ok)):
				t.Fatalf("HealthWithResponse = %d %s", res.StatusCode(), res.Body)
			case c.wantErr != 0 && res.StatusCode() != c.wantErr:
				t.Fatalf("status = %d, want %d", res.StatusCode(), c.wantErr)
			}
		})
	}
}

func TestNoRetryOnClientErrors(t *testing.T) {
	for _, c := range []struct {
		status          int
		body, tag, code string
	}{
		{400, `{"error":{"_tag":"BadRequestError","message":"Invalid mint","details":{"code":"invalid_mint","mint":"x"}}}`, "BadRequestError", "invalid_mint"},
		{401, `{"error":{"_tag":"UnauthorizedError","message":"Missing API key"}}`, "UnauthorizedError", ""},
		{403, `{"error":{"_tag":"ForbiddenError","message":"no","details":{"code":"insufficient_scope","required":["assets:read"]}}}`, "ForbiddenError", "insufficient_scope"},
		{404, `{"error":{"_tag":"NotFoundError","message":"Asset not found"}}`, "NotFoundError", ""},
	} {
		t.Run(http.StatusText(c.status), func(t *testing.T) {
			srv, calls := scripted(t, reply{status: c.status, body: c.body})
			rec := &recorder{}
			_, err := newTestClient(t, srv, rec, 0).GetAsset(context.Background(), "solana", nil)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if e.Status != c.status || e.Tag != c.tag || e.Code != c.code || e.RequestID != "req-a" || e.Message == "" {
				t.Errorf("error = %+v", e)
			}
			if calls.Load() != 1 || len(rec.waits) != 0 {
				t.Errorf("calls = %d, waits = %v: a %d must not be retried", calls.Load(), rec.waits, c.status)
			}
		})
	}
}

// A cancelled context stops the retries: the wait returns its error and no
// further request is sent.
func TestContextCancellationStopsRetries(t *testing.T) {
	srv, calls := scripted(t, reply{status: 503, body: down})
	ctx, cancel := context.WithCancel(context.Background())
	sleeps := 0
	c, err := New(srv.URL, "k1", WithJitter(func() time.Duration { return 0 }),
		WithSleeper(func(ctx context.Context, d time.Duration) error {
			sleeps++
			cancel() // the caller gives up during the first wait
			<-ctx.Done()
			return ctx.Err()
		}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Health(ctx)
	if !errors.Is(err, context.Canceled) || calls.Load() != 1 || sleeps != 1 {
		t.Fatalf("err = %v, calls = %d, sleeps = %d", err, calls.Load(), sleeps)
	}
	var e *Error
	if !errors.As(err, &e) || e.Status != 503 {
		t.Errorf("the last answer is not kept in the error: %v", err)
	}
	// An already-cancelled context sends nothing.
	if _, err := c.Health(ctx); !errors.Is(err, context.Canceled) || calls.Load() != 1 {
		t.Errorf("cancelled: err = %v, calls = %d", err, calls.Load())
	}
}

// The default sleeper returns as soon as the context ends.
func TestSleepCtx(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleepCtx(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("sleepCtx = %v", err)
	}
}

func TestBackoffAndJitterBounds(t *testing.T) {
	for n, want := range ms(250, 500, 1000, 2000) {
		if got := Backoff(n, 0, 0); got != want {
			t.Errorf("Backoff(%d) = %v, want %v", n, got, want)
		}
	}
	c, _ := New("http://x.invalid", "")
	for range 1000 {
		if j := c.jitter(); j < 0 || j >= MaxJitter || j%time.Millisecond != 0 {
			t.Fatalf("jitter %v outside 0–149 ms", j)
		}
	}
}

func TestParamsAndPaths(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Method + " " + r.URL.EscapedPath() + "?" + r.URL.RawQuery
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	c, _ := New(srv.URL+"/", "k1")
	ctx := context.Background()
	if _, err := c.SearchAssets(ctx, &SearchAssetsParams{Q: "sol", Limit: Ptr[int64](5)}); err != nil {
		t.Fatal(err)
	}
	if got != "GET /v1/assets/search?limit=5&q=sol" {
		t.Errorf("search sent %q", got)
	}
	if _, err := c.DeleteMember(ctx, "my list", "So11111111111111111111111111111111111111112"); err != nil {
		t.Fatal(err)
	}
	if got != "DELETE /v2/lists/my%20list/members/So11111111111111111111111111111111111111112?" { // no query
		t.Errorf("delete member sent %q", got)
	}
}

func TestNewRejectsBadBaseURL(t *testing.T) {
	if _, err := New("not a url", "k"); err == nil {
		t.Fatal("accepted a base URL without scheme and host")
	}
}

// The generated client's retries replay the request body: a POST answered
// 503 then 200 arrives twice with the same body, and the typed 200 is
// parsed.
func TestGeneratedClientReplaysBody(t *testing.T) {
	var bodies []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		n := len(bodies)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(down))
			return
		}
		// A synthetic row (not a real market).
		w.Write([]byte(`[{"address":"So11111111111111111111111111111111111111112","status":"no_market","hasMarket":false,"assetId":null,"symbol":null,"name":null,"decimals":null,"logoURI":null,"market":null,"advisory":null}]`))
	}))
	t.Cleanup(srv.Close)
	rec := &recorder{}
	mints := []string{"So11111111111111111111111111111111111111112"}
	res, err := newTestClient(t, srv, rec, 0).API().MarketSnapshotsWithResponse(context.Background(), assetdapi.MarketSnapshotsJSONRequestBody{Mints: &mints})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != 200 || res.JSON200 == nil || len(*res.JSON200) != 1 {
		t.Fatalf("MarketSnapshotsWithResponse = %d %s", res.StatusCode(), res.Body)
	}
	want := `{"mints":["So11111111111111111111111111111111111111112"]}`
	if len(bodies) != 2 || bodies[0] != want || bodies[1] != want {
		t.Fatalf("bodies = %q, want twice %s", bodies, want)
	}
	if !slices.Equal(rec.waits, ms(250)) {
		t.Errorf("waits = %v, want [250ms]", rec.waits)
	}
}
