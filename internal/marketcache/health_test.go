package marketcache

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

func TestBackoffSchedule(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{{0, 0}, {1, time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second}, {9, 256 * time.Second}, {10, BackoffMax}, {1000, BackoffMax}} {
		if got := backoff(tc.n); got != tc.want {
			t.Errorf("backoff(%d) = %s; want %s", tc.n, got, tc.want)
		}
	}
	d := 8 * time.Second
	seen := map[time.Duration]bool{}
	for range 1000 {
		j := equalJitter(d)
		if j < d/2 || j > d {
			t.Fatalf("jitter(%s) = %s; want within [%s, %s]", d, j, d/2, d)
		}
		seen[j] = true
	}
	if len(seen) < 100 {
		t.Fatalf("jitter produced %d distinct values in 1000 draws", len(seen))
	}
}

// TestFailingProviderBacksOffExponentially reads a new mint every 500 ms
// of clock time while the provider is down: the provider is called at 0,
// 1, 3, 7 and 15 s (backoff 1, 2, 4, 8 s, no jitter), every other read is
// deferred without an upstream call, and a success ends the backoff.
func TestFailingProviderBacksOffExponentially(t *testing.T) {
	p := &fakeProvider{source: asset.SourceMarketDataA, prices: map[string]float64{}, mode: "down"}
	clk := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	c := New(Options{Snapshots: []market.SnapshotProvider{p}, Now: clk.now, Deadline: 20 * time.Millisecond,
		Jitter: func(d time.Duration) time.Duration { return d }})
	start := clk.now()
	var callsAt []time.Duration
	for i := range 40 {
		before := p.calls.Load()
		c.EnsureSnapshots(fmt.Sprintf("mint%02d", i))
		c.Flush(context.Background())
		if p.calls.Load() > before {
			callsAt = append(callsAt, clk.now().Sub(start))
		}
		clk.add(500 * time.Millisecond)
	}
	want := []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second, 15 * time.Second}
	if fmt.Sprint(callsAt) != fmt.Sprint(want) {
		t.Fatalf("upstream calls at %v; want %v", callsAt, want)
	}
	st := c.Providers()
	if len(st) != 1 || st[0].Up || st[0].Failures != 5 || st[0].Deferred[DeferredBackoff] != 35 {
		t.Fatalf("status while down: %+v", st)
	}
	p.set("ok")
	clk.add(BackoffMax)
	c.EnsureSnapshots("recovered")
	c.Flush(context.Background())
	if st := c.Providers(); !st[0].Up || st[0].Failures != 0 {
		t.Fatalf("status after a success: %+v", st)
	}
	before := p.calls.Load()
	c.EnsureSnapshots("next")
	c.Flush(context.Background())
	if p.calls.Load() != before+1 {
		t.Fatal("a recovered provider is still held back")
	}
}

// downMarkets is a DEX markets provider that always fails (another source
// than the snapshot provider's).
type downMarkets struct{}

func (downMarkets) Source() string { return asset.SourceMarketDataB }
func (downMarkets) Markets(context.Context, string, int) ([]market.DEXMarket, error) {
	return nil, fmt.Errorf("%w: connection refused", market.ErrUpstream)
}

// logSink collects log records.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}
func (s *logSink) lines(level string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range strings.Split(s.buf.String(), "\n") {
		if strings.Contains(l, "level="+level) {
			out = append(out, l)
		}
	}
	return out
}

// TestOutageLogsStateChangesAndOneLinePerCycle: ten warm cycles of 50
// mints against two dead providers log one WARN state change each, one summary per
// cycle and nothing per mint; the recovery logs one INFO line.
func TestOutageLogsStateChangesAndOneLinePerCycle(t *testing.T) {
	sink := &logSink{}
	log := slog.New(slog.NewTextHandler(sink, &slog.HandlerOptions{Level: slog.LevelInfo}))
	p := &fakeProvider{source: asset.SourceMarketDataA, prices: map[string]float64{}, mode: "down"}
	clk := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	c := New(Options{Snapshots: []market.SnapshotProvider{p}, Markets: downMarkets{}, Now: clk.now, Deadline: 20 * time.Millisecond, Log: log})
	var mints []string
	for i := range 50 {
		mints = append(mints, fmt.Sprintf("mint%02d", i))
	}
	for range 10 {
		c.LogCycle(log, mints)
		c.Warm(mints)
		c.Flush(context.Background())
		clk.add(30 * time.Second)
	}
	warns := sink.lines("WARN")
	var failing, cycles int
	for _, l := range warns {
		switch {
		case strings.Contains(l, "provider failing"):
			failing++
		case strings.Contains(l, "market warm cycle"):
			cycles++
		default:
			t.Errorf("unexpected WARN line: %s", l)
		}
	}
	// The first cycle's summary precedes any call (INFO); nine follow it.
	if failing != 2 || cycles != 9 {
		t.Fatalf("%d state-change and %d summary WARN lines; want 2 (one per provider) and 9:\n%s", failing, cycles, strings.Join(warns, "\n"))
	}
	p.set("ok")
	clk.add(BackoffMax)
	c.Warm(mints)
	c.Flush(context.Background())
	if info := sink.lines("INFO"); len(info) < 2 || !strings.Contains(strings.Join(info, "\n"), "provider recovered") {
		t.Fatalf("no recovery line:\n%s", strings.Join(info, "\n"))
	}
}

// TestPendingIsADeferralNotAFailure: a snapshot another replica refreshes
// (market.ErrPending, internal/refresh) neither backs the provider off nor
// holds the key: the next read retries it at once and gets the value.
func TestPendingIsADeferralNotAFailure(t *testing.T) {
	p := &fakeProvider{source: asset.SourceMarketDataA, prices: map[string]float64{"m1": 2}, mode: "pending"}
	c, _ := newTestCache(p)
	c.EnsureSnapshots("m1")
	c.Flush(context.Background())
	st := c.Providers()[0]
	if !st.Up || st.Failures != 0 || st.Calls != 0 || c.UpstreamCalls() != 0 {
		t.Fatalf("after a pending answer: %+v, upstream calls %d; want up, no failure, no call counted", st, c.UpstreamCalls())
	}
	p.set("ok")
	c.EnsureSnapshots("m1")
	c.Flush(context.Background())
	if m := c.Market("m1"); m == nil || m.Price == nil || *m.Price != 2 {
		t.Fatalf("pending key not retried at the next read: %+v", m)
	}
}
