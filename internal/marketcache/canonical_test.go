package marketcache

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// fakeCanonical implements the three canonical provider interfaces with
// synthetic values.
type fakeCanonical struct {
	mu    sync.Mutex
	down  bool
	calls atomic.Int64
}

func (p *fakeCanonical) fail() error {
	p.calls.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return fmt.Errorf("%w: 503", market.ErrUpstream)
	}
	return nil
}

func (p *fakeCanonical) Source() string { return asset.SourceExtProvider }
func (p *fakeCanonical) Coin(_ context.Context, id string) (market.Coin, error) {
	if err := p.fail(); err != nil {
		return market.Coin{}, err
	}
	if id != "known" {
		return market.Coin{}, fmt.Errorf("coin %q: %w", id, market.ErrNotFound)
	}
	return market.Coin{ID: id, PriceUSD: f(42)}, nil
}
func (p *fakeCanonical) Tickers(_ context.Context, id string, limit int) ([]market.Ticker, error) {
	if err := p.fail(); err != nil {
		return nil, err
	}
	return []market.Ticker{{Base: "X", Target: "USD"}}, nil
}
func (p *fakeCanonical) CoinCandles(_ context.Context, id string, iv market.Interval, from, to int64) ([]market.Candle, error) {
	if err := p.fail(); err != nil {
		return nil, err
	}
	d := int64(iv.Duration() / time.Second)
	var out []market.Candle
	for t := (from + d - 1) / d * d; t < to; t += d {
		out = append(out, market.Candle{Time: t, Open: 1, High: 1, Low: 1, Close: 1})
	}
	return out, nil
}

type fakeStocks struct{ fakeCanonical }

func (p *fakeStocks) Source() string { return asset.SourceAnalyticsStock }
func (p *fakeStocks) Quote(_ context.Context, ticker string) (market.StockQuote, error) {
	if err := p.fail(); err != nil {
		return market.StockQuote{}, err
	}
	return market.StockQuote{Ticker: ticker, PriceUSD: f(100)}, nil
}
func (p *fakeStocks) StockCandles(ctx context.Context, ticker string, iv market.Interval, from, to int64) ([]market.Candle, error) {
	return p.CoinCandles(ctx, ticker, iv, from, to)
}

type fakeMarks struct{ fakeCanonical }

func (p *fakeMarks) Source() string { return asset.SourcePreIPO }
func (p *fakeMarks) Mark(_ context.Context, symbol string) (market.PreIPOMark, error) {
	if err := p.fail(); err != nil {
		return market.PreIPOMark{}, err
	}
	return market.PreIPOMark{Symbol: symbol, MarkPriceUSD: f(10)}, nil
}

func newCanonicalCache() (*Cache, *clock, *fakeCanonical) {
	clk := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	coins := &fakeCanonical{}
	return New(Options{Coins: coins, Stocks: &fakeStocks{}, PreIPO: &fakeMarks{}, Now: clk.now, Deadline: 20 * time.Millisecond}), clk, coins
}

func TestCanonicalReadsNeverWait(t *testing.T) {
	c, clk, coins := newCanonicalCache()
	if _, _, ok := c.Coin("known"); ok {
		t.Fatal("a cold coin read returned data")
	}
	if _, _, ok := c.Coin("known"); ok {
		t.Fatal("second cold read returned data")
	}
	c.Flush(context.Background())
	if n := coins.calls.Load(); n != 1 {
		t.Fatalf("two cold reads made %d calls; want 1", n)
	}
	coin, at, ok := c.Coin("known")
	if !ok || *coin.PriceUSD != 42 || !at.Equal(clk.now()) {
		t.Fatalf("after refresh: %+v %v %v", coin, at, ok)
	}

	// Unknown ids are remembered as not found, not asked again while fresh.
	c.Coin("nope")
	c.Flush(context.Background())
	before := coins.calls.Load()
	if _, at, ok := c.Coin("nope"); ok || at.IsZero() {
		t.Fatalf("unknown coin: ok=%v fetchedAt=%v; want not found with a fetch time", ok, at)
	}
	c.Flush(context.Background())
	if coins.calls.Load() != before {
		t.Fatal("a fresh not-found entry was fetched again")
	}

	// Provider down: the last good value stays, with its fetch time.
	coins.mu.Lock()
	coins.down = true
	coins.mu.Unlock()
	fetched := clk.now()
	clk.add(CoinFreshTTL + time.Second)
	c.Coin("known")
	c.Flush(context.Background())
	coin, at, ok = c.Coin("known")
	if !ok || *coin.PriceUSD != 42 || !at.Equal(fetched) {
		t.Fatalf("during outage: %+v %v %v; want the last good value from %v", coin, at, ok, fetched)
	}
}

