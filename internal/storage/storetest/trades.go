package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/storage/codec"
	"github.com/google/go-cmp/cmp"
)

// TradeTests are the conformance tests of the trade store (ingest.Store);
// Run runs them too.
var TradeTests = []struct {
	Name string
	Fn   func(*testing.T, Harness)
}{
	{"TradesInsertDedupe", testTradesInsertDedupe},
	{"TradesLegs", testTradesLegs},
	{"TradesRoundTripAndScan", testTradesScan},
	{"TradesCommitOrder", testTradesCommitOrder},
	{"TradesRetention", testTradesRetention},
	{"TradesCandleMark", testTradesCandleMark},
	{"TradesNotify", testTradesNotify},
	{"TradeSourceCursor", testTradeSourceCursor}, // tradesource.go
}

func tradeStore(t *testing.T, s Store) ingest.Store {
	t.Helper()
	ts, ok := s.(ingest.Store)
	if !ok {
		t.Fatalf("%T does not implement ingest.Store", s)
	}
	return ts
}

// synthTrade is a visibly synthetic stored trade (the store does not
// validate; the engine does before storing).
func synthTrade(sig string, i int) analytics.Trade {
	return analytics.Trade{Signature: sig, Slot: int64(1000 + i), BlockTime: t0.Unix() + int64(i), Mint: "synthetic-mint",
		Side: analytics.SideSell, TokenAmount: 2.5 + float64(i), USDAmount: 10.25, PriceUSD: 4.1, Wallet: "synthetic-wallet",
		Venue: "TestVenue", FlowSource: "test-flow", FeeUSD: 0.01, IsBot: i%2 == 0}
}

func synthTrades(prefix string, n int) []analytics.Trade {
	out := make([]analytics.Trade, n)
	for i := range out {
		out[i] = synthTrade(fmt.Sprintf("%s-%06d", prefix, i), i)
	}
	return out
}

func mustInsert(t *testing.T, s ingest.Store, trades []analytics.Trade, now time.Time) storage.TradeInsert {
	t.Helper()
	res, err := s.InsertTrades(context.Background(), trades, now)
	if err != nil {
		t.Fatalf("InsertTrades: %v", err)
	}
	return res
}

func scanAll(t *testing.T, s ingest.Store, after int64) []ingest.StoredTrade {
	t.Helper()
	var out []ingest.StoredTrade
	if err := s.ScanTrades(context.Background(), after, 0, func(c []ingest.StoredTrade) error {
		out = append(out, c...)
		return nil
	}); err != nil {
		t.Fatalf("ScanTrades: %v", err)
	}
	return out
}

func testTradesInsertDedupe(t *testing.T, h Harness) {
	st, another := h.Fresh(t)
	s := tradeStore(t, st)
	a, b, c := synthTrade("sig-a", 0), synthTrade("sig-b", 1), synthTrade("sig-c", 2)
	// A signature twice in one batch: the first wins.
	b2 := b
	b2.USDAmount = 99
	res := mustInsert(t, s, []analytics.Trade{a, b, b2}, t0)
	if d := cmp.Diff([]bool{true, true, false}, res.Inserted); d != "" || res.Count != 2 || res.First <= 0 || res.Last <= res.First {
		t.Fatalf("first insert: %+v", res)
	}
	// Re-sent with one new trade, through another handle (another
	// process): only the new one is stored.
	res2 := mustInsert(t, tradeStore(t, another()), []analytics.Trade{b, c, a}, t0)
	if d := cmp.Diff([]bool{false, true, false}, res2.Inserted); d != "" || res2.Count != 1 || res2.First != res2.Last || res2.First <= res.Last {
		t.Fatalf("re-send: %+v (first batch ended at %d)", res2, res.Last)
	}
	if res3 := mustInsert(t, s, []analytics.Trade{c}, t0); res3.Count != 0 || res3.Inserted[0] || res3.First != 0 || res3.Last != 0 {
		t.Fatalf("duplicate only: %+v", res3)
	}
	got := scanAll(t, s, 0)
	if len(got) != 3 || got[1].Signature != "sig-b" || got[1].USDAmount != b.USDAmount {
		t.Fatalf("stored: %+v", got)
	}
}

