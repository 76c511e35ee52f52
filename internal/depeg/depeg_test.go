package depeg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
)

// fakeAdv keeps advisories in memory with the store's ownership rule.
type fakeAdv struct {
	mu     sync.Mutex
	now    func() time.Time
	flags  map[string]lists.Advisory
	events []string // "action mint status setBy"
}

func newFakeAdv(now func() time.Time) *fakeAdv {
	return &fakeAdv{now: now, flags: map[string]lists.Advisory{}}
}

func (f *fakeAdv) SetOwned(_ context.Context, mint, status, reason string, url *string, owner string) (lists.Advisory, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev, had := f.flags[mint]
	if had && prev.SetBy != owner {
		return prev, false, nil
	}
	a := lists.Advisory{Mint: mint, Advisory: asset.Advisory{Status: status, Reason: reason, URL: url, Since: f.now().UnixMilli()}, SetBy: owner, UpdatedAt: f.now().UnixMilli()}
	if had && prev.Status == status {
		a.Since = prev.Since
	}
	f.flags[mint] = a
	act := "set"
	if had {
		act = "changed"
	}
	f.events = append(f.events, fmt.Sprintf("%s %s %s %s", act, mint, status, owner))
	return a, true, nil
}

func (f *fakeAdv) operator(mint, status string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flags[mint] = lists.Advisory{Mint: mint, Advisory: asset.Advisory{Status: status, Reason: "operator"}, SetBy: "ops"}
	f.events = append(f.events, fmt.Sprintf("set %s %s ops", mint, status))
}

func (f *fakeAdv) LiftOwned(_ context.Context, mint, owner string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev, had := f.flags[mint]
	if !had || prev.SetBy != owner {
		return false, nil
	}
	delete(f.flags, mint)
	f.events = append(f.events, fmt.Sprintf("lifted %s %s %s", mint, prev.Status, owner))
	return true, nil
}

func (f *fakeAdv) List(context.Context) ([]lists.Advisory, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []lists.Advisory
	for _, a := range f.flags {
		out = append(out, a)
	}
	return out, nil
}

// fakeFeed serves per-mint quotes set by the test.
type fakeFeed struct {
	mu sync.Mutex
	q  map[string][]Quote
}

func (f *fakeFeed) Quotes(_ context.Context, mint string) []Quote {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.q[mint]
}

func (f *fakeFeed) price(mint string, p float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.q[mint] = []Quote{{Source: "trades", PriceUSD: p}, {Source: "market", PriceUSD: p, LiquidityUSD: 5_000_000}}
}

type countMetrics struct{ breaker, sets, lifts int }

func (m *countMetrics) DepegCycle(map[string]int) {}
func (m *countMetrics) DepegBreakerTripped()      { m.breaker++ }
func (m *countMetrics) DepegAdvisoryChange(a string) {
	if a == "set" {
		m.sets++
	} else {
		m.lifts++
	}
}

type world struct {
	t     *testing.T
	now   time.Time
	feed  *fakeFeed
	adv   *fakeAdv
	met   *countMetrics
	g     *Guard
	coins []Coin
}

func newWorld(t *testing.T, n int) *world {
	w := &world{t: t, now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), feed: &fakeFeed{q: map[string][]Quote{}}, met: &countMetrics{}}
	w.adv = newFakeAdv(func() time.Time { return w.now })
	for i := range n {
		c := Coin{AssetID: fmt.Sprintf("usd%d", i), VariantID: fmt.Sprintf("usd%d:sol", i), Mint: fmt.Sprintf("Stable%dMint", i), PegCurrency: "USD"}
		w.coins = append(w.coins, c)
		w.feed.price(c.Mint, 1.0)
	}
	w.g = New(Options{Coins: func() []Coin { return w.coins }, Feed: w.feed, Adv: w.adv, Now: func() time.Time { return w.now }, Metrics: w.met})
	return w
}

// minutes runs n cycles, one a minute (the clock advances after each).
func (w *world) minutes(n int) error {
	w.t.Helper()
	var last error
	for range n {
		last = w.g.Cycle(context.Background())
		w.now = w.now.Add(time.Minute)
	}
	return last
}

func (w *world) events() string { return strings.Join(w.adv.events, "; ") }

