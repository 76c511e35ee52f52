package analytics

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/assetd/assetd/internal/market"
)

func TestNewValidatesConfig(t *testing.T) {
	bad := []Config{
		{Shards: 3},
		{Shards: 8192},
		{Shards: -1},
		{DedupeTTL: time.Millisecond},
		{DedupeMaxEntries: -5},
		{MaxFutureSkew: -time.Second},
		{Retention: map[market.Interval]time.Duration{"2m": time.Hour}},
		{Retention: map[market.Interval]time.Duration{"1m": -time.Hour}},
	}
	for _, cfg := range bad {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) = nil error", cfg)
		}
	}
	if _, err := New(Config{}); err != nil {
		t.Errorf("New(zero Config) = %v", err)
	}
}

func TestIngestIdempotent(t *testing.T) {
	clk := newClock(monday + 2*hour)
	e := newEngine(t, clk)
	batch := []Trade{
		trade("s1", mintA, monday+hour, 2, 100, 1),
		trade("s2", mintA, monday+hour+30, 2.2, 50, 2),
		trade("s3", mintB, monday+hour+90, 5, 10, 1),
		trade("s1", mintA, monday+hour, 2, 100, 1), // duplicate within the batch
	}
	res := e.Ingest(batch)
	if diff := cmp.Diff(IngestResult{Accepted: 3, Duplicates: 1}, res); diff != "" {
		t.Fatalf("first Ingest (-want +got):\n%s", diff)
	}
	now := at(monday + 2*hour)
	market1, candles1 := e.Market(mintA, now), e.Candles(mintA, "1m", 0, monday+day)

	// Replaying everything, and a same-signature trade with other values,
	// changes nothing.
	replay := append(batch[:3:3], trade("s2", mintB, monday+hour+31, 9, 999, 3))
	res = e.Ingest(replay)
	if diff := cmp.Diff(IngestResult{Duplicates: 4}, res); diff != "" {
		t.Fatalf("replay (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(market1, e.Market(mintA, now)); diff != "" {
		t.Errorf("market changed on replay (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(candles1, e.Candles(mintA, "1m", 0, monday+day)); diff != "" {
		t.Errorf("candles changed on replay (-before +after):\n%s", diff)
	}
	if got := *e.Market(mintB, now).Trade24h; got != 1 {
		t.Errorf("mintB trades = %v, want 1", got)
	}
	if got := e.DirtyCandles(); len(got) != 2*numIntervals {
		t.Errorf("DirtyCandles = %d rows, want %d", len(got), 2*numIntervals)
	}
	st := e.Stats()
	if diff := cmp.Diff(Stats{Mints: 2, Candles: 2 * numIntervals, Signatures: 3, Accepted: 3, Duplicates: 5}, st); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

func TestIngestRejects(t *testing.T) {
	clk := newClock(monday)
	e := newEngine(t, clk, func(c *Config) { c.MaxFutureSkew = time.Minute })
	bad := trade("b1", mintA, monday, 1, 1, 1)
	bad.Side = "long"
	neg := trade("b2", mintA, monday, 1, 1, 1)
	neg.USDAmount = 0
	neg2 := trade("b3", mintA, monday, 1, 1, 1)
	neg2.TokenAmount = -3
	res := e.Ingest([]Trade{
		bad, neg, neg2,
		trade("f1", mintA, monday+61, 1, 1, 1),   // past the skew
		trade("f2", mintA, monday+60, 1, 1, 1),   // at the skew: accepted
		trade("ms", mintA, monday*1000, 1, 1, 1), // milliseconds
		trade("ok", mintA, monday-10*day, 1, 1, 1),
	})
	want := IngestResult{Accepted: 2, Rejected: 5, Reasons: map[string]int{
		"invalid_side": 1, "non_positive_amount": 2, "future_block_time": 2,
	}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("Ingest (-want +got):\n%s", diff)
	}
	// A rejected signature is not remembered: a corrected trade goes in.
	fixed := trade("b1", mintA, monday, 1, 1, 1)
	mustIngest(t, e, fixed)
}

func TestIngestConcurrent(t *testing.T) {
	clk := newClock(monday + day)
	e := newEngine(t, clk)
	mints := []string{mintA, mintB, mintC, mintD}
	var all []Trade
	for i := range 4000 {
		all = append(all, trade(fmt.Sprintf("sig-%05d", i), mints[i%4], monday+day-3600+int64(i%3600), 1+float64(i%7), 10, i%50))
	}
	// Eight writers, each ingesting an overlapping half of the trades in
	// batches, while readers poll.
	var wg sync.WaitGroup
	results := make([]IngestResult, 8)
	for g := range 8 {
		wg.Go(func() {
			for start := (g % 2) * 1000; start < (g%2)*1000+2000; start += 100 {
				r := e.Ingest(all[start : start+100])
				results[g].Accepted += r.Accepted
				results[g].Duplicates += r.Duplicates
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 50 {
				e.Trending(at(monday+day), nil)
				e.Market(mintA, at(monday+day))
				e.DirtyCandles()
			}
		})
	}
	wg.Wait()
	accepted, dups := 0, 0
	for _, r := range results {
		accepted += r.Accepted
		dups += r.Duplicates
	}
	if accepted != 3000 || dups != 8*2000-3000 {
		t.Fatalf("accepted %d duplicates %d, want 3000 and %d", accepted, dups, 8*2000-3000)
	}
	var total float64
	for _, m := range mints {
		total += *e.Market(m, at(monday+day)).Trade24h
	}
	if total != 3000 {
		t.Errorf("24h trades over all mints = %v, want 3000", total)
	}
}

func TestDedupeBounds(t *testing.T) {
	clk := newClock(monday)
	e := newEngine(t, clk, func(c *Config) {
		c.Shards = 1
		c.DedupeTTL = time.Hour
		c.DedupeMaxEntries = 1000
	})
	mustIngest(t, e, trade("old", mintA, monday, 1, 1, 1))
	// Within one TTL the signature is remembered, and up to two TTLs (it
	// sits in the previous generation).
	clk.Set(monday + 3599)
	if r := e.Ingest([]Trade{trade("old", mintA, monday, 1, 1, 1)}); r.Duplicates != 1 {
		t.Errorf("after 1h-1s: %+v, want duplicate", r)
	}
	clk.Set(monday + 3600)
	mustIngest(t, e, trade("x1", mintA, monday+3600, 1, 1, 1)) // rotates
	if r := e.Ingest([]Trade{trade("old", mintA, monday, 1, 1, 1)}); r.Duplicates != 1 {
		t.Errorf("after 1h: %+v, want duplicate (previous generation)", r)
	}
	clk.Set(monday + 2*3600)
	mustIngest(t, e, trade("x2", mintA, monday+2*3600, 1, 1, 1)) // rotates again
	if r := e.Ingest([]Trade{trade("old", mintA, monday, 1, 1, 1)}); r.Accepted != 1 {
		t.Errorf("after 2h: %+v, want forgotten", r)
	}
	// The entry bound holds whatever the TTL.
	var batch []Trade
	for i := range 5000 {
		batch = append(batch, trade(fmt.Sprintf("n%d", i), mintA, monday+2*3600, 1, 1, 1))
	}
	mustIngest(t, e, batch...)
	if n := e.Stats().Signatures; n > 1000 {
		t.Errorf("remembered %d signatures, want <= 1000", n)
	}
	// The newest half of the bound is always remembered.
	if r := e.Ingest(batch[len(batch)-500:]); r.Duplicates != 500 {
		t.Errorf("replay of the newest 500: %+v", r)
	}
}

func TestWarmSkipsCandles(t *testing.T) {
	clk := newClock(monday + hour)
	e := newEngine(t, clk)
	res := e.Warm([]Trade{trade("w1", mintA, monday+hour-60, 3, 30, 1)})
	if res.Accepted != 1 {
		t.Fatalf("Warm = %+v", res)
	}
	if got := e.Candles(mintA, "1m", 0, monday+day); got != nil {
		t.Errorf("Warm made candles: %v", got)
	}
	if got := *e.Market(mintA, at(monday+hour)).Volume1hUSD; got != 30 {
		t.Errorf("volume1h = %v, want 30", got)
	}
	if r := e.Ingest([]Trade{trade("w1", mintA, monday+hour-60, 3, 30, 1)}); r.Duplicates != 1 {
		t.Errorf("Ingest after Warm = %+v, want duplicate", r)
	}
}

func TestPruneForgetsIdleMints(t *testing.T) {
	clk := newClock(monday + hour)
	e := newEngine(t, clk, func(c *Config) {
		c.Retention = map[market.Interval]time.Duration{}
		c.Retention["1m"] = 2 * day * time.Second
		for _, iv := range []market.Interval{"5m", "15m", "1H", "4H", "1D", "1W"} {
			c.Retention[iv] = 10 * day * time.Second
		}
	})
	mustIngest(t, e, trade("p1", mintA, monday+hour-60, 3, 30, 1))
	e.DirtyCandles()
	e.Prune(at(monday + hour))
	if st := e.Stats(); st.Mints != 1 || st.Candles != numIntervals {
		t.Fatalf("after prune at once: %+v", st)
	}
	e.Prune(at(monday + 3*day))
	if got := e.Candles(mintA, "1m", 0, monday+day); got != nil {
		t.Errorf("1m candles kept past 2 days: %v", got)
	}
	if got := e.Candles(mintA, "1H", 0, monday+day); len(got) != 1 {
		t.Errorf("1H candles = %v, want kept", got)
	}
	if m := e.Market(mintA, at(monday+3*day)); m == nil || *m.Volume24hUSD != 0 || *m.Price != 3 {
		t.Errorf("Market after 3 days = %+v, want price 3, volume 0", m)
	}
	e.Prune(at(monday + 20*day))
	if st := e.Stats(); st.Mints != 0 || st.Candles != 0 {
		t.Errorf("after prune at 20 days: %+v", st)
	}
	if m := e.Market(mintA, at(monday+20*day)); m != nil {
		t.Errorf("Market of a forgotten mint = %+v", m)
	}
}

// TestDedupeByLeg: a trade's identity is (signature, leg): two legs of one
// transaction both count, in one batch (Admit and Ingest) or across
// batches, and a repeated (signature, leg) is a duplicate.
func TestDedupeByLeg(t *testing.T) {
	clk := newClock(monday)
	e := newEngine(t, clk)
	leg0 := trade("route", mintA, monday, 1, 1, 1)
	leg1 := leg0
	leg1.Leg = 1
	if ok, r := e.Admit([]Trade{leg0, leg1, leg1}); len(ok) != 2 || r.Duplicates != 1 {
		t.Fatalf("Admit: %d admitted, %+v", len(ok), r)
	}
	if r := e.Ingest([]Trade{leg0, leg1}); r.Accepted != 2 || r.Duplicates != 0 {
		t.Fatalf("Ingest: %+v, want 2 accepted", r)
	}
	leg2 := leg0
	leg2.Leg = 2
	if r := e.Ingest([]Trade{leg1, leg2, leg0}); r.Accepted != 1 || r.Duplicates != 2 {
		t.Fatalf("second Ingest: %+v, want leg 2 accepted and 2 duplicates", r)
	}
	if got := *e.Market(mintA, at(monday+60)).Trade24h; got != 3 {
		t.Errorf("24h trades %v, want 3", got)
	}
}

// BenchmarkDedupeKey: the key of a leg-0 and a leg-2 identity, without
// allocating.
func BenchmarkDedupeKey(b *testing.B) {
	d := newDedupe(1, 3600, 1000)
	sig := "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"
	b.ReportAllocs()
	var sink uint64
	for i := 0; i < b.N; i++ {
		k := d.key(sig, i&2)
		sink ^= k.h ^ k.prefix
	}
	if sink == 1 {
		b.Log(sink)
	}
}
