package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 99, 7 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 50, 5 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 90, 9 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 100, 10 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := percentile(tt.in, tt.p); got != tt.want {
			t.Errorf("percentile(%v, %v) = %v; want %v", tt.in, tt.p, got, tt.want)
		}
	}
}

// TestRunAgainstServer drives a fake server: the scenario is built from
// its curated list, every request carries the key, and the report counts
// the statuses it saw. The run ends when the server has answered each path
// three times (-d is only a safety net), so the report holds an answer of
// each however slow the machine: with 2 workers sending one request at a
// time, one of them sent two of a path's three, the first answered and
// counted before the second left.
func TestRunAgainstServer(t *testing.T) {
	var hits, badKey, usd, sol atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	enough := func() {
		if usd.Load() >= 3 && sol.Load() >= 3 {
			cancel()
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k" {
			badKey.Add(1)
		}
		switch {
		case r.URL.Path == "/v1/assets/curated":
			w.Write([]byte(`{"assets":[{"assetId":"usd","symbol":"USD"},{"assetId":"solana","symbol":"SOL"}]}`))
		case r.URL.Path == "/v1/assets/usd" && r.URL.Query().Get("include") == "profile,risk,ohlcv,markets":
			hits.Add(1)
			usd.Add(1)
			w.Write([]byte(`{}`))
			enough()
		case r.URL.Path == "/v1/assets/solana":
			hits.Add(1)
			sol.Add(1)
			http.Error(w, "{}", http.StatusTooManyRequests)
			enough()
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var out bytes.Buffer
	err := run(ctx, []string{"-url", srv.URL, "-key", "k", "-c", "2", "-d", "2m", "-scenario", "detail-includes"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if badKey.Load() != 0 || hits.Load() == 0 {
		t.Fatalf("hits %d, requests without the key %d", hits.Load(), badKey.Load())
	}
	for _, want := range []string{"scenario detail-includes: 2 paths", "status 200:", "status 429:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if err := run(context.Background(), []string{"-url", srv.URL, "-scenario", "nope", "-d", "10ms"}, &out); err == nil {
		t.Error("unknown scenario accepted")
	}
}

// Open loop: requests follow the schedule, the report says so. The run
// ends once the server has seen 5 requests (-d is only a safety net): the
// schedule bounds the sends by the time the run took, and with 4 workers
// one of them sent two of the 5, the first answered and counted.
func TestRunOpenLoop(t *testing.T) {
	var hits atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/assets/curated" {
			w.Write([]byte(`{"assets":[{"assetId":"usd","symbol":"USD"}]}`))
			return
		}
		w.Write([]byte(`{}`))
		if hits.Add(1) >= 5 {
			cancel()
		}
	}))
	defer srv.Close()
	var out bytes.Buffer
	start := time.Now()
	if err := run(ctx, []string{"-url", srv.URL, "-key", "k", "-c", "4", "-d", "2m", "-rate", "100"}, &out); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	// At 100/s the schedule holds at most 1 + 100·took sends.
	if n, most := hits.Load(), 1+int64(100*took.Seconds()); n < 5 || n > most {
		t.Fatalf("%d requests sent on a 100/s schedule over %s; want 5..%d", n, took, most)
	}
	for _, want := range []string{"open loop at 100/s", "p99.9", "status 200:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