// A trade's identity is (signature, leg): two legs of one transaction are
// two trades (a route with two USDC legs of one token keeps both), a
// repeated (signature, leg) is a duplicate in the batch and across
// handles, and leg, pool and program round-trip.
func testTradesLegs(t *testing.T, h Harness) {
	st, another := h.Fresh(t)
	s := tradeStore(t, st)
	leg0 := synthTrade("route", 0)
	leg1 := synthTrade("route", 1)
	// Stored trades come back with the price rules' decision: accepted.
	leg0.Admission, leg1.Admission = analytics.AdmissionAccepted, analytics.AdmissionAccepted
	leg1.Leg, leg1.Mint = 1, leg0.Mint
	leg1.Pool = "8BnEgHoWFysVcuFFX7QztDmzuH8r5ZFvyP3sYwn1XTh6"
	leg1.Program = "srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX"
	res := mustInsert(t, s, []analytics.Trade{leg0, leg1, leg1}, t0)
	if d := cmp.Diff([]bool{true, true, false}, res.Inserted); d != "" || res.Count != 2 {
		t.Fatalf("legs: %+v", res)
	}
	leg2 := leg1
	leg2.Leg = 2
	res = mustInsert(t, tradeStore(t, another()), []analytics.Trade{leg1, leg2, leg0}, t0)
	if d := cmp.Diff([]bool{false, true, false}, res.Inserted); d != "" || res.Count != 1 {
		t.Fatalf("re-send with leg 2: %+v", res)
	}
	got := scanAll(t, s, 0)
	if len(got) != 3 {
		t.Fatalf("stored %d trades, want 3", len(got))
	}
	for i, want := range []analytics.Trade{leg0, leg1, leg2} {
		if d := cmp.Diff(want, got[i].Trade); d != "" {
			t.Errorf("trade %d (-in +stored):\n%s", i, d)
		}
	}
}

func testTradesScan(t *testing.T, h Harness) {
	st, _ := h.Fresh(t)
	s := tradeStore(t, st)
	in := synthTrades("scan", codec.TradeBatchRows+1500) // more than one chunk
	// The price rules' decision is stored with each trade (docs/prices.md).
	for i := range in {
		in[i].Admission = [...]analytics.Admission{analytics.AdmissionAccepted, analytics.AdmissionDust, analytics.AdmissionOutlier}[i%3]
	}
	res := mustInsert(t, s, in, t0)
	if res.Count != len(in) {
		t.Fatalf("inserted %d of %d", res.Count, len(in))
	}
	var chunks int
	var got []ingest.StoredTrade
	err := s.ScanTrades(context.Background(), 0, 0, func(c []ingest.StoredTrade) error {
		chunks++
		if len(c) > codec.TradeBatchRows {
			t.Fatalf("chunk of %d rows", len(c))
		}
		got = append(got, c...)
		return nil
	})
	if err != nil || chunks < 2 || len(got) != len(in) {
		t.Fatalf("scan: %d rows in %d chunks, %v", len(got), chunks, err)
	}
	for i := range got {
		if i > 0 && got[i].Seq <= got[i-1].Seq {
			t.Fatalf("seq not ascending at %d", i)
		}
		if d := cmp.Diff(in[i], got[i].Trade); d != "" {
			t.Fatalf("trade %d (-in +stored):\n%s", i, d)
		}
	}
	// Bounds are exclusive.
	mid := got[100].Seq
	var n int
	_ = s.ScanTrades(context.Background(), got[0].Seq, mid, func(c []ingest.StoredTrade) error { n += len(c); return nil })
	if n != 99 {
		t.Fatalf("scan (first, mid): %d rows; want 99", n)
	}
}

