package main

// Acceptance tests of issue 18 on real assetd binaries (internal/clustertest).
// They need ASSETD_TEST_DATABASE_URL (and, per test, ASSETD_TEST_REDIS_URL,
// /usr/bin/redis-server or /usr/sbin/nats-server) and skip cleanly without.
// Durations are configurable so CI runs them short:
//
//	ASSETD_CLUSTER_PERIOD  how long each upstream-count run lasts (default 20s;
//	                       the figure is 5m: see the README)
//	ASSETD_CLUSTER_LOAD    how long the kill -9 read load lasts (default 12s;
//	                       the figure is 30s)

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mr-tron/base58"

	"github.com/assetd/assetd/internal/clustertest"
	"github.com/assetd/assetd/internal/poll"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds assetd once per test run.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "assetd-cluster-bin-")
		if binErr == nil {
			binPath, binErr = clustertest.Build(context.Background(), binDir)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func needEnv(t *testing.T, names ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		v := os.Getenv(n)
		if v == "" {
			t.Skipf("%s is not set", n)
		}
		out[n] = v
	}
	return out
}

func envDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q is not a positive duration", name, v)
	}
	return d
}

func startCluster(t *testing.T, cfg clustertest.Config) *clustertest.Cluster {
	t.Helper()
	cfg.Binary = binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := clustertest.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range c.Replicas {
				t.Logf("replica %d log (last 4 KiB):\n%s", r.Index, tail(r.Logs(), 4096))
			}
		}
		c.Close()
	})
	return c
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func apiKey(t *testing.T, c *clustertest.Cluster, scopes string) string {
	t.Helper()
	out, err := c.CLI(context.Background(), "keys", "create", "--project", "cluster", "--scopes", scopes)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(out)
	// Every replica learns of the key from the store (change bus or
	// poller); wait until each accepts it.
	for _, r := range c.Replicas {
		poll.For(t, 30*time.Second, fmt.Sprintf("replica %d to accept the new key", r.Index), func() bool {
			req, _ := http.NewRequest("GET", r.Base()+"/v1/assets/resolve?ref=solana", nil)
			req.Header.Set("X-Api-Key", key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode != http.StatusUnauthorized
		})
	}
	return key
}

// countingUpstream counts every request of three upstreams on one server:
// a marketdata_b (DexScreener-compatible) provider answering every mint
// with one synthetic pair, an external coin provider that knows no coin
// (404), and one RSS news feed at /feed.xml.
func countingUpstream(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	pairOf := func(mint string) map[string]any {
		return map[string]any{"chainId": "solana", "dexId": "fakedex", "url": "https://dex.example.test/" + mint,
			"pairAddress": "pair" + mint, "baseToken": map[string]string{"address": mint, "name": "Fake", "symbol": "FAKE"},
			"quoteToken":  map[string]string{"address": "So11111111111111111111111111111111111111112", "name": "Wrapped SOL", "symbol": "SOL"},
			"priceNative": "0.01", "priceUsd": "1.5", "liquidity": map[string]any{"usd": 2_000_000},
			"volume": map[string]any{"h1": 1000, "h24": 24000}, "priceChange": map[string]any{"h1": 0.1, "h24": 1.2},
			"txns": map[string]any{"h1": map[string]int{"buys": 5, "sells": 5}, "h24": map[string]int{"buys": 100, "sells": 90}},
			"fdv":  10_000_000, "marketCap": 9_000_000, "pairCreatedAt": 1_700_000_000_000}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasPrefix(r.URL.Path, "/tokens/v1/"):
			parts := strings.Split(r.URL.Path, "/")
			var out []any
			for _, m := range strings.Split(parts[len(parts)-1], ",") {
				out = append(out, pairOf(m))
			}
			_ = json.NewEncoder(w).Encode(out)
		case strings.HasPrefix(r.URL.Path, "/latest/dex/tokens/"):
			mint := strings.TrimPrefix(r.URL.Path, "/latest/dex/tokens/")
			_ = json.NewEncoder(w).Encode(map[string]any{"schemaVersion": "1.0.0", "pairs": []any{pairOf(mint)}})
		case r.URL.Path == "/feed.xml":
			w.Header().Set("Content-Type", "application/rss+xml")
			_, _ = io.WriteString(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Fake outlet</title><link>https://news.example.test/</link>`+
				`<item><title>Solana validators ship an upgrade</title><link>https://news.example.test/a</link><pubDate>`+
				time.Now().Add(-time.Hour).UTC().Format(time.RFC1123Z)+`</pubDate></item></channel></rss>`)
		case strings.HasPrefix(r.URL.Path, "/coins/"):
			http.Error(w, `{"error":"coin not found"}`, http.StatusNotFound)
		default:
			_ = json.NewEncoder(w).Encode(map[string]any{"schemaVersion": "1.0.0", "pairs": []any{}})
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestThreeReplicasCallUpstreamLikeOne: three replicas sharing Redis,
// each with a counting fake upstream of its own (market, canonical and
// news), under reads spread over every replica for ASSETD_CLUSTER_PERIOD:
// only the replica holding the refresher lease calls upstream, the two
// followers make no upstream call at all, and each follower serves the
// leader's published markets.
//
// Counting who called, rather than comparing the calls of a one-replica
// run with those of a three-replica run, makes the outcome independent of
// the machine's speed: a loaded machine changes how many warm cycles a
// run completes, never which replica calls. The paths by which a follower
// may legitimately call upstream are kept out of the period by
// construction, not by speed: with a lease TTL of 10m the leader leads for
// 6m40s after acquiring even if no renewal succeeds (and no other replica
// can acquire before the lease expires), the grace (1h) outlasts the
// period, and a
// --redis-timeout of 5s (the refresher's Redis client uses it too) means
// one slow Redis answer is a wait, not a failure; a follower fails open
// only after its reads of the shared results have failed for 5 s
// (refresh.Config.DownAfter), i.e. Redis did not answer for that long.
func TestThreeReplicasCallUpstreamLikeOne(t *testing.T) {
	e := needEnv(t, "ASSETD_TEST_DATABASE_URL", "ASSETD_TEST_REDIS_URL")
	period := envDuration(t, "ASSETD_CLUSTER_PERIOD", 20*time.Second)
	const n = 3
	var ups [n]*httptest.Server
	var calls [n]*atomic.Int64
	for i := range ups {
		ups[i], calls[i] = countingUpstream(t)
	}
	c := startCluster(t, clustertest.Config{Replicas: n, DatabaseURL: e["ASSETD_TEST_DATABASE_URL"], RedisURL: e["ASSETD_TEST_REDIS_URL"],
		Args: []string{"--marketdata-b=true", "--warm-interval", "1s", "--startup-warmup", "2s",
			"--provider-budget", "50", "--extprovider", "--extprovider-budget", "5",
			"--redis-timeout", "5s", "--refresh-lease-ttl", "10m", "--refresh-grace", "1h"},
		ReplicaArgs: func(i int) []string {
			return []string{"--marketdata-b-url", ups[i].URL, "--extprovider-url", ups[i].URL, "--news-feed", ups[i].URL + "/feed.xml"}
		}})
	key := apiKey(t, c, "assets:read")
	ctx, cancel := context.WithTimeout(context.Background(), period)
	defer cancel()
	res := readLoad(ctx, targets(c.Replicas...), key, 2)

	var leaders []int
	for _, r := range c.Replicas {
		if strings.Contains(r.Logs(), "lease acquired") {
			leaders = append(leaders, r.Index)
		}
	}
	if len(leaders) != 1 {
		t.Fatalf("replicas %v acquired the refresher lease; want exactly one over the period", leaders)
	}
	leader := leaders[0]
	// Each follower serves the markets the leader fetched and published
	// (a generous deadline: this waits for the leader's fetch, it does not
	// time it).
	for _, r := range c.Replicas {
		if r.Index == leader {
			continue
		}
		poll.For(t, 2*time.Minute, fmt.Sprintf("follower %d to serve the leader's bonk markets", r.Index), func() bool {
			return strings.Contains(get(r.Base()+"/v1/assets/bonk/markets", key), `"address":"pair`)
		})
	}
	// Followers first, so the leader's lease is never released to them.
	for _, r := range c.Replicas {
		if r.Index != leader {
			r.Stop()
		}
	}
	c.Replicas[leader].Stop()

	t.Logf("%d replicas, %s: reads %d, errors %d; upstream requests per replica %d %d %d (replica %d holds the lease)",
		n, period, res.total(), res.errors(), calls[0].Load(), calls[1].Load(), calls[2].Load(), leader)
	for _, r := range c.Replicas {
		logs := r.Logs()
		t.Logf("replica %d: lease acquired %d, lease lost %d, shared results unreachable %d, redis unreachable %d",
			r.Index, strings.Count(logs, "lease acquired"), strings.Count(logs, "no longer refreshes"),
			strings.Count(logs, "shared provider results unreachable"), strings.Count(logs, "redis is unreachable"))
	}
	if calls[leader].Load() == 0 {
		t.Fatal("the leader made no upstream call: the fake upstream is not wired")
	}
	for i := range calls {
		if i != leader && calls[i].Load() != 0 {
			t.Errorf("follower %d made %d upstream requests; want 0 (the leader's results are shared)", i, calls[i].Load())
		}
	}
}

// get is the body of a GET with key ("" on any failure).
func get(url, key string) string {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("X-Api-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return ""
	}
	return string(b)
}

func targets(rs ...*clustertest.Replica) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Base()
	}
	return out
}

// loadResult counts requests and errors per target.
type loadResult struct {
	mu   sync.Mutex
	ok   map[string]int
	errs map[string][]string
	nerr int
}

func (l *loadResult) add(target string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		if len(l.errs[target]) < 20 { // the first errors show what failed
			l.errs[target] = append(l.errs[target], err.Error())
		}
		l.nerr++
		return
	}
	l.ok[target]++
}

