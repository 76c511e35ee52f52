package analytics

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchPool is a stream of trades over 1,000 mints (skewed: the top mints
// take most trades) and 20,000 wallets, 200 trades a second in block-time
// order with 10% arriving up to 2 minutes late.
type benchPool struct {
	trades []Trade
	end    int64 // the latest block time
}

const benchPoolSize = 1 << 18

var (
	benchPoolOnce sync.Once
	benchPoolVal  *benchPool
)

func getBenchPool() *benchPool {
	benchPoolOnce.Do(func() {
		rng := rand.New(rand.NewPCG(42, 42))
		mints := make([]string, 1000)
		for i := range mints {
			mints[i] = addr("bench-mint", i)
		}
		wallets := make([]string, 20_000)
		for i := range wallets {
			wallets[i] = addr("bench-wallet", i)
		}
		p := &benchPool{trades: make([]Trade, benchPoolSize)}
		start := int64(monday)
		for i := range p.trades {
			bt := start + int64(i)/200
			if rng.IntN(10) == 0 {
				bt -= int64(rng.IntN(120))
			}
			u := rng.Float64()
			price := 1 + rng.Float64()
			usd := 10 + rng.Float64()*1000
			side := SideBuy
			if rng.IntN(2) == 0 {
				side = SideSell
			}
			p.trades[i] = Trade{
				Signature:   fmt.Sprintf("%016x%072d", rng.Uint64(), i),
				Slot:        bt * 5 / 2,
				BlockTime:   bt,
				Mint:        mints[int(float64(len(mints))*u*u*u)],
				Side:        side,
				TokenAmount: usd / price,
				USDAmount:   usd,
				PriceUSD:    price,
				Wallet:      wallets[rng.IntN(len(wallets))],
				Venue:       "raydium",
				FlowSource:  [3]string{"jupiter", "okx", ""}[rng.IntN(3)],
				FeeUSD:      usd * 0.0025,
				IsBot:       rng.IntN(5) == 0,
			}
			p.end = max(p.end, bt)
		}
		benchPoolVal = p
	})
	return benchPoolVal
}

// benchIngest ingests b.N trades in batches of 1024 into one engine, in
// steady state: the pool is replayed pass after pass with fresh
// signatures and block times shifted by the pool's span (so the clock,
// windows and dedupe generations move on as in production; rewriting the
// pass is not timed). It reports trades/s.
func benchIngest(b *testing.B, warm bool) {
	p := getBenchPool()
	span := p.end - p.trades[0].BlockTime + 1
	clk := newClock(p.end)
	e := newEngine(b, clk, func(c *Config) { c.Shards = 64 })
	pass := make([]Trade, len(p.trades))
	copy(pass, p.trades)
	b.ReportAllocs()
	b.ResetTimer()
	for done, round := 0, 0; done < b.N; {
		off := done % benchPoolSize
		if off == 0 && done > 0 {
			b.StopTimer()
			round++
			shift := int64(round) * span
			for i := range pass {
				t := &pass[i]
				*t = p.trades[i]
				t.Signature = fmt.Sprintf("%d%s", round, t.Signature[:80])
				t.BlockTime += shift
				t.Slot += shift * 5 / 2
			}
			clk.Set(p.end + shift)
			b.StartTimer()
		}
		n := min(1024, b.N-done, benchPoolSize-off)
		batch := pass[off : off+n]
		var res IngestResult
		if warm {
			res = e.Warm(batch)
		} else {
			res = e.Ingest(batch)
		}
		if res.Accepted != n {
			b.Fatalf("accepted %d of %d: %+v", res.Accepted, n, res)
		}
		done += n
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "trades/s")
}

// BenchmarkIngest is the full ingest path: validation, dedupe, windows,
// execution buckets and the seven candle intervals.
func BenchmarkIngest(b *testing.B) { benchIngest(b, false) }

// BenchmarkIngestWindows is the window-update path alone (Warm: no
// candles).
func BenchmarkIngestWindows(b *testing.B) { benchIngest(b, true) }

// BenchmarkIngestParallel runs Ingest from GOMAXPROCS goroutines, each
// op a batch of 64 pool trades (disjoint slices; once the pool is used up
// the replays count as duplicates, so keep -benchtime under 4096x for
// pure ingest numbers).
func BenchmarkIngestParallel(b *testing.B) {
	p := getBenchPool()
	clk := newClock(p.end)
	e := newEngine(b, clk, func(c *Config) { c.Shards = 64 })
	var cursor atomic.Int64
	var accepted atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			off := (cursor.Add(64) - 64) % benchPoolSize
			accepted.Add(int64(e.Ingest(p.trades[off : off+64]).Accepted))
		}
	})
	b.ReportMetric(float64(b.N*64)/b.Elapsed().Seconds(), "trades/s")
	b.ReportMetric(float64(accepted.Load())/float64(b.N*64), "accepted/trade")
}

