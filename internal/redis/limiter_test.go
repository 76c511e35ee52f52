package redis

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/google/go-cmp/cmp"
)

// TestLimiterMatchesMemory: the Lua script makes exactly the decisions of
// ratelimit.Memory (rate windows rolling over, window changes, quotas
// across a month boundary, refusals charging nothing), on miniredis and
// on the real Redis when ASSETD_TEST_REDIS_URL is set.
func TestLimiterMatchesMemory(t *testing.T) {
	for name, f := range backends(t) {
		t.Run(name, func(t *testing.T) {
			mem := ratelimit.NewMemory()
			lim := NewLimiter(f.c, ratelimit.NewMemory(), nil, "limits")
			policies := []ratelimit.Policy{
				{Requests: 10, Window: 10 * time.Second, QuotaPerMonth: 40},
				{Requests: 5, Window: 3 * time.Second},
				{QuotaPerMonth: 7},
				{Requests: 3, Window: time.Second, QuotaPerMonth: 1000},
			}
			rng := rand.New(rand.NewPCG(1, 2))
			now := time.Date(2026, 11, 30, 23, 58, 0, 0, time.UTC)
			ctx := context.Background()
			for i := range 800 {
				now = now.Add(time.Duration(rng.IntN(1500)) * time.Millisecond)
				key := []string{"k1", "k2", "k3"}[rng.IntN(3)]
				p := policies[rng.IntN(len(policies))]
				if key == "k3" {
					// one key changes its window now and then
					p = policies[(i/50)%2]
				}
				want, _ := mem.Allow(ctx, key, p, now)
				got, err := lim.Allow(ctx, key, p, now)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("call %d (%s %+v at %s): Redis differs from Memory (-memory +redis):\n%s", i, key, p, now.Format(time.StampMilli), diff)
				}
			}
			if _, fb := f.obs.snapshot(); len(fb) != 0 {
				t.Fatalf("fallbacks %v: Redis must have answered every call", fb)
			}
		})
	}
}

// TestQuotaSeededFromStoredUsage: a missing quota counter (first use, a
// new month, Redis lost its data) starts from the store's count, read
// once for concurrent callers.
func TestQuotaSeededFromStoredUsage(t *testing.T) {
	mr := miniredis.RunT(t)
	f := open(t, "redis://"+mr.Addr(), randomPrefix(t))
	var mu sync.Mutex
	stored, reads := map[string]int64{"k": 5}, 0
	seed := func(context.Context, time.Time) (map[string]int64, error) {
		mu.Lock()
		defer mu.Unlock()
		reads++
		return map[string]int64{"k": stored["k"]}, nil
	}
	lim := NewLimiter(f.c, ratelimit.NewMemory(), seed, "limits")
	p := ratelimit.Policy{QuotaPerMonth: 7}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ctx := context.Background()
	var wg sync.WaitGroup
	allowed := make(chan bool, 10)
	for range 10 {
		wg.Go(func() {
			d, err := lim.Allow(ctx, "k", p, now)
			if err != nil {
				t.Error(err)
			}
			allowed <- d.Allowed
		})
	}
	wg.Wait()
	close(allowed)
	n := 0
	for a := range allowed {
		if a {
			n++
		}
	}
	if n != 2 || reads != 1 {
		t.Fatalf("allowed %d of 10 with 5 of 7 stored (want 2); store read %d times (want 1)", n, reads)
	}
	// Redis loses everything; the store has caught up with the 7.
	mr.FlushAll()
	mu.Lock()
	stored["k"] = 7
	mu.Unlock()
	later := now.Add(seedTTL + time.Second)
	if d, _ := lim.Allow(ctx, "k", p, later); d.Allowed || d.Reason != "quota" {
		t.Fatalf("after Redis lost its data: %+v; want the stored count to refuse", d)
	}
	// The counter expires after its month (plus a day of clock slack).
	for _, k := range mr.Keys() {
		if ttl := mr.TTL(k); ttl <= 0 {
			t.Fatalf("key %s has no expiry", k)
		}
	}
}

