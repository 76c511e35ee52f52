package analytics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/assetd/assetd/internal/asset"
)

var approx = cmpopts.EquateApprox(1e-12, 1e-9)

// noFirstAt ignores CandleRow.FirstAt (the open trade's time, which hand-written rows leave 0).
var noFirstAt = cmpopts.IgnoreFields(CandleRow{}, "FirstAt")

func TestWindowsSlideOverTime(t *testing.T) {
	const m0 = monday // minute boundary
	clk := newClock(m0 + hour + 30)
	e := newEngine(t, clk)
	mustIngest(t, e,
		trade("t1", mintA, m0+10, 1.0, 100, 1),
		trade("t2", mintA, m0+70, 1.1, 200, 2),
		trade("t3", mintA, m0+hour+5, 1.2, 50, 1),
	)
	tests := []struct {
		name string
		now  int64
		add  []Trade
		want WindowMetrics
	}{
		{
			// Minute m0+60: 5m/15m hold t3; 1h covers minutes m0+1..m0+60
			// (t2, t3); t1 sits in minute m0, the 1h window's start price.
			name: "after one hour",
			now:  m0 + hour + 30,
			want: WindowMetrics{
				Price:       ptr(1.2),
				Volume5mUSD: 50, Volume15mUSD: 50, Volume1hUSD: 250, Volume6hUSD: 350, Volume24hUSD: 350,
				Trade5m: 1, Trade15m: 1, Trade1h: 2, Trade6h: 3, Trade24h: 3,
				UniqueWallet5m: 1, UniqueWallet1h: 2, UniqueWallet24h: 2,
				PriceChange1hPercent: ptr(20.0), // 1.0 -> 1.2
				LastTradeAt:          ptr(int64(m0 + hour + 5)),
			},
		},
		{
			name: "after six hours, with a new trade",
			now:  m0 + 6*hour + 40,
			add:  []Trade{trade("t4", mintA, m0+6*hour+30, 0.9, 300, 3)},
			want: WindowMetrics{
				Price:       ptr(0.9),
				Volume5mUSD: 300, Volume15mUSD: 300, Volume1hUSD: 300, Volume6hUSD: 550, Volume24hUSD: 650,
				Trade5m: 1, Trade15m: 1, Trade1h: 1, Trade6h: 3, Trade24h: 4,
				UniqueWallet5m: 1, UniqueWallet1h: 1, UniqueWallet24h: 3,
				PriceChange1hPercent: ptr(-25.0), // 1.2 (minute m0+60 <= m0+300) -> 0.9
				LastTradeAt:          ptr(int64(m0 + 6*hour + 30)),
			},
		},
		{
			// Minute m0+1441: the 24h window covers m0+2..m0+1441, so t1
			// (minute m0) and t2 (m0+1) have left; t2 is the 24h start price.
			name: "a day and a minute later",
			now:  m0 + day + 90,
			want: WindowMetrics{
				Price:                 ptr(0.9),
				Volume24hUSD:          350,
				Trade24h:              2,
				UniqueWallet24h:       2,
				PriceChange1hPercent:  ptr(0.0),
				PriceChange24hPercent: ptr((0.9 - 1.1) / 1.1 * 100),
				LastTradeAt:           ptr(int64(m0 + 6*hour + 30)),
			},
		},
		{
			name: "two days later: only the last price is left",
			now:  m0 + 2*day,
			want: WindowMetrics{
				Price:                 ptr(0.9),
				PriceChange1hPercent:  ptr(0.0),
				PriceChange24hPercent: ptr(0.0),
				LastTradeAt:           ptr(int64(m0 + 6*hour + 30)),
			},
		},
	}
	for _, tt := range tests {
		clk.Set(tt.now)
		if len(tt.add) > 0 {
			mustIngest(t, e, tt.add...)
		}
		tt.want.Source, tt.want.MetricsSource, tt.want.AsOf = SourceAnalyticsTrades, SourceAnalyticsTrades, ptr(tt.now)
		tt.want.PriceTrades24h = tt.want.Trade24h // no trade is rejected here
		got := e.Windows(mintA, at(tt.now))
		if got == nil {
			t.Fatalf("%s: Windows = nil", tt.name)
		}
		if diff := cmp.Diff(tt.want, *got, approx); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if got := e.Windows(mintB, at(m0)); got != nil {
		t.Errorf("Windows of an unknown mint = %+v", got)
	}
}

func TestMarketShape(t *testing.T) {
	now := int64(monday + 2*day + 600)
	clk := newClock(now)
	e := newEngine(t, clk)
	mustIngest(t, e,
		trade("h1", mintA, now-25*hour, 4, 40, 9),  // historical: 24h start price
		trade("a1", mintA, now-2*hour, 5, 10, 1),   // 1h start price
		trade("a2", mintA, now-30*60, 6, 20, 2),    // in 1h
		trade("a3", mintA, now-29*60, 6.5, 30, 2),  // same wallet, other minute
		trade("a4", mintA, now-29*60+1, 6.4, 5, 3), // same minute
	)
	want := &asset.Market{
		Source:                asset.SourceAnalyticsTrades,
		MetricsSource:         asset.SourceAnalyticsTrades,
		Price:                 ptr(6.4),
		Volume1hUSD:           ptr(55.0),
		Volume24hUSD:          ptr(65.0),
		Trade1h:               ptr(3.0),
		Trade24h:              ptr(4.0),
		UniqueWallet1h:        ptr(2.0),
		UniqueWallet24h:       ptr(3.0),
		PriceChange1hPercent:  ptr((6.4 - 5) / 5 * 100),
		PriceChange24hPercent: ptr((6.4 - 4) / 4 * 100),
		LastTradeAt:           ptr(now - 29*60 + 1),
		AsOf:                  ptr(now),
		LastFetchedAt:         ptr(now * 1000),
		PriceTrades:           ptr(int64(4)),
	}
	if diff := cmp.Diff(want, e.Market(mintA, at(now)), approx); diff != "" {
		t.Errorf("Market (-want +got):\n%s", diff)
	}
	if m := e.Market(mintB, at(now)); m != nil {
		t.Errorf("Market of an unknown mint = %+v", m)
	}
}

// TestRollingMatchesScan checks the incrementally maintained windows
// against the exact scan while trades arrive late, out of order and with
// gaps, and the clock jumps.
func TestRollingMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	now := int64(monday)
	clk := newClock(now)
	e := newEngine(t, clk, func(c *Config) { c.Shards = 1 })
	seq := 0
	for step := range 3000 {
		switch rng.IntN(10) {
		case 0:
			now += int64(rng.IntN(3 * hour)) // gap
		case 1:
			now += int64(rng.IntN(3 * day))
		default:
			now += int64(rng.IntN(120))
		}
		clk.Set(now)
		var batch []Trade
		for range rng.IntN(30) {
			seq++
			back := int64(rng.IntN(300))
			if rng.IntN(8) == 0 {
				back = int64(rng.IntN(30 * hour)) // late, possibly historical
			}
			tr := trade(fmt.Sprintf("r%d", seq), mintA, now-back, 1+rng.Float64(), 1+float64(rng.IntN(1000)), rng.IntN(40))
			batch = append(batch, tr)
		}
		e.Ingest(batch)
		if rng.IntN(3) > 0 {
			continue
		}
		sh := e.shardOf(mintA)
		sh.mu.Lock()
		ms := sh.mints[mintA]
		if ms == nil {
			sh.mu.Unlock()
			continue
		}
		m := floorDiv(now, 60)
		ms.advance(m)
		wm := ms.scan(m, now)
		if diff := cmp.Diff(wm, ms.metrics(m, now), cmpopts.EquateApprox(1e-9, 1e-6)); diff != "" {
			t.Fatalf("step %d: metrics != scan (-scan +metrics):\n%s", step, diff)
		}
		// Cached per-minute markouts equal one pass over the window's
		// unsealed minutes plus the markouts sealed minutes keep
		// (TestSealedMarkouts checks those).
		q := ms.fillQuality(m)
		lo, hi := ms.find(m-ringMinutes+1), ms.find(m+1)
		us := max(lo, min(hi, ms.find(ms.sealedTo)))
		n := 0
		for _, b := range ms.bk[us:hi] {
			n += len(b.ticks)
		}
		pnl, cnt := markouts(ms.bk[us:hi], n)
		for _, b := range ms.bk[lo:us] {
			pnl += b.mkPnl
			cnt += int(b.mkCount)
		}
		switch {
		case cnt == 0 && q.MarkoutCount != nil:
			t.Fatalf("step %d: markouts %v, want none", step, *q.MarkoutCount)
		case cnt > 0 && (q.MarkoutCount == nil || *q.MarkoutCount != float64(cnt) || !cmp.Equal(*q.MarkoutPnl24hUSD, pnl, cmpopts.EquateApprox(1e-9, 1e-9))):
			t.Fatalf("step %d: cached markouts %v %v, one pass %v %v", step, q.MarkoutCount, q.MarkoutPnl24hUSD, cnt, pnl)
		}
		if step%7 == 0 {
			ms.resync()
		}
		r := ms.roll
		sh.mu.Unlock()
		got := []float64{r.vol[0], r.vol[1], r.vol[2], r.vol[3], r.vol[4],
			float64(r.trades[0]), float64(r.trades[1]), float64(r.trades[2]), float64(r.trades[3]), float64(r.trades[4]),
			float64(r.uniq[wal5m]), float64(r.uniq[wal1h]), float64(r.uniq[wal24h])}
		want := []float64{wm.Volume5mUSD, wm.Volume15mUSD, wm.Volume1hUSD, wm.Volume6hUSD, wm.Volume24hUSD,
			float64(wm.Trade5m), float64(wm.Trade15m), float64(wm.Trade1h), float64(wm.Trade6h), float64(wm.Trade24h),
			float64(wm.UniqueWallet5m), float64(wm.UniqueWallet1h), float64(wm.UniqueWallet24h)}
		if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-9, 1e-6)); diff != "" {
			t.Fatalf("step %d: rolling != scan (-scan +rolling):\n%s", step, diff)
		}
		for _, s := range r.lastSeen.slots {
			if s.h != 0 && (s.m <= m-ringMinutes || s.m > m) {
				t.Fatalf("step %d: wallet %x last seen at %d, outside the day before %d", step, s.h, s.m, m)
			}
		}
		// Every bucket lies within the ring.
		for _, b := range ms.bk {
			if b.min <= ms.head-ringMinutes || b.min > ms.head {
				t.Fatalf("step %d: bucket %d outside (%d, %d]", step, b.min, ms.head-ringMinutes, ms.head)
			}
		}
	}
}