// A reader that follows the seq (scan after the highest seq seen) never
// misses a trade, whatever the concurrent writers do: seqs commit in
// ascending order.
func testTradesCommitOrder(t *testing.T, h Harness) {
	_, another := h.Fresh(t)
	const writers, batches, per = 4, 15, 40
	var wg sync.WaitGroup
	stop := make(chan struct{})
	seen := map[string]bool{}
	seqOf := map[string]int64{}
	type sent struct {
		batch []analytics.Trade
		res   storage.TradeInsert
	}
	var sentMu sync.Mutex
	var all []sent
	var readErr error
	reader := tradeStore(t, another())
	readerDone := make(chan struct{})
	var cursor int64
	follow := func() error {
		return reader.ScanTrades(context.Background(), cursor, 0, func(c []ingest.StoredTrade) error {
			for _, tr := range c {
				if seen[tr.Signature] {
					return fmt.Errorf("%s seen twice", tr.Signature)
				}
				seen[tr.Signature] = true
				seqOf[tr.Signature] = tr.Seq
			}
			cursor = c[len(c)-1].Seq
			return nil
		})
	}
	go func() {
		defer close(readerDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := follow(); err != nil {
				readErr = err
				return
			}
		}
	}()
	for w := range writers {
		s := tradeStore(t, another())
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range batches {
				batch := synthTrades(fmt.Sprintf("w%d-b%d", w, b), per)
				if b > 0 { // one duplicate of the previous batch each time
					batch = append(batch, synthTrade(fmt.Sprintf("w%d-b%d-%06d", w, b-1, 0), 0))
				}
				res, err := s.InsertTrades(context.Background(), batch, t0)
				if err != nil {
					t.Error(err)
					return
				}
				sentMu.Lock()
				all = append(all, sent{batch, res})
				sentMu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-readerDone
	if readErr != nil {
		t.Fatal(readErr)
	}
	if err := follow(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != writers*batches*per {
		t.Fatalf("follower saw %d trades; want %d", len(seen), writers*batches*per)
	}
	// What InsertTrades reported is what was stored: the inserted trades
	// hold ascending seqs in batch order from First to Last, the others
	// were stored before.
	for _, b := range all {
		prev := int64(0)
		for i, tr := range b.batch {
			seq, ok := seqOf[tr.Signature]
			switch {
			case !ok:
				t.Fatalf("%s never stored", tr.Signature)
			case !b.res.Inserted[i]:
				if seq >= b.res.First {
					t.Fatalf("%s reported a duplicate, stored at seq %d inside the batch's [%d, %d]", tr.Signature, seq, b.res.First, b.res.Last)
				}
			case seq <= prev || seq < b.res.First || seq > b.res.Last:
				t.Fatalf("%s stored at seq %d; batch reported [%d, %d], previous inserted seq %d", tr.Signature, seq, b.res.First, b.res.Last, prev)
			default:
				prev = seq
			}
		}
		if prev != b.res.Last {
			t.Fatalf("batch's last inserted seq %d; reported %d", prev, b.res.Last)
		}
	}
}

func testTradesRetention(t *testing.T, h Harness) {
	st, _ := h.Fresh(t)
	s := tradeStore(t, st)
	ctx := context.Background()
	old := mustInsert(t, s, synthTrades("old", 30), t0)
	recent := mustInsert(t, s, synthTrades("recent", 20), t0.Add(2*time.Hour))
	if seq, err := s.TradeSeqBefore(ctx, t0.Add(time.Hour)); err != nil || seq != old.Last {
		t.Fatalf("TradeSeqBefore(t0+1h) = %d, %v; want %d", seq, err, old.Last)
	}
	if seq, _ := s.TradeSeqBefore(ctx, t0); seq != 0 {
		t.Fatalf("TradeSeqBefore(t0) = %d; want 0", seq)
	}
	// Nothing is pruned that the candle mark does not cover.
	if n, err := s.PruneTrades(ctx, t0.Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("prune without mark: %d, %v; want 0", n, err)
	}
	if ok, err := s.SaveCandles(ctx, nil, recent.Last); err != nil || !ok {
		t.Fatalf("SaveCandles: %v, %v", ok, err)
	}
	if n, err := s.PruneTrades(ctx, t0.Add(time.Hour)); err != nil || n != 30 {
		t.Fatalf("prune: %d, %v; want 30", n, err)
	}
	if got := scanAll(t, s, 0); len(got) != 20 || got[0].Signature != "recent-000000" {
		t.Fatalf("after prune: %d trades", len(got))
	}
	// Past the retention a signature is forgotten: stored again.
	if res := mustInsert(t, s, synthTrades("old", 1), t0.Add(3*time.Hour)); res.Count != 1 {
		t.Fatalf("re-insert after retention: %+v", res)
	}
}

func testTradesCandleMark(t *testing.T, h Harness) {
	st, another := h.Fresh(t)
	s := tradeStore(t, st)
	ctx := context.Background()
	c := func(close float64, trades int64) analytics.CandleUpdate {
		return analytics.CandleUpdate{Mint: "synthetic-mint", Interval: "1m",
			CandleRow: analytics.CandleRow{Candle: market.Candle{Time: 60, Open: 1, High: 3, Low: 0.5, Close: close, Volume: 10}, Trades: trades},
			OpenRef:   analytics.TradeRef{BlockTime: 60, Slot: 1, Signature: "o"}, CloseRef: analytics.TradeRef{BlockTime: 61, Slot: 2, Signature: "c"}}
	}
	if rows, mark, err := s.CandleState(ctx); err != nil || len(rows) != 0 || mark != 0 {
		t.Fatalf("empty state: %v, %d, %v", rows, mark, err)
	}
	// The same candle twice in one save: the later row wins.
	if ok, err := s.SaveCandles(ctx, []analytics.CandleUpdate{c(1.5, 3), c(2, 4)}, 10); err != nil || !ok {
		t.Fatalf("save through 10: %v, %v", ok, err)
	}
	if rows, _, _ := s.CandleState(ctx); len(rows) != 1 || rows[0].Close != 2 || rows[0].Trades != 4 {
		t.Fatalf("after a save with a repeated candle: %+v", rows)
	}
	// Another process with an older mark saves nothing.
	other := tradeStore(t, another())
	if ok, err := other.SaveCandles(ctx, []analytics.CandleUpdate{c(9, 1)}, 5); err != nil || ok {
		t.Fatalf("save through 5 after 10: %v, %v; want refused", ok, err)
	}
	if ok, err := other.SaveCandles(ctx, []analytics.CandleUpdate{c(2.5, 6)}, 12); err != nil || !ok {
		t.Fatalf("save through 12: %v, %v", ok, err)
	}
	rows, mark, err := s.CandleState(ctx)
	if err != nil || mark != 12 {
		t.Fatalf("state: mark %d, %v; want 12", mark, err)
	}
	if d := cmp.Diff([]analytics.CandleUpdate{c(2.5, 6)}, rows); d != "" {
		t.Fatalf("candles (-want +got):\n%s", d)
	}
}

func testTradesNotify(t *testing.T, h Harness) {
	st, _ := h.Fresh(t)
	s := tradeStore(t, st)
	ctx := context.Background()
	v0, _ := st.Versions(ctx)
	if err := s.NotifyTrades(ctx); err != nil {
		t.Fatal(err)
	}
	v1, _ := st.Versions(ctx)
	if v1[storage.TopicTrades] <= v0[storage.TopicTrades] {
		t.Fatalf("trades version %d -> %d; want increase", v0[storage.TopicTrades], v1[storage.TopicTrades])
	}
}
