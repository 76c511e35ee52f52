package redisshare_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"github.com/assetd/assetd/internal/refresh/redisshare"
)

// client is the real Redis of ASSETD_TEST_REDIS_URL (with a fresh
// prefix, whose keys are deleted at the end), or miniredis without it.
func client(t *testing.T) (*redis.Client, string) {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "assetd-test-" + hex.EncodeToString(b[:]) + ":"
	if u := os.Getenv("ASSETD_TEST_REDIS_URL"); u != "" {
		// A generous deadline: these tests check the lease and the
		// results, not Redis's latency on a loaded machine.
		rdb, err := redisshare.Open(u, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx := context.Background()
			keys, _ := rdb.Keys(ctx, prefix+"*").Result()
			if len(keys) > 0 {
				rdb.Del(ctx, keys...)
			}
			rdb.Close()
		})
		return rdb, prefix
	}
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	return rdb, prefix
}

func TestLeaseIsExclusiveAndReleasedOnlyByItsHolder(t *testing.T) {
	rdb, prefix := client(t)
	ctx := context.Background()
	a, b := redisshare.New(rdb, prefix), redisshare.New(rdb, prefix)
	step := func(name string, got bool, err error, want bool) {
		t.Helper()
		if err != nil || got != want {
			t.Fatalf("%s = %v, %v; want %v", name, got, err, want)
		}
	}
	ok, err := a.Acquire(ctx, time.Minute)
	step("a.Acquire", ok, err, true)
	ok, err = b.Acquire(ctx, time.Minute)
	step("b.Acquire while a holds it", ok, err, false)
	ok, err = b.Renew(ctx, time.Minute)
	step("b.Renew of a's lease", ok, err, false)
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}
	ok, err = a.Renew(ctx, time.Minute)
	step("a.Renew after b's release attempt", ok, err, true)
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	ok, err = b.Acquire(ctx, time.Minute)
	step("b.Acquire after a's release", ok, err, true)
}

func TestResultsRoundTrip(t *testing.T) {
	rdb, prefix := client(t)
	ctx := context.Background()
	s := redisshare.New(rdb, prefix)
	if err := s.Put(ctx, map[string][]byte{"k1": []byte("v1"), "k2": {0, 1, 2}}, time.Minute); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, []string{"k1", "k2", "missing"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]byte{"k1": []byte("v1"), "k2": {0, 1, 2}}, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	if ttl := rdb.PTTL(ctx, prefix+"refresh:r:k1").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("result TTL %s; want within (0, 1m]", ttl)
	}
}
