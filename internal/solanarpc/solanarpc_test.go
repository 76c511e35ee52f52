package solanarpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// recordedTx is a real getTransaction HTTP body (jsonParsed) recorded by
// jup-ag/instruction-parser (../shared/data/solana-tx/README.md).
const recordedTx = "../../../shared/data/solana-tx/jup-ag_instruction-parser/snapshot/4riUkys7tZH6TSTgetiDoee6gG7HrzPqJniXoLm6CDnQ2cmkqdzVAtMjtbTYiVUz8vmhpE7tKkSJa2b2TrkPeuBr/tx-4riUkys7tZH6TSTgetiDoee6gG7HrzPqJniXoLm6CDnQ2cmkqdzVAtMjtbTYiVUz8vmhpE7tKkSJa2b2TrkPeuBr.json"

type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func newTest(t *testing.T, h http.HandlerFunc, opt Options) (*Client, *sleeps) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s := &sleeps{}
	opt.Sleep = s.sleep
	opt.Jitter = func() float64 { return 1 }
	if opt.RPS == 0 {
		opt.RPS = -1
	}
	return New(srv.URL, opt), s
}

func TestCallRecordedResult(t *testing.T) {
	body, err := os.ReadFile(filepath.FromSlash(recordedTx))
	if err != nil {
		t.Skipf("recorded data absent: %v", err)
	}
	var got request
	c, _ := newTest(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("request %s %q", r.Method, r.Header.Get("Content-Type"))
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("request body: %v", err)
		}
		w.Write(body)
	}, Options{})
	var res struct {
		Slot int64 `json:"slot"`
	}
	if err := c.Call(context.Background(), "getTransaction", []any{"sig", map[string]any{"maxSupportedTransactionVersion": 0}}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Slot != 275581921 {
		t.Fatalf("slot %d, want 275581921 (README)", res.Slot)
	}
	if got.JSONRPC != "2.0" || got.Method != "getTransaction" || len(got.Params) != 2 || got.ID == 0 {
		t.Fatalf("request %+v", got)
	}
}

func TestRPCErrors(t *testing.T) {
	for _, tc := range []struct {
		code               int
		unavailable, skipd bool
	}{
		{-32004, true, false},
		{-32007, true, true},
		{-32009, true, true},
		{-32014, true, false},
		{-32602, false, false},
	} {
		calls := 0
		c, _ := newTest(t, func(w http.ResponseWriter, r *http.Request) {
			calls++
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": 1, "error": map[string]any{"code": tc.code, "message": "m"}})
		}, Options{})
		err := c.Call(context.Background(), "getBlock", []any{1}, nil)
		var re *RPCError
		if !errors.As(err, &re) || re.Code != tc.code || re.Method != "getBlock" {
			t.Fatalf("code %d: err %v", tc.code, err)
		}
		if BlockUnavailable(err) != tc.unavailable || Skipped(err) != tc.skipd {
			t.Errorf("code %d: unavailable %v skipped %v", tc.code, BlockUnavailable(err), Skipped(err))
		}
		if calls != 1 {
			t.Errorf("code %d: %d calls; a JSON-RPC error is an answer, not retried", tc.code, calls)
		}
	}
}

func TestRetryAfterAndBackoff(t *testing.T) {
	n := 0
	c, s := newTest(t, func(w http.ResponseWriter, r *http.Request) {
		n++
		switch n {
		case 1:
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2, 3:
			w.WriteHeader(http.StatusBadGateway)
		default:
			w.Write([]byte(`{"jsonrpc":"2.0","result":123,"id":1}`))
		}
	}, Options{BaseBackoff: time.Second, MaxBackoff: 10 * time.Second})
	var slot int64
	if err := c.Call(context.Background(), "getSlot", nil, &slot); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{7 * time.Second, 2 * time.Second, 4 * time.Second}
	if slot != 123 || len(s.d) != 3 || s.d[0] != want[0] || s.d[1] != want[1] || s.d[2] != want[2] {
		t.Fatalf("slot %d sleeps %v, want %v", slot, s.d, want)
	}
	st := c.Stats()
	if st.Requests != 4 || st.Retries != 3 || st.RateLimited != 1 || st.Failures != 0 {
		t.Fatalf("stats %+v", st)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestGivesUpAndTimeout(t *testing.T) {
	// A transport that never answers: each attempt ends at its timeout.
	hang := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		<-r.Context().Done()
		return nil, r.Context().Err()
	})}
	s := &sleeps{}
	c := New("http://unused.invalid", Options{HTTP: hang, RPS: -1, Attempts: 3, Timeout: time.Millisecond, Sleep: s.sleep})
	err := c.Call(context.Background(), "getSlot", nil, nil)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || len(s.d) != 2 {
		t.Fatalf("err %v sleeps %v", err, s.d)
	}
	c2, _ := newTest(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadRequest) }, Options{})
	var he *HTTPError
	if err := c2.Call(context.Background(), "getSlot", nil, nil); !errors.As(err, &he) || he.Status != 400 {
		t.Fatalf("400: %v", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "3": 3 * time.Second, "-1": 0, "x": 0,
		"Fri, 27 Nov 2026 12:00:05 GMT": 5 * time.Second,
		"Fri, 27 Nov 2026 11:00:05 GMT": 0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("%q: %v want %v", in, got, want)
		}
	}
}

func TestBudgetShared(t *testing.T) {
	c := New("http://unused", Options{RPS: 2, Burst: 2})
	var got []bool
	for range 3 {
		got = append(got, c.lim.Allow())
	}
	if !got[0] || !got[1] || got[2] {
		t.Fatalf("allowed %v: a burst of 2 then empty expected", got)
	}
}
