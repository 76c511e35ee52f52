package demo

import (
	"sync"
	"testing"
	"time"
)

// settable is a fake clock.
type settable struct {
	mu sync.Mutex
	t  time.Time
}

func (c *settable) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *settable) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// TestTradeStreamDeliversEveryTradeOnce: whatever the phase of the start
// within a minute and the ticker period, a stream polled at every tick
// delivers exactly the world's trades of the covered span: each once,
// none skipped (the feed used to jump its cursor to "now" while the world
// serves complete minutes only, and ingested 0-5% of the trades).
func TestTradeStreamDeliversEveryTradeOnce(t *testing.T) {
	assets := fixtureAssets()
	mints := allMints(assets)
	base := testNow.Truncate(time.Minute)
	deepest, most := "", 0
	probe := New(Config{Assets: assets, Now: fixedClock(base)})
	for _, m := range mints {
		if n := len(probe.Trades(m, base.Add(-10*time.Minute), base)); n > most {
			deepest, most = m, n
		}
	}
	for _, tc := range []struct {
		name   string
		phase  time.Duration // start offset within the minute
		period time.Duration // ticker period
		ticks  int
	}{
		{"on the minute, 3 s ticks", 0, 3 * time.Second, 60},
		{"1 s past, 3 s ticks", time.Second, 3 * time.Second, 60},
		{"17.5 s past, 7 s ticks", 17*time.Second + 500*time.Millisecond, 7 * time.Second, 30},
		{"59 s past, 61 s ticks", 59 * time.Second, 61 * time.Second, 4},
		{"30 s past, one 2 h poll (capped calls)", 30 * time.Second, 2 * time.Hour, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := base.Add(tc.phase)
			clk := &settable{t: start}
			w := New(Config{Assets: assets, Now: clk.now})
			from := start.Add(-10 * time.Minute) // a backfill, then the live ticks
			mints := mints
			if tc.period > time.Hour {
				mints = []string{deepest} // enough trades to fill capped calls
			}
			s := w.TradeStream(from)
			if tc.period > time.Hour {
				s.window = int64(tc.period / time.Second) // calls that hit MaxTradesPerCall
			}
			seen := map[string]int{}
			got := 0
			capped := false
			emit := func(b []SimTrade) bool {
				capped = capped || len(b) >= MaxTradesPerCall/2
				for i := range b {
					seen[b[i].Signature]++
					got++
				}
				return true
			}
			now := start
			for i := 0; i <= tc.ticks; i++ {
				clk.set(now)
				if _, _, ok := s.Poll(mints, now, emit); !ok {
					t.Fatal("Poll stopped")
				}
				now = now.Add(tc.period)
			}
			end := s.Cursor()
			if end.Unix()%60 != 0 || end.After(now) || now.Sub(end) > tc.period+time.Minute {
				t.Fatalf("cursor %s after the last tick at %s", end, now.Add(-tc.period))
			}
			want := 0
			ref := New(Config{Assets: assets, Now: func() time.Time { return end.Add(time.Hour) }})
			for _, m := range mints {
				// Ten minutes per call stay below MaxTradesPerCall.
				for a := from; a.Before(end); a = a.Add(10 * time.Minute) {
					b := a.Add(10 * time.Minute)
					if b.After(end) {
						b = end
					}
					want += len(ref.Trades(m, a, b))
				}
			}
			for sig, n := range seen {
				if n != 1 {
					t.Fatalf("trade %s delivered %d times", sig, n)
				}
			}
			if got != want || want == 0 {
				t.Fatalf("delivered %d trades, the world has %d in [%s, %s)", got, want, from.Format(time.TimeOnly), end.Format(time.TimeOnly))
			}
			if tc.period > time.Hour && !capped {
				t.Error("no batch near MaxTradesPerCall: the capped path went untested")
			}
			t.Logf("%d trades delivered once each over [%s, %s)", got, from.Format(time.TimeOnly), end.Format(time.TimeOnly))
		})
	}
}
