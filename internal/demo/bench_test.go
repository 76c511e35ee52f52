package demo

import (
	"context"
	"testing"
	"time"
)

// benchMints is the seed registry's mints topped up with unknown mints to
// a full batch of 250.
func benchMints(b *testing.B) []string {
	mints := allMints(seedAssets(b))
	for i := uint64(0); len(mints) < MaxBatch; i++ {
		mints = append(mints, syntheticAddress(0xBE7C0000+i))
	}
	return mints[:MaxBatch]
}

// BenchmarkSnapshots250 is a full batch against a warm world (the clock
// fixed, as between two requests in the same second).
func BenchmarkSnapshots250(b *testing.B) {
	w := New(Config{Assets: seedAssets(b), Now: fixedClock(testNow)})
	mints := benchMints(b)
	ctx := context.Background()
	if _, err := w.Snapshots(ctx, mints); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := w.Snapshots(ctx, mints); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshots250MovingClock advances the clock a minute per batch:
// day caches stay warm, minute-level work is redone.
func BenchmarkSnapshots250MovingClock(b *testing.B) {
	now := testNow
	w := New(Config{Assets: seedAssets(b), Now: func() time.Time { return now }})
	mints := benchMints(b)
	ctx := context.Background()
	if _, err := w.Snapshots(ctx, mints); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		now = now.Add(time.Minute)
		if _, err := w.Snapshots(ctx, mints); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshots250Cold runs each batch against a fresh world (empty
// caches); building the world is not timed.
func BenchmarkSnapshots250Cold(b *testing.B) {
	assets := seedAssets(b)
	mints := benchMints(b)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		w := New(Config{Assets: assets, Now: fixedClock(testNow)})
		b.StartTimer()
		if _, err := w.Snapshots(ctx, mints); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOHLCV1H7d is the default chart (1H over 7 days) of one mint,
// warm cache.
func BenchmarkOHLCV1H7d(b *testing.B) {
	w := New(Config{Assets: seedAssets(b), Now: fixedClock(testNow)})
	ctx := context.Background()
	from, to := testNow.Unix()-7*86400, testNow.Unix()
	if _, err := w.OHLCV(ctx, mintWSOL, "1H", from, to); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		cs, err := w.OHLCV(ctx, mintWSOL, "1H", from, to)
		if err != nil || len(cs) < 168 {
			b.Fatal(len(cs), err)
		}
	}
}

// BenchmarkOHLCV1H7dCold is the same chart against a fresh world (the
// path's days computed from scratch); building the world is not timed.
func BenchmarkOHLCV1H7dCold(b *testing.B) {
	assets := seedAssets(b)
	ctx := context.Background()
	from, to := testNow.Unix()-7*86400, testNow.Unix()
	for b.Loop() {
		b.StopTimer()
		w := New(Config{Assets: assets, Now: fixedClock(testNow)})
		b.StartTimer()
		cs, err := w.OHLCV(ctx, mintWSOL, "1H", from, to)
		if err != nil || len(cs) < 168 {
			b.Fatal(len(cs), err)
		}
	}
}

// BenchmarkOHLCV1m24h is a day of minute candles, warm cache.
func BenchmarkOHLCV1m24h(b *testing.B) {
	w := New(Config{Assets: seedAssets(b), Now: fixedClock(testNow)})
	ctx := context.Background()
	from, to := testNow.Unix()-86400, testNow.Unix()
	for b.Loop() {
		if _, err := w.OHLCV(ctx, mintWSOL, "1m", from, to); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOHLCV1D30d is the daily series behind volume30dUSD, warm.
func BenchmarkOHLCV1D30d(b *testing.B) {
	w := New(Config{Assets: seedAssets(b), Now: fixedClock(testNow)})
	ctx := context.Background()
	from, to := testNow.Unix()-30*86400, testNow.Unix()
	for b.Loop() {
		if _, err := w.OHLCV(ctx, mintWSOL, "1D", from, to); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTrades10m is ten minutes of JitoSOL trades.
func BenchmarkTrades10m(b *testing.B) {
	w := New(Config{Assets: seedAssets(b), Now: fixedClock(testNow)})
	from, to := testNow.Add(-10*time.Minute), testNow
	for b.Loop() {
		_ = w.Trades(mintJitoSOL, from, to)
	}
}

// BenchmarkNew builds a world from the seed registry.
func BenchmarkNew(b *testing.B) {
	assets := seedAssets(b)
	for b.Loop() {
		_ = New(Config{Assets: assets, Now: fixedClock(testNow)})
	}
}

// BenchmarkCoin is one coin profile (including the all-time high over the
// served history) against a warm world.
func BenchmarkCoin(b *testing.B) {
	w := New(Config{Assets: seedAssets(b), Now: fixedClock(testNow)})
	coins := w.Coins()
	ctx := context.Background()
	if _, err := coins.Coin(ctx, "solana"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := coins.Coin(ctx, "solana"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCoinCold is one coin profile against a fresh world.
func BenchmarkCoinCold(b *testing.B) {
	assets := seedAssets(b)
	ctx := context.Background()
	for b.Loop() {
		w := New(Config{Assets: assets, Now: fixedClock(testNow)})
		if _, err := w.Coins().Coin(ctx, "solana"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSyntheticAddress: a demo wallet or pool address (base58 of 32
// hashed bytes); the trade generator makes one per wallet it meets.
func BenchmarkSyntheticAddress(b *testing.B) {
	var i uint64
	for b.Loop() {
		i++
		_ = syntheticAddress(i)
	}
}
