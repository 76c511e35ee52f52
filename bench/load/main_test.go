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
// the statuses it saw.
func TestRunAgainstServer(t *testing.T) {
	var hits, badKey atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k" {
			badKey.Add(1)
		}
		switch {
		case r.URL.Path == "/v1/assets/curated":
			w.Write([]byte(`{"assets":[{"assetId":"usd","symbol":"USD"},{"assetId":"solana","symbol":"SOL"}]}`))
		case r.URL.Path == "/v1/assets/usd" && r.URL.Query().Get("include") == "profile,risk,ohlcv,markets":
			hits.Add(1)
			w.Write([]byte(`{}`))
		case r.URL.Path == "/v1/assets/solana":
			hits.Add(1)
			http.Error(w, "{}", http.StatusTooManyRequests)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	var out bytes.Buffer
	err := run(context.Background(), []string{"-url", srv.URL, "-key", "k", "-c", "2", "-d", "200ms", "-scenario", "detail-includes"}, &out)
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

// Open loop: requests follow the schedule, the report says so.
func TestRunOpenLoop(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/assets/curated" {
			w.Write([]byte(`{"assets":[{"assetId":"usd","symbol":"USD"}]}`))
			return
		}
		hits.Add(1)
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-url", srv.URL, "-key", "k", "-c", "4", "-d", "300ms", "-rate", "100"}, &out); err != nil {
		t.Fatal(err)
	}
	// At 100/s for 300 ms the schedule holds at most 31 sends.
	if n := hits.Load(); n == 0 || n > 31 {
		t.Fatalf("%d requests sent on a 100/s schedule over 300 ms", n)
	}
	for _, want := range []string{"open loop at 100/s", "p99.9", "status 200:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