func (l *loadResult) total() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.nerr
	for _, v := range l.ok {
		n += v
	}
	return n
}

func (l *loadResult) errors() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.nerr
}

// mixedPaths are the reads of the load: lists, search, detail, markets,
// candles, news.
var mixedPaths = []string{
	"/v1/assets/curated?limit=20",
	"/v1/assets/search?q=sol",
	"/v1/assets/jupiter",
	"/v1/assets/bonk/markets",
	"/v1/assets/jito/ohlcv?interval=1H",
	"/v1/assets/resolve?ref=raydium",
	"/v1/news/feed?limit=5",
	"/v1/health",
}

// readLoad sends GETs round-robin over targets from workers goroutines
// until ctx ends. A transport error or a 5xx is an error; 4xx are not
// expected either and count too. A slow answer is not an error: requests
// have no deadline of their own (a loaded machine may take long), ctx
// bounds them, and a request the end of the load cuts short is not
// counted.
func readLoad(ctx context.Context, targets []string, key string, workers int) *loadResult {
	res := &loadResult{ok: map[string]int{}, errs: map[string][]string{}}
	res.run(ctx, targets, key, workers)
	return res
}

// loadAround runs readLoad around event: the load runs for before, then
// event happens, then the load goes on for after and, however slow the
// machine, until at least one more request has been answered (waiting at
// most 2 minutes), so the event always falls inside the load with reads
// on both sides of it.
func loadAround(t *testing.T, targets []string, key string, workers int, before, after time.Duration, event func()) *loadResult {
	t.Helper()
	res := &loadResult{ok: map[string]int{}, errs: map[string][]string{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); res.run(ctx, targets, key, workers) }()
	<-time.After(before)
	event()
	at := res.total()
	<-time.After(after)
	poll.For(t, 2*time.Minute, "a request answered after the event", func() bool { return res.total() > at })
	cancel()
	<-done
	return res
}

