package ingest_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/mr-tron/base58"
)

var now = time.Date(2026, 11, 21, 12, 0, 30, 0, time.UTC)

func clock() time.Time { return now }

// address is a well-formed address that is visibly no real account.
func address(kind string, i int) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("assetd ingest test %s %d", kind, i)))
	return base58.Encode(sum[:])
}

// trades returns n synthetic trades of mints 0..mints-1 in the last
// minutes before now, signatures prefix-0, prefix-1, ...
func trades(prefix string, n, mints int) []analytics.Trade {
	out := make([]analytics.Trade, n)
	for i := range out {
		out[i] = analytics.Trade{Signature: fmt.Sprintf("%s-%d", prefix, i), Slot: int64(i), BlockTime: now.Unix() - int64(i%600),
			Mint: address("mint", i%mints), Side: analytics.SideBuy, TokenAmount: 10, USDAmount: 2, PriceUSD: 0.2,
			Wallet: address("wallet", i%7), Venue: "TestVenue"}
	}
	return out
}

func openStore(t *testing.T, dir string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// server is one process's engine and ingester over the store in dir,
// rebuilt from it.
func server(t *testing.T, dir string) (*analytics.Engine, *ingest.Ingester) {
	t.Helper()
	eng, err := analytics.New(analytics.Config{Clock: clock, NoDedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	in, err := ingest.New(eng, openStore(t, dir), ingest.Config{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	return eng, in
}

// storeOnlyWriter is another process's ingester over the store in dir
// (ingest replay): it stores and leaves its engine untouched.
func storeOnlyWriter(t *testing.T, dir string) (*analytics.Engine, *ingest.Ingester) {
	t.Helper()
	eng, err := analytics.New(analytics.Config{Clock: clock, NoDedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	in, err := ingest.New(eng, openStore(t, dir), ingest.Config{Clock: clock, StoreOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	return eng, in
}

func mustIngest(t *testing.T, in *ingest.Ingester, batch []analytics.Trade) analytics.IngestResult {
	t.Helper()
	res, err := in.Ingest(context.Background(), batch)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// totals sums the 1D candles and the 24 h windows of the mints.
func totals(eng *analytics.Engine, mints int) (vol float64, count int64, windowTrades int64) {
	day := now.Truncate(24 * time.Hour).Unix()
	for m := range mints {
		for _, c := range eng.Candles(address("mint", m), "1D", day, day+86400) {
			vol += c.Volume
			count += c.Trades
		}
		if w := eng.Windows(address("mint", m), now); w != nil {
			windowTrades += w.Trade24h
		}
	}
	return vol, count, windowTrades
}

// An acknowledged batch is in the store; a fresh engine over the same
// store counts a re-send as duplicates only and has the batch in its
// windows and candles.
func TestAcknowledgedIsStoredAndDeduplicatedAfterRestart(t *testing.T) {
	dir := t.TempDir()
	_, in := server(t, dir)
	batch := trades("ack", 500, 5)
	batch = append(batch, batch[3])          // a duplicate within the batch
	batch = append(batch, analytics.Trade{}) // rejected
	res := mustIngest(t, in, batch)
	if res.Accepted != 500 || res.Duplicates != 1 || res.Rejected != 1 {
		t.Fatalf("first send: %+v", res)
	}
	st := openStore(t, dir)
	n := 0
	if err := st.ScanTrades(context.Background(), 0, 0, func(c []storage.StoredTrade) error { n += len(c); return nil }); err != nil || n != 500 {
		t.Fatalf("stored %d trades, %v; want 500", n, err)
	}

	// A restart without any candle save: everything comes from the trades.
	eng2, in2 := server(t, dir)
	if vol, count, win := totals(eng2, 5); vol != 1000 || count != 500 || win != 500 {
		t.Fatalf("after restart: candle volume %g, candle trades %d, window trades %d; want 1000, 500, 500", vol, count, win)
	}
	if res := mustIngest(t, in2, batch[:500]); res.Accepted != 0 || res.Duplicates != 500 {
		t.Fatalf("re-send after restart: %+v; want 500 duplicates", res)
	}
	if vol, count, _ := totals(eng2, 5); vol != 1000 || count != 500 {
		t.Fatalf("after re-send: candle volume %g, trades %d", vol, count)
	}
}

// Candles saved with the mark are not counted twice; trades stored after
// the last save are re-applied to them.
func TestCandlesAfterCrash(t *testing.T) {
	dir := t.TempDir()
	_, in := server(t, dir)
	mustIngest(t, in, trades("one", 300, 4))
	if n, err := in.Flush(context.Background()); err != nil || n == 0 {
		t.Fatalf("flush: %d, %v", n, err)
	}
	mustIngest(t, in, trades("two", 200, 4)) // acknowledged, candles not saved: "kill -9"

	eng2, in2 := server(t, dir)
	if vol, count, win := totals(eng2, 4); vol != 1000 || count != 500 || win != 500 {
		t.Fatalf("after crash: candle volume %g, trades %d, window trades %d; want 1000, 500, 500", vol, count, win)
	}
	// Saved now, a third start must read the same totals.
	if _, err := in2.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	eng3, _ := server(t, dir)
	if vol, count, win := totals(eng3, 4); vol != 1000 || count != 500 || win != 500 {
		t.Fatalf("after save and restart: candle volume %g, trades %d, window trades %d; want 1000, 500, 500", vol, count, win)
	}
}

// Trades another process stored (ingest replay) reach a running engine:
// by CatchUp, and before the engine's own next batch.
func TestOtherWritersCaughtUp(t *testing.T) {
	dir := t.TempDir()
	eng, in := server(t, dir)
	wEng, writer := storeOnlyWriter(t, dir)
	if res := mustIngest(t, writer, trades("replay", 100, 2)); res.Accepted != 100 {
		t.Fatalf("writer: %+v", res)
	}
	if vol, _, _ := totals(wEng, 2); vol != 0 {
		t.Fatalf("store-only writer applied trades to its engine: volume %g", vol)
	}
	if n, err := in.CatchUp(context.Background()); err != nil || n != 100 {
		t.Fatalf("CatchUp: %d, %v; want 100", n, err)
	}
	mustIngest(t, writer, trades("replay2", 50, 2))
	mustIngest(t, in, trades("own", 50, 2)) // catches up on replay2 first
	if vol, count, _ := totals(eng, 2); vol != 400 || count != 200 {
		t.Fatalf("candle volume %g, trades %d; want 400, 200", vol, count)
	}
	if n, _ := in.CatchUp(context.Background()); n != 0 {
		t.Fatalf("second CatchUp applied %d again", n)
	}
}

func TestRetentionBounds(t *testing.T) {
	eng, _ := analytics.New(analytics.Config{})
	if _, err := ingest.New(eng, nil, ingest.Config{Retention: 12 * time.Hour}); err == nil {
		t.Fatal("12h retention accepted")
	}
	in, err := ingest.New(eng, nil, ingest.Config{})
	if err != nil || in.Retention() != ingest.DefaultRetention {
		t.Fatalf("default retention: %v, %v", in.Retention(), err)
	}
}

// BenchmarkRebuild rebuilds an engine from 200,000 stored trades over
// 1,000 mints and 20,000 wallets, stored in block-time order over the last
// 23 h (one in ten up to 2 minutes late), on SQLite, without a candle save:
// every trade is re-applied to the candles too.
func BenchmarkRebuild(b *testing.B) {
	dir := b.TempDir()
	st := openStore(&testing.T{}, dir)
	const n = 200_000
	batch := make([]analytics.Trade, 0, 5000)
	for i := range n {
		batch = append(batch, analytics.Trade{Signature: fmt.Sprintf("bench-%d", i), Slot: int64(i), BlockTime: now.Unix() - 23*3600 + int64(i)*23*3600/n - int64(i%10/9*(i%120)),
			Mint: address("mint", i%1000), Side: analytics.SideBuy, TokenAmount: 10, USDAmount: 2, PriceUSD: 0.2,
			Wallet: address("wallet", i%20000), Venue: "TestVenue"})
		if len(batch) == cap(batch) {
			if _, err := st.InsertTrades(context.Background(), batch, now); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	b.ResetTimer()
	for b.Loop() {
		eng, _ := analytics.New(analytics.Config{Clock: clock, NoDedupe: true})
		in, _ := ingest.New(eng, st, ingest.Config{Clock: clock})
		s, err := in.Rebuild(context.Background())
		if err != nil || s.Trades != n {
			b.Fatal(s, err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "trades/s")
}

// An invalid stored candle (a +Inf volume, what two usdAmount 1e308
// trades left before the value bounds) no longer stops the start: the
// row is skipped, counted in one summary line, and the valid rows load.
func TestRebuildSkipsInvalidStoredCandles(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	mint := address("mint", 0)
	hour := now.Truncate(time.Hour).Add(-time.Hour).Unix()
	row := func(t int64, vol float64) analytics.CandleUpdate {
		return analytics.CandleUpdate{Mint: mint, Interval: "1H", CandleRow: analytics.CandleRow{
			Candle: market.Candle{Time: t, Open: 1, High: 1, Low: 1, Close: 1, Volume: vol}, Trades: 2}}
	}
	if err := st.UpsertCandles(context.Background(), []analytics.CandleUpdate{row(hour-3600, 10), row(hour, math.Inf(1)), row(hour+3600, 1e308)}); err != nil {
		t.Fatal(err)
	}
	eng, err := analytics.New(analytics.Config{Clock: clock, NoDedupe: true})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	in, err := ingest.New(eng, st, ingest.Config{Clock: clock, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	stats, err := in.Rebuild(context.Background())
	if err != nil || stats.Candles != 1 || stats.SkippedCandles != 2 {
		t.Fatalf("Rebuild = %+v, %v; want 1 loaded, 2 skipped", stats, err)
	}
	if !strings.Contains(logs.String(), "invalid stored candles skipped") || !strings.Contains(logs.String(), "skipped=2") {
		t.Errorf("summary line missing:\n%s", logs.String())
	}
	if got := eng.Candles(mint, "1H", 0, hour+7200); len(got) != 1 || got[0].Volume != 10 {
		t.Errorf("loaded %v", got)
	}
}

// Concurrent batches are stored in parallel and applied once each, in seq
// order, with gaps in the seqs (duplicates use seqs up, another process
// stores between them) closed from the store; each reply comes after its
// batch is in the engine.
func TestConcurrentBatchesAppliedOnceInOrder(t *testing.T) {
	dir := t.TempDir()
	eng, in := server(t, dir)
	_, writer := storeOnlyWriter(t, dir)
	const senders, batches, size = 6, 12, 40
	// Sender s trades mint s only; the other writer trades mint senders.
	batch := func(s, b int) []analytics.Trade {
		out := trades(fmt.Sprintf("s%d-b%d", s, b), size, 1)
		for i := range out {
			out[i].Mint = address("mint", s)
		}
		return out
	}
	var wg sync.WaitGroup
	errs := make(chan error, senders+1)
	for s := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				if _, err := in.Ingest(context.Background(), batch(s, b)); err != nil {
					errs <- err
					return
				}
				if b > 0 { // a re-send: duplicates only, seqs used up
					if res, err := in.Ingest(context.Background(), batch(s, b-1)); err != nil || res.Accepted != 0 {
						errs <- fmt.Errorf("re-send: %+v, %v", res, err)
						return
					}
				}
				w := eng.Windows(address("mint", s), now)
				if w == nil || w.Trade24h != int64((b+1)*size) {
					errs <- fmt.Errorf("sender %d after batch %d: window %+v, want %d trades", s, b, w, (b+1)*size)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for b := range batches {
			if _, err := writer.Ingest(context.Background(), batch(senders, b)); err != nil {
				errs <- err
				return
			}
		}
	}()
	// The periodic catch-up runs meanwhile: it reads committed batches
	// still waiting for their turn, which must then not apply twice.
	stop := make(chan struct{})
	caught := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				caught <- nil
				return
			default:
			}
			if _, err := in.CatchUp(context.Background()); err != nil {
				caught <- err
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	if err := <-caught; err != nil {
		t.Fatal(err)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, err := in.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := int64((senders + 1) * batches * size)
	if vol, count, win := totals(eng, senders+1); vol != float64(2*want) || count != want || win != want {
		t.Fatalf("candle volume %g, trades %d, window trades %d; want %d, %d, %d", vol, count, win, 2*want, want, want)
	}
}

// A stored candle skipped as invalid at start is rebuilt from the stored
// trades of its bar: those at or below the candle mark (which Rebuild
// otherwise only warms the windows with) as well as those above it, so
// the rebuilt bar equals the one the engine had before the restart (and
// is saved again at the next flush, replacing the bad row).
func TestRebuildRecandlesSkippedCandles(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		intervals []market.Interval
	}{
		{"1D", []market.Interval{"1D"}},
		{"1D and 1W", []market.Interval{"1D", "1W"}},
		{"every interval", market.Intervals},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			eng1, in := server(t, dir)
			mustIngest(t, in, trades("one", 300, 4))
			if _, err := in.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			mustIngest(t, in, trades("two", 200, 4)) // above the mark

			st := openStore(t, dir)
			rows, _, err := st.CandleState(ctx)
			if err != nil {
				t.Fatal(err)
			}
			mint := address("mint", 0)
			var bad []analytics.CandleUpdate
			for _, r := range rows {
				if r.Mint == mint && slices.Contains(tc.intervals, r.Interval) {
					r.Volume = math.Inf(1) // what two 1e308 trades left before the value bounds
					bad = append(bad, r)
				}
			}
			if len(bad) == 0 {
				t.Fatal("no stored candle to spoil")
			}
			if err := st.UpsertCandles(ctx, bad); err != nil {
				t.Fatal(err)
			}

			for round := range 2 { // the restart, then one after its flush
				eng2, in2 := server(t, dir)
				for _, iv := range tc.intervals {
					want := eng1.Candles(mint, iv, 0, now.Unix()+86400*7)
					got := eng2.Candles(mint, iv, 0, now.Unix()+86400*7)
					if !slices.Equal(got, want) {
						t.Errorf("round %d, %s candles of mint 0:\n got %v\nwant %v", round, iv, got, want)
					}
				}
				if _, err := in2.Flush(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if rows, _, err := st.CandleState(ctx); err != nil {
				t.Fatal(err)
			} else {
				for _, r := range rows {
					if math.IsInf(r.Volume, 0) {
						t.Errorf("bad row still stored after the flush: %+v", r)
					}
				}
			}
		})
	}
}