func TestCanonicalCandleSeriesWindow(t *testing.T) {
	c, clk, _ := newCanonicalCache()
	to := clk.now().Unix()
	from := to - 6*3600
	if _, ok := c.CoinCandles("known", "1H", from, to); ok {
		t.Fatal("cold series returned data")
	}
	// A range in the past reads its own window.
	old := to - 400*86400
	if _, ok := c.CoinCandles("known", "1H", old, old+6*3600); ok {
		t.Fatal("cold past window returned data")
	}
	c.Flush(context.Background())
	got, ok := c.CoinCandles("known", "1H", from, to)
	if !ok {
		t.Fatal("series not cached after refresh")
	}
	if len(got) != 6 || got[0].Time != from || got[5].Time != to-3600 {
		t.Fatalf("window [from,to) of 1H series: %d candles %+v", len(got), got)
	}
	if got, ok := c.CoinCandles("known", "1H", old, old+6*3600); !ok || len(got) != 6 || got[0].Time != old {
		t.Fatalf("past window: ok=%v %d candles", ok, len(got))
	}
	// A range across a window boundary reads both windows.
	span := int64(seriesSpan("1H") / time.Second)
	edge := (to / span) * span
	c.CoinCandles("known", "1H", edge-2*3600, edge+2*3600)
	c.Flush(context.Background())
	if got, _ := c.CoinCandles("known", "1H", edge-2*3600, edge+2*3600); len(got) != 4 || got[0].Time != edge-2*3600 || got[3].Time != edge+3600 {
		t.Fatalf("across a window boundary: %d candles %+v", len(got), got)
	}
	if got, _ := c.StockCandles("tsla", "1D", to-10*86400, to); len(got) != 0 {
		t.Fatalf("cold stock series: %d candles", len(got))
	}
	c.Flush(context.Background())
	if got, ok := c.StockCandles("TSLA", "1D", to-10*86400, to); !ok || len(got) != 10 {
		t.Fatalf("stock series (ticker case-insensitive): ok=%v %d candles; want 10", ok, len(got))
	}
}

func TestCanonicalStockAndMarks(t *testing.T) {
	c, _, _ := newCanonicalCache()
	c.WarmCanonical([]string{"known"}, []string{"tsla"}, []string{"spacex"})
	c.Flush(context.Background())
	if q, _, ok := c.StockQuote("TSLA"); !ok || q.Ticker != "TSLA" || *q.PriceUSD != 100 {
		t.Fatalf("quote: %+v %v", q, ok)
	}
	if m, _, ok := c.PreIPOMark("SpaceX"); !ok || m.Symbol != "SPACEX" {
		t.Fatalf("mark: %+v %v", m, ok)
	}
	c.Tickers("known") // on demand
	c.Flush(context.Background())
	if tk, _, ok := c.Tickers("known"); !ok || len(tk) != 1 {
		t.Fatalf("tickers: %+v %v", tk, ok)
	}
	// No provider configured: nothing, never a panic.
	empty := New(Options{})
	if _, _, ok := empty.Coin("known"); ok {
		t.Fatal("coin without provider")
	}
	if _, ok := empty.StockCandles("TSLA", "1D", 0, 1); ok {
		t.Fatal("stock candles without provider")
	}
}

func TestOwnBudgetDefersInsteadOfWaiting(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	coins := &fakeCanonical{}
	c := New(Options{Coins: coins, Now: clk.now, Burst: 1, Budgets: map[string]float64{asset.SourceExtProvider: 1e-6}})
	c.Coin("known")
	c.Coin("other")
	c.Flush(context.Background()) // must not block on the spent budget
	if n := coins.calls.Load(); n != 1 {
		t.Fatalf("%d provider calls; want 1 (the burst), the other deferred", n)
	}
	if _, _, ok := c.Coin("known"); !ok {
		t.Fatal("the call within budget was not cached")
	}
	// The deferred key is not held back by RetryBackoff: the next read
	// schedules it again (and it is deferred again, costing no call).
	c.Coin("other")
	if n := len(c.jobs); n != 1 {
		t.Fatalf("%d jobs queued after re-reading a deferred key; want 1", n)
	}
}

func TestPerSourceBudget(t *testing.T) {
	c := New(Options{Budget: 100, Burst: 1, Budgets: map[string]float64{asset.SourceExtProvider: 0.5}})
	if got := float64(c.limiter(asset.SourceExtProvider).Limit()); got != 0.5 {
		t.Fatalf("extprovider budget %v; want 0.5", got)
	}
	if got := float64(c.limiter(asset.SourceMarketDataA).Limit()); got != 100 {
		t.Fatalf("default budget %v; want 100", got)
	}
}

// fakeOHLCV serves synthetic mint candles.
type fakeOHLCV struct{ fakeCanonical }

func (p *fakeOHLCV) Source() string { return asset.SourceMarketDataA }
func (p *fakeOHLCV) OHLCV(ctx context.Context, mint string, iv market.Interval, from, to int64) ([]market.Candle, error) {
	return p.CoinCandles(ctx, mint, iv, from, to)
}

func TestMintCandles(t *testing.T) {
	clk := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	c := New(Options{OHLCV: &fakeOHLCV{}, Now: clk.now})
	to := clk.now().Unix()
	if _, _, ok := c.MintCandles(mintA, "1D", to-3*86400, to); ok {
		t.Fatal("cold read returned candles")
	}
	c.Flush(context.Background())
	got, src, ok := c.MintCandles(mintA, "1D", to-3*86400, to)
	if !ok || src != asset.SourceMarketDataA || len(got) != 3 {
		t.Fatalf("MintCandles: ok=%v source=%q %d candles; want 3 from marketdata_a", ok, src, len(got))
	}
	if _, _, ok := New(Options{}).MintCandles(mintA, "1D", 0, 1); ok {
		t.Fatal("candles without an OHLCV provider")
	}
}