func TestWarningAfterWindowWithEvidence(t *testing.T) {
	w := newWorld(t, 5)
	m := w.coins[0].Mint
	w.feed.price(m, 0.965) // −3.5 %
	w.minutes(10)          // samples at 0..9 min: not yet held for 10 minutes
	if len(w.adv.events) != 0 {
		t.Fatalf("flagged before the window: %s", w.events())
	}
	if h, _ := w.g.Health(m); h.Tier != TierOK || h.DeviationPct == nil || *h.DeviationPct > -3.49 {
		t.Fatalf("health before the window: %+v", h)
	}
	w.minutes(10) // the 10-minute sample confirms; later ones change nothing
	if got, want := w.events(), "set Stable0Mint caution depeg_guard"; got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	a := w.adv.flags[m]
	for _, ev := range []string{"tier warning", "price 0.9650 USD", "deviation -3.50%", "liquidity 5000000 USD", "held 10m0s since 2026-11-27T12:10:00Z", "sources market, trades"} {
		if !strings.Contains(a.Reason, ev) {
			t.Errorf("reason %q lacks %q", a.Reason, ev)
		}
	}
	h, ok := w.g.Health(m)
	if !ok || h.Tier != TierWarning || !h.TierSince.Equal(time.Date(2026, 11, 27, 12, 10, 0, 0, time.UTC)) || h.Stale || *h.PegUSD != 1 {
		t.Fatalf("health: %+v", h)
	}
	if w.met.sets != 1 {
		t.Fatalf("sets counted %d", w.met.sets)
	}
}

func TestOutlierMinuteFlagsNothing(t *testing.T) {
	w := newWorld(t, 5)
	m := w.coins[0].Mint
	w.minutes(5)
	w.feed.price(m, 0.80) // one minute at −20 %
	w.minutes(1)
	w.feed.price(m, 1.0)
	w.minutes(60)
	if len(w.adv.events) != 0 {
		t.Fatalf("events: %s", w.events())
	}
	if h, _ := w.g.Health(m); h.Tier != TierOK {
		t.Fatalf("tier %s", h.Tier)
	}
}

func TestRecoveryClearsAfterCooldown(t *testing.T) {
	w := newWorld(t, 5)
	m := w.coins[0].Mint
	w.feed.price(m, 0.965)
	w.minutes(11)          // flagged at the 10th minute
	w.feed.price(m, 0.993) // −0.7 %: below watch but outside the ok band
	w.minutes(60)
	if got := w.events(); got != "set Stable0Mint caution depeg_guard" {
		t.Fatalf("outside the band: %s", got)
	}
	w.feed.price(m, 0.999) // inside the band
	w.minutes(30)          // samples 0..29 min in band
	if got := w.events(); strings.Contains(got, "lifted") {
		t.Fatalf("lifted before the cooldown: %s", got)
	}
	w.minutes(1)
	if got, want := w.events(), "set Stable0Mint caution depeg_guard; lifted Stable0Mint caution depeg_guard"; got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	if h, _ := w.g.Health(m); h.Tier != TierOK {
		t.Fatalf("tier %s", h.Tier)
	}
}

func TestOperatorAdvisoryNeverTouched(t *testing.T) {
	w := newWorld(t, 5)
	m := w.coins[0].Mint
	w.adv.operator(m, asset.AdvisoryCompromised)
	w.feed.price(m, 0.95)
	w.minutes(30)
	w.feed.price(m, 1.0)
	w.minutes(60)
	if got, want := w.events(), "set Stable0Mint compromised ops"; got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
	if a := w.adv.flags[m]; a.Status != asset.AdvisoryCompromised || a.SetBy != "ops" {
		t.Fatalf("operator advisory changed: %+v", a)
	}
	// The guard still judged it (health), it only did not write.
	if h, _ := w.g.Health(m); h.Tier != TierOK {
		t.Fatalf("tier %s", h.Tier)
	}
}

func TestBreakerHoldsACycleOfManyFlips(t *testing.T) {
	w := newWorld(t, 10)
	w.minutes(3)
	for _, c := range w.coins[:4] { // 40 % of the stablecoins
		w.feed.price(c.Mint, 0.95)
	}
	w.minutes(10) // held 9 minutes: no change yet
	err := w.minutes(1)
	if !errors.Is(err, ErrBreaker) {
		t.Fatalf("cycle: %v, want ErrBreaker", err)
	}
	if len(w.adv.events) != 0 || w.met.breaker != 1 {
		t.Fatalf("events %q, breaker trips %d", w.events(), w.met.breaker)
	}
	for _, c := range w.coins {
		if h, _ := w.g.Health(c.Mint); h.Tier != TierOK {
			t.Fatalf("%s: tier %s after a held cycle", c.Mint, h.Tier)
		}
	}
	// A persistent fault keeps it held.
	if err := w.minutes(5); !errors.Is(err, ErrBreaker) || len(w.adv.events) != 0 || w.met.breaker != 6 {
		t.Fatalf("later cycles: %v, %q, %d trips", err, w.events(), w.met.breaker)
	}
}

