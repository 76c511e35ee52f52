package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	goredis "github.com/redis/go-redis/v9"

	"github.com/assetd/assetd/internal/contracttest"
)

// replicaSet is several `assetd serve` sharing one store and one Redis
// prefix; requests go round-robin.
type replicaSet struct {
	flags []string
	reps  []*server
}

func startReplicas(t *testing.T, n int, flags []string) *replicaSet {
	t.Helper()
	rs := &replicaSet{flags: flags}
	for range n {
		rs.reps = append(rs.reps, startServer(t, flags...))
	}
	return rs
}

func (rs *replicaSet) stop(t *testing.T) {
	t.Helper()
	for _, s := range rs.reps {
		if err := s.stop(); err != nil {
			t.Fatal(err)
		}
	}
}

// result is one response: its status and rate-limit headers.
type result struct {
	status     int
	limit      string
	remaining  string
	retryAfter string
}

// fire sends n GETs of authedPath with key, request i to replica i%len,
// from workers goroutines, and returns the responses in sending order.
func (rs *replicaSet) fire(t *testing.T, key string, n, workers int) []result {
	return rs.fireUntil(t, key, n, workers, time.Time{})
}

// fireUntil is fire that sends nothing more once until has passed (zero:
// no deadline); the requests not sent have status 0.
func (rs *replicaSet) fireUntil(t *testing.T, key string, n, workers int, until time.Time) []result {
	t.Helper()
	c := &http.Client{Transport: contracttest.Transport(t, nil)}
	out := make([]result, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				if !until.IsZero() && time.Now().After(until) {
					continue
				}
				req, _ := http.NewRequest("GET", rs.reps[i%len(rs.reps)].base+authedPath, nil)
				req.Header.Set("X-Api-Key", key)
				resp, err := c.Do(req)
				if err != nil {
					t.Errorf("request %d: %v", i, err)
					continue
				}
				resp.Body.Close()
				out[i] = result{resp.StatusCode, resp.Header.Get("RateLimit-Limit"), resp.Header.Get("RateLimit-Remaining"), resp.Header.Get("Retry-After")}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func count(rs []result, status int) int {
	n := 0
	for _, r := range rs {
		if r.status == status {
			n++
		}
	}
	return n
}

func count429(sts []int) int {
	n := 0
	for _, s := range sts {
		if s == 429 {
			n++
		}
	}
	return n
}

// redisTestPrefix is a fresh key prefix for one run on a shared Redis;
// the run's keys are deleted afterwards.
func redisTestPrefix(t *testing.T, url string) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "assetd-e2e:" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() { deleteRedisPrefix(t, url, prefix) })
	return prefix
}

// deleteRedisPrefix deletes every key of a run (the quote buckets' keys
// start with "rate:" + prefix).
func deleteRedisPrefix(t *testing.T, url, prefix string) int {
	opt, err := goredis.ParseURL(url)
	if err != nil {
		t.Error(err)
		return 0
	}
	rdb := goredis.NewClient(opt)
	defer rdb.Close()
	ctx := context.Background()
	n := 0
	for _, pat := range []string{prefix + "*", "rate:" + prefix + "*"} {
		iter := rdb.Scan(ctx, 0, pat, 100).Iterator()
		for iter.Next(ctx) {
			n += int(rdb.Del(ctx, iter.Val()).Val())
		}
		if err := iter.Err(); err != nil {
			t.Error(err)
		}
	}
	return n
}

// newLimitedKey creates a key and sets its limits through the CLI.
func newLimitedKey(t *testing.T, store []string, limits ...string) (key, id string) {
	t.Helper()
	key = strings.TrimSpace(mustCLI(t, append([]string{"keys", "create", "--project", "cluster"}, store...)...))
	for _, line := range strings.Split(mustCLI(t, append([]string{"keys", "list"}, store...)...), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "key_") && strings.Contains(line, "rate=default quota=default") {
			id = f[0] // the one key without limits yet
		}
	}
	mustCLI(t, append(append([]string{"keys", "limits", id}, limits...), store...)...)
	return key, id
}