// TestSealedMarkouts: trades arriving in order (within the seal lag) get
// exactly the markouts of the definition once their minutes are sealed
// and their per-trade state dropped; sealed buckets keep one tick.
func TestSealedMarkouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	now := int64(monday + 2*hour)
	clk := newClock(now)
	e := newEngine(t, clk)
	var all []Trade
	bt := now - 40*60
	for i := range 600 {
		bt += int64(rng.IntN(6))
		tr := trade(fmt.Sprintf("s%04d", i), mintA, bt, 1+rng.Float64(), 1+float64(rng.IntN(100)), rng.IntN(20))
		if rng.IntN(2) == 0 {
			tr.Side = SideSell
		}
		all = append(all, tr)
	}
	for i := 0; i < len(all); i += 25 {
		mustIngest(t, e, all[i:min(i+25, len(all))]...)
	}
	// The definition, by brute force (trades are in trade order).
	var want float64
	wantN := 0
	for i, a := range all {
		j := -1
		for k := i + 1; k < len(all) && all[k].BlockTime <= a.BlockTime+MarkoutHorizonSeconds; k++ {
			j = k
		}
		if j < 0 {
			continue
		}
		q := a.TokenAmount
		if a.Side == SideSell {
			q = -q
		}
		want += (all[j].PriceUSD - a.PriceUSD) * q
		wantN++
	}
	q := e.ExecutionQuality(mintA, at(bt))
	if q.MarkoutCount == nil || *q.MarkoutCount != float64(wantN) || math.Abs(*q.MarkoutPnl24hUSD-want) > 1e-9*max(1, math.Abs(want)) {
		t.Fatalf("markouts %v %v, want %d %v", q.MarkoutCount, q.MarkoutPnl24hUSD, wantN, want)
	}
	sh := e.shardOf(mintA)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	ms := sh.mints[mintA]
	sealed := 0
	for _, b := range ms.bk {
		if b.min < ms.sealedTo {
			sealed++
			if len(b.ticks) != 1 {
				t.Fatalf("sealed minute %d keeps %d ticks", b.min, len(b.ticks))
			}
		}
	}
	if sealed < len(ms.bk)-sealLagMinutes {
		t.Fatalf("%d minutes sealed of %d", sealed, len(ms.bk))
	}
}

