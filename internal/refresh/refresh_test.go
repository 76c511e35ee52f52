package refresh_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/refresh"
	"github.com/assetd/assetd/internal/refresh/redisshare"
)

// clock is an injected, manually advanced clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newRedis(t *testing.T) (*miniredis.Miniredis, *redis.Client) {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	return mr, rdb
}

func TestLeaseHandoverWhenTheLeaderDies(t *testing.T) {
	mr, rdb := newRedis(t)
	ctx := context.Background()
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	ttl := 9 * time.Second
	a := refresh.NewElector(redisshare.New(rdb, "t:"), ttl, clk.Now, nil)
	b := refresh.NewElector(redisshare.New(rdb, "t:"), ttl, clk.Now, nil)

	if !a.Step(ctx) || !a.Leader() {
		t.Fatal("first replica did not take the free lease")
	}
	if b.Step(ctx) || b.Leader() {
		t.Fatal("second replica leads while the first holds the lease")
	}
	// A renews: B still cannot take it, even after more than a TTL.
	for range 4 {
		clk.Add(ttl / 3)
		mr.FastForward(ttl / 3)
		if !a.Step(ctx) {
			t.Fatal("leader lost the lease while renewing it")
		}
		if b.Step(ctx) {
			t.Fatal("follower took a lease that is being renewed")
		}
	}
	// A dies (no more renewals). Before the lease expires in Redis, A's
	// own view already says it no longer leads (no overlap on one clock).
	clk.Add(ttl - ttl/3)
	if a.Leader() {
		t.Fatal("a holder that stopped renewing still leads after TTL-TTL/3")
	}
	if b.Step(ctx) {
		t.Fatal("lease passed before it expired in Redis")
	}
	mr.FastForward(ttl)
	if !b.Step(ctx) || !b.Leader() {
		t.Fatal("follower did not take the expired lease")
	}
	// The old holder comes back: it may not renew what it lost.
	if a.Step(ctx) || a.Leader() {
		t.Fatal("old holder renewed a lease another replica holds")
	}
}

func TestLeaseReleaseHandsOverAtOnce(t *testing.T) {
	_, rdb := newRedis(t)
	ctx, cancel := context.WithCancel(context.Background())
	la, lb := redisshare.New(rdb, "t:"), redisshare.New(rdb, "t:")
	a := refresh.NewElector(la, time.Minute, nil, nil)
	b := refresh.NewElector(lb, time.Minute, nil, nil)
	if !a.Step(ctx) {
		t.Fatal("no lease")
	}
	done := make(chan struct{})
	go func() { a.Run(ctx); close(done) }()
	cancel()
	<-done
	if !b.Step(context.Background()) {
		t.Fatal("a released lease was not free for the next replica")
	}
}

func TestLeaderKeepsLeadingBrieflyWhenRedisIsDown(t *testing.T) {
	mr, rdb := newRedis(t)
	ctx := context.Background()
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	var changes []bool
	a := refresh.NewElector(redisshare.New(rdb, "t:"), 9*time.Second, clk.Now, nil)
	a.OnChange = func(l bool) { changes = append(changes, l) }
	if !a.Step(ctx) {
		t.Fatal("no lease")
	}
	mr.Close()
	clk.Add(3 * time.Second)
	if !a.Step(ctx) {
		t.Fatal("a leader gave up before its own expiry on one failed renewal")
	}
	clk.Add(3 * time.Second)
	if a.Step(ctx) {
		t.Fatal("a leader that cannot renew still leads after TTL-TTL/3")
	}
	if diff := cmp.Diff([]bool{true, false}, changes); diff != "" {
		t.Errorf("leadership changes (-want +got):\n%s", diff)
	}
}

func TestNoLockerMeansAlwaysLeader(t *testing.T) {
	e := refresh.NewElector(nil, 0, nil, nil)
	if !e.Leader() || !e.Step(context.Background()) {
		t.Fatal("without a lease store every replica must refresh (single-process behaviour)")
	}
}

// countingSnaps is a snapshot provider that counts its calls.
type countingSnaps struct {
	calls atomic.Int64
	mints atomic.Int64
	known map[string]market.Token
}

func (p *countingSnaps) Source() string { return "marketdata_b" }
func (p *countingSnaps) MaxBatch() int  { return 30 }
func (p *countingSnaps) Snapshots(_ context.Context, mints []string) (map[string]market.Token, error) {
	p.calls.Add(1)
	p.mints.Add(int64(len(mints)))
	out := map[string]market.Token{}
	for _, m := range mints {
		if t, ok := p.known[m]; ok {
			out[m] = t
		}
	}
	return out, nil
}

type fixedLeader bool

func (l fixedLeader) Leader() bool { return bool(l) }

func f(v float64) *float64 { return &v }

