package redis

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	goredis "github.com/redis/go-redis/v9"
)

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// observer records the state changes and fallbacks.
type observer struct {
	mu        sync.Mutex
	states    []bool
	fallbacks map[string]int
}

func (o *observer) RedisUp(up bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.states = append(o.states, up)
}

func (o *observer) RedisFallback(use string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fallbacks == nil {
		o.fallbacks = map[string]int{}
	}
	o.fallbacks[use]++
}

func (o *observer) snapshot() ([]bool, map[string]int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	f := map[string]int{}
	for k, v := range o.fallbacks {
		f[k] = v
	}
	return append([]bool(nil), o.states...), f
}

// clock is a settable clock for the probe back-off.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type fixture struct {
	url  string
	c    *Client
	logs *syncBuffer
	obs  *observer
	clk  *clock
}

// testTimeout is generous: these tests check behaviour, not latency, on a
// shared machine under -race.
const testTimeout = 2 * time.Second

// randomPrefix isolates one run's keys on a shared Redis.
func randomPrefix(t *testing.T) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "assetd-test:" + hex.EncodeToString(b[:]) + ":"
}

func open(t *testing.T, url, prefix string) fixture {
	t.Helper()
	f := fixture{url: url, logs: &syncBuffer{}, obs: &observer{}, clk: &clock{t: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}}
	c, err := Open(url, Options{Prefix: prefix, Secret: "s3cret", Timeout: testTimeout,
		Log: slog.New(slog.NewTextHandler(f.logs, nil)), Observer: f.obs, Now: f.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	f.c = c
	return f
}

// backends are miniredis always and the real Redis of
// ASSETD_TEST_REDIS_URL when set, each under a fresh prefix.
func backends(t *testing.T) map[string]fixture {
	t.Helper()
	mr := miniredis.RunT(t)
	out := map[string]fixture{"miniredis": open(t, "redis://"+mr.Addr(), randomPrefix(t))}
	if url := os.Getenv("ASSETD_TEST_REDIS_URL"); url != "" {
		prefix := randomPrefix(t)
		f := open(t, url, prefix)
		if err := f.c.Ping(context.Background()); err != nil {
			t.Fatalf("ASSETD_TEST_REDIS_URL: %v", err)
		}
		t.Cleanup(func() { deletePrefix(t, url, prefix) })
		out["redis"] = f
	}
	return out
}

// deletePrefix removes a run's keys (redis_rate's start with "rate:").
func deletePrefix(t *testing.T, url, prefix string) {
	opt, err := goredis.ParseURL(url)
	if err != nil {
		t.Error(err)
		return
	}
	rdb := goredis.NewClient(opt)
	defer rdb.Close()
	ctx := context.Background()
	for _, pat := range []string{prefix + "*", "rate:" + prefix + "*"} {
		iter := rdb.Scan(ctx, 0, pat, 100).Iterator()
		for iter.Next(ctx) {
			rdb.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Error(err)
		}
	}
}

func keysOf(t *testing.T, url string) []string {
	t.Helper()
	opt, _ := goredis.ParseURL(url)
	rdb := goredis.NewClient(opt)
	defer rdb.Close()
	keys, err := rdb.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}