// TestKeysAreHashed: no API key id appears in Redis; every key starts
// with the prefix.
func TestKeysAreHashed(t *testing.T) {
	for name, f := range backends(t) {
		t.Run(name, func(t *testing.T) {
			lim := NewLimiter(f.c, ratelimit.NewMemory(), nil, "limits")
			b := NewBucket(f.c)
			ctx := context.Background()
			raw := "key_rawid_" + strings.TrimSuffix(f.c.Prefix(), ":")[len("assetd-test:"):]
			if _, err := lim.Allow(ctx, raw, ratelimit.Policy{Requests: 5, Window: time.Minute, QuotaPerMonth: 9}, time.Now()); err != nil {
				t.Fatal(err)
			}
			if _, _, err := b.Take(ctx, raw, 1, 10, time.Hour); err != nil {
				t.Fatal(err)
			}
			mine := 0
			for _, k := range keysOf(t, f.url) {
				if strings.Contains(k, raw) {
					t.Fatalf("raw key id in Redis key %q", k)
				}
				if strings.HasPrefix(k, f.c.Prefix()) || strings.HasPrefix(k, "rate:"+f.c.Prefix()) {
					mine++
				}
			}
			if mine != 3 { // rate hash, quota counter, quote bucket
				t.Fatalf("%d keys under the prefix; want 3", mine)
			}
		})
	}
}

// TestBucket: the shared quote bucket charges n tokens or nothing.
func TestBucket(t *testing.T) {
	for name, f := range backends(t) {
		t.Run(name, func(t *testing.T) {
			b := NewBucket(f.c)
			ctx := context.Background()
			take := func(n int) (bool, time.Duration) {
				ok, after, err := b.Take(ctx, "k", n, 10, time.Hour)
				if err != nil {
					t.Fatal(err)
				}
				return ok, after
			}
			if ok, _ := take(8); !ok {
				t.Fatal("8 of a full 10 refused")
			}
			if ok, after := take(5); ok || after <= 0 {
				t.Fatalf("5 of 2 left: ok=%v after=%s; want a refusal with a wait", ok, after)
			}
			if ok, _ := take(2); !ok {
				t.Fatal("2 of 2 left refused: a refusal must charge nothing")
			}
		})
	}
}

// TestFailOpen: with Redis gone mid-run, every call is decided by the
// local limiter without an error, the change is logged once (not per
// request) and counted; Redis is probed again after ProbeInterval and
// its return is logged once.
func TestFailOpen(t *testing.T) {
	mr := miniredis.RunT(t)
	f := open(t, "redis://"+mr.Addr(), randomPrefix(t))
	local := ratelimit.NewMemory()
	lim := NewLimiter(f.c, local, nil, "limits")
	bucket := NewBucket(f.c)
	p := ratelimit.Policy{Requests: 1000, Window: time.Minute, QuotaPerMonth: 3}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	ctx := context.Background()
	for range 2 {
		if d, err := lim.Allow(ctx, "k", p, now); err != nil || !d.Allowed {
			t.Fatalf("with Redis up: %+v %v", d, err)
		}
	}
	mr.Close()
	// The local limiter was kept told of the quota count (2 of 3).
	var decisions []bool
	for range 50 {
		d, err := lim.Allow(ctx, "k", p, now)
		if err != nil {
			t.Fatalf("fail open returned an error: %v", err)
		}
		decisions = append(decisions, d.Allowed)
	}
	if !decisions[0] || decisions[1] {
		t.Fatalf("fallback decisions start %v; want the third request allowed and the fourth refused by the local quota", decisions[:2])
	}
	if _, _, err := bucket.Take(ctx, "k", 1, 10, time.Hour); err == nil {
		t.Fatal("the bucket must ask its caller to decide locally while Redis is down")
	}
	logs := f.logs.String()
	if n := strings.Count(logs, "redis is unreachable"); n != 1 {
		t.Fatalf("%d unreachable lines for 51 failed calls; want 1:\n%s", n, logs)
	}
	states, fb := f.obs.snapshot()
	if diff := cmp.Diff([]bool{true, false}, states); diff != "" {
		t.Fatalf("states (-want +got):\n%s", diff)
	}
	if fb["limits"] != 50 || fb["quotes"] != 1 {
		t.Fatalf("fallbacks %v; want 50 limits and 1 quotes", fb)
	}
	t.Logf("logged while down:\n%s", logs)

	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	// Before the probe is due nobody calls Redis.
	if _, err := lim.Allow(ctx, "k", p, now); err != nil || f.c.Health().Up() {
		t.Fatal("Redis was called before the probe interval passed")
	}
	// Probes (ProbeInterval apart on the injected clock) until one
	// succeeds: a pooled connection of the old server may fail first.
	for i := 0; i < 10 && !f.c.Health().Up(); i++ {
		f.clk.Add(ProbeInterval)
		if _, err := lim.Allow(ctx, "k", p, now); err != nil {
			t.Fatal(err)
		}
	}
	if !f.c.Health().Up() {
		t.Fatal("Redis not seen up again after 10 probes")
	}
	logs = f.logs.String()
	if strings.Count(logs, "redis is reachable again") != 1 || strings.Count(logs, "redis is unreachable") != 1 {
		t.Fatalf("want one line per state change:\n%s", logs)
	}
	if states, _ := f.obs.snapshot(); !cmp.Equal([]bool{true, false, true}, states) {
		t.Fatalf("states %v; want up, down, up", states)
	}
	t.Logf("logged:\n%s", logs)
}

