package marketcache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

const (
	mintA = "So11111111111111111111111111111111111111112"
	mintB = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
)

func f(v float64) *float64 { return &v }

// fakeProvider is a SnapshotProvider whose behaviour tests switch.
type fakeProvider struct {
	source string
	mu     sync.Mutex
	mode   string // "ok", "down", "slow", "garbage", "429"
	prices map[string]float64
	calls  atomic.Int64
	seen   [][]string
}

func (p *fakeProvider) Source() string { return p.source }
func (p *fakeProvider) MaxBatch() int  { return 100 }
func (p *fakeProvider) set(mode string) {
	p.mu.Lock()
	p.mode = mode
	p.mu.Unlock()
}

func (p *fakeProvider) Snapshots(ctx context.Context, mints []string) (map[string]market.Token, error) {
	p.calls.Add(1)
	p.mu.Lock()
	mode := p.mode
	p.seen = append(p.seen, append([]string(nil), mints...))
	p.mu.Unlock()
	switch mode {
	case "down":
		return nil, fmt.Errorf("%w: 503", market.ErrUpstream)
	case "slow":
		<-ctx.Done() // past its deadline
		return nil, fmt.Errorf("%w: %v", market.ErrUpstream, ctx.Err())
	case "garbage":
		return nil, fmt.Errorf("%w: unexpected token", market.ErrMalformed)
	case "429":
		return nil, &market.RateLimitedError{RetryAfter: 20 * time.Second}
	case "pending":
		return nil, fmt.Errorf("not yet: %w", market.ErrPending)
	}
	out := map[string]market.Token{}
	for _, m := range mints {
		if px, ok := p.prices[m]; ok {
			out[m] = market.Token{Mint: m, Symbol: "SYM", Market: asset.Market{Source: p.source, MetricsSource: p.source,
				Price: f(px), Liquidity: f(px * 1000), Volume24hUSD: f(px * 10)}}
		}
	}
	return out, nil
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestCache(p ...market.SnapshotProvider) (*Cache, *clock) {
	clk := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	return New(Options{Snapshots: p, Now: clk.now, Deadline: 20 * time.Millisecond}), clk
}

func TestColdReadsCauseOneUpstreamCall(t *testing.T) {
	p := &fakeProvider{source: asset.SourceMarketDataA, prices: map[string]float64{mintA: 150}}
	c, _ := newTestCache(p)
	var wg sync.WaitGroup
	for range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := c.Token(mintA); ok {
				t.Error("a cold read returned data before any refresh")
			}
		}()
	}
	wg.Wait()
	c.Flush(context.Background())
	if n := p.calls.Load(); n != 1 {
		t.Fatalf("1000 concurrent cold reads caused %d upstream calls; want 1", n)
	}
	tok, ok := c.Token(mintA)
	if !ok || *tok.Market.Price != 150 || tok.Symbol != "SYM" {
		t.Fatalf("after refresh: %+v %v", tok, ok)
	}
	c.Flush(context.Background())
	if n := p.calls.Load(); n != 1 {
		t.Fatalf("a fresh hit caused an upstream call (%d)", n)
	}
}

func TestBurstIsBatched(t *testing.T) {
	prices := map[string]float64{}
	var mints []string
	for i := range 250 {
		m := fmt.Sprintf("mint%03d", i)
		mints = append(mints, m)
		prices[m] = float64(i + 1)
	}
	p := &fakeProvider{source: asset.SourceMarketDataA, prices: prices}
	c, _ := newTestCache(p)
	c.EnsureSnapshots(mints...)
	c.Flush(context.Background())
	if p.calls.Load() != 3 { // MaxBatch 100
		t.Fatalf("250 mints took %d calls; want 3 batches", p.calls.Load())
	}
	if m := c.Market("mint249"); m == nil || *m.Price != 250 {
		t.Fatalf("mint249: %+v", m)
	}
}