func TestThinLiquidityIsWatchAtMost(t *testing.T) {
	w := newWorld(t, 5)
	m := w.coins[0].Mint
	w.feed.mu.Lock()
	w.feed.q[m] = []Quote{{Source: "market", PriceUSD: 0.9, LiquidityUSD: 20_000}}
	w.feed.mu.Unlock()
	w.minutes(30)
	h, _ := w.g.Health(m)
	if h.Tier != TierWatch || !strings.Contains(h.Reason, "thin liquidity") || len(w.adv.events) != 0 {
		t.Fatalf("health %+v, events %q", h, w.events())
	}
}

func TestPegAndMedian(t *testing.T) {
	price, liq, src := combine([]Quote{{"a", 1.0, 0}, {"b", 0.5, 10}, {"c", 1.02, 0}, {"d", 0, 99}})
	if *price != 1.0 || *liq != 10 || strings.Join(src, ",") != "a,b,c" {
		t.Fatalf("median %v liq %v src %v", *price, *liq, src)
	}
	if p, _, _ := combine([]Quote{{"a", 1.0, 0}, {"b", 0.98, 0}}); *p != 0.99 {
		t.Fatalf("even median %v", *p)
	}
	if p, _, _ := combine(nil); p != nil {
		t.Fatal("no quotes priced")
	}
	w := newWorld(t, 0)
	w.coins = []Coin{{VariantID: "eurc:sol", Mint: "EurMint", PegCurrency: "EUR"}}
	w.feed.price("EurMint", 1.08)
	w.minutes(1)
	if h, _ := w.g.Health("EurMint"); h.PegUSD != nil || !strings.Contains(h.Reason, "EUR") || h.Tier != TierOK {
		t.Fatalf("EUR without a rate: %+v", h)
	}
	w.g = New(Options{Config: Config{PegUSD: map[string]float64{"EUR": 1.08}}, Coins: func() []Coin { return w.coins }, Feed: w.feed, Adv: w.adv, Now: func() time.Time { return w.now }})
	w.minutes(1)
	if h, _ := w.g.Health("EurMint"); h.PegUSD == nil || *h.PegUSD != 1.08 || *h.DeviationPct != 0 {
		t.Fatalf("EUR with a rate: %+v", h)
	}
}

func TestRestartAdoptsOwnAdvisory(t *testing.T) {
	w := newWorld(t, 5)
	m := w.coins[0].Mint
	w.feed.price(m, 0.965)
	w.minutes(11)
	// A new guard (restart) over the same store, the coin back on peg.
	w.g = New(Options{Coins: func() []Coin { return w.coins }, Feed: w.feed, Adv: w.adv, Now: func() time.Time { return w.now }})
	w.feed.price(m, 1.0)
	w.minutes(30)
	if strings.Contains(w.events(), "lifted") {
		t.Fatalf("lifted before the cooldown after a restart: %s", w.events())
	}
	w.minutes(1)
	if !strings.Contains(w.events(), "lifted Stable0Mint") {
		t.Fatalf("not lifted after the cooldown: %s", w.events())
	}
}

// TestHealthWhileCycling reads health while cycles run (go test -race).
func TestHealthWhileCycling(t *testing.T) {
	w := newWorld(t, 5)
	w.feed.price(w.coins[0].Mint, 0.95)
	now := w.now
	w.g.now = func() time.Time { return now } // the cycling goroutine owns the clock below
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 30 {
			_ = w.g.Cycle(context.Background())
		}
	}()
	for range 100 {
		w.g.Health(w.coins[0].Mint)
	}
	<-done
}

// TestGenerationMovesWithJudgements: every cycle that replaces the
// judgements moves Generation (the event producer compares depeg tiers
// only then); a cycle the breaker holds replaces nothing and leaves it.
func TestGenerationMovesWithJudgements(t *testing.T) {
	w := newWorld(t, 10)
	g0 := w.g.Generation()
	if err := w.minutes(1); err != nil {
		t.Fatal(err)
	}
	g1 := w.g.Generation()
	if g1 == g0 {
		t.Fatalf("a cycle left Generation at %d", g1)
	}
	for _, c := range w.coins[:4] {
		w.feed.price(c.Mint, 0.95)
	}
	w.minutes(10)
	before := w.g.Generation()
	if err := w.minutes(1); !errors.Is(err, ErrBreaker) {
		t.Fatalf("cycle: %v, want ErrBreaker", err)
	}
	if got := w.g.Generation(); got != before {
		t.Fatalf("a held cycle moved Generation %d -> %d", before, got)
	}
}