// TestMarkoutsIgnoreArrivalOrder: trades of unsealed minutes arriving
// shuffled give the markouts and last price of the same trades in order
// (ticks are appended as they come and sorted when read).
func TestMarkoutsIgnoreArrivalOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	now := int64(monday + 2*hour)
	var all []Trade
	bt := now - 40*60
	for i := range 800 {
		bt += int64(rng.IntN(5))
		tr := trade(fmt.Sprintf("o%04d", i), mintA, bt, 1+rng.Float64(), 1+float64(rng.IntN(100)), rng.IntN(20))
		if rng.IntN(2) == 0 {
			tr.Side = SideSell
		}
		all = append(all, tr)
	}
	ordered := newEngine(t, newClock(now))
	shuffled := newEngine(t, newClock(now))
	for i := 0; i < len(all); i += 40 {
		batch := slices.Clone(all[i:min(i+40, len(all))])
		mustIngest(t, ordered, batch...)
		rng.Shuffle(len(batch), func(a, b int) { batch[a], batch[b] = batch[b], batch[a] })
		mustIngest(t, shuffled, batch...)
	}
	want, got := ordered.ExecutionQuality(mintA, at(bt)), shuffled.ExecutionQuality(mintA, at(bt))
	if want.MarkoutCount == nil || *want.MarkoutCount < 700 {
		t.Fatalf("ordered markouts %v: the test lost its subject", want.MarkoutCount)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-12, 1e-9)); diff != "" {
		t.Fatalf("shuffled arrival changed execution quality (-ordered +shuffled):\n%s", diff)
	}
	wo, ws := ordered.Windows(mintA, at(bt)), shuffled.Windows(mintA, at(bt))
	if diff := cmp.Diff(wo, ws, cmpopts.EquateApprox(1e-12, 1e-9)); diff != "" {
		t.Fatalf("shuffled arrival changed the windows (-ordered +shuffled):\n%s", diff)
	}
}