// TestFailOpenOnTimeout: a Redis that accepts but never answers costs one
// deadline, then calls skip it until the next probe.
func TestFailOpenOnTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	f := open(t, "redis://"+ln.Addr().String(), randomPrefix(t))
	f.c.timeout = 20 * time.Millisecond
	lim := NewLimiter(f.c, ratelimit.NewMemory(), nil, "limits")
	p := ratelimit.Policy{Requests: 2, Window: time.Minute}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var got []bool
	for range 3 {
		d, err := lim.Allow(context.Background(), "k", p, now)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d.Allowed)
	}
	if !cmp.Equal([]bool{true, true, false}, got) {
		t.Fatalf("decisions %v; want the local limiter's (2 allowed, then refused)", got)
	}
	if f.c.Health().Up() || strings.Count(f.logs.String(), "redis is unreachable") != 1 {
		t.Fatalf("want Redis down and one log line:\n%s", f.logs)
	}
}

// BenchmarkLimiterAllow: one shared-limit decision (one EVALSHA round
// trip) against ASSETD_TEST_REDIS_URL, or miniredis when unset. Parallel,
// as the request path calls it.
func BenchmarkLimiterAllow(b *testing.B) {
	url := os.Getenv("ASSETD_TEST_REDIS_URL")
	if url == "" {
		mr := miniredis.RunT(b)
		url = "redis://" + mr.Addr()
	}
	prefix := "assetd-bench:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
	c, err := Open(url, Options{Prefix: prefix, Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	defer func() {
		ctx := context.Background()
		iter := c.rdb.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			c.rdb.Del(ctx, iter.Val())
		}
	}()
	lim := NewLimiter(c, ratelimit.NewMemory(), nil, "limits")
	p := ratelimit.Policy{Requests: 1 << 30, Window: 10 * time.Second, QuotaPerMonth: 1 << 40}
	var n atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		key := "key_" + strconv.FormatInt(n.Add(1), 10)
		for pb.Next() {
			if _, err := lim.Allow(context.Background(), key, p, time.Now()); err != nil {
				b.Error(err)
			}
		}
	})
	if !c.Health().Up() {
		b.Fatal("Redis went down during the benchmark: the figures include local fallbacks")
	}
}

// TestAbandonedProbeFreesTheNext: a probe whose caller went away does not
// keep Redis marked down for good.
func TestAbandonedProbeFreesTheNext(t *testing.T) {
	mr := miniredis.RunT(t)
	f := open(t, "redis://"+mr.Addr(), randomPrefix(t))
	lim := NewLimiter(f.c, ratelimit.NewMemory(), nil, "limits")
	p := ratelimit.Policy{Requests: 10, Window: time.Minute}
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	f.c.health.record(errors.New("boom")) // down
	f.clk.Add(ProbeInterval)
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := lim.Allow(gone, "k", p, now); err != nil {
		t.Fatal(err)
	}
	if _, err := lim.Allow(context.Background(), "k", p, now); err != nil || !f.c.Health().Up() {
		t.Fatalf("the probe after an abandoned one did not reach Redis: up=%v err=%v", f.c.Health().Up(), err)
	}
}