func TestFollowersServeTheLeadersSnapshots(t *testing.T) {
	_, rdb := newRedis(t)
	ctx := context.Background()
	dec := 6
	tok := market.Token{Mint: "M1", Symbol: "ONE", Decimals: &dec, Market: asset.Market{Source: "marketdata_b", Price: f(1.5), Volume24hUSD: f(0)}}
	up := &countingSnaps{known: map[string]market.Token{"M1": tok}}
	clk := &clock{t: time.Unix(1_700_000_000, 0)}
	store := redisshare.New(rdb, "t:")
	leader := refresh.NewSharer(refresh.Config{Leader: fixedLeader(true), Results: store, Now: clk.Now})
	follower := refresh.NewSharer(refresh.Config{Leader: fixedLeader(false), Results: store, Now: clk.Now, Grace: time.Minute})
	lp, fp := leader.Snapshots(up), follower.Snapshots(up)

	// Before the leader publishes, the follower waits without calling.
	if _, err := fp.Snapshots(ctx, []string{"M1", "M2"}); !errors.Is(err, market.ErrPending) {
		t.Fatalf("follower before publication: err %v, want ErrPending", err)
	}
	if got, err := lp.Snapshots(ctx, []string{"M1", "M2"}); err != nil || len(got) != 1 {
		t.Fatalf("leader: %v %v", got, err)
	}
	got, err := fp.Snapshots(ctx, []string{"M1", "M2"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]market.Token{"M1": tok}, got); diff != "" {
		t.Errorf("follower's snapshots (-want +got):\n%s", diff)
	}
	if n := up.calls.Load(); n != 1 {
		t.Errorf("upstream calls = %d, want 1 (the leader's)", n)
	}

	// A mint only the follower wants: pending until the grace, then it
	// fetches it itself (and publishes it).
	if _, err := fp.Snapshots(ctx, []string{"M3"}); !errors.Is(err, market.ErrPending) {
		t.Fatalf("unpublished mint: err %v, want ErrPending", err)
	}
	clk.Add(time.Minute)
	if _, err := fp.Snapshots(ctx, []string{"M3"}); err != nil {
		t.Fatalf("after the grace: %v", err)
	}
	if n := up.calls.Load(); n != 2 {
		t.Errorf("upstream calls = %d, want 2", n)
	}
	other := refresh.NewSharer(refresh.Config{Leader: fixedLeader(false), Results: store, Now: clk.Now})
	if _, err := other.Snapshots(up).Snapshots(ctx, []string{"M3"}); err != nil {
		t.Fatalf("a third replica did not read the follower's publication: %v", err)
	}
	if n := up.calls.Load(); n != 2 {
		t.Errorf("upstream calls = %d, want still 2", n)
	}
}

func TestFollowerFailsOpenWhenRedisIsDown(t *testing.T) {
	mr, rdb := newRedis(t)
	up := &countingSnaps{known: map[string]market.Token{}}
	now := time.Unix(1_700_000_000, 0)
	s := refresh.NewSharer(refresh.Config{Leader: fixedLeader(false), Results: redisshare.New(rdb, "t:"),
		DownAfter: 5 * time.Second, Now: func() time.Time { return now }})
	snaps := s.Snapshots(up)
	mr.Close()
	// A failed read is pending at first: one slow or failed Redis call on a
	// loaded machine must not send every follower upstream.
	if _, err := snaps.Snapshots(context.Background(), []string{"M1"}); !errors.Is(err, market.ErrPending) {
		t.Fatalf("first read with Redis down: %v; want market.ErrPending", err)
	}
	now = now.Add(4 * time.Second)
	if _, err := snaps.Snapshots(context.Background(), []string{"M1"}); !errors.Is(err, market.ErrPending) {
		t.Fatalf("read 4 s into the outage: %v; want market.ErrPending", err)
	}
	if n := up.calls.Load(); n != 0 {
		t.Fatalf("upstream calls before DownAfter = %d, want 0", n)
	}
	now = now.Add(time.Second)
	if _, err := snaps.Snapshots(context.Background(), []string{"M1"}); err != nil {
		t.Fatalf("follower with Redis down for DownAfter: %v", err)
	}
	if up.calls.Load() != 1 {
		t.Fatal("a follower that cannot read shared results for DownAfter must call upstream (fail-open)")
	}
}

type notFoundCoins struct{ calls atomic.Int64 }

func (*notFoundCoins) Source() string { return "extprovider" }
func (c *notFoundCoins) Coin(context.Context, string) (market.Coin, error) {
	c.calls.Add(1)
	return market.Coin{}, market.ErrNotFound
}
func (c *notFoundCoins) Tickers(context.Context, string, int) ([]market.Ticker, error) {
	c.calls.Add(1)
	return []market.Ticker{{}}, nil
}
func (c *notFoundCoins) CoinCandles(context.Context, string, market.Interval, int64, int64) ([]market.Candle, error) {
	return nil, nil
}

func TestNotFoundIsShared(t *testing.T) {
	_, rdb := newRedis(t)
	ctx := context.Background()
	store := redisshare.New(rdb, "t:")
	up := &notFoundCoins{}
	l := refresh.NewSharer(refresh.Config{Leader: fixedLeader(true), Results: store}).Coins(up, time.Minute)
	fl := refresh.NewSharer(refresh.Config{Leader: fixedLeader(false), Results: store}).Coins(up, time.Minute)
	if _, err := l.Coin(ctx, "x"); !errors.Is(err, market.ErrNotFound) {
		t.Fatal(err)
	}
	if _, err := fl.Coin(ctx, "x"); !errors.Is(err, market.ErrNotFound) {
		t.Fatalf("follower: %v, want the leader's ErrNotFound", err)
	}
	if _, err := l.Tickers(ctx, "x", 5); err != nil {
		t.Fatal(err)
	}
	if got, err := fl.Tickers(ctx, "x", 5); err != nil || len(got) != 1 {
		t.Fatalf("follower tickers: %v %v", got, err)
	}
	if n := up.calls.Load(); n != 2 {
		t.Errorf("upstream calls = %d, want 2", n)
	}
}