func (res *loadResult) run(ctx context.Context, targets []string, key string, workers int) {
	client := &http.Client{}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := next.Add(1)
				target := targets[int(i)%len(targets)]
				path := mixedPaths[int(i/int64(len(targets)))%len(mixedPaths)]
				req, _ := http.NewRequestWithContext(ctx, "GET", target+path, nil)
				req.Header.Set("X-Api-Key", key)
				resp, err := client.Do(req)
				if ctx.Err() != nil {
					return // the load ended mid-request: not the server's error
				}
				if err != nil {
					res.add(target, err)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode >= 400 {
					res.add(target, fmt.Errorf("GET %s: %d", path, resp.StatusCode))
					continue
				}
				res.add(target, nil)
			}
		})
	}
	wg.Wait()
}

// leaderOf returns the index of the replica that logged holding the
// refresher lease last, or -1.
func leaderOf(c *clustertest.Cluster) int {
	for _, r := range c.Replicas {
		if r.Running() && (strings.Contains(r.Logs(), "refresher lease held") || strings.Contains(r.Logs(), "now refreshes provider data")) &&
			!strings.Contains(r.Logs(), "no longer refreshes provider data") {
			return r.Index
		}
	}
	return -1
}

// TestKillOneReplicaUnderLoad: kill -9 of one replica (the refresher, when
// Redis is configured) during a mixed read load sent round-robin to the
// others: no error on the survivors, and another replica takes the lease.
func TestKillOneReplicaUnderLoad(t *testing.T) {
	e := needEnv(t, "ASSETD_TEST_DATABASE_URL")
	dur := envDuration(t, "ASSETD_CLUSTER_LOAD", 12*time.Second)
	up, _ := countingUpstream(t)
	cfg := clustertest.Config{Replicas: 3, DatabaseURL: e["ASSETD_TEST_DATABASE_URL"], RedisURL: os.Getenv("ASSETD_TEST_REDIS_URL"),
		NATSURL: os.Getenv("ASSETD_TEST_NATS_URL"),
		Args: []string{"--marketdata-b=true", "--marketdata-b-url", up.URL, "--warm-interval", "1s", "--startup-warmup", "2s",
			"--provider-budget", "50", "--news-feed", "none", "--refresh-lease-ttl", "3s"}}
	c := startCluster(t, cfg)
	key := apiKey(t, c, "assets:read")
	victim := 0
	if cfg.RedisURL != "" {
		poll.For(t, 30*time.Second, "a refresher", func() bool { return leaderOf(c) >= 0 })
		victim = leaderOf(c)
	}
	var survivors []*clustertest.Replica
	for _, r := range c.Replicas {
		if r.Index != victim {
			survivors = append(survivors, r)
		}
	}
	res := loadAround(t, targets(survivors...), key, 4, dur/3, dur-dur/3, c.Replicas[victim].Kill)
	t.Logf("load %s over %d survivors: %d reads, %d errors (replica %d killed -9 at %s)", dur, len(survivors), res.total(), res.errors(), victim, dur/3)
	if n := res.errors(); n > 0 {
		t.Fatalf("%d errors on the survivors: %v", n, res.errs)
	}
	if res.total() == 0 {
		t.Fatal("no request was made")
	}
	if cfg.RedisURL != "" {
		poll.For(t, 30*time.Second, "a survivor to take the refresher lease", func() bool {
			for _, r := range survivors {
				if strings.Contains(r.Logs(), "now refreshes provider data") {
					return true
				}
			}
			return false
		})
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// privateServer runs a private redis-server or nats-server for one test
// (never the shared one), and kills it by its own pid.
type privateServer struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startPrivate(t *testing.T, bin string, args ...string) *privateServer {
	t.Helper()
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s is not installed", bin)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &privateServer{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(p.kill)
	return p
}

func (p *privateServer) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

func waitTCP(t *testing.T, port int) {
	t.Helper()
	poll.For(t, 20*time.Second, "port "+strconv.Itoa(port), func() bool {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

// TestRedisDownReadsContinue: with the replicas' Redis killed, reads
// continue (fail-open) and the state change is logged.
func TestRedisDownReadsContinue(t *testing.T) {
	e := needEnv(t, "ASSETD_TEST_DATABASE_URL")
	port := freePort(t)
	rs := startPrivate(t, "/usr/bin/redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	waitTCP(t, port)
	up, _ := countingUpstream(t)
	c := startCluster(t, clustertest.Config{Replicas: 2, DatabaseURL: e["ASSETD_TEST_DATABASE_URL"],
		RedisURL: fmt.Sprintf("redis://127.0.0.1:%d/0", port),
		Args: []string{"--marketdata-b=true", "--marketdata-b-url", up.URL, "--warm-interval", "1s", "--startup-warmup", "2s",
			"--provider-budget", "50", "--news-feed", "none", "--refresh-lease-ttl", "3s"}})
	key := apiKey(t, c, "assets:read")
	res := loadAround(t, targets(c.Replicas...), key, 2, 2*time.Second, 6*time.Second, rs.kill)
	t.Logf("Redis killed after 2 s of an 8 s load: %d reads, %d errors", res.total(), res.errors())
	if res.errors() > 0 {
		t.Fatalf("reads failed with Redis down: %v", res.errs)
	}
	// A replica notices on its next limited request: send one to each
	// replica that has not logged it yet, so this does not depend on the
	// load having reached every replica after the kill.
	poll.For(t, 30*time.Second, "a logged Redis state change on every replica", func() bool {
		all := true
		for _, r := range c.Replicas {
			if !strings.Contains(r.Logs(), "redis is unreachable") {
				all = false
				get(r.Base()+"/v1/assets/resolve?ref=solana", key)
			}
		}
		return all
	})
}

// TestNATSDownIngestRefusesReadsContinue: with the replicas' NATS killed,
// reads continue and trade ingest answers 503 (it never acknowledges what
// it cannot make durable).
func TestNATSDownIngestRefusesReadsContinue(t *testing.T) {
	e := needEnv(t, "ASSETD_TEST_DATABASE_URL")
	port := freePort(t)
	ns := startPrivate(t, "/usr/sbin/nats-server", "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-sd", t.TempDir())
	waitTCP(t, port)
	c := startCluster(t, clustertest.Config{Replicas: 2, DatabaseURL: e["ASSETD_TEST_DATABASE_URL"],
		NATSURL: fmt.Sprintf("nats://127.0.0.1:%d", port),
		Args:    []string{"--marketdata-b=false", "--news-feed", "none", "--startup-warmup", "0s"}})
	key := apiKey(t, c, "assets:read,assets:ohlcv:read,trades:write")
	if code, body := postTrades(t, c.Replicas[0].Base(), key, tradeBatch("natsup", 0, 5)); code != http.StatusOK {
		t.Fatalf("ingest with NATS up: %d %s", code, body)
	}
	ns.kill()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res := readLoad(ctx, targets(c.Replicas...), key, 2)
	t.Logf("NATS killed: %d reads, %d errors", res.total(), res.errors())
	if res.errors() > 0 {
		t.Fatalf("reads failed with NATS down: %v", res.errs)
	}
	for _, r := range c.Replicas {
		code, body := postTrades(t, r.Base(), key, tradeBatch("natsdown", r.Index+1, 5))
		if code != http.StatusServiceUnavailable {
			t.Fatalf("ingest on replica %d with NATS down: %d %s; want 503", r.Index, code, body)
		}
		t.Logf("ingest on replica %d with NATS down: %d %s", r.Index, code, strings.TrimSpace(body))
	}
}

// pair is an asset and one of its mints (seed registry).
type pair struct{ asset, mint string }

var tradePairs = []pair{
	{"jupiter", "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN"},
	{"bonk", "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263"},
}

// wallet is a well-formed address that is visibly no real account.
var wallet = func() string {
	sum := sha256.Sum256([]byte("assetd cluster test wallet"))
	return base58.Encode(sum[:])
}()

// tradeBatch is n synthetic trades of 1 USD each on the first pair, one
// per signature "cluster-<run>-<id>-<i>", block times in the last minute.
func tradeBatch(run string, id, n int) []byte {
	var b bytes.Buffer
	now := time.Now().Unix()
	for i := range n {
		fmt.Fprintf(&b, `{"signature":"cluster-%s-%d-%d","slot":%d,"blockTime":%d,"mint":"%s","side":"buy","tokenAmount":1,"usdAmount":1,"priceUsd":1,"wallet":"%s","venue":"ClusterTestVenue","feeUsd":0.01}`+"\n",
			run, id, i, id*100_000+i, now-int64(i%60), tradePairs[0].mint, wallet)
	}
	return b.Bytes()
}

func postTrades(t *testing.T, base, key string, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/v1/internal/trades", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("X-Api-Key", key)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// tradeCount is the trades in replica's 1H candles of the first pair.
func tradeCount(t *testing.T, base, key string) (int64, error) {
	t.Helper()
	now := time.Now().Unix()
	u := fmt.Sprintf("%s/v1/assets/%s/ohlcv?mint=%s&interval=1H&from=%d&to=%d", base, tradePairs[0].asset, tradePairs[0].mint, now-3*3600, now+3600)
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("X-Api-Key", key)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var body struct {
		Candles []struct {
			Trades int64 `json:"trades"`
		} `json:"candles"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 {
		return 0, fmt.Errorf("ohlcv: status %d, %v", resp.StatusCode, err)
	}
	var n int64
	for _, c := range body.Candles {
		n += c.Trades
	}
	return n, nil
}

// TestKillAckingReplicaLosesNoTrades: every batch replica 0 acknowledged
// is in the other replicas' candles after replica 0 is killed -9 right
// after its last acknowledgement; re-sending them gives only duplicates.
func TestKillAckingReplicaLosesNoTrades(t *testing.T) {
	e := needEnv(t, "ASSETD_TEST_DATABASE_URL")
	c := startCluster(t, clustertest.Config{Replicas: 3, DatabaseURL: e["ASSETD_TEST_DATABASE_URL"], RedisURL: os.Getenv("ASSETD_TEST_REDIS_URL"),
		NATSURL: os.Getenv("ASSETD_TEST_NATS_URL"),
		Args:    []string{"--marketdata-b=false", "--news-feed", "none", "--startup-warmup", "0s"}})
	key := apiKey(t, c, "assets:read,assets:ohlcv:read,trades:write")
	const batches, per = 20, 25
	var acked [][]byte
	for i := range batches {
		b := tradeBatch("kill", i, per)
		code, body := postTrades(t, c.Replicas[0].Base(), key, b)
		var reply struct{ Accepted int }
		_ = json.Unmarshal([]byte(body), &reply)
		if code != http.StatusOK || reply.Accepted != per {
			t.Fatalf("batch %d: %d %s", i, code, body)
		}
		acked = append(acked, b)
	}
	c.Replicas[0].Kill()
	want := int64(batches * per)
	for _, r := range c.Replicas[1:] {
		var n int64
		var err error
		poll.For(t, 60*time.Second, fmt.Sprintf("replica %d to hold all %d acknowledged trades (last: %d, %v)", r.Index, want, n, err), func() bool {
			n, err = tradeCount(t, r.Base(), key)
			return err == nil && n == want
		})
	}
	for i, b := range acked {
		code, body := postTrades(t, c.Replicas[1].Base(), key, b)
		var reply struct{ Accepted, Duplicates int }
		_ = json.Unmarshal([]byte(body), &reply)
		if code != http.StatusOK || reply.Accepted != 0 || reply.Duplicates != per {
			t.Fatalf("re-sent batch %d: %d %s; want only duplicates", i, code, body)
		}
	}
	t.Logf("%d trades acknowledged by replica 0, killed -9: all in replicas 1 and 2; re-sending gave only duplicates", want)
}
