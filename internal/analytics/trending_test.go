package analytics

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFlowScore(t *testing.T) {
	now := int64(monday)
	tests := []struct {
		name string
		in   FlowInputs
		want float64
	}{
		{"nothing but a fresh trade", FlowInputs{LastTradeAt: ptr(now), AsOf: now}, 5},
		{"nothing at all", FlowInputs{AsOf: now}, 0},
		{"last trade in the future", FlowInputs{LastTradeAt: ptr(now + 5), AsOf: now}, 0},
		{"last trade 20 min ago", FlowInputs{LastTradeAt: ptr(now - 1200), AsOf: now}, 3.6364}, // 5 * 2400/3300
		{"last trade an hour ago", FlowInputs{LastTradeAt: ptr(now - 3600), AsOf: now}, 0},
		{"price move only", FlowInputs{PriceChange1h: ptr(-5.0), AsOf: now}, 2.5},
		{
			"busy short window",
			FlowInputs{V5m: 10000, V15m: 10000, V1h: 10000, V24h: 10100, T5m: 10, T15m: 10, T1h: 10, W5m: 10, W1h: 10,
				PriceChange1h: ptr(10.0), LastTradeAt: ptr(now), AsOf: now},
			63.1508,
		},
		{
			"mid-size, older trade, falling",
			FlowInputs{V5m: 2500, V15m: 6000, V1h: 40000, V24h: 240000, T5m: 12, T15m: 40, T1h: 300, W5m: 8, W1h: 120,
				PriceChange1h: ptr(-3.5), LastTradeAt: ptr(now - 1200), AsOf: now},
			49.2628,
		},
		{
			"saturated logs, flat ratios",
			FlowInputs{V5m: 1e7, V15m: 1e7, V1h: 1e7, V24h: 1e7, T5m: 1e4, T15m: 1e4, T1h: 1e4, W5m: 1e4, W1h: 1e4,
				PriceChange1h: ptr(50.0), LastTradeAt: ptr(now), AsOf: now},
			94.1699,
		},
	}
	for _, tt := range tests {
		if got := FlowScore(tt.in); got != tt.want {
			t.Errorf("%s: FlowScore = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// trendingFixture builds, at now = monday+2h+59s (minute M = monday/60+120):
//
//	A: 10 trades of 1000 USD at price 1.1 in the last 5 minutes (10
//	   wallets) and one of 100 USD at 1.0 90 minutes ago: 63.1508.
//	B: 6 trades of 500 USD every 10 minutes over the last hour, no price
//	   before the hour: 36.1307.
//	C, D: identical; 4 trades of 100 USD 3 h ago and one 1000 s ago:
//	   10.6332 each, tied (mint order decides).
//	E: 4 trades (below 5) of 10,000 USD: ineligible.
//	F: 10 trades of 5 USD (below 100 USD): ineligible.
func trendingFixture(t *testing.T) (*Engine, int64) {
	now := int64(monday + 2*hour + 59)
	clk := newClock(now)
	e := newEngine(t, clk)
	var ts []Trade
	n := 0
	add := func(mint string, bt int64, price, usd float64, w int) {
		n++
		ts = append(ts, trade(fmt.Sprintf("tr%d", n), mint, bt, price, usd, w))
	}
	for k := range 10 {
		add(mintA, now-30*int64(k), 1.1, 1000, k)
	}
	add(mintA, now-90*60, 1.0, 100, 11)
	for k, back := range []int64{50, 650, 1250, 1850, 2450, 3050} {
		add(mintB, now-back, 2, 500, k)
	}
	for _, m := range []string{mintC, mintD} {
		for k := range 4 {
			add(m, now-3*hour, 1, 100, k)
		}
		add(m, now-1000, 1, 100, 4)
	}
	for k := range 4 {
		add(mintE, now-60*int64(k), 3, 10_000, k)
	}
	mintF := addr("mint", 6)
	for k := range 10 {
		add(mintF, now-60*int64(k), 3, 5, k)
	}
	mustIngest(t, e, ts...)
	return e, now
}

func TestTrendingOrderAndExclusion(t *testing.T) {
	e, now := trendingFixture(t)
	first, second := mintC, mintD
	if second < first {
		first, second = second, first
	}
	type short struct {
		Rank  int
		Mint  string
		Score float64
	}
	shorten := func(s TrendingSet) []short {
		var out []short
		for _, r := range s.Rows {
			out = append(out, short{r.Rank, r.Mint, r.Score})
		}
		return out
	}
	set := e.Trending(at(now), nil)
	want := []short{{1, mintA, 63.1508}, {2, mintB, 36.1307}, {3, first, 10.6332}, {4, second, 10.6332}}
	if diff := cmp.Diff(want, shorten(set)); diff != "" {
		t.Errorf("Trending (-want +got):\n%s", diff)
	}
	if set.AsOf != now || set.ScoringVersion != ScoringVersion || ScoringVersion != "assetd-flow-v1" {
		t.Errorf("set meta = %d %q", set.AsOf, set.ScoringVersion)
	}
	// Row markets are the mint's windows at now.
	for _, r := range set.Rows {
		if diff := cmp.Diff(e.Windows(r.Mint, at(now)), &r.Market); diff != "" {
			t.Errorf("row %s market (-Windows +row):\n%s", r.Mint, diff)
		}
	}
	a := set.Rows[0].Market
	if a.Volume5mUSD != 10000 || a.Trade5m != 10 || a.UniqueWallet5m != 10 || a.Volume24hUSD != 10100 || a.Trade24h != 11 || a.UniqueWallet24h != 11 || *a.LastTradeAt != now {
		t.Errorf("row A market = %+v", a)
	}

	// Exclusion removes a mint and re-ranks; the callback may call back
	// into the engine (no lock is held).
	var asked []string
	set = e.Trending(at(now), func(mint string) bool {
		asked = append(asked, mint)
		_ = e.Windows(mint, at(now))
		return mint == mintA || mint == first
	})
	want = []short{{1, mintB, 36.1307}, {2, second, 10.6332}}
	if diff := cmp.Diff(want, shorten(set)); diff != "" {
		t.Errorf("Trending with exclusions (-want +got):\n%s", diff)
	}
	for _, m := range asked {
		if m == mintE || m == addr("mint", 6) {
			t.Errorf("excluded() asked about ineligible mint %s", m)
		}
	}

	// Half an hour later the 5m and 15m windows are empty, A's hour still
	// holds its burst, B has lost 3 trades, and recency has decayed.
	later := e.Trending(at(now+1800), nil)
	want = []short{{1, mintA, 22.1657}, {2, mintB, 13.711}, {3, first, 7.9059}, {4, second, 7.9059}}
	if diff := cmp.Diff(want, shorten(later)); diff != "" {
		t.Errorf("half an hour later (-want +got):\n%s", diff)
	}
	// Two days later nothing is eligible.
	if got := e.Trending(at(now+2*day), nil); len(got.Rows) != 0 || got.Rows == nil {
		t.Errorf("two days later: %+v", got)
	}
}

func TestTrendingKeepsTop50(t *testing.T) {
	now := int64(monday + hour)
	clk := newClock(now)
	e := newEngine(t, clk)
	var ts []Trade
	for i := range 80 {
		mint := addr("many", i)
		for k := range 5 + i%7 {
			ts = append(ts, trade(fmt.Sprintf("m%d-%d", i, k), mint, now-int64(60*k), 1, float64(100+(i%13)*50), k))
		}
	}
	mustIngest(t, e, ts...)
	set := e.Trending(at(now), nil)
	if len(set.Rows) != TrendingLimit {
		t.Fatalf("%d rows, want %d", len(set.Rows), TrendingLimit)
	}
	for i, r := range set.Rows {
		if r.Rank != i+1 {
			t.Errorf("row %d has rank %d", i, r.Rank)
		}
		if i == 0 {
			continue
		}
		p := set.Rows[i-1]
		a := trendCand{mint: p.Mint, score: p.Score, v1h: p.Market.Volume1hUSD, t1h: p.Market.Trade1h}
		b := trendCand{mint: r.Mint, score: r.Score, v1h: r.Market.Volume1hUSD, t1h: r.Market.Trade1h}
		if !a.better(&b) {
			t.Errorf("rows %d and %d out of order: %+v then %+v", i-1, i, a, b)
		}
	}
	// The cut is right: every mint left out ranks below the 50th.
	in := map[string]bool{}
	for _, r := range set.Rows {
		in[r.Mint] = true
	}
	last := set.Rows[TrendingLimit-1]
	lastC := trendCand{mint: last.Mint, score: last.Score, v1h: last.Market.Volume1hUSD, t1h: last.Market.Trade1h}
	for i := range 80 {
		mint := addr("many", i)
		if in[mint] {
			continue
		}
		w := e.Windows(mint, at(now))
		c := trendCand{mint: mint, v1h: w.Volume1hUSD, t1h: w.Trade1h, score: FlowScore(FlowInputs{
			V5m: w.Volume5mUSD, V15m: w.Volume15mUSD, V1h: w.Volume1hUSD, V24h: w.Volume24hUSD,
			T5m: float64(w.Trade5m), T15m: float64(w.Trade15m), T1h: float64(w.Trade1h),
			W5m: float64(w.UniqueWallet5m), W1h: float64(w.UniqueWallet1h),
			PriceChange1h: w.PriceChange1hPercent, LastTradeAt: w.LastTradeAt, AsOf: now,
		})}
		if c.better(&lastC) {
			t.Errorf("left-out mint %s (%+v) beats the 50th (%+v)", mint, c, lastC)
		}
	}
}