// TestReplicasShareLimits is the acceptance of issue 18 for Redis: three
// replicas on one PostgreSQL database and one Redis prefix enforce a
// key's rate limit and monthly quota together, and the quota survives
// restarting all of them and Redis losing its keys.
func TestReplicasShareLimits(t *testing.T) {
	redisURL, dbURL := os.Getenv("ASSETD_TEST_REDIS_URL"), os.Getenv("ASSETD_TEST_DATABASE_URL")
	if redisURL == "" || dbURL == "" {
		t.Skip("ASSETD_TEST_REDIS_URL and ASSETD_TEST_DATABASE_URL are both needed for the three-replica test")
	}
	store := []string{"--database-url", freshDatabase(t, dbURL)}
	prefix := redisTestPrefix(t, redisURL)
	// An hour's window: the rate check below then holds however slowly a
	// loaded machine sends (see "rate").
	rateKey, _ := newLimitedKey(t, store, "--rate", "100/1h")
	const quota = 25
	quotaKey, quotaID := newLimitedKey(t, store, "--quota", strconv.Itoa(quota)+"/month")
	budgetKey, _ := newLimitedKey(t, store, "--rate", "1000/10s")
	// A generous Redis deadline: this checks sharing, not latency, and a
	// loaded machine must not turn a slow answer into a local decision.
	flags := append([]string{"--redis-url", redisURL, "--redis-prefix", prefix, "--redis-timeout", "5s", "--list-batch-budget", "4"}, store...)
	rs := startReplicas(t, 3, flags)

	t.Run("rate", func(t *testing.T) {
		// 150 requests round-robin, as fast as the machine sends them. The
		// window is an hour, so they fall in one fixed bucket of the
		// sliding window, or in two consecutive ones if the run crosses the
		// hour: within one bucket exactly 100 are allowed (the key is
		// fresh); across the boundary the previous bucket's count weighs
		// (1 - elapsed/1h), floored, which admits at most 1 + 100·took/1h
		// more. No bound depends on how fast the requests go.
		start := time.Now()
		res := rs.fire(t, rateKey, 150, 6)
		took := time.Since(start)
		crossed := !start.Truncate(time.Hour).Equal(time.Now().Truncate(time.Hour))
		ok, limited := count(res, 200), count(res, 429)
		slack := 0
		if crossed {
			slack = 1 + int(math.Ceil(100*took.Hours()))
		}
		t.Logf("rate 100/1h across 3 replicas: %d of 150 allowed, %d refused, in %s (hour crossed: %v)", ok, limited, took.Round(time.Millisecond), crossed)
		if ok < 100 || ok > 100+slack || ok+limited != 150 {
			t.Fatalf("%d allowed and %d refused of 150; want 100 (+%d) allowed across the replicas", ok, limited, slack)
		}
		if crossed {
			return // the remaining counts restart in the new bucket
		}
		// Headers: every allowed response says limit 100 and a distinct
		// remaining count (one shared counter); every 429 has Retry-After.
		seen := map[string]bool{}
		for i, r := range res {
			switch r.status {
			case 200:
				if r.limit != "100" || seen[r.remaining] {
					t.Fatalf("response %d: RateLimit-Limit %q, RateLimit-Remaining %q (already seen: %v)", i, r.limit, r.remaining, seen[r.remaining])
				}
				seen[r.remaining] = true
			case 429:
				if r.remaining != "0" || r.retryAfter == "" {
					t.Fatalf("429 %d: RateLimit-Remaining %q, Retry-After %q", i, r.remaining, r.retryAfter)
				}
			}
		}
		var rem []int
		for r := range seen {
			n, _ := strconv.Atoi(r)
			rem = append(rem, n)
		}
		sort.Ints(rem)
		if ok == 100 && (rem[0] != 0 || rem[len(rem)-1] != 99) {
			t.Fatalf("remaining counts %v..%v; want 0..99", rem[0], rem[len(rem)-1])
		}
	})

	t.Run("provider budget", func(t *testing.T) {
		// 4 bulk member adds per key per 10 minutes, for the cluster.
		c := &http.Client{Transport: contracttest.Transport(t, nil)}
		post := func(rep *server, path, body string) (int, string) {
			req, _ := http.NewRequest("POST", rep.base+path, strings.NewReader(body))
			req.Header.Set("X-Api-Key", budgetKey)
			req.Header.Set("Content-Type", "application/json")
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if st, body := post(rs.reps[0], "/v2/lists", `{"slug":"cluster-budget","name":"Budget"}`); st != 201 {
			t.Fatalf("create list: %d %s", st, body)
		}
		var got []int
		start := time.Now()
		for i := range 9 {
			st, body := post(rs.reps[i%3], "/v2/lists/cluster-budget/members", `{"mints":[]}`)
			if st == 429 && !strings.Contains(body, "provider_budget") {
				t.Fatalf("429 without provider_budget: %s", body)
			}
			got = append(got, st)
		}
		// The bucket frees one add every 150 s: a run that slow (a loaded
		// machine) may see one more allowed per 150 s it took.
		refills := int(time.Since(start) / (150 * time.Second))
		if n := count429(got); n > 5 || n < 5-refills {
			t.Fatalf("statuses %v; want 4 adds allowed across the replicas (+%d refilled), then 429", got, refills)
		}
		t.Logf("list batch budget 4 across 3 replicas: statuses %v", got)
	})

	t.Run("quota", func(t *testing.T) {
		res := rs.fire(t, quotaKey, 40, 6)
		if ok := count(res, 200); ok != quota || count(res, 429) != 40-quota {
			t.Fatalf("%d of 40 allowed; want exactly the quota, %d", ok, quota)
		}
		t.Logf("quota %d/month across 3 replicas: %d of 40 allowed", quota, count(res, 200))
		// Restart every replica: the count lives in Redis.
		rs.stop(t)
		rs = startReplicas(t, 3, flags)
		if res := rs.fire(t, quotaKey, 9, 3); count(res, 429) != 9 {
			t.Fatalf("after restarting all replicas: %d of 9 allowed; want 0", count(res, 200))
		}
		// Redis loses its data: the counter is seeded from the usage the
		// stopped replicas flushed to PostgreSQL.
		n := deleteRedisPrefix(t, redisURL, prefix)
		res = rs.fire(t, quotaKey, 9, 3)
		if count(res, 429) != 9 {
			t.Fatalf("after Redis lost its %d keys: %d of 9 allowed; want 0", n, count(res, 200))
		}
		t.Logf("after restarting all 3 and after Redis lost its %d keys: 0 of 9 + 9 allowed", n)
		rs.stop(t)
		out := mustCLI(t, append([]string{"keys", "usage", quotaID}, store...)...)
		if !strings.Contains(out, "GET /v1/assets/resolve  200     "+strconv.Itoa(quota)) {
			t.Fatalf("keys usage:\n%s", out)
		}
	})
}

// TestServeFailsOpenWhenRedisGoes: a server whose Redis disappears keeps
// answering (the local limiter decides), logs the change once and logs
// the return once.
func TestServeFailsOpenWhenRedisGoes(t *testing.T) {
	mr := miniredis.RunT(t)
	dir := t.TempDir()
	store := []string{"--data-dir", dir}
	key, _ := newLimitedKey(t, store, "--rate", "1000/10s")
	// The longest Redis deadline: while miniredis runs, a slow answer on a
	// loaded machine must not count as a state change (once it is closed,
	// calls fail at once).
	s := startServer(t, append([]string{"--redis-url", "redis://" + mr.Addr(), "--redis-prefix", "e2e:", "--redis-timeout", "5s"}, store...)...)
	hdr := map[string]string{"X-Api-Key": key}
	for range 3 {
		if st, _, _ := s.get(t, authedPath, hdr); st != 200 {
			t.Fatalf("with Redis: %d", st)
		}
	}
	if len(mr.Keys()) == 0 {
		t.Fatal("nothing written to Redis")
	}
	mr.Close()
	for i := range 20 {
		if st, h, _ := s.get(t, authedPath, hdr); st != 200 || h.Get("RateLimit-Limit") != "1000" {
			t.Fatalf("request %d with Redis gone: %d %v", i, st, h)
		}
	}
	logs := s.logs.String()
	if n := strings.Count(logs, "redis is unreachable"); n != 1 {
		t.Fatalf("%d state-change lines for 20 requests; want 1:\n%s", n, logs)
	}
	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "Redis seen again", func() bool {
		s.get(t, authedPath, hdr)
		return strings.Contains(s.logs.String(), "redis is reachable again")
	})
	for _, line := range strings.Split(s.logs.String(), "\n") {
		if strings.Contains(line, "redis is") {
			t.Log(line)
		}
	}
}

// TestNoRedisKeepsLocalLimits: without --redis-url (SQLite, one process)
// the in-process limiter decides as before and nothing mentions Redis.
func TestNoRedisKeepsLocalLimits(t *testing.T) {
	store := []string{"--data-dir", t.TempDir()}
	// An hour's window: the 8 requests fall in one fixed bucket unless the
	// run crosses the hour, whatever the machine's speed; across it the
	// floored weight of the previous bucket admits at most one more.
	key, _ := newLimitedKey(t, store, "--rate", "5/1h")
	s := startServer(t, store...)
	rs := &replicaSet{reps: []*server{s}}
	start := time.Now()
	res := rs.fire(t, key, 8, 1)
	want := []int{5}
	if !start.Truncate(time.Hour).Equal(time.Now().Truncate(time.Hour)) {
		want = []int{5, 6}
	}
	if !slices.Contains(want, count(res, 200)) || res[0].limit != "5" || res[0].remaining != "4" {
		t.Fatalf("local limiter: %+v; want %v allowed of 8", res, want)
	}
	if strings.Contains(strings.ToLower(s.logs.String()), "redis") {
		t.Fatalf("logs mention Redis without --redis-url:\n%s", s.logs)
	}
}