// BenchmarkWindowUpdate is the window-update path on its own: pool trades
// (already validated and deduplicated) applied to their mint's minute
// ring and rolling windows under the shard lock, as apply does, with the
// pool replayed pass after pass a span later. One op is one trade.
func BenchmarkWindowUpdate(b *testing.B) {
	p := getBenchPool()
	span := p.end - p.trades[0].BlockTime + 1
	clk := newClock(p.end)
	e := newEngine(b, clk, func(c *Config) { c.Shards = 64 })
	items := make([]ingestItem, len(p.trades))
	for i := range p.trades {
		t := &p.trades[i]
		items[i] = ingestItem{t: t, key: e.dd.key(t.Signature, t.Leg), wallet: e.walletHash(t.Wallet), shard: uint32(e.shardIndex(t.Mint))}
	}
	pass := make([]Trade, len(p.trades))
	copy(pass, p.trades)
	b.ReportAllocs()
	b.ResetTimer()
	shift := int64(0)
	for i := 0; i < b.N; i++ {
		j := i % benchPoolSize
		if j == 0 && i > 0 {
			b.StopTimer()
			shift += span
			for k := range pass {
				pass[k].BlockTime = p.trades[k].BlockTime + shift
				items[k].t = &pass[k]
			}
			b.StartTimer()
		}
		it := &items[j]
		nowSec := p.end + shift
		sh := &e.shards[it.shard]
		sh.mu.Lock()
		e.apply(sh, it, nowSec, nowSec/60, false)
		sh.mu.Unlock()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "trades/s")
}

// BenchmarkCandleUpsert applies trades to the seven candle intervals of
// one mint (the upsert path of Ingest without validation, dedupe or
// windows); one op is one trade, i.e. seven bar upserts.
func BenchmarkCandleUpsert(b *testing.B) {
	p := getBenchPool()
	clk := newClock(p.end)
	e := newEngine(b, clk)
	sh := e.shardOf(mintA)
	ms := sh.state(mintA)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		t := &p.trades[i%benchPoolSize]
		i++
		k := keyOf(t)
		e.upsertCandles(sh, ms, t, &k, p.end, AdmissionAccepted)
		if len(sh.dirty) > 1<<16 {
			sh.dirty = sh.dirty[:0]
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "trades/s")
	b.ReportMetric(float64(b.N*numIntervals)/b.Elapsed().Seconds(), "upserts/s")
}

// BenchmarkTrending100k ranks 100,000 active mints (8 trades each over
// the last day, a third with activity in the last hour), advancing the
// clock a minute per run as a periodic recompute would.
func BenchmarkTrending100k(b *testing.B) {
	const mints = 100_000
	now := int64(monday + 2*day)
	clk := newClock(now)
	e := newEngine(b, clk, func(c *Config) { c.Shards = 64 })
	rng := rand.New(rand.NewPCG(9, 9))
	wallets := make([]string, 5000)
	for i := range wallets {
		wallets[i] = addr("bench-wallet", i)
	}
	excluded := map[string]bool{}
	batch := make([]Trade, 0, 8)
	for i := range mints {
		mint := addr("trend-mint", i)
		if i%100 == 0 {
			excluded[mint] = true
		}
		batch = batch[:0]
		for k := range 8 {
			back := int64(rng.IntN(day))
			if i%3 == 0 && k < 4 {
				back = int64(rng.IntN(hour))
			}
			price := 1 + rng.Float64()
			usd := 20 + rng.Float64()*500
			batch = append(batch, Trade{
				Signature: fmt.Sprintf("t%d-%d", i, k), Slot: now - back, BlockTime: now - back, Mint: mint,
				Side: SideBuy, TokenAmount: usd / price, USDAmount: usd, PriceUSD: price,
				Wallet: wallets[rng.IntN(len(wallets))], Venue: "orca",
			})
		}
		if res := e.Warm(batch); res.Accepted != len(batch) {
			b.Fatalf("Warm: %+v", res)
		}
	}
	isExcluded := func(m string) bool { return excluded[m] }
	b.ReportAllocs()
	b.ResetTimer()
	var set TrendingSet
	for b.Loop() {
		now += 60
		set = e.Trending(time.Unix(now, 0), isExcluded)
	}
	if len(set.Rows) != TrendingLimit {
		b.Fatalf("%d rows", len(set.Rows))
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/run")
}

// BenchmarkExecutionQuality reads the busiest mint's 24h rollup after a
// pool's worth of trades, with one new trade per read (so the newest
// minute's markouts are recomputed each time), as a periodic refresh
// would.
func BenchmarkExecutionQuality(b *testing.B) {
	p := getBenchPool()
	clk := newClock(p.end)
	e := newEngine(b, clk, func(c *Config) { c.Shards = 64 })
	for off := 0; off < benchPoolSize; off += 4096 {
		e.Ingest(p.trades[off : off+4096])
	}
	busiest := p.trades[0].Mint
	counts := map[string]int{}
	for i := range p.trades {
		if counts[p.trades[i].Mint]++; counts[p.trades[i].Mint] > counts[busiest] {
			busiest = p.trades[i].Mint
		}
	}
	extra := p.trades[0]
	extra.Mint = busiest
	now := time.Unix(p.end, 0)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		extra.Signature = fmt.Sprintf("eq-%d", i)
		extra.BlockTime = p.end - int64(i%30)
		i++
		e.Ingest([]Trade{extra})
		if q := e.ExecutionQuality(busiest, now); q == nil || q.MarkoutCount == nil {
			b.Fatal("no rollup")
		}
	}
	b.ReportMetric(float64(counts[busiest]), "trades/24h")
}