func TestFaultsServeLastGoodAndRecover(t *testing.T) {
	for _, mode := range []string{"down", "slow", "garbage", "429"} {
		t.Run(mode, func(t *testing.T) {
			p := &fakeProvider{source: asset.SourceMarketDataA, prices: map[string]float64{mintA: 150}}
			c, clk := newTestCache(p)
			c.Token(mintA)
			c.Flush(context.Background())

			p.set(mode)
			p.prices = map[string]float64{mintA: 160}
			clk.add(SnapshotFreshTTL + time.Second) // stale: the next read schedules a refresh
			tok, ok := c.Token(mintA)
			c.Flush(context.Background())
			if !ok || *tok.Market.Price != 150 {
				t.Fatalf("stale read during %s: %+v %v", mode, tok.Market.Price, ok)
			}
			tok, ok = c.Token(mintA)
			if !ok || *tok.Market.Price != 150 || tok.Market.LastFetchedAt == nil {
				t.Fatalf("after failed refresh (%s): last good not served: %+v", mode, tok.Market)
			}
			if c.UpstreamErrors() == 0 {
				t.Fatalf("%s: no upstream error counted", mode)
			}
			// A cold mint during the outage is null, not an error.
			if _, ok := c.Token(mintB); ok {
				t.Fatal("cold mint has data during an outage")
			}
			c.Flush(context.Background())

			// Recovery: after the backoff (and any Retry-After) the next read
			// refreshes and the new price appears.
			p.set("ok")
			clk.add(RetryBackoff + 25*time.Second)
			c.Token(mintA)
			c.Flush(context.Background())
			if tok, _ := c.Token(mintA); *tok.Market.Price != 160 {
				t.Fatalf("after recovery from %s: price %v; want 160", mode, *tok.Market.Price)
			}
		})
	}
}

func TestRetryAfterPausesProvider(t *testing.T) {
	p := &fakeProvider{source: asset.SourceMarketDataA, prices: map[string]float64{mintA: 1, mintB: 1}, mode: "429"}
	c, clk := newTestCache(p)
	c.Token(mintA)
	c.Flush(context.Background())
	if p.calls.Load() != 1 {
		t.Fatalf("calls %d", p.calls.Load())
	}
	// Another mint within the Retry-After window is not sent upstream.
	p.set("ok")
	c.Token(mintB)
	c.Flush(context.Background())
	if p.calls.Load() != 1 {
		t.Fatalf("provider called during its Retry-After: %d calls", p.calls.Load())
	}
	clk.add(21 * time.Second)
	c.Token(mintB)
	c.Flush(context.Background())
	if p.calls.Load() != 2 || c.Market(mintB) == nil {
		t.Fatalf("after Retry-After: calls %d market %v", p.calls.Load(), c.Market(mintB))
	}
}

func TestMergeAcrossSources(t *testing.T) {
	a := &fakeProvider{source: asset.SourceMarketDataA, prices: map[string]float64{mintA: 150}}
	b := &fakeProvider{source: asset.SourceMarketDataB, prices: map[string]float64{mintA: 151, mintB: 1}}
	c, _ := newTestCache(a, b)
	c.EnsureSnapshots(mintA, mintB)
	c.Flush(context.Background())
	ma, mb := c.Market(mintA), c.Market(mintB)
	if ma.Source != asset.SourceMarketDataA || ma.MetricsSource != asset.SourceMarketDataA || *ma.Price != 150 {
		t.Fatalf("mintA merged: %+v", ma)
	}
	if mb.Source != asset.SourceMarketDataB || mb.MetricsSource != asset.SourceMarketDataB || *mb.Price != 1 {
		t.Fatalf("mintB from the second source only: %+v", mb)
	}
	// The first source failing keeps its last good contribution.
	a.set("down")
	b.prices = map[string]float64{mintA: 152, mintB: 2}
	if err := c.refreshSnapshots(context.Background(), []string{mintA}); err != nil {
		t.Fatal(err)
	}
	if ma := c.Market(mintA); *ma.Price != 150 || ma.MetricsSource != asset.SourceMarketDataA {
		t.Fatalf("last good of the failing source lost: %+v", ma)
	}
	// Every source failing stores nothing and reports the error.
	b.set("down")
	if err := c.refreshSnapshots(context.Background(), []string{mintA}); !errors.Is(err, market.ErrUpstream) {
		t.Fatalf("all down: %v", err)
	}
}

func TestBoundedStore(t *testing.T) {
	s := newStore[int](100)
	now := time.Now()
	for i := range 1000 {
		s.put(fmt.Sprint(i), i, now)
	}
	if s.len() != 100 {
		t.Fatalf("store holds %d; cap 100", s.len())
	}
}

func BenchmarkCacheHit(b *testing.B) {
	p := &fakeProvider{source: asset.SourceMarketDataA, prices: map[string]float64{mintA: 150}}
	c, _ := newTestCache(p)
	c.Token(mintA)
	c.Flush(context.Background())
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := c.Token(mintA); !ok {
			b.Fatal("miss")
		}
	}
}
